// Scalar expressions that reuse a subexpression (a graph, not a tree) and very
// deep ones: written out as trees they double in size with every reuse, so
// the printer's inline form is capped and the structural form writes each
// distinct subexpression once.
#include <fusebox/ir/fusion.h>
#include <fusebox/ir/ops.h>
#include <fusebox/ir/printer.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "support/deep_chains.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// s, then s * s, 60 times: 2^60 leaves as a tree.
Val* squaredTimes(Val* s, int times) {
  for (int k = 0; k < times; ++k) s = mul(s, s);
  return s;
}

// A fusion whose output T1 = set(T0) has extent `make_extent(i0)`, where i0
// is T0's extent.
std::unique_ptr<Fusion> withExtent(const std::function<Val*(Val*)>& make_extent) {
  auto f = std::make_unique<Fusion>();
  TensorView* t0 = defineSymbolicTensor(*f, 1);
  auto* extent = make_extent(t0->axis(0)->extent())->as<Scalar>();
  TensorView* t1 = f->newTensor({f->newIterDomain(extent, IterType::Iteration)}, DataType::Float);
  f->newExpr(OpType::Set, {t0}, {t1});
  f->addOutput(t1);
  return f;
}

TEST(SharedSubexpressions, InlineFormOfARepeatedSubexpressionIsCapped) {
  Fusion f;
  Val* s = squaredTimes(defineScalar(f, DataType::Int64), 60);
  const std::string text = s->as<Scalar>()->inlineString();
  EXPECT_THAT(text, StartsWith("( ( ( ( "));
  EXPECT_LT(text.size(), 4000u);
  // Past the cap, operands print by name.
  EXPECT_THAT(text, HasSubstr(" * i"));
}

TEST(SharedSubexpressions, InlineFormOfAShortTreeIsWrittenOut) {
  Fusion f;
  Val* s = defineScalar(f, DataType::Int64);
  std::string expected = s->toString();
  for (int k = 1; k <= 50; ++k) {
    s = add(s, f.constantInt(k));
    expected = fmt::format("( {} + {} )", expected, k);
  }
  EXPECT_EQ(s->as<Scalar>()->inlineString(), expected);
}

TEST(SharedSubexpressions, InlineFormOfAVeryDeepChainIsCapped) {
  auto f = deep_chains::scalarChain(deep_chains::kDeepChainLength);
  const Expr* last = f->exprs().back();  // T1 = T0 + s
  const std::string text = last->input(1)->as<Scalar>()->inlineString();
  EXPECT_THAT(text, StartsWith("( ( ( "));
  EXPECT_LT(text.size(), 4000u);
  const std::string printed = printFusion(*f);
  EXPECT_LT(printed.size(), 8000u);
}

TEST(SharedSubexpressions, SharedAndRepeatedExtentsAreStructurallyEqual) {
  // (i0 + 1) * (i0 + 1), once with one node for i0 + 1 and once with two.
  auto shared = withExtent([](Val* i0) {
    Val* a = add(i0, i0->fusion()->constantInt(1));
    return mul(a, a);
  });
  auto repeated = withExtent([](Val* i0) {
    Fusion& f = *i0->fusion();
    return mul(add(i0, f.constantInt(1)), add(i0, f.constantInt(1)));
  });
  auto other = withExtent([](Val* i0) {
    Fusion& f = *i0->fusion();
    return mul(add(i0, f.constantInt(1)), add(i0, f.constantInt(2)));
  });
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*shared, *repeated, &why)) << why;
  EXPECT_EQ(shared->structuralHash(), repeated->structuralHash());
  EXPECT_FALSE(Fusion::structurallyEqual(*shared, *other, &why));
  EXPECT_THAT(why, HasSubstr("differs"));
  EXPECT_NE(shared->structuralHash(), other->structuralHash());
}

TEST(SharedSubexpressions, HashOfARepeatedSubexpressionGraph) {
  auto f = withExtent([](Val* i0) { return squaredTimes(i0, 60); });
  auto copy = f->clone();
  EXPECT_EQ(f->structuralHash(), copy->structuralHash());
  EXPECT_TRUE(Fusion::structurallyEqual(*f, *copy));
  auto fewer = withExtent([](Val* i0) { return squaredTimes(i0, 59); });
  EXPECT_FALSE(Fusion::structurallyEqual(*f, *fewer));
}

TEST(SharedSubexpressions, PrinterOfReshapesWhoseExtentsReuseEachOther) {
  auto f = deep_chains::symbolicReshapeChain(3 * 60);  // 60 reshapes
  const std::string text = printFusion(*f, {.transforms = true});
  EXPECT_LT(text.size(), 2000000u);
  EXPECT_THAT(text, HasSubstr("T60_g"));
  EXPECT_THAT(text, Not(HasSubstr("T61_g")));
}

}  // namespace
}  // namespace fusebox

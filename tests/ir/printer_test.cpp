// The IR printer's notation.
#include <fusebox/ir/ops.h>
#include <fusebox/ir/printer.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Printer, Issue785ExampleInNvfuserNotation) {
  // The small fusion of nvFuser issue 785: a sum over two axes and a pow.
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  auto* t1 = defineSymbolicTensor(f, 3);
  auto* s = sum(t0, {0, 1});
  auto* p = pow(t1, f.constantDouble(3.0));
  f.addOutput(s);
  f.addOutput(p);
  std::string ir = printFusion(f);
  std::string t0s = t0->domainString();
  EXPECT_EQ(t0s, fmt::format("T{}_g[ iS{}{{{}}}, iS{}{{{}}}, iS{}{{{}}} ]", t0->name(),
                             t0->axis(0)->name(), t0->axis(0)->extent()->toString(),
                             t0->axis(1)->name(), t0->axis(1)->extent()->toString(),
                             t0->axis(2)->name(), t0->axis(2)->extent()->toString()));
  EXPECT_THAT(ir, HasSubstr("Inputs:\n  " + t0s + ", float\n"));
  // The reduction output keeps its reduced axes, marked r, with the input's extents.
  EXPECT_THAT(s->domainString(), HasSubstr("rS"));
  EXPECT_THAT(s->domainString(), HasSubstr("{" + t0->axis(0)->extent()->toString() + "}"));
  EXPECT_THAT(ir, HasSubstr("Outputs:\n  " + s->domainString() + ", float\n"));
  EXPECT_THAT(ir, HasSubstr("= reduction( " + t0s + ", op = add, initial value = float(0)"));
  EXPECT_THAT(ir, HasSubstr("= pow(" + t1->domainString() + "\n  , double(3));"));
  EXPECT_THAT(ir, HasSubstr("%kernel_math {\n"));
}

TEST(Printer, IterTypesAndExpandedExtents) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, 1}, DataType::Half);
  auto* e = expand(t0, {f.constantInt(-1), f.constantInt(7)});
  f.addOutput(e);
  EXPECT_THAT(t0->axis(1)->toString(), ::testing::MatchesRegex("bS[0-9]+\\{1\\}"));
  EXPECT_THAT(e->axis(1)->toString(), ::testing::MatchesRegex("bS[0-9]+\\{1 ex 7\\}"));
  EXPECT_THAT(printFusion(f), HasSubstr("], __half\n"));
}

TEST(Printer, DerivedExtentsPrintInline) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* r = reshape(t0, {f.constantInt(-1)});
  f.addOutput(r);
  std::string extent = r->axis(0)->extent()->inlineString();
  EXPECT_EQ(extent, fmt::format("( {} * {} )", t0->axis(0)->extent()->toString(),
                                t0->axis(1)->extent()->toString()));
  std::string ir = printFusion(f);
  EXPECT_THAT(ir, HasSubstr("view( "));
  EXPECT_THAT(ir, HasSubstr(extent));
  // The scalar multiply is not a line of its own in %kernel_math.
  EXPECT_THAT(ir, Not(HasSubstr("\ni")));
}

TEST(Printer, TransformSectionOnRequest) {
  Fusion f;
  auto* t0 = defineTensor(f, {-1, -1}, DataType::Float, {true, false}, {0, 1});
  auto* t1 = neg(t0);
  f.addOutput(t1);
  f.setRequiredStrideOrder(t1, {0, 1});
  EXPECT_THAT(printFusion(f), Not(HasSubstr("%transforms")));
  std::string ir = printFusion(f, {.transforms = true});
  EXPECT_THAT(ir, HasSubstr("%transforms {"));
  EXPECT_THAT(ir, HasSubstr(fmt::format("  allocation: [ {}, {} ]\n", t0->axis(1)->toString(),
                                        t0->axis(0)->toString())));
  EXPECT_THAT(ir, HasSubstr("  contiguity: t f\n"));
  EXPECT_THAT(ir, HasSubstr("  required stride order: [0, 1]\n"));
  EXPECT_THAT(ir, HasSubstr("stride_order = [0, 1]"));  // in the Outputs section
}

TEST(Printer, ConstantsCarryTheirType) {
  Fusion f;
  EXPECT_EQ(f.constantDouble(0.5)->toString(), "double(0.5)");
  EXPECT_EQ(f.constant(0.0, DataType::Float)->toString(), "float(0)");
  EXPECT_EQ(f.constantInt(4)->toString(), "4");
  EXPECT_EQ(f.constantBool(true)->toString(), "true");
  auto* s = f.newScalar(DataType::Double);
  EXPECT_EQ(s->toString(), fmt::format("d{}", s->name()));
}

}  // namespace
}  // namespace fusebox

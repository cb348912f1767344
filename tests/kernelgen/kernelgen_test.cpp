// The kernel-generation library the schedulers share (schedulers/common/
// kernelgen), used directly: parameter slots, iteration spaces with the
// caller's index names, a placement of the caller's, and a reduction-shaped
// kernel (the walk stopped at a value source) run on the host backend
// against the reference evaluator.
#include <fusebox/backend/host_backend.h>
#include <fusebox/eval/tolerance.h>
#include <fusebox/ir/ops.h>
#include <fusebox/kernel_launch.h>
#include <fusebox/runtime.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <random>

#include "kernel_ir/print_cuda.h"
#include "kernelgen/element_writer.h"
#include "support/output_match.h"

namespace {

using namespace fusebox;
using namespace fusebox::kernelgen;

Tensor randomFloats(std::vector<int64_t> sizes, uint32_t seed) {
  Tensor t = Tensor::empty(DataType::Float, sizes);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  for (int64_t r = 0; r < sizes[0]; ++r)
    for (int64_t c = 0; c < sizes[1]; ++c) t.setDouble({r, c}, real(gen));
  return t;
}

std::vector<ArgumentInfo> infosOf(const std::vector<Argument>& inputs) {
  std::vector<ArgumentInfo> infos;
  for (const Argument& a : inputs) infos.push_back(argumentInfo(a));
  return infos;
}

TEST(KernelgenParams, SlotsNamesAndScratch) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1}, DataType::Float);
  Scalar* alpha = defineScalar(f, DataType::Double);
  TensorView* h = defineTensor(f, {-1}, DataType::Half);
  Scalar* n = defineScalar(f, DataType::Int64);
  f.addOutput(add(mul(x, alpha), n));
  f.addOutput(castOp(DataType::Half, add(h, x)));
  ParamLayout params(f);
  EXPECT_EQ(params.inputPointer(x), "in0");
  EXPECT_EQ(params.inputPointer(h), "in1");
  EXPECT_EQ(params.outputPointer(1), "out1");
  EXPECT_EQ(kir::printValue(params.scalarParam(alpha)), "p.f64[0]");
  EXPECT_EQ(kir::printValue(params.scalarParam(n)), "p.i64[0]");
  EXPECT_FALSE(params.scalarParam(f.constantInt(3)).defined());
  EXPECT_EQ(params.addScratch(256), "scratch0");
  const auto& b = params.bindings();
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(b[3].source, ParamBinding::Source::InputScalar);
  EXPECT_EQ(b[5].source, ParamBinding::Source::OutputData);
  EXPECT_EQ(b[5].slot, 3);  // in0, in1, out0, out1
  EXPECT_EQ(b[6].source, ParamBinding::Source::ScratchData);
  EXPECT_EQ(b[6].slot, 4);
  EXPECT_EQ(b[6].bytes, 256);
  EXPECT_TRUE(b[6].kept) << "every kernelgen kernel leaves its scratch as it found it";
  kir::Block decl;
  params.declarePointers(decl);
  const std::string text = kir::printCuda(decl);
  EXPECT_NE(text.find("[[maybe_unused]] const fusebox::Half* __restrict__ in1 = "
                      "static_cast<const fusebox::Half*>(p.ptr[1]);"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("void* __restrict__ scratch0 = p.ptr[4];"), std::string::npos) << text;
  EXPECT_EQ(paramLimitProblem(f), "");
  EXPECT_NE(paramLimitProblem(f, 200).find("would need 204 pointers"), std::string::npos);
}

TEST(KernelgenIndex, IterSpaceNamesTheIndexVariables) {
  const IterSpace space = IterSpace::named({4, 1, 8}, "r");
  const Index idx = space.index();
  auto str = [&](const IndexExpr& e) { return kir::printValue(e.value(space)); };
  EXPECT_EQ(str(idx[0]), "r0");
  EXPECT_EQ(str(idx[1]), "0");  // an extent of 1 is always index 0
  EXPECT_EQ(str(linearOffset(idx, {4, 1, 8}, {8, 8, 1}, space)), "r0 * 8 + r2");
  // A reshape that splits a dim reads through division and modulo, as IR.
  const Index split = reshapeIndex(idx, {4, 1, 8}, {16, 2}, space);
  EXPECT_EQ(str(split[0]), "(r0 * 8 + r2) / 2");
  EXPECT_EQ(str(split[1]), "(r0 * 8 + r2) % 2");
  EXPECT_FALSE(split[0].affine);
  EXPECT_EQ(split[0].opaque_value.node().binary_op, kir::BinaryOp::Div);
  // Affine arithmetic on coefficients is checked, never wrapped.
  const IndexExpr wide = idx[0].scaled(0, int64_t{1} << 62, space, "x");
  EXPECT_EQ(wide.a.coef[0], int64_t{1} << 62);
  EXPECT_THROW(wide.scaled(0, 4, space, "x"), UserError);
  EXPECT_THROW(idx[0].plus(INT64_MAX, space, "x").plus(1, space, "x"), UserError);
}

// A placement of the caller's: every load a named variable above the loop.
class HoistAll final : public Placement {
 public:
  kir::Value load(CodeSink& sink, const ElementRef& ref) override {
    refs.push_back(ref);
    return hoisted.declare(sink.newVar("h"), kir::named("float"),
                           kir::subscript(kir::var(ref.pointer), kir::lit(0)), {.is_const = true});
  }
  void store(CodeSink& sink, const ElementRef& ref, const kir::Value& value) override {
    sink.at().assign(kir::subscript(kir::var(ref.pointer), kir::lit(0)), value);
  }
  std::vector<ElementRef> refs;
  kir::Block hoisted;
};

TEST(KernelgenWriter, PlacementGetsEachLoadOnceWithItsOffset) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* y = permute(x, {1, 0});
  f.addOutput(add(y, y));
  // x is [3, 5] in memory; the output (and the iteration space) [5, 3].
  const std::vector<Argument> inputs{randomFloats({3, 5}, 1)};
  RuntimeInfo info(f, infosOf(inputs), {});
  const TensorSizes sizes = tensorSizes(f, info);
  ParamLayout params(f);
  ElementWriter w(f, sizes, params, info, IterSpace::named({5, 3}, "j"));
  HoistAll placement;
  w.storeOutputs({{3, 1}}, placement);
  ASSERT_EQ(placement.refs.size(), 1u);  // y + y reads x once
  EXPECT_EQ(placement.refs[0].offset.a.coef, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(kir::printValue(placement.refs[0].offset.value(w.space())), "j0 + j1 * 5");
  EXPECT_FALSE(placement.refs[0].conditional);
  ASSERT_EQ(w.accesses().size(), 2u);  // the load and the store
  EXPECT_TRUE(w.accesses()[1].is_output);
  const std::string body = kir::printCuda(w.sink.body, 0);
  EXPECT_NE(body.find("out0[0] = "), std::string::npos) << body;
}

// How a reduction scheduler uses the walker: it iterates over the reduction
// input's domain ([rows, cols], named r0, r1), accumulates the prologue's
// value in a register, writes a pointwise output of that domain in the same
// loop, and after the loop writes the epilogue with the reduced tensor's
// value provided as the register: the walk stops there.
TEST(KernelgenWriter, ReductionShapedKernelMatchesTheEvaluator) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  Scalar* scale = defineScalar(f, DataType::Double);
  TensorView* y = mul(x, scale);
  TensorView* s = sum(y, {1});
  f.addOutput(add(s, f.constantDouble(1.0)));
  f.addOutput(exp(y));
  const int64_t rows = 5, cols = 7;
  const std::vector<Argument> inputs{randomFloats({rows, cols}, 2), ScalarValue(0.5)};
  RuntimeInfo info(f, infosOf(inputs), {});
  const TensorSizes sizes = tensorSizes(f, info);
  ParamLayout params(f);
  ElementWriter w(f, sizes, params, info, IterSpace::named({rows, cols}, "r"));
  ScalarPlacement scalar(w.space());

  const kir::Value term = w.value(y, w.space().index(), scalar);
  w.store(1, w.space().index(), {cols, 1}, scalar);
  const kir::Block loop = w.sink.body;
  w.sink.reset();
  w.beginElement();
  w.provide(s, [](const Index&) { return kir::var("acc", kir::named("float")); });
  w.store(0, {IndexExpr::iterDim(0, 2)}, {1}, scalar);
  const kir::Block epilogue = w.sink.body;
  EXPECT_EQ(kir::printCuda(epilogue).find("in0"), std::string::npos) << kir::printCuda(epilogue);

  kir::Block k;
  k.typeAlias("idx_t", kir::named("int64_t"));
  params.declarePointers(k);
  k.append(w.prologue);
  const kir::Value r0 =
      k.declare("r0", kir::indexType(), kir::asIndex(kir::threadIdx('x')), {.is_const = true});
  k.ifThen(r0 >= kir::lit(rows), kir::BodyStyle::SameLine).ret();
  const kir::Value acc = k.declare("acc", kir::named("float"), kir::text("0.0f"));
  kir::Block over_cols = k.forLoop("r1", kir::indexType(), kir::lit(0), kir::lit(cols));
  over_cols.append(loop);
  over_cols.assign(acc, term, "+=");
  k.append(epilogue);
  KernelPlan plan;
  plan.kernel.name = "kernelgen_row_sum";
  plan.kernel.source = fmt::format(
      "#include <fusebox_runtime.cuh>\n"
      "extern \"C\" __global__ void kernelgen_row_sum(fusebox::KernelParams p) {{\n{}}}\n",
      kir::printCuda(k));
  plan.bindings = params.bindings();
  plan.launch.block = {32, 1, 1};
  plan.outputs.push_back({DataType::Float, {rows}, {1}});
  plan.outputs.push_back({DataType::Float, {rows, cols}, {cols, 1}});

  // FUSEBOX_TEST_PRINT_SOURCE=1 shows the kernel (docs/writing-a-scheduler-plugin.md has it).
  if (std::getenv("FUSEBOX_TEST_PRINT_SOURCE") != nullptr) std::cout << plan.kernel.source;
  auto backend = makeHostBackend();
  auto kernel = backend->compile(plan.kernel);
  const std::vector<Tensor> outs = launchKernelPlan(*backend, plan, *kernel, inputs);
  backend->synchronize();
  const std::vector<Argument> want = evaluateFusion(f, inputs);
  const auto tolerances = outputTolerances(f, inputs);
  for (size_t o = 0; o < outs.size(); ++o)
    EXPECT_TRUE(fusebox::testing::matchesWithin(backend->toHost(outs[o]), want[o], tolerances[o]))
        << "output " << o << "\n"
        << plan.kernel.source;
}

}  // namespace

namespace fusebox_approximate_math_test {

using namespace fusebox;
using namespace fusebox::kernelgen;

// An exp or a division may be approximate only when everything it reaches is
// a 16-bit float output: its error is then below the output's rounding.
TEST(KernelgenApproximateMath, OnlyExpsAndDivisionsReachingSixteenBitOutputs) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* xf = castOp(DataType::Float, x);
  TensorView* e1 = exp(xf);  // -> bf16 output only, as its division
  TensorView* d1 = div(e1, sum(e1, {1}, true));
  f.addOutput(castOp(DataType::BFloat16, d1));
  TensorView* e2 = exp(neg(xf));  // -> a half output and a float output
  f.addOutput(castOp(DataType::Half, e2));
  f.addOutput(add(e2, xf));
  TensorView* e3 = exp(mul(xf, xf));  // -> a bool output (a comparison could flip)
  f.addOutput(gt(e3, f.constantDouble(1.5)));
  TensorView* e4 = exp(castOp(DataType::Double, x));  // double math: never
  f.addOutput(castOp(DataType::BFloat16, e4));
  TensorView* d2 = div(xf, add(xf, f.constantDouble(3.0)));  // -> a float output
  f.addOutput(d2);
  const std::unordered_set<const Expr*> fast = approximableExprs(f);
  EXPECT_EQ(fast.size(), 2u);
  EXPECT_EQ(fast.count(e1->definition()), 1u);
  EXPECT_EQ(fast.count(d1->definition()), 1u);
  const kir::Operand a{kir::var("a"), DataType::Float}, b{kir::var("b"), DataType::Float};
  auto unary = [](UnaryOpType op, const kir::Operand& x, DataType out, bool approximate) {
    return kir::printValue(kir::unaryOp(op, x, out, approximate));
  };
  auto binary = [&](BinaryOpType op, DataType out, bool approximate) {
    return kir::printValue(kir::binaryOp(op, a, b, out, approximate));
  };
  EXPECT_EQ(unary(UnaryOpType::Exp, a, DataType::Float, true),
            "fusebox::Cast<float>::from(fusebox::op::exp_approx(a))");
  EXPECT_EQ(unary(UnaryOpType::Exp, a, DataType::Float, false),
            "fusebox::Cast<float>::from(fusebox::op::exp(a))");
  EXPECT_EQ(unary(UnaryOpType::Exp, {kir::var("d"), DataType::Double}, DataType::Double, true),
            "fusebox::Cast<double>::from(fusebox::op::exp(d))");
  EXPECT_EQ(unary(UnaryOpType::Tanh, a, DataType::Float, true),
            "fusebox::Cast<float>::from(fusebox::op::tanh(a))");
  EXPECT_EQ(binary(BinaryOpType::Div, DataType::Float, true),
            "fusebox::Cast<float>::from(fusebox::op::div_approx(a, b))");
  EXPECT_EQ(binary(BinaryOpType::Div, DataType::Float, false),
            "fusebox::Cast<float>::from(fusebox::op::div(a, b))");
  EXPECT_EQ(binary(BinaryOpType::Mul, DataType::Float, true),
            "fusebox::Cast<float>::from(fusebox::op::mul(a, b))");
  // A divisor prepared once (a row's sum): the same division, two multiplies.
  EXPECT_TRUE(kir::dividesApproximately(BinaryOpType::Div, a, b, DataType::Float));
  EXPECT_FALSE(kir::dividesApproximately(BinaryOpType::Mul, a, b, DataType::Float));
  EXPECT_FALSE(kir::dividesApproximately(BinaryOpType::Div, {kir::var("d"), DataType::Double},
                                         {kir::var("e"), DataType::Double}, DataType::Double));
  EXPECT_EQ(kir::printValue(kir::prepareDivisor(b)), "fusebox::op::approx_divisor(b)");
  EXPECT_EQ(kir::printValue(kir::divideByPrepared(kir::var("rdiv0"), a, DataType::BFloat16)),
            "fusebox::Cast<float>::from(fusebox::Cast<fusebox::BFloat16>::from("
            "fusebox::op::div_approx(a, rdiv0)))");
}

// A log-sum-exp's exps may be approximate even for a float output: the log
// makes the terms' relative error an absolute one, the size of the sum's own
// rounding. Only exps that the sum alone reads, of a sum only logs read.
TEST(KernelgenApproximateMath, TermsOfALogSumExpInFloat) {
  auto logOf = [](TensorView* t) { return unaryOp(UnaryOpType::Log, t); };
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* xf = castOp(DataType::Float, x);
  TensorView* shifted = sub(xf, max(xf, {1}, true));
  TensorView* terms = exp(shifted);  // only the logged sum reads it
  TensorView* lse = logOf(sum(terms, {1}));
  f.addOutput(lse);
  TensorView* e2 = exp(mul(xf, xf));  // summed, and the sum is also an output
  TensorView* s2 = sum(e2, {1});
  f.addOutput(logOf(s2));
  f.addOutput(s2);
  TensorView* e3 = exp(neg(xf));  // a logged sum's term, and a float output
  f.addOutput(logOf(sum(e3, {1})));
  f.addOutput(e3);
  TensorView* e4 = exp(exp(xf));  // the inner exp is the term's argument: exact
  f.addOutput(logOf(sum(e4, {1})));
  const std::unordered_set<const Expr*> fast = approximableExprs(f);
  EXPECT_EQ(fast.size(), 2u);
  EXPECT_EQ(fast.count(terms->definition()), 1u);
  EXPECT_EQ(fast.count(e4->definition()), 1u);
  EXPECT_EQ(fast.count(e4->definition()->input(0)->definition()), 0u);
}

}  // namespace fusebox_approximate_math_test

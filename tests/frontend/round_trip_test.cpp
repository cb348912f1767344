// parse(print(f)) is structurally equal to f for fusions built with the C++
// builder, including what the builder adds implicitly (broadcasts for rank
// alignment, keepdim broadcasts, folded constants, extents read from tensors).
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>
#include <gtest/gtest.h>

#include <functional>

namespace fusebox {
namespace {

TensorView* reluOf(TensorView* x) {
  return unaryOp(UnaryOpType::Relu, x);
}

void sumOverAxis(Fusion& f, int64_t axis) {
  auto* x = defineSymbolicTensor(f, 2);
  f.addOutput(sum(x, {axis}));
}

struct BuilderCase {
  const char* name;
  std::function<void(Fusion&)> build;
};

void expectRoundTrip(const Fusion& f) {
  std::string printed = printPythonDefinition(f);
  PythonDefinition back = parsePythonDefinition(printed, "printed.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(f, *back.fusion, &why)) << why << "\n" << printed;
  EXPECT_EQ(printPythonDefinition(*back.fusion), printed) << "printing is not a fixed point";
  EXPECT_EQ(back.inputs.size(), f.inputs().size());  // the generated inputs list fits
}

std::vector<BuilderCase> builderCases() {
  return {
      {"rank_aligned_pointwise",
       [](Fusion& f) {
         auto* a = defineSymbolicTensor(f, 3);
         auto* b = defineSymbolicTensor(f, 1);
         auto* s = defineScalar(f, DataType::Double);
         f.addOutput(mul(tanh(add(a, b)), s));
       }},
      {"reductions_keepdim_and_dtypes",
       [](Fusion& f) {
         auto* a = defineSymbolicTensor(f, 2, DataType::Int32);
         auto* h = defineSymbolicTensor(f, 2, DataType::Half);
         f.addOutput(sum(a, {1}, /*keepdim=*/true));
         f.addOutput(sum(h, {0}, false, DataType::Float));
         f.addOutput(reduction(ReductionOpType::Prod, a, {}, false));
         f.addOutput(max(castOp(DataType::Float, h), {-1}, true));
       }},
      {"symbolic_reshape_from_extent_arithmetic",
       [](Fusion& f) {
         auto* x = defineSymbolicTensor(f, 3);
         Val* inner = mul(x->axis(1)->extent(), x->axis(2)->extent());
         auto* r = reshape(x, {x->axis(0)->extent(), inner});
         f.addOutput(permute(r, {1, 0}));
       }},
      {"expand_to_another_inputs_extents",
       [](Fusion& f) {
         auto* bias = defineSymbolicTensor(f, 1);
         auto* x = defineSymbolicTensor(f, 2);
         auto* b = broadcast(bias, {true, false});
         auto* e = expand(b, {x->axis(0)->extent(), f.constantInt(-1)});
         f.addOutput(add(x, e));
         f.addOutput(broadcastInDim(bias, {f.constantInt(4), x->axis(1)->extent()}, {1}));
       }},
      {"shared_and_typed_constants",
       [](Fusion& f) {
         auto* x = defineSymbolicTensor(f, 1, DataType::Half);
         Scalar* half_const = f.constant(1.5, DataType::Half);
         Scalar* shared = f.constantDouble(0.25);
         auto* y = add(mul(x, shared), shared);
         f.addOutput(sub(y, half_const));
         f.addOutput(
             where(gt(x, f.constant(int64_t{0}, DataType::Int32)), x, f.constantBool(true)));
       }},
      {"layouts_stride_orders_and_alias",
       [](Fusion& f) {
         // stride_order {1, 2, 0}: allocation order is dim 1 (broadcast), dim 0, dim 2.
         auto* x =
             defineTensor(f, {-1, 1, -1}, DataType::Float, {std::nullopt, false, true}, {1, 2, 0});
         auto* y = defineTensor(f, {-1, -1}, DataType::BFloat16, {true, false});
         auto* z = defineTensor(f, {2, 3}, DataType::Float);
         auto* out = add(squeeze(x, {1}), castOp(DataType::Float, y));
         f.addOutput(out);
         f.setRequiredStrideOrder(out, {0, 1});
         auto* upd = exp(z);
         f.addOutput(upd);
         f.aliasOutputToInput(upd, z);
       }},
      {"resize_ops",
       [](Fusion& f) {
         auto* x = defineSymbolicTensor(f, 2);
         auto* y = defineTensor(f, {4, 6}, DataType::Float);
         auto* s = slice(x, {f.zero(), f.one()}, {x->axis(0)->extent(), x->axis(1)->extent()},
                         {f.one(), f.constantInt(2)});
         f.addOutput(s);
         f.addOutput(pad(y, {f.one(), f.constantInt(2)}));
         f.addOutput(pad(x, {f.zero(), f.zero(), f.one(), f.one()}, f.constantDouble(-1)));
         f.addOutput(
             cat({y, slice(y, {f.zero(), f.zero()}, {f.constantInt(4), f.constantInt(2)})}, 1));
       }},
      {"creation_ops",
       [](Fusion& f) {
         auto* n = defineScalar(f, DataType::Int64);
         auto* x = defineSymbolicTensor(f, 2);
         f.addOutput(full(f, {n, f.constantInt(3)}, f.constantDouble(0.5), DataType::Float));
         f.addOutput(iota(f, n, f.constantInt(1), f.constantInt(3), DataType::Int64));
         f.addOutput(uniform(f, {x->axis(0)->extent(), x->axis(1)->extent()}, f.constantDouble(-1),
                             f.constantDouble(1), DataType::Float));
         f.addOutput(normal(f, {n}, f.constantDouble(0), f.constantDouble(2), DataType::Double,
                            f.constantInt(11), n));
       }},
      {"variance_and_welford",
       [](Fusion& f) {
         auto* x = defineSymbolicTensor(f, 3);
         auto vm = varMean(x, {0, 2}, 0, true);
         f.addOutput(vm.var);
         f.addOutput(vm.mean);
         f.addOutput(variance(x, {1}));
         auto w = welford(x, {2});
         f.addOutput(w.avg);
         f.addOutput(w.n);
       }},
      {"matmul_and_linear",
       [](Fusion& f) {
         auto* a = defineSymbolicTensor(f, 3, DataType::BFloat16);
         auto* b = defineSymbolicTensor(f, 2, DataType::BFloat16);
         auto* w = defineSymbolicTensor(f, 2, DataType::BFloat16);
         auto* bias = defineSymbolicTensor(f, 1, DataType::BFloat16);
         f.addOutput(matmul(a, b));
         f.addOutput(linear(a, w, bias));
         f.addOutput(linear(a, w));
       }},
      {"scalar_only",
       [](Fusion& f) {
         auto* a = defineScalar(f, DataType::Int64);
         auto* b = defineScalar(f, DataType::Double);
         Val* c = ceilDiv(a, f.constantInt(4));
         f.addOutput(binaryOp(BinaryOpType::Mul, castOp(DataType::Double, c), b));
         f.addOutput(unaryOp(UnaryOpType::Neg, a));
       }},
      {"segment_set_and_set",
       [](Fusion& f) {
         auto* x = defineSymbolicTensor(f, 2);
         auto* y = segmentSet(reluOf(x));
         f.addOutput(set(y));
       }},
      {"dead_code_and_unused_input",
       [](Fusion& f) {
         auto* x = defineSymbolicTensor(f, 1);
         defineSymbolicTensor(f, 2);  // an input nothing reads
         exp(x);                      // dead: not an output
         f.addOutput(neg(x));
       }},
  };
}

void PrintTo(const BuilderCase& c, std::ostream* os) {
  *os << c.name;
}

class RoundTripTest : public ::testing::TestWithParam<BuilderCase> {};

TEST_P(RoundTripTest, ParseOfPrintIsStructurallyEqual) {
  Fusion f;
  GetParam().build(f);
  expectRoundTrip(f);
}

INSTANTIATE_TEST_SUITE_P(Builder, RoundTripTest, ::testing::ValuesIn(builderCases()),
                         [](const ::testing::TestParamInfo<BuilderCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(RoundTrip, StructuralEqualityWouldNoticeADifference) {
  // Guard against a vacuous round trip: a changed attribute must be seen.
  Fusion a, b;
  sumOverAxis(a, 0);
  sumOverAxis(b, 1);
  EXPECT_FALSE(Fusion::structurallyEqual(
      a, *parsePythonDefinition(printPythonDefinition(b), "b.py").fusion));
}

}  // namespace
}  // namespace fusebox

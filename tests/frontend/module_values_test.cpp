// What a definition reads from the module around it: constants, the inputs
// list (assigned after the `with` block, as in nvFuser's tests), its tensors'
// sizes, strides and dtypes, `*args` unpacking, and complex literals that are
// read but never used.
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <string>

#include "frontend/definition_scripts.h"

namespace fusebox {
namespace {

constexpr const char* kHeader = "import torch\nfrom nvfuser import FusionDefinition, DataType\n";

int64_t constInt(const Val* v) {
  const auto* s = v->as<Scalar>();
  EXPECT_TRUE(s->isConst()) << v->toString();
  return s->isConst() ? toInt(*s->value()) : -999;
}

TEST(ModuleValues, ConstantsListsTuplesAndArithmetic) {
  std::string src = std::string(kHeader) +
                    "LOW_VAL = -1\n"
                    "HIGH = LOW_VAL + 2 ** 3\n"
                    "dims = [0, 1]\n"
                    "shape = (2, 3)\n"
                    "def fusion(fd: FusionDefinition):\n"
                    "    T0 = fd.define_tensor(shape=[-1, -1, -1])\n"
                    "    T1 = fd.ops.clamp(T0, LOW_VAL, HIGH * 2)\n"
                    "    T2 = fd.ops.sum(T1, dims=dims)\n"
                    "    T3 = fd.ops.full(shape=shape, fill_value=HIGH, dtype=DataType.Int)\n"
                    "    fd.add_output(T2)\n"
                    "    fd.add_output(T3)\n"
                    "with FusionDefinition() as fd:\n"
                    "    fusion(fd)\n";
  PythonDefinition d = parsePythonDefinition(src, "consts.py");
  const Expr* clamp = nullptr;
  for (const Expr* e : d.fusion->exprs())
    if (e->inputs()[0] == d.fusion->inputs()[0]) clamp = e;
  ASSERT_NE(clamp, nullptr);
  // clamp(T0, -1, 14): HIGH = -1 + 8 = 7, doubled.
  ASSERT_EQ(clamp->inputs().size(), 3u);
  EXPECT_EQ(constInt(clamp->inputs()[1]), -1);
  EXPECT_EQ(constInt(clamp->inputs()[2]), 14);
  const auto* sum = d.fusion->outputs()[0]->as<TensorView>();
  EXPECT_EQ(sum->logicalNoReductions().size(), 1u);  // dims [0, 1] reduced
  const auto* full = d.fusion->outputs()[1]->as<TensorView>();
  ASSERT_EQ(full->nDims(), 2);
  EXPECT_EQ(constInt(full->axis(0)->extent()), 2);
  EXPECT_EQ(constInt(full->axis(1)->extent()), 3);
  std::vector<Argument> outs =
      evaluateFusion(*d.fusion, {Tensor::empty(DataType::Float, {1, 1, 1})});
  EXPECT_EQ(std::get<Tensor>(outs[1]).getInt({1, 2}), 7);
}

TEST(ModuleValues, TheDefinitionSeesTheInputsListAssignedAfterIt) {
  // Sizes from the list's tensors: .shape, .size(d), .stride(), .ndim, .dtype.
  std::string src =
      std::string(kHeader) +
      "from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype\n"
      "def fusion(fd: FusionDefinition):\n"
      "    T0 = fd.define_tensor(sizes=inputs[0].shape, strides=inputs[0].stride(),\n"
      "                          dtype=torch_dtype_to_nvfuser_dtype(inputs[0].dtype))\n"
      "    T1 = fd.ops.broadcast_in_dim(T0, inputs[1].size(), [1, 2])\n"
      "    S2 = fd.define_scalar(inputs[1].size(0) * inputs[0].ndim)\n"
      "    T3 = fd.ops.mul(T1, S2)\n"
      "    T4 = fd.from_pytorch(inputs[1])\n"
      "    fd.add_output(fd.ops.add(T3, T4))\n"
      "with FusionDefinition() as fd:\n"
      "    fusion(fd)\n"
      "inputs = [torch.randn(3, 4, dtype=torch.float16).t(), torch.randn(5, 4, 3)]\n"
      "fd.execute(inputs)\n";
  PythonDefinition d = parsePythonDefinition(src, "late.py");
  ASSERT_EQ(d.fusion->inputs().size(), 2u);
  const auto* t0 = d.fusion->inputs()[0]->as<TensorView>();
  EXPECT_EQ(t0->dtype(), DataType::Half);
  EXPECT_EQ(t0->strideOrder(), (std::vector<int64_t>{0, 1}));  // the transpose's layout
  // broadcast_in_dim to inputs[1].size(): (5, 4, 3), scaled by 5 * 2.
  const Expr* mul = d.fusion->outputs()[0]->definition()->inputs()[0]->definition();
  ASSERT_EQ(mul->inputs().size(), 2u);
  EXPECT_EQ(constInt(mul->inputs()[1]), 10);
  const auto* bcast = mul->inputs()[0]->as<TensorView>();
  ASSERT_EQ(bcast->nDims(), 3);
  EXPECT_EQ(constInt(bcast->axis(0)->logicalExtent()), 5);
  EXPECT_TRUE(d.has_inputs_list);
  EXPECT_EQ(d.inputs[0].strides, (std::vector<int64_t>{1, 4}));
}

TEST(ModuleValues, StarArgumentsUnpackListsAndTuples) {
  std::string src = std::string(kHeader) +
                    "SIZES = (2, 3)\n"
                    "def fusion(fd: FusionDefinition):\n"
                    "    T0 = fd.from_pytorch(inputs[0])\n"
                    "    T1 = fd.from_pytorch(inputs[1])\n"
                    "    args = [T0, T1]\n"
                    "    T2 = fd.ops.add(*args)\n"
                    "    fd.add_output(T2)\n"
                    "with FusionDefinition() as fd:\n"
                    "    fusion(fd)\n"
                    "inputs = [torch.randn(*SIZES), torch.ones(*SIZES, device='cuda')]\n";
  PythonDefinition d = parsePythonDefinition(src, "star.py");
  EXPECT_EQ(d.inputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(d.inputs[1].kind, InputSpec::Kind::Ones);
  ASSERT_EQ(d.fusion->exprs().size(), 1u);
  EXPECT_EQ(d.fusion->exprs()[0]->inputs().size(), 2u);
}

TEST(ModuleValues, DefineScalarWithNothingIsADoubleInput) {
  std::string src = std::string(kHeader) +
                    "def fusion(fd: FusionDefinition):\n"
                    "    S0 = fd.define_scalar()\n"
                    "    S1 = fd.define_scalar(dtype=DataType.Int32)\n"
                    "    fd.add_output(fd.ops.mul(S0, S1))\n";
  PythonDefinition d = parsePythonDefinition(src, "scalar.py");
  ASSERT_EQ(d.fusion->inputs().size(), 2u);
  EXPECT_EQ(d.fusion->inputs()[0]->dtype(), DataType::Double);
  EXPECT_EQ(d.fusion->inputs()[1]->dtype(), DataType::Int32);
  std::vector<Argument> outs =
      evaluateFusion(*d.fusion, {ScalarValue(2.5), ScalarValue(int64_t{4})});
  EXPECT_EQ(toDouble(std::get<ScalarValue>(outs[0])), 10.0);
}

TEST(ModuleValues, ComplexLiteralsAreReadButNotUsed) {
  // Module-level complex values the definition never reads are harmless.
  std::string src = std::string(kHeader) +
                    "Z = 3.0 + 2j\n"
                    "W = -Z * 1j + complex(1, 2) - 0.5\n"
                    "def fusion(fd: FusionDefinition):\n"
                    "    T0 = fd.define_tensor(shape=[-1])\n"
                    "    fd.add_output(fd.ops.neg(T0))\n";
  EXPECT_NO_THROW(parsePythonDefinition(src, "complex.py"));
  // Read by the definition, they are refused where they are used.
  std::string used = std::string(kHeader) +
                     "Z = 3.0 + 2j\n"
                     "def fusion(fd: FusionDefinition):\n"
                     "    S0 = fd.define_scalar(Z)\n";
  testing::expectRefusedAt(used, 5, 27,
                           "Z is a complex number; complex numbers and dtypes are not supported");
}

TEST(ModuleValues, AModuleNameAssignedTwiceIsRefusedWhereTheDefinitionReadsIt) {
  std::string src = std::string(kHeader) +
                    "N = 2\n"
                    "def fusion(fd: FusionDefinition):\n"
                    "    S0 = fd.define_scalar(N)\n"
                    "N = 3\n";
  testing::expectRefusedAt(src, 5, 27, "N is assigned 2 times at the module level (3:1 and 6:1)");
}

TEST(ModuleValues, LocalsShadowModuleNamesAndSlicesOfListsWork) {
  std::string src = std::string(kHeader) +
                    "dims = [0, 1, 2]\n"
                    "def fusion(fd: FusionDefinition):\n"
                    "    T0 = fd.define_tensor(shape=[-1, -1, -1])\n"
                    "    T1 = fd.ops.sum(T0, dims=dims[1:])\n"
                    "    dims2 = dims[::-2]\n"
                    "    T2 = fd.ops.sum(T0, dims=dims2)\n"
                    "    fd.add_output(T1)\n"
                    "    fd.add_output(T2)\n";
  PythonDefinition d = parsePythonDefinition(src, "slices.py");
  const auto* t1 = d.fusion->outputs()[0]->as<TensorView>();
  const auto* t2 = d.fusion->outputs()[1]->as<TensorView>();
  EXPECT_EQ(t1->logicalNoReductions().size(), 1u);  // dims [1, 2]
  EXPECT_EQ(t2->logicalNoReductions().size(), 1u);  // dims [2, 0]
  EXPECT_EQ(t2->logicalNoReductions()[0], t2->logical()[1]);
}

}  // namespace
}  // namespace fusebox

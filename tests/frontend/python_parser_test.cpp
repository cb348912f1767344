// The statements of the definition subset and the script around them, checked
// on the Fusion they build.
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "frontend/definition_scripts.h"

namespace fusebox {
namespace {

PythonDefinition parseBody(const std::string& lines) {
  std::string src =
      "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n"
      "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n";
  return parsePythonDefinition(src + testing::indented(lines), "test.py");
}

const TensorView* inputTensor(const PythonDefinition& d, size_t i) {
  return d.fusion->inputs().at(i)->as<TensorView>();
}

int64_t constValue(const Val* v) {
  const auto* s = v->as<Scalar>();
  EXPECT_TRUE(s->isConst()) << v->toString();
  return s->isConst() ? toInt(*s->value()) : -999;
}

TEST(PythonParser, DefineTensorShapeEntriesBecomeSymbolicBroadcastOrConstantAxes) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, 1, 5], contiguity=[True, None, False], "
      "dtype=DataType.Half, is_cpu=False)\n"
      "fd.add_output(T0)");
  const TensorView* t = inputTensor(d, 0);
  EXPECT_EQ(t->dtype(), DataType::Half);
  ASSERT_EQ(t->nDims(), 3);
  EXPECT_FALSE(t->axis(0)->extent()->isConst());
  EXPECT_TRUE(t->axis(1)->isBroadcast());
  EXPECT_EQ(constValue(t->axis(2)->extent()), 5);
  EXPECT_EQ(t->contiguity(), (std::vector<std::optional<bool>>{true, std::nullopt, false}));
  EXPECT_FALSE(t->hasAllocation());
}

TEST(PythonParser, DefineTensorStrideOrderSetsAllocationAndContiguityFollowsIt) {
  // stride_order [0, 2, 1]: dim 1 is outermost, then dim 2, then dim 0 innermost.
  // As in nvFuser, contiguity is given in that allocation order.
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, False, True], "
      "dtype=DataType.Float, stride_order=[0, 2, 1])\n"
      "fd.add_output(T0)");
  const TensorView* t = inputTensor(d, 0);
  ASSERT_TRUE(t->hasAllocation());
  EXPECT_EQ(t->strideOrder(), (std::vector<int64_t>{0, 2, 1}));
  std::vector<IterDomain*> alloc = t->allocation();
  ASSERT_EQ(alloc.size(), 3u);
  EXPECT_EQ(alloc[0], t->axis(1));
  EXPECT_EQ(alloc[1], t->axis(2));
  EXPECT_EQ(alloc[2], t->axis(0));
  EXPECT_EQ(t->contiguity(), (std::vector<std::optional<bool>>{true, false, true}));
}

TEST(PythonParser, DefineTensorSingleBoolContiguitySymbolicSizesAndDefaults) {
  auto d = parseBody(
      "T0 = fd.define_tensor(symbolic_sizes=[-1, 1], contiguity=False)\n"
      "T1 = fd.define_tensor(shape=[3])\n"
      "T2 = fd.define_tensor(shape=[1, -1, -1], contiguity=True, stride_order=[0, 2, 1])\n"
      "fd.add_output(T0)\nfd.add_output(T1)\nfd.add_output(T2)");
  const TensorView* t0 = inputTensor(d, 0);
  EXPECT_EQ(t0->dtype(), DataType::Float);
  EXPECT_EQ(t0->contiguity(), (std::vector<std::optional<bool>>{false, std::nullopt}));
  const TensorView* t1 = inputTensor(d, 1);
  EXPECT_EQ(t1->contiguity(), (std::vector<std::optional<bool>>{true}));
  // A single bool applies to every non-broadcast dim; the broadcast dim 0 is
  // innermost in allocation order here.
  const TensorView* t2 = inputTensor(d, 2);
  EXPECT_EQ(t2->contiguity(), (std::vector<std::optional<bool>>{true, true, std::nullopt}));
}

TEST(PythonParser, DefineScalarConstantsSymbolicInputsAndLiteralForms) {
  auto d = parseBody(
      "S0 = fd.define_scalar(0.5, dtype=DataType.Double)\n"
      "S1 = fd.define_scalar(dtype=DataType.Int)\n"
      "S2 = fd.define_scalar(None, dtype=DataType.Bool)\n"
      "S3 = fd.define_scalar(-3)\n"
      "S4 = fd.define_scalar(float('-inf'), dtype=DataType.Float)\n"
      "S5 = fd.define_scalar(1e-5)\n"
      "S6 = fd.define_scalar(True)\n"
      "S7 = fd.define_scalar(2 * 3 + 1, dtype=DataType.Int32)\n"
      "S8 = fd.define_scalar(7 // 2 - 2 ** 3)\n"
      "fd.add_output(S0)\nfd.add_output(S1)\nfd.add_output(S2)\nfd.add_output(S3)\nfd.add_output("
      "S4)\n"
      "fd.add_output(S5)\nfd.add_output(S6)\nfd.add_output(S7)\nfd.add_output(S8)");
  ASSERT_EQ(d.fusion->inputs().size(), 2u);  // S1 and S2 only
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"S1", "S2"}));
  EXPECT_EQ(d.fusion->inputs()[0]->dtype(), DataType::Int64);
  EXPECT_EQ(d.fusion->inputs()[1]->dtype(), DataType::Bool);
  const auto& outs = d.fusion->outputs();
  auto value = [&](int i) { return *outs[i]->as<Scalar>()->value(); };
  EXPECT_EQ(outs[0]->dtype(), DataType::Double);
  EXPECT_EQ(toDouble(value(0)), 0.5);
  EXPECT_EQ(outs[3]->dtype(), DataType::Int64);
  EXPECT_EQ(toInt(value(3)), -3);
  EXPECT_EQ(outs[4]->dtype(), DataType::Float);
  EXPECT_TRUE(std::isinf(toDouble(value(4))) && toDouble(value(4)) < 0);
  EXPECT_EQ(outs[5]->dtype(), DataType::Double);
  EXPECT_EQ(toDouble(value(5)), 1e-5);
  EXPECT_EQ(outs[6]->dtype(), DataType::Bool);
  EXPECT_TRUE(toBool(value(6)));
  EXPECT_EQ(outs[7]->dtype(), DataType::Int32);
  EXPECT_EQ(toInt(value(7)), 7);
  EXPECT_EQ(toInt(value(8)), 3 - 8);  // floor division, then power
}

TEST(PythonParser, NumberLiteralsAsOperandsBecomeConstants) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.mul(T0, 2.5)\nT2 = fd.ops.add(T1, "
      "-1)\nfd.add_output(T2)");
  std::vector<Expr*> exprs = d.fusion->exprs();
  ASSERT_EQ(exprs.size(), 2u);
  const auto* c0 = exprs[0]->input(1)->as<Scalar>();
  EXPECT_EQ(c0->dtype(), DataType::Double);
  EXPECT_EQ(toDouble(*c0->value()), 2.5);
  const auto* c1 = exprs[1]->input(1)->as<Scalar>();
  EXPECT_EQ(c1->dtype(), DataType::Int64);
  EXPECT_EQ(toInt(*c1->value()), -1);
}

TEST(PythonParser, SizeShapeIndexingAndDefineVectorReadTheSameExtents) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, -1, -1])\n"
      "S1 = T0.size(1)\nS2 = T0.size(-1)\nV3 = T0.shape()\nS4 = V3[0]\n"
      "V5 = fd.define_vector([S4, S1, 4, -1], dtype=DataType.Int)\n"
      "S6 = fd.ops.size(T0, dim=2)\nV7 = fd.ops.shape(T0)\nS8 = fd.ops.at(V7, index=-2)\n"
      "T9 = fd.ops.reshape(T0, new_shape=V5)\n"
      "fd.add_output(T9)\nfd.add_output(S2)\nfd.add_output(S6)\nfd.add_output(S8)");
  const TensorView* t0 = inputTensor(d, 0);
  Expr* reshape = d.fusion->outputs()[0]->definition();
  ASSERT_EQ(reshape->op(), OpType::Reshape);
  ASSERT_EQ(reshape->inputs().size(), 5u);
  EXPECT_EQ(reshape->input(1), t0->axis(0)->extent());
  EXPECT_EQ(reshape->input(2), t0->axis(1)->extent());
  EXPECT_EQ(constValue(reshape->input(3)), 4);
  EXPECT_EQ(constValue(reshape->input(4)), -1);
  EXPECT_EQ(d.fusion->outputs()[1], t0->axis(2)->extent());
  EXPECT_EQ(d.fusion->outputs()[2], t0->axis(2)->extent());
  EXPECT_EQ(d.fusion->outputs()[3], t0->axis(1)->extent());
}

TEST(PythonParser, TupleTargetsNameEveryResult) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, -1])\n"
      "T1, T2 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)\n"
      "T3, T4, T5 = fd.ops.welford(T0, dims=[0])\n"
      "(T6, T7) = fd.ops.var_mean(T0, dims=[0], correction=1, keepdim=False)\n"
      "[T8, T9,] = fd.ops.var_mean(T0, dims=[1], correction=1, keepdim=False)\n"
      "fd.add_output(T2)\nfd.add_output(T5)\nfd.add_output(T6)\nfd.add_output(T9)");
  const auto& outs = d.fusion->outputs();
  // Bracketed targets unpack as Python's do: T6 the variance, T9 the mean.
  ASSERT_EQ(outs[2]->definition()->op(), OpType::VarMean);
  EXPECT_EQ(outs[2], outs[2]->definition()->output(0));
  EXPECT_EQ(outs[2]->definition()->attr<VarianceAttr>().correction, 1);
  ASSERT_EQ(outs[3]->definition()->op(), OpType::VarMean);
  EXPECT_EQ(outs[3], outs[3]->definition()->output(1));
  ASSERT_EQ(outs[0]->definition()->op(), OpType::VarMean);
  EXPECT_EQ(outs[0], outs[0]->definition()->output(1));  // T2 is the mean
  EXPECT_EQ(outs[0]->definition()->attr<VarianceAttr>().correction, 0);
  ASSERT_EQ(outs[1]->definition()->op(), OpType::Welford);
  EXPECT_EQ(outs[1], outs[1]->definition()->output(2));  // T5 is n
  EXPECT_EQ(outs[1]->dtype(), DataType::Int64);
}

TEST(PythonParser, KeywordsByNvFuserNameAndOlderAliases) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Half)\n"
      "T1 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Half)\n"
      "T2 = fd.define_tensor(shape=[-1], dtype=DataType.Half)\n"
      "T3 = fd.ops.linear(input=T0, weight=T1, bias=T2)\n"
      "T4 = fd.ops.sum(T3, axes=[0], keepdim=True, dtype=DataType.Float)\n"
      "T5 = fd.ops.broadcast_in_dim(T2, output_shape=[2, -1], broadcast_dims=[1])\n"
      "T6 = fd.ops.uniform(low=0.0, high=1.0, shape=[2, 3])\n"
      "fd.add_output(T4)\nfd.add_output(T5)\nfd.add_output(T6)");
  const auto& outs = d.fusion->outputs();
  // keepdim=True: the reduction is followed by a broadcast.
  Expr* bcast = outs[0]->definition();
  ASSERT_EQ(bcast->op(), OpType::Broadcast);
  Expr* red = bcast->input(0)->definition();
  ASSERT_EQ(red->op(), OpType::Reduction);
  EXPECT_EQ(red->attr<ReductionAttr>().axes, (std::vector<int64_t>{0}));
  EXPECT_EQ(red->output(0)->dtype(), DataType::Float);
  EXPECT_EQ(red->input(0)->definition()->op(), OpType::Linear);
  EXPECT_EQ(red->input(0)->definition()->inputs().size(), 3u);
  EXPECT_EQ(outs[1]->as<TensorView>()->nDims(), 2);
  EXPECT_EQ(outs[2]->definition()->op(), OpType::Rand);
  EXPECT_EQ(outs[2]->dtype(), DataType::Float);
}

TEST(PythonParser, AddOutputStrideOrderAndAlias) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, -1])\nT1 = fd.ops.exp(T0)\nT2 = fd.ops.neg(T0)\nT3 = "
      "fd.ops.abs(T0)\n"
      "fd.add_output(T1, stride_order=[0, 1])\nfd.add_output(T2, [1, 0])\nfd.add_output(T3, T0)");
  const auto& outs = d.fusion->outputs();
  ASSERT_NE(d.fusion->requiredStrideOrder(outs[0]->as<TensorView>()), nullptr);
  EXPECT_EQ(*d.fusion->requiredStrideOrder(outs[0]->as<TensorView>()),
            (std::vector<int64_t>{0, 1}));
  ASSERT_NE(d.fusion->requiredStrideOrder(outs[1]->as<TensorView>()), nullptr);
  EXPECT_EQ(*d.fusion->requiredStrideOrder(outs[1]->as<TensorView>()),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(d.fusion->requiredStrideOrder(outs[2]->as<TensorView>()), nullptr);
  EXPECT_EQ(d.fusion->aliasedInput(outs[2]), d.fusion->inputs()[0]);
  // Output stride orders are the user's contract, not an allocation domain.
  EXPECT_FALSE(outs[0]->as<TensorView>()->hasAllocation());
}

TEST(PythonParser, InputNamesAndLocationsFollowDefinitionOrder) {
  auto d = parseBody(
      "S0 = fd.define_scalar(None, dtype=DataType.Double)\n\n# a comment line\n"
      "T1 = fd.define_tensor(shape=[-1])\nT2 = fd.ops.mul(T1, S0)\nfd.add_output(T2)");
  EXPECT_EQ(d.function_name, "nvfuser_fusion_id0");
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"S0", "T1"}));
  ASSERT_EQ(d.input_locations.size(), 2u);
  EXPECT_EQ(d.input_locations[0].line, 5);
  EXPECT_EQ(d.input_locations[0].column, 5);
  EXPECT_EQ(d.input_locations[1].line, 8);
  EXPECT_EQ(d.fusion->inputs()[0]->isScalar(), true);
  EXPECT_FALSE(d.has_inputs_list);
  EXPECT_TRUE(d.inputs.empty());
}

TEST(PythonParser, ScriptFormsDefOnlyWithBodyMainGuardAndRenamedParameter) {
  // A def that nothing calls is still the fusion.
  auto only_def = parsePythonDefinition(
      "def fusion(fd):\n    T0 = fd.define_tensor(shape=[-1])\n    fd.add_output(T0)\n", "a.py");
  EXPECT_EQ(only_def.function_name, "fusion");
  EXPECT_EQ(only_def.fusion->outputs().size(), 1u);

  auto with_body = parsePythonDefinition(
      "from nvfuser import (FusionDefinition,\n    DataType)\n"
      "with FusionDefinition() as f:\n    T0 = f.define_tensor(shape=[-1])\n    "
      "f.add_output(f.ops.exp(T0))\n",
      "b.py");
  EXPECT_EQ(with_body.function_name, "");
  EXPECT_EQ(with_body.fusion->exprs().size(), 1u);

  auto guarded = parsePythonDefinition(
      "import torch\n"
      "def g(defn : FusionDefinition) -> None :\n    \"\"\"docstring\"\"\"\n    T0 = "
      "defn.define_tensor(shape=[2])\n"
      "    defn.add_output(T0)\n"
      "if __name__ == \"__main__\":\n"
      "    inputs = [torch.ones(2)]\n"
      "    with FusionDefinition() as fd:\n        g(fd)\n"
      "    for _ in range(3):\n        fd.execute(inputs)\n        "
      "print(fd.execute(inputs)[0].sum())\n",
      "c.py");
  EXPECT_EQ(guarded.function_name, "g");
  EXPECT_TRUE(guarded.has_inputs_list);
  ASSERT_EQ(guarded.inputs.size(), 1u);
  EXPECT_EQ(guarded.inputs[0].kind, InputSpec::Kind::Ones);
}

TEST(PythonParser, FunctionDefinedAfterInputsAndCalledFromWith) {
  auto d = parsePythonDefinition(
      "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
      "inputs = [torch.randn(4, device='cuda'), 2.0]\n"
      "def fn(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, "
      "is_cpu=False)\n"
      "    S1 = fd.define_scalar(None, dtype=DataType.Double)\n"
      "    T2 = fd.ops.mul(T0, S1)\n"
      "    fd.add_output(T2)\n"
      "with FusionDefinition() as fd:\n    fn(fd)\n"
      "out = fd.execute(inputs)\n",
      "d.py");
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"T0", "S1"}));
  ASSERT_EQ(d.inputs.size(), 2u);
  EXPECT_EQ(d.inputs[0].kind, InputSpec::Kind::Randn);
  EXPECT_EQ(d.inputs[1].kind, InputSpec::Kind::Scalar);
  EXPECT_EQ(toDouble(d.inputs[1].scalar), 2.0);
}

TEST(PythonParser, ParseFileReadsFromDisk) {
  auto d = parsePythonFile(std::string(FUSEBOX_SOURCE_DIR) + "/examples/segmented_issue785.py");
  EXPECT_EQ(d.function_name, "nvfuser_fusion_id6");
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"T4", "T6"}));
}

}  // namespace
}  // namespace fusebox

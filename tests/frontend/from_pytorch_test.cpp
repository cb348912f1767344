// fd.from_pytorch, define_tensor(sizes=, strides=) and contiguity None on a
// dim of any size: the input nvFuser derives from a tensor's sizes and
// strides, checked against layouts worked out by hand, and expanded (stride-0)
// input dims through the evaluator and the runtime.
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <string>

#include "frontend/definition_scripts.h"
#include "support/run_command.h"

namespace fusebox {
namespace {

constexpr const char* kHeader = "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n";

// A script whose definition reads each entry with from_pytorch (`extra` is
// appended to the call's arguments). The list comes after the `with` block,
// where nvFuser's tests put it.
PythonDefinition fromInputs(const std::string& entries, size_t n, const std::string& extra = "") {
  std::string src = std::string(kHeader) + "def fusion(fd: FusionDefinition):\n";
  for (size_t i = 0; i < n; ++i)
    src += "    T" + std::to_string(i) + " = fd.from_pytorch(inputs[" + std::to_string(i) + "]" +
           extra + ")\n";
  src += "\nwith FusionDefinition() as fd:\n    fusion(fd)\n\ninputs = [\n" + entries +
         "\n]\nfd.execute(inputs)\n";
  return parsePythonDefinition(src, "from_pytorch.py");
}

PythonDefinition parseBody(const std::string& lines) {
  return parsePythonDefinition(
      std::string(kHeader) + "def fusion(fd: FusionDefinition):\n" + testing::indented(lines),
      "body.py");
}

const TensorView* input(const PythonDefinition& d, size_t i) {
  return d.fusion->inputs().at(i)->as<TensorView>();
}

// Each dim: "?" symbolic, "5" a fixed size, "B" broadcast, "E?" / "E5" a
// broadcast expanded to a symbolic / fixed size.
std::string dims(const TensorView* tv) {
  std::string s;
  auto text = [](const Scalar* x) {
    return x->isConst() ? std::to_string(toInt(*x->value())) : std::string("?");
  };
  for (IterDomain* id : tv->logicalNoReductions()) {
    if (!s.empty()) s += " ";
    if (id->hasExpandedExtent())
      s += "E" + text(id->expandedExtent());
    else if (id->isBroadcast())
      s += "B";
    else
      s += text(id->extent());
  }
  return s;
}

// Contiguity in allocation order: "T", "F", "N" (None).
std::string contiguity(const TensorView* tv) {
  std::string s;
  for (const std::optional<bool>& c : tv->contiguity())
    s += std::string(s.empty() ? "" : " ") + (c ? (*c ? "T" : "F") : "N");
  return s;
}

std::vector<int64_t> order(const TensorView* tv) {
  return tv->hasAllocation() ? tv->strideOrder() : std::vector<int64_t>{};
}

TEST(FromPytorch, LayoutsAsNvFuserDerivesThem) {
  auto d = fromInputs(
      "torch.randn(2, 3, device='cuda'),\n"          // row-major
      "torch.randn(2, 1, 3),\n"                      // a size-1 dim
      "torch.randn(3, 4).t(),\n"                     // sizes (4, 3), strides (1, 4)
      "torch.randn(4, 6)[:, ::2],\n"                 // strides (6, 2)
      "torch.randn(4, 6)[:, :3],\n"                  // strides (6, 1)
      "torch.randn(5).unsqueeze(0).expand(3, 5),\n"  // strides (0, 1)
      "torch.randn(3, 1).expand(3, 4),\n"            // strides (1, 0)
      "torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),\n"  // (60, 1, 15, 3)
      "torch.tensor(1.5),\n",
      9);
  ASSERT_EQ(d.fusion->inputs().size(), 9u);
  struct Want {
    std::string dims, contiguity;
    std::vector<int64_t> order;
  };
  const Want want[] = {
      {"? ?", "T T", {}},
      {"? B ?", "T N T", {}},
      // Dim 1 (stride 4) is outermost; each stride steps over the dim inside it.
      {"? ?", "T T", {0, 1}},
      // Dim 0 steps over 3 elements of stride 2 (6); dim 1 has stride 2, not 1.
      {"? ?", "T F", {}},
      // Dim 0 steps 6, but the 3 elements inside span 3.
      {"? ?", "F T", {}},
      {"E? ?", "N T", {}},
      {"? E?", "T N", {}},
      // Channels-last: C innermost, then W, H, N.
      {"? ? ? ?", "T T T T", {3, 0, 2, 1}},
      {"", "", {}},
  };
  for (size_t i = 0; i < 9; ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    EXPECT_EQ(dims(input(d, i)), want[i].dims);
    EXPECT_EQ(contiguity(input(d, i)), want[i].contiguity);
    EXPECT_EQ(order(input(d, i)), want[i].order);
    EXPECT_EQ(input(d, i)->dtype(), DataType::Float);
  }
  EXPECT_EQ(d.input_names,
            (std::vector<std::string>{"T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"}));
}

TEST(FromPytorch, DtypesFollowTheTensor) {
  auto d = fromInputs(
      "torch.randint(0, 5, (4,), dtype=torch.int32),\n"
      "torch.ones(2, dtype=torch.bfloat16),\n"
      "torch.arange(3).bool(),\n"
      "torch.arange(3),\n"
      "torch.randn(2).half(),\n",
      5);
  EXPECT_EQ(input(d, 0)->dtype(), DataType::Int32);
  EXPECT_EQ(input(d, 1)->dtype(), DataType::BFloat16);
  EXPECT_EQ(input(d, 2)->dtype(), DataType::Bool);
  EXPECT_EQ(input(d, 3)->dtype(), DataType::Int64);
  EXPECT_EQ(input(d, 4)->dtype(), DataType::Half);
}

TEST(FromPytorch, StaticSizesMakeFixedExtents) {
  auto d = fromInputs("torch.randn(2, 3),\ntorch.randn(3, 1).expand(3, 4),\ntorch.randn(1, 5)", 3,
                      ", static_sizes=True");
  EXPECT_EQ(dims(input(d, 0)), "2 3");
  EXPECT_EQ(dims(input(d, 1)), "3 E4");
  EXPECT_EQ(dims(input(d, 2)), "B 5");
}

TEST(FromPytorch, NumbersBecomeScalarInputsOfTheirType) {
  auto d = fromInputs("2.5,\n7,\nTrue", 3);
  ASSERT_EQ(d.fusion->inputs().size(), 3u);
  const DataType want[] = {DataType::Double, DataType::Int64, DataType::Bool};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(d.fusion->inputs()[i]->isScalar());
    EXPECT_EQ(d.fusion->inputs()[i]->dtype(), want[i]);
  }
}

TEST(FromPytorch, SameTensorListedTwiceMayBeReadAtEitherPlace) {
  std::string src = std::string(kHeader) +
                    "def fusion(fd: FusionDefinition):\n"
                    "    T0 = fd.from_pytorch(x)\n"
                    "    T1 = fd.from_pytorch(x)\n"
                    "    fd.add_output(fd.ops.add(T0, T1))\n"
                    "x = torch.randn(3)\n"
                    "inputs = [x, x]\n";
  PythonDefinition d = parsePythonDefinition(src, "twice.py");
  EXPECT_EQ(d.fusion->inputs().size(), 2u);
  EXPECT_EQ(d.inputs.size(), 2u);
}

TEST(DefineTensor, SizesAndStridesGiveTheSameInputAsFromPytorch) {
  auto d = parseBody(
      "T0 = fd.define_tensor(sizes=[4, 3], strides=[1, 4], dtype=DataType.Half)\n"
      "T1 = fd.define_tensor([3, 4], [0, 1])\n"
      "T2 = fd.define_tensor(sizes=[2, 3], strides=[3, 1], static_sizes=True, is_cpu=False)");
  EXPECT_EQ(dims(input(d, 0)), "? ?");
  EXPECT_EQ(contiguity(input(d, 0)), "T T");
  EXPECT_EQ(order(input(d, 0)), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(input(d, 0)->dtype(), DataType::Half);
  EXPECT_EQ(dims(input(d, 1)), "E? ?");
  EXPECT_EQ(contiguity(input(d, 1)), "N T");
  EXPECT_EQ(input(d, 1)->dtype(), DataType::Float);
  EXPECT_EQ(dims(input(d, 2)), "2 3");
}

TEST(DefineTensor, ContiguityNoneOnAnySizeIsAnExpandedBroadcast) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True])\n"
      "T1 = fd.define_tensor(shape=[5, -1, 1], contiguity=[None, False, None])\n"
      // stride_order [0, 1]: dim 1 is outermost, so contiguity's second entry is dim 0's.
      "T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, None], stride_order=[0, 1])\n"
      "S3 = fd.ops.size(T0, dim=0)");
  EXPECT_EQ(dims(input(d, 0)), "E? ?");
  EXPECT_EQ(dims(input(d, 1)), "E5 ? B");
  EXPECT_EQ(contiguity(input(d, 1)), "N F N");
  EXPECT_EQ(dims(input(d, 2)), "E? ?");
  // An expanded dim has extent 1; its size is the expanded extent.
  const IterDomain* id = input(d, 0)->axis(0);
  EXPECT_TRUE(id->isBroadcast());
  EXPECT_TRUE(id->extent()->isConst());
  EXPECT_EQ(toInt(*id->extent()->value()), 1);
  EXPECT_EQ(d.fusion->inputs().size(), 3u);
}

TEST(DefineTensor, ExpandedInputsRoundTripThroughThePrinter) {
  auto d = parseBody(
      "T0 = fd.define_tensor(shape=[-1, 4, -1], contiguity=[None, None, True])\n"
      "T1 = fd.ops.mul(T0, T0)\n"
      "fd.add_output(T1)");
  const std::string printed = printPythonDefinition(*d.fusion);
  EXPECT_NE(printed.find("shape=[-1, 4, -1], contiguity=[None, None, True]"), std::string::npos)
      << printed;
  PythonDefinition back = parsePythonDefinition(printed, "printed.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*d.fusion, *back.fusion, &why)) << why;
  // The made-up inputs list repeats one element along the expanded dims.
  ASSERT_EQ(back.inputs.size(), 1u);
  Tensor t = std::get<Tensor>(materializeInput(back.inputs[0], 0));
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{8, 4, 8}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_NO_THROW(evaluateFusion(*back.fusion, {t}));
}

TEST(DefineTensor, EvaluatorReadsExpandedInputsAndRefusesRealStrides) {
  PythonDefinition d =
      parsePythonFile(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/expanded_input.py");
  ASSERT_EQ(d.inputs.size(), 2u);
  std::vector<Argument> args = {materializeInput(d.inputs[0], 0), materializeInput(d.inputs[1], 1)};
  EXPECT_EQ(std::get<Tensor>(args[0]).strides(), (std::vector<int64_t>{0, 1}));
  EvaluatorOptions options;
  options.input_names = d.input_names;
  std::vector<Argument> outs = evaluateFusion(*d.fusion, args, options);
  // T0 is [0, 1, 2, 3] in each of 3 rows, T1 ones: T3 = 3 * T0's row, T4 = 2 * T0.
  const Tensor& sum = std::get<Tensor>(outs[0]);
  const Tensor& twice = std::get<Tensor>(outs[1]);
  for (int64_t j = 0; j < 4; ++j) {
    EXPECT_EQ(sum.getDouble({j}), 3.0 * j);
    for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(twice.getDouble({i, j}), 2.0 * j);
  }
  // The same values with a real stride: the definition said broadcast.
  Tensor strided = Tensor::empty(DataType::Float, {3, 4});
  try {
    evaluateFusion(*d.fusion, {strided, args[1]}, options);
    ADD_FAILURE() << "a strided tensor was taken for an expanded dim";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("input T0: dim 0 is an expanded broadcast of size 3, "
                                         "expected stride 0, got stride 4"),
              std::string::npos)
        << e.what();
  }
}

TEST(DefineTensor, RuntimeRunsExpandedInputsAndNamesAStridedOne) {
  const std::string script = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/expanded_input.py";
  auto ok = testing::runCommand(std::string(FUSEBOX_EXE) + " run " + script +
                                " --backend host --validate --no-ir");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("validate: PASS (2 outputs"), std::string::npos) << ok.output;
  // --input makes a contiguous tensor: its dim 0 has stride 4, not 0.
  auto bad = testing::runCommand(std::string(FUSEBOX_EXE) + " run " + script +
                                 " --backend host --no-ir --input T0=3x4");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("input T0: dim 0 is an expanded broadcast of size 3, expected stride "
                            "0, got stride 4"),
            std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace fusebox

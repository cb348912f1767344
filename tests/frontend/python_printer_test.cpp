// The Python printer's exact text: naming, extents read with T.size(i),
// constants, stride orders, the generated inputs list and the repro tail.
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>
#include <gtest/gtest.h>

namespace fusebox {
namespace {

TEST(PythonPrinter, WritesAnNvFuserReproScript) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 2);
  auto* s1 = defineScalar(f, DataType::Double);
  auto* r = reshape(t0, {t0->axis(1)->extent(), t0->axis(0)->extent()});
  auto* out = add(mul(r, s1), f.constant(2.0, DataType::Float));
  f.addOutput(out);
  f.setRequiredStrideOrder(out, {0, 1});
  const char* expected =
      "import torch\n"
      "from nvfuser import FusionDefinition, DataType\n"
      "\n"
      "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, "
      "is_cpu=False)\n"
      "    S1 = fd.define_scalar(None, dtype=DataType.Double)\n"
      "    S2 = T0.size(1)\n"
      "    S3 = T0.size(0)\n"
      "    T4 = fd.ops.reshape(T0, new_shape=[S2, S3])\n"
      "    T5 = fd.ops.mul(T4, S1)\n"
      "    S6 = fd.define_scalar(2.0, dtype=DataType.Float)\n"
      "    T7 = fd.ops.add(T5, S6)\n"
      "    fd.add_output(T7, stride_order=[0, 1])\n"
      "\n"
      "inputs = [\n"
      "    torch.randn((8, 8), dtype=torch.float32, device='cuda:0'),\n"
      "    1.0,\n"
      "]\n"
      "\n"
      "with FusionDefinition() as fd:\n"
      "    nvfuser_fusion_id0(fd)\n"
      "\n"
      "fd.execute(inputs)\n";
  EXPECT_EQ(printPythonDefinition(f), expected);
}

TEST(PythonPrinter, InlinesSingleUseIntsInListsAndNamesSharedConstants) {
  Fusion f;
  auto* x = defineTensor(f, {4, -1}, DataType::Float);
  Scalar* two = f.constantInt(2);
  auto* s = slice(x, {f.zero(), two}, {two, x->axis(1)->extent()});
  f.addOutput(s);
  PythonPrintOptions options;
  options.function_name = "fn";
  options.repro_script = false;
  std::string text = printPythonDefinition(f, options);
  // `two` appears twice as an operand, so it is defined once and reused; the
  // step constants the builder made are single-use ints written inline.
  EXPECT_NE(text.find("def fn(fd : FusionDefinition) -> None :\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    T0 = fd.define_tensor(shape=[4, -1], contiguity=[True, True], "
                      "dtype=DataType.Float, is_cpu=False)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    S1 = fd.define_scalar(2, dtype=DataType.Int)\n    S2 = T0.size(1)\n"
                      "    T3 = fd.ops.slice(T0, start_indices=[0, S1], end_indices=[S1, S2], "
                      "strides=[1, 1])\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("inputs = ["), std::string::npos)
      << "repro_script=false prints only the definition";
  EXPECT_EQ(text.substr(text.size() - 22), "    fd.add_output(T3)\n");
}

TEST(PythonPrinter, InputStrideOrdersGiveStridedInputs) {
  Fusion f;
  auto* x = defineTensor(f, {-1, -1}, DataType::Half, {false, true}, {0, 1});
  f.addOutput(neg(x));
  PythonPrintOptions options;
  options.symbolic_extent = 3;
  std::string text = printPythonDefinition(f, options);
  EXPECT_NE(
      text.find(
          "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Half, "
          "is_cpu=False, stride_order=[0, 1])"),
      std::string::npos)
      << text;
  // stride_order [0, 1]: dim 1 is outermost, so the strides are (1, 3).
  EXPECT_NE(
      text.find(
          "torch.randn((9,), dtype=torch.float16, device='cuda:0').as_strided((3, 3), (1, 3))"),
      std::string::npos)
      << text;
}

// Found by the parser fuzzer: example sizes for symbolic dims that made the
// element count overflow int64 printed an inputs list that did not read back.
TEST(PythonPrinter, ExampleSizesKeepTheElementCountInInt64) {
  Fusion f;
  auto* x = defineTensor(f, {INT64_MAX, -1}, DataType::Double);
  f.addOutput(neg(x));
  std::string text = printPythonDefinition(f);
  EXPECT_NE(text.find("torch.randn((9223372036854775807, 1), dtype=torch.float64"),
            std::string::npos)
      << text;
  EXPECT_NO_THROW(parsePythonDefinition(text, "printed.py")) << text;
}

TEST(PythonPrinter, UsesTheGivenInputsListAndAliases) {
  Fusion f;
  auto* x = defineTensor(f, {2}, DataType::Int64);
  auto* y = add(x, f.constantInt(1));
  f.addOutput(y);
  f.aliasOutputToInput(y, x);
  PythonPrintOptions options;
  InputSpec spec;
  spec.kind = InputSpec::Kind::Randint;
  spec.shape = {2};
  spec.dtype = DataType::Int64;
  spec.low = 3;
  spec.high = 9;
  options.inputs = {spec};
  std::string text = printPythonDefinition(f, options);
  EXPECT_NE(text.find("fd.add_output(T2, alias_input=T0)"), std::string::npos) << text;
  EXPECT_NE(text.find("    torch.randint(3, 9, (2,), dtype=torch.int64, device='cuda:0'),\n"),
            std::string::npos)
      << text;
}

TEST(PythonPrinter, ScalarsThatCannotBeWrittenAreAUserError) {
  Fusion f;
  Scalar* free = f.newScalar(DataType::Int64);  // not an input, not an extent, not computed
  f.addOutput(full(f, {free}, f.constantDouble(0), DataType::Float));
  try {
    printPythonDefinition(f);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot print scalar"), std::string::npos) << e.what();
  }
}

TEST(PythonPrinter, EmptyFusionPrintsAPassBody) {
  Fusion f;
  PythonPrintOptions options;
  options.repro_script = false;
  std::string text = printPythonDefinition(f, options);
  EXPECT_NE(text.find(":\n    pass\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace fusebox

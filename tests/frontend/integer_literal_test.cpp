// Integer literals and constant arithmetic in scripts are exact int64: a value
// that does not fit is an error at its file:line:col (Python's ints are
// unbounded, nvFuser's are int64), -9223372036854775808 reads as Python reads
// it, and what `print --python` writes reads back to the same fusion.
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "frontend/definition_scripts.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// A script whose fusion body is `lines` (each indented under the def, which is line 3).
std::string script(const std::string& lines) {
  return "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
         "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n" +
         testing::indented(lines);
}

// The value of `S0 = fd.define_scalar(<expr>, dtype=DataType.Int)`.
int64_t intConstant(const std::string& expr) {
  PythonDefinition d = parsePythonDefinition(
      script("S0 = fd.define_scalar(" + expr + ", dtype=DataType.Int)\nfd.add_output(S0)"),
      "lit.py");
  const auto* s = d.fusion->outputs().at(0)->as<Scalar>();
  EXPECT_TRUE(s->isConst());
  return s->isConst() ? toInt(*s->value()) : -1;
}

// "line:col: message" of the UserError parsing `source` raises.
std::string errorOf(const std::string& source) {
  try {
    parsePythonDefinition(source, "lit.py");
  } catch (const UserError& e) {
    return fmt::format("{}:{}: {}", e.where().line, e.where().column, e.detail());
  }
  return "<no error>";
}

TEST(IntegerLiterals, Int64MinReadsAsTheNegationOfTwoToThe63) {
  EXPECT_EQ(intConstant("-9223372036854775808"), kMin);
  EXPECT_EQ(intConstant("-(9223372036854775808)"), kMin);
  EXPECT_EQ(intConstant("-2 ** 63"), kMin);  // -(2 ** 63), as in Python
  EXPECT_EQ(intConstant("2 ** 63 - 1"), kMax);
  EXPECT_EQ(intConstant("9223372036854775807"), kMax);
  EXPECT_EQ(intConstant("-9223372036854775807 - 1"), kMin);
  EXPECT_EQ(intConstant("9223372036854775808 // 2"), int64_t{1} << 62);
}

TEST(IntegerLiterals, ConstantArithmeticOverflowIsAnErrorWhereItHappens) {
  // Body line 1 is file line 4; its column 5 is the body's column 1.
  auto at = [](const std::string& expr) {
    return errorOf(script("S0 = fd.define_scalar(" + expr + ", dtype=DataType.Int)"));
  };
  EXPECT_THAT(at("9223372036854775807 + 1"),
              HasSubstr("4:47: integer 9223372036854775808 does not fit in int64"));
  EXPECT_THAT(at("10 ** 400"),
              HasSubstr("4:30: integer overflow: 10 ** 400 does not fit in int64"));
  EXPECT_THAT(at("2 ** 64 + 4"), HasSubstr("4:29: integer overflow: 2 ** 64 does not fit"));
  EXPECT_THAT(at("-9223372036854775807 - 2"), HasSubstr("integer overflow: -9223372036854775807 - "
                                                        "2 does not fit in int64"));
  EXPECT_THAT(at("3037000500 * 3037000500"), HasSubstr("4:38: integer overflow"));
  EXPECT_THAT(at("9223372036854775808"),
              HasSubstr("4:27: integer 9223372036854775808 does not fit in int64"));
  EXPECT_THAT(at("(9223372036854775808,)"), HasSubstr("4:28: integer 9223372036854775808"));
  // A float constant for an Int scalar must fit (the conversion was undefined).
  EXPECT_THAT(at("1e30"), HasSubstr("cannot convert 1e+30 to an integer: it is outside int64"));
  // Exponents too large to loop over still answer at once.
  EXPECT_EQ(intConstant("1 ** 9223372036854775807"), 1);
  EXPECT_EQ(intConstant("(-1) ** 9223372036854775807"), -1);
  EXPECT_THAT(at("2 ** 9223372036854775807"), HasSubstr("integer overflow"));
}

TEST(IntegerLiterals, ShapesThatOverflowAreErrorsAtTheOp) {
  const std::string t0 =
      "T0 = fd.define_tensor(shape=[8], contiguity=[True], dtype=DataType.Float)\n";
  // full(shape=[2 ** 64 + 4]) gave float[4].
  EXPECT_THAT(errorOf(script("T1 = fd.ops.full(shape=[2 ** 64 + 4], fill_value=0.0, "
                             "dtype=DataType.Float)")),
              HasSubstr("integer overflow: 2 ** 64 does not fit in int64"));
  EXPECT_THAT(errorOf(script("T1 = fd.ops.full(shape=[2 ** 62, 8], fill_value=0.0, "
                             "dtype=DataType.Float)")),
              HasSubstr("4:10: fd.ops.full: a tensor of shape [4611686018427387904, 8] is too "
                        "large"));
  EXPECT_THAT(errorOf(script(t0 + "T1 = fd.ops.pad(T0, [-9223372036854775807, "
                                  "-9223372036854775807])")),
              HasSubstr("5:10: fd.ops.pad: padding dim 0 of T0_g[8] by (-9223372036854775807, "
                        "-9223372036854775807) gives a size that overflows int64"));
  EXPECT_THAT(errorOf(script("T0 = fd.define_tensor(shape=[0], contiguity=[True], "
                             "dtype=DataType.Float)\n"
                             "T1 = fd.ops.reshape(T0, [0, 99999999999, 99999999999, "
                             "99999999999])")),
              HasSubstr("5:10: fd.ops.reshape: a tensor of shape [0, 99999999999, 99999999999, "
                        "99999999999] is too large"));
}

TEST(IntegerLiterals, InputsListKeepsIntegersExact) {
  PythonDefinition d = parsePythonDefinition(
      script("T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
             "S1 = fd.define_scalar(None, dtype=DataType.Int)\n"
             "fd.add_output(T0)") +
          "inputs = [torch.full((2,), 9007199254740993, dtype=torch.int64), "
          "9223372036854775807]\n",
      "lit.py");
  Tensor full = std::get<Tensor>(materializeInput(d.inputs[0], 0));
  EXPECT_EQ(full.getInt({1}), 9007199254740993);  // not ...992 through double
  EXPECT_EQ(std::get<ScalarValue>(materializeInput(d.inputs[1], 0)), ScalarValue(kMax));
  EXPECT_THAT(toPython(d.inputs[0]), HasSubstr("torch.full((2,), 9007199254740993,"));
}

TEST(IntegerLiterals, InputsListSizesAndFillsThatDoNotFit) {
  const std::string body = script(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Int32)\nfd.add_output(T0)");
  EXPECT_THAT(errorOf(body + "inputs = [torch.randn(99999999999, 99999999999)]\n"),
              HasSubstr("6:11: the number of elements of a tensor of size (99999999999, "
                        "99999999999) overflows int64"));
  EXPECT_THAT(errorOf(body + "inputs = [torch.full((2, 2), 2 ** 40, dtype=torch.int32)]\n"),
              HasSubstr("6:30: torch.full fill value 1099511627776 does not fit in torch.int32"));
  EXPECT_THAT(errorOf(body + "inputs = [torch.testing.make_tensor((2, 2), dtype=torch.int32, "
                             "high=1e30)]\n"),
              HasSubstr("torch.testing.make_tensor high 1e+30 is outside int64"));
  EXPECT_THAT(errorOf(body + "inputs = [torch.randn(4).as_strided((2, 2), (9223372036854775807, "
                             "1))]\n"),
              HasSubstr("as_strided view reaches past the largest int64 element offset"));
}

TEST(IntegerLiterals, ExtremeConstantsRoundTripThroughPrintPython) {
  Fusion f;
  auto* x = defineSymbolicTensor(f, 1, DataType::Int64);
  f.addOutput(add(x, f.constantInt(kMin)));
  f.addOutput(sub(x, f.constantInt(kMax)));
  f.addOutput(full(f, {x->axis(0)->extent()}, f.constantInt(kMin), DataType::Int64));
  const std::string printed = printPythonDefinition(f);
  EXPECT_THAT(printed, HasSubstr("-9223372036854775808"));
  PythonDefinition back = parsePythonDefinition(printed, "printed.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(f, *back.fusion, &why)) << why << "\n" << printed;
  EXPECT_EQ(printPythonDefinition(*back.fusion), printed);
}

}  // namespace
}  // namespace fusebox

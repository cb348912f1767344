// fd.ops.stride_order, fd.ops.addcmul, the prod(t, dtype) overload and the
// keyword spellings nvFuser's reductions take (dim=, keep_dim=): what they
// build, their values on hand-checked inputs, the strides of a stride_order
// output through the runtime and the CLI, the printer's round trip, and
// errors at file:line:col.
#include <fmt/format.h>
#include <fusebox/config.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "definition_scripts.h"
#include "eval/eval_test_util.h"
#include "runtime/runtime_test_util.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using test::makeTensor;
using ::testing::HasSubstr;

// A definition whose body is `lines`, one statement a line: body line k is
// file line k + 2, body column c is file column c + 4.
std::string script(const std::string& lines) {
  return "from nvfuser import FusionDefinition, DataType\ndef fusion(fd):\n" +
         testing::indented(lines);
}

const std::string kFloat2d =
    "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n";

// How many expressions of `f` are `op` ("mul", "cast", ...).
int countOps(const Fusion& f, const std::string& op) {
  int n = 0;
  for (const Expr* e : f.exprs()) n += e->opName() == op;
  return n;
}

const TensorView* output(const PythonDefinition& d, size_t i) {
  return d.fusion->outputs().at(i)->as<TensorView>();
}

std::vector<double> values(const Argument& a) {
  return std::get<Tensor>(a).toDoubles();
}

// ---- reductions: overloads and keyword spellings ------------------------------------------

TEST(OpSpellings, ReductionsTakeEveryKeywordSpellingNvFuserUses) {
  PythonDefinition d = parsePythonDefinition(
      script(kFloat2d +
             R"(fd.add_output(fd.ops.sum(T0, dims=[1], keepdim=True, dtype=DataType.Double))
fd.add_output(fd.ops.sum(T0, dim=1, keep_dim=True))
fd.add_output(fd.ops.max(arg=T0, dim=0))
fd.add_output(fd.ops.min(T0, axes=[0, 1], keepdim=False))
fd.add_output(fd.ops.prod(T0, 1, True, DataType.Double))
fd.add_output(fd.ops.prod(T0, [-1], keep_dim=False, dtype=DataType.Float))
fd.add_output(fd.ops.sum(T0, dtype=DataType.Double))
fd.add_output(fd.ops.var(T0, dims=[1], correction=0, keepdim=True))
T1, T2 = fd.ops.var_mean(T0, axes=[0], correction=1, keepdim=False)
fd.add_output(T1))"),
      "spellings.py");
  const std::vector<int64_t> ranks = {2, 2, 1, 0, 2, 1, 0, 2, 1};
  const std::vector<DataType> dtypes = {DataType::Double, DataType::Float,  DataType::Float,
                                        DataType::Float,  DataType::Double, DataType::Float,
                                        DataType::Double, DataType::Float,  DataType::Float};
  for (size_t i = 0; i < ranks.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(output(d, i)->nDims(), ranks[i]);
    EXPECT_EQ(output(d, i)->dtype(), dtypes[i]);
  }
  // T0 = [[1, 2, 3], [4, 5, 6]]
  auto outs = evaluateFusion(*d.fusion, {makeTensor(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(values(outs[0]), (std::vector<double>{6, 15}));
  EXPECT_EQ(values(outs[1]), (std::vector<double>{6, 15}));
  EXPECT_EQ(values(outs[2]), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(values(outs[3]), (std::vector<double>{1}));
  EXPECT_EQ(values(outs[4]), (std::vector<double>{6, 120}));
  EXPECT_EQ(values(outs[5]), (std::vector<double>{6, 120}));
  EXPECT_EQ(values(outs[6]), (std::vector<double>{21}));
  const double two_thirds = static_cast<float>(2.0 / 3);  // a Float output
  EXPECT_EQ(values(outs[7]), (std::vector<double>{two_thirds, two_thirds}));
  EXPECT_EQ(values(outs[8]), (std::vector<double>{4.5, 4.5, 4.5}));
}

TEST(OpSpellings, ProdWithADtypeSecondReducesEveryDim) {
  // nvFuser's test_prod: prod(t0, dtype) and the dim overloads.
  PythonDefinition d = parsePythonDefinition(
      script(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)
fd.add_output(fd.ops.prod(T0, DataType.Float))
fd.add_output(fd.ops.prod(T0, 1, False, DataType.Float))
fd.add_output(fd.ops.prod(T0))
fd.add_output(fd.ops.prod(T0, dtype=DataType.Double))
fd.add_output(fd.ops.max(T0, DataType.Null)))"),
      "prod.py");
  EXPECT_EQ(output(d, 0)->nDims(), 0);
  EXPECT_EQ(output(d, 0)->dtype(), DataType::Float);
  EXPECT_EQ(output(d, 1)->nDims(), 1);
  EXPECT_EQ(output(d, 2)->dtype(), DataType::Int64);  // ints multiply to int64, as torch
  EXPECT_EQ(output(d, 3)->dtype(), DataType::Double);
  EXPECT_EQ(output(d, 4)->dtype(), DataType::Int64);
  EXPECT_EQ(countOps(*d.fusion, "prod"), 4);
  // T0 = [[1, 2, 3], [4, 5, -6]]
  auto outs = evaluateFusion(*d.fusion, {makeTensor(DataType::Int64, {2, 3}, {1, 2, 3, 4, 5, -6})});
  EXPECT_EQ(values(outs[0]), (std::vector<double>{-720}));
  EXPECT_EQ(values(outs[1]), (std::vector<double>{6, -120}));
  EXPECT_EQ(values(outs[2]), (std::vector<double>{-720}));
  EXPECT_EQ(values(outs[3]), (std::vector<double>{-720}));
  EXPECT_EQ(values(outs[4]), (std::vector<double>{5}));
}

// ---- addcmul --------------------------------------------------------------------------------

TEST(OpSpellings, AddcmulIsInputPlusValueTimesBoth) {
  PythonDefinition d = parsePythonDefinition(
      script(R"(T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
T2 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float)
S3 = fd.define_scalar(0.5, dtype=DataType.Double)
T4 = fd.ops.addcmul(T0, T1, T2, S3)
T5 = fd.ops.addcmul(input=T0, tensor1=T1, tensor2=T2, value=-1)
T6 = fd.ops.addcmul(T0, T1, 2.0, 0.5)
fd.add_output(T4)
fd.add_output(T5)
fd.add_output(T6))"),
      "addcmul.py");
  // Built from mul and add: no op of its own.
  EXPECT_EQ(countOps(*d.fusion, "mul"), 6);
  EXPECT_EQ(countOps(*d.fusion, "add"), 3);
  EXPECT_EQ(output(d, 0)->nDims(), 2);  // broadcast against T2's leading dim
  EXPECT_EQ(output(d, 0)->dtype(), DataType::Float);
  auto outs = evaluateFusion(*d.fusion, {makeTensor(DataType::Float, {4}, {1, 2, 3, 4}),
                                         makeTensor(DataType::Float, {4}, {2, 4, 6, 8}),
                                         makeTensor(DataType::Float, {1, 4}, {1, -1, 0.5, 2})});
  EXPECT_EQ(values(outs[0]), (std::vector<double>{2, 0, 4.5, 12}));  // 1 + 0.5 * 2 * 1, ...
  EXPECT_EQ(values(outs[1]), (std::vector<double>{-1, 6, 0, -12}));  // 1 - 2 * 1, ...
  EXPECT_EQ(values(outs[2]), (std::vector<double>{3, 6, 9, 12}));    // 1 + 0.5 * 2 * 2, ...
}

TEST(OpSpellings, AddcmulPromotesAsTorch) {
  PythonDefinition d = parsePythonDefinition(
      script(R"(T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32)
T3 = fd.ops.addcmul(T0, T1, T2, 2)
T4 = fd.ops.addcmul(T2, T2, T0, 2)
T5 = fd.ops.addcmul(T2, T2, T2, fd.define_scalar(3, dtype=DataType.Int))
fd.add_output(T3)
fd.add_output(T4)
fd.add_output(T5))"),
      "promote.py");
  EXPECT_EQ(output(d, 0)->dtype(), DataType::Float);  // an int and a float tensor
  EXPECT_EQ(output(d, 1)->dtype(), DataType::Int64);  // int32 and int64 tensors
  EXPECT_EQ(output(d, 2)->dtype(), DataType::Int32);  // the value takes no part
  auto outs = evaluateFusion(*d.fusion, {makeTensor(DataType::Int64, {2}, {1, 2}),
                                         makeTensor(DataType::Float, {2}, {0.5, 1.5}),
                                         makeTensor(DataType::Int32, {2}, {3, -4})});
  EXPECT_EQ(values(outs[0]), (std::vector<double>{4, -10}));  // 1 + 2 * 0.5 * 3, 2 + 2 * 1.5 * -4
  EXPECT_EQ(values(outs[1]), (std::vector<double>{9, -20}));  // 3 + 2 * 3 * 1, -4 + 2 * -4 * 2
  EXPECT_EQ(values(outs[2]), (std::vector<double>{30, 44}));  // 3 + 3 * 3 * 3, -4 + 3 * 16
}

TEST(OpSpellings, AddcmulOfHalvesRoundsOnceAsTorch) {
  // torch computes half addcmul in float32 and rounds once: 3 + 0.5 * (1 +
  // 2^-10)^2 is just above 3.5009765625, the midpoint between two halves, so
  // it rounds up to 3.501953125; rounding the product to half first would
  // land on the midpoint and round to even, 3.5.
  PythonDefinition d = parsePythonDefinition(
      script(R"(T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half)
T2 = fd.ops.addcmul(T0, T1, T1, 0.5)
T3 = fd.ops.addcmul(T0, T1, T1, fd.define_scalar(0.5))
fd.add_output(T2)
fd.add_output(T3))"),
      "half.py");
  EXPECT_EQ(output(d, 0)->dtype(), DataType::Half);
  EXPECT_EQ(countOps(*d.fusion, "cast"), 8);  // three operands to float and the result back, twice
  auto outs = evaluateFusion(*d.fusion, {makeTensor(DataType::Half, {1}, {3}),
                                         makeTensor(DataType::Half, {1}, {1.0009765625})});
  EXPECT_EQ(values(outs[0]), (std::vector<double>{3.501953125}));
  EXPECT_EQ(values(outs[1]), (std::vector<double>{3.501953125}));
}

// ---- stride_order ---------------------------------------------------------------------------

TEST(OpSpellings, StrideOrderIsACopyWhoseOutputHasTheLayout) {
  PythonDefinition d =
      parsePythonDefinition(script(kFloat2d + R"(T1 = fd.ops.stride_order(T0, [0, 1])
T2 = fd.ops.stride_order(arg=T0, stride_order=[1, 0])
T3 = fd.ops.stride_order(T1, [])
T4 = fd.ops.exp(T1)
fd.add_output(T1)
fd.add_output(T2)
fd.add_output(T3)
fd.add_output(T4))"),
                            "order.py");
  EXPECT_EQ(countOps(*d.fusion, "set"), 3);
  const Fusion& f = *d.fusion;
  // Column-major: an allocation domain and, as an output, the required order.
  EXPECT_TRUE(output(d, 0)->hasAllocation());
  EXPECT_EQ(output(d, 0)->strideOrder(), (std::vector<int64_t>{0, 1}));
  ASSERT_NE(f.requiredStrideOrder(output(d, 0)), nullptr);
  EXPECT_EQ(*f.requiredStrideOrder(output(d, 0)), (std::vector<int64_t>{0, 1}));
  // Row-major is no allocation domain, but still the output's contract.
  EXPECT_FALSE(output(d, 1)->hasAllocation());
  ASSERT_NE(f.requiredStrideOrder(output(d, 1)), nullptr);
  EXPECT_EQ(*f.requiredStrideOrder(output(d, 1)), (std::vector<int64_t>{1, 0}));
  // An empty order keeps the default layout; other ops' outputs have none.
  EXPECT_EQ(f.requiredStrideOrder(output(d, 2)), nullptr);
  EXPECT_EQ(f.requiredStrideOrder(output(d, 3)), nullptr);

  // Values are the input's; the evaluator lays the outputs out as required.
  Tensor in = makeTensor(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto outs = evaluateFusion(f, {in});
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(values(outs[i]), in.toDoubles()) << i;
  EXPECT_EQ(std::get<Tensor>(outs[0]).strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(std::get<Tensor>(outs[1]).strides(), (std::vector<int64_t>{3, 1}));
}

TEST(OpSpellings, AddOutputsOwnStrideOrderWinsOverStrideOrders) {
  PythonDefinition d =
      parsePythonDefinition(script(kFloat2d + R"(T1 = fd.ops.stride_order(T0, [0, 1])
fd.add_output(T1, stride_order=[1, 0]))"),
                            "both.py");
  EXPECT_EQ(*d.fusion->requiredStrideOrder(output(d, 0)), (std::vector<int64_t>{1, 0}));
}

// Runs `d`'s fusion through the runtime with the default config on the host
// backend and returns the outputs.
std::vector<Argument> runDefault(PythonDefinition& d, const std::vector<Argument>& inputs) {
  FusionRuntime rt(std::move(d.fusion), loadConfigFile(defaultConfigFile()),
                   runtime_testing::builtinPlugins(), Options(), runtime_testing::hostOptions());
  return rt.run(inputs);
}

TEST(OpSpellings, StrideOrderOutputsComeOutOfTheRuntimeInThatOrder) {
  // nvFuser's test_broadcast_and_stride_order, and row-major from a
  // column-major input, which allocation order inference would otherwise
  // give the input's layout (T4 shows it does).
  PythonDefinition d = parsePythonDefinition(
      script(
          R"(T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, stride_order=[0, 1])
T2 = fd.ops.broadcast(T0, is_broadcast_dim=[False, True, False, False])
T3 = fd.ops.stride_order(T2, stride_order=[0, 1, 2, 3])
T4 = fd.ops.neg(T1)
T5 = fd.ops.stride_order(T4, [1, 0])
T6 = fd.ops.stride_order(T4, [0, 1])
fd.add_output(T3)
fd.add_output(T4)
fd.add_output(T5)
fd.add_output(T6))"),
      "run.py");
  std::unique_ptr<Fusion> reference = d.fusion->clone();
  Tensor x = runtime_testing::sampleTensor({2, 3, 4});
  Tensor y = Tensor::emptyWithStrideOrder(DataType::Float, {2, 3}, {0, 1});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) y.setDouble({i, j}, static_cast<double>(i * 3 + j));
  const std::vector<Argument> inputs = {x, y};
  auto outs = runDefault(d, inputs);
  ASSERT_EQ(outs.size(), 4u);
  // [2, 1, 3, 4] with dim 0 innermost: strides 1, 2, 2, 6.
  EXPECT_EQ(std::get<Tensor>(outs[0]).strides(), (std::vector<int64_t>{1, 2, 2, 6}));
  EXPECT_EQ(std::get<Tensor>(outs[1]).strides(), (std::vector<int64_t>{1, 2}));  // inferred
  EXPECT_EQ(std::get<Tensor>(outs[2]).strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(std::get<Tensor>(outs[3]).strides(), (std::vector<int64_t>{1, 2}));
  auto want = evaluateFusion(*reference, inputs);
  for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(values(outs[i]), values(want[i])) << i;
  EXPECT_EQ(values(outs[2]), (std::vector<double>{-0.0, -1, -2, -3, -4, -5}));
}

TEST(OpSpellings, StrideOrderScriptRunsAndValidatesThroughTheCli) {
  testing::TempDir dir;
  const auto path = dir.write(
      "stride_order.py",
      script(R"(T0 = fd.from_pytorch(inputs[0])
T1 = fd.ops.broadcast(T0, is_broadcast_dim=[False, True, False, False])
T2 = fd.ops.stride_order(T1, stride_order=[0, 1, 2, 3])
T3 = fd.ops.addcmul(T0, T0, T0, 0.1)
T4 = fd.ops.prod(T3, DataType.Float)
fd.add_output(T2)
fd.add_output(T4))") +
          "\ninputs = [\n    torch.randn(2, 3, 4, dtype=torch.float32, device='cuda:0'),\n]\n");
  const auto r = testing::runCommand(std::string(FUSEBOX_EXE) + " run " + path.string() +
                                     " --backend host --validate --no-ir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (2 outputs"));
}

// `printed` (printPythonDefinition of `f`) reads back as `f` and prints the same.
void expectReadsBackAsTheSame(const Fusion& f, const std::string& printed) {
  PythonDefinition back = parsePythonDefinition(printed, "printed.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(f, *back.fusion, &why)) << why << "\n" << printed;
  EXPECT_EQ(printPythonDefinition(*back.fusion), printed);
}

TEST(OpSpellings, PrintedScriptsReadBackAsTheSameFusion) {
  PythonDefinition d =
      parsePythonDefinition(script(kFloat2d + R"(T1 = fd.ops.stride_order(T0, [0, 1])
T2 = fd.ops.exp(T1)
T3 = fd.ops.stride_order(T2, [1, 0])
T4 = fd.ops.addcmul(T0, T2, T3, 0.5)
T5 = fd.ops.prod(T4, DataType.Double)
T6 = fd.ops.sum(T4, dim=0, keep_dim=True)
fd.add_output(T3)
fd.add_output(T5)
fd.add_output(T6))"),
                            "rt.py");
  const std::string printed = printPythonDefinition(*d.fusion);
  // The intermediate's layout is an op; the row-major output's, add_output's.
  EXPECT_THAT(printed, HasSubstr("T1 = fd.ops.stride_order(T0, stride_order=[0, 1])\n"));
  EXPECT_THAT(printed, HasSubstr("T3 = fd.ops.set(T2)\n"));
  EXPECT_THAT(printed, HasSubstr("fd.add_output(T3, stride_order=[1, 0])\n"));
  expectReadsBackAsTheSame(*d.fusion, printed);
}

// ---- errors -------------------------------------------------------------------------------------

TEST(OpSpellings, BadArgumentsAreErrorsAtTheirPlace) {
  struct Case {
    std::string line;  // body line 4 (file line 6), after T0, T1 and T2
    std::string at;    // the text the error points to (its first occurrence)
    const char* phrase;
  };
  const Case cases[] = {
      {"T3 = fd.ops.stride_order(T0, [0, 1, 2])", "[0, 1, 2]",
       "fd.ops.stride_order: stride_order has 3 entries, but T0 has 2 dims (expected a "
       "permutation of 0..1)"},
      {"T3 = fd.ops.stride_order(T0, stride_order=[1, 1])", "[1, 1]",
       "fd.ops.stride_order: stride_order [1, 1] is not a permutation of 0..1 (1 appears twice)"},
      {"T3 = fd.ops.stride_order(T0, [0, 2])", "[0, 2]",
       "fd.ops.stride_order: stride_order [0, 2] is not a permutation of 0..1 (2 is out of "
       "range)"},
      {"T3 = fd.ops.stride_order(T0, [-1, 0])", "[-1, 0]", "(-1 is out of range)"},
      {"T3 = fd.ops.stride_order(T2, [0])", "[0]",
       "stride_order has 1 entry, but T2 has 0 dims (expected an empty list)"},
      {"T3 = fd.ops.stride_order(T0, order=[0, 1])",
       "order=", "unexpected keyword 'order' for fd.ops.stride_order (expected: stride_order)"},
      {"T3 = fd.ops.stride_order(T0)", "fd.ops",
       "fd.ops.stride_order takes 2 arguments, got 1 (missing 'stride_order')"},
      {"T3 = fd.ops.sum(T0, keepdims=True)", "keepdims",
       "unexpected keyword 'keepdims' for fd.ops.sum (expected: dims, axes, dim, keepdim, "
       "keep_dim, dtype)"},
      {"T3 = fd.ops.sum(T0, dim=1, keep_dim=True, keepdim=False)", "keepdim=False",
       "fd.ops.sum got multiple values for 'keepdim'"},
      {"T3 = fd.ops.max(T0, dims=[0], dim=1)", "dim=1",
       "fd.ops.max got multiple values for 'dims'"},
      {"T3 = fd.ops.var(T0, dim=[0])", "dim=",
       "unexpected keyword 'dim' for fd.ops.var (expected: dims, axes, correction, keepdim)"},
      {"T3 = fd.ops.prod(T0, DataType.Float, True)", "True",
       "fd.ops.prod(arg, dtype) reduces every dim and takes no keepdim (its second argument "
       "DataType.Float is the dtype)"},
      {"T3 = fd.ops.prod(T0, DataType.Float, dtype=DataType.Half)", "DataType.Half",
       "takes no second dtype"},
      {"T3 = fd.ops.addcmul(T1, T1, T1, 0.5)", "0.5",
       "fd.ops.addcmul: value 0.5 is a floating-point number, but input, tensor1 and tensor2 "
       "promote to Int32"},
      {"T3 = fd.ops.addcmul(T0, T0, T0, T0)", "T0)",
       "T0 is a tensor, expected a scalar or a number (argument 'value' of fd.ops.addcmul)"},
      {"T3 = fd.ops.addcmul(T0, T0, T0)", "fd.ops",
       "fd.ops.addcmul takes 4 arguments, got 3 (missing 'value')"},
      {"T3 = fd.ops.addcmul(T0, T0, T0, 1, arg5=2)", "arg5", "unexpected keyword 'arg5'"},
      {"T3 = fd.ops.addcmul(T1, T1, fd.ops.full([3, 2], 1, DataType.Int32), 1)", "fd.ops.addcmul",
       "fd.ops.addcmul: tensor2 (T3_g) has size 2 at dim -1, but input (T1) has size 3 there "
       "(the operands must broadcast together)"},
      {"T3 = fd.ops.addcmul(fd.ops.ne(T0, 0), fd.ops.ne(T0, 1), fd.ops.ne(T0, 2), 1)",
       "fd.ops.addcmul", "fd.ops.addcmul: Bool operands are not supported"},
  };
  const std::string inputs =
      kFloat2d +
      "T1 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Int32)\n"
      "T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float)\n";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const size_t at = c.line.find(c.at);
    ASSERT_NE(at, std::string::npos);
    testing::expectRefusedAt(script(inputs + c.line), 6, static_cast<int>(at) + 1 + 4, c.phrase);
  }
}

}  // namespace
}  // namespace fusebox

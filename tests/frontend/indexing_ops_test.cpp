// fd.ops indexing ops, scans, triu, embedding_fwd, signbit, nextafter, gcd,
// the shifts and real/imag in scripts: nvFuser's argument names, values on
// hand-checked inputs, errors at file:line:col, the round trip through the
// printer, and a run through the runtime where the index op segments onto
// expr_eval and the rest onto kernels, validated against the evaluator.
#include <fmt/format.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "definition_scripts.h"
#include "eval/eval_test_util.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace fusebox {
namespace {

using test::makeTensor;
using ::testing::HasSubstr;

constexpr const char* kHeader =
    "import torch\n"
    "from nvfuser import FusionDefinition, DataType\n"
    "\n"
    "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n";

// A definition whose body is `lines` (one statement a line), indented under
// kHeader: body line k is file line k + 4, body column c is file column c + 4.
std::string script(const std::string& lines) {
  return kHeader + testing::indented(lines);
}

// `lines`, then fd.add_output(T<first>) ... fd.add_output(T<last>).
std::string withOutputs(std::string lines, int first, int last) {
  for (int k = first; k <= last; ++k) lines += fmt::format("\nfd.add_output(T{})", k);
  return lines;
}

// Inputs T0 (float, 2-D), T1 (int64, 1-D) and T2 (int32, 2-D), a line each.
const std::string kT012 =
    "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
    "T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
    "T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32)\n";

std::map<std::string, int> opNames(const Fusion& f) {
  std::map<std::string, int> names;
  for (const Expr* e : f.exprs()) ++names[e->opName()];
  return names;
}

TEST(IndexingOps, EveryOpParsesWithNvFusersArgumentNames) {
  const std::string body = R"(S3 = fd.define_scalar(None, dtype=DataType.Int)
T4 = fd.ops.index_select(T0, T1, dim=1)
T5 = fd.ops.index_select(arg=T0, index=T1, dim=0)
T6 = fd.ops.select(T0, S3, 0)
T7 = fd.ops.select(arg=T0, index=-1, dim=1)
T8 = fd.ops.gather(arg1=T0, index=T2, dim=1)
T9 = fd.ops.take_along_axis(T0, T2, 0)
T10 = fd.ops.scatter(T0, T2, T0, 0)
T11 = fd.ops.scatter(arg1=T0, index=T2, src=1.5, dim=1)
T12 = fd.ops.cumsum(T0, 1)
T13 = fd.ops.cumprod(arg=T2, dim=-1)
T14 = fd.ops.cummax(T0, 0)
T15 = fd.ops.cummin(T0, dim=1)
T16 = fd.ops.triu(T0)
T17 = fd.ops.triu(input=T0, diagonal=-1)
T18 = fd.ops.embedding_fwd(T2, T0, None, None, None, None, None)
T19 = fd.ops.embedding_fwd(input=T1, weight=T0, padding_idx=0, scale_grad_by_freq=False, sparse=True)
T20 = fd.ops.signbit(T0)
T21 = fd.ops.nextafter(T0, 0.0)
T22 = fd.ops.gcd(T2, T1)
T23 = fd.ops.logical_right_shift(T2, 3)
T24 = fd.ops.bitwise_left_shift(T2, 3)
T25 = fd.ops.bitwise_right_shift(T2, T2)
T26 = fd.ops.fmod(T2, 3)
T27 = fd.ops.remainder(T0, -2.0)
T28 = fd.ops.bitwise_xor(T2, T2)
T29 = fd.ops.bitwise_not(T2))";
  PythonDefinition d = parsePythonDefinition(script(withOutputs(kT012 + body, 4, 29)), "all.py");
  std::map<std::string, int> ops = opNames(*d.fusion);
  // Two index_selects of their own, one for each embedding.
  EXPECT_EQ(ops["index_select"], 4);
  EXPECT_EQ(ops["select"], 2);
  EXPECT_EQ(ops["gather"], 1);
  EXPECT_EQ(ops["take_along_axis"], 1);
  EXPECT_EQ(ops["scatter"], 2);
  for (const char* scan : {"cumsum", "cumprod", "cummax", "cummin"})
    EXPECT_EQ(ops[scan], 1) << scan;
  EXPECT_EQ(ops["iota"], 4);  // two per triu
  for (const char* op : {"signbit", "nextafter", "gcd", "logical_right_shift", "bitwise_left_shift",
                         "bitwise_right_shift", "fmod", "remainder", "bitwise_xor", "bitwise_not"})
    EXPECT_EQ(ops[op], 1) << op;
  const auto& outs = d.fusion->outputs();
  EXPECT_EQ(outs[9]->dtype(), DataType::Int64);       // cumprod of int32 widens, as torch
  EXPECT_EQ(outs[14]->as<TensorView>()->nDims(), 3);  // embedding of a 2-D index
  EXPECT_EQ(outs[16]->dtype(), DataType::Bool);
}

TEST(IndexingOps, ScriptValuesMatchHandComputedOnes) {
  PythonDefinition d = parsePythonDefinition(script(kT012 + R"(T3 = fd.ops.index_select(T0, T1, 1)
T4 = fd.ops.cumsum(T3, dim=1)
T5 = fd.ops.triu(T0, 1)
T6 = fd.ops.select(T0, -1, 0)
fd.add_output(T4)
fd.add_output(T5)
fd.add_output(T6))"),
                                             "v.py");
  // T0 = [[1, 2, 3], [4, 5, 6]]; T1 = [2, 2, 0]
  auto outs = evaluateFusion(*d.fusion, {makeTensor(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}),
                                         makeTensor(DataType::Int64, {3}, {2, 2, 0}),
                                         makeTensor(DataType::Int32, {1, 1}, {0})});
  EXPECT_EQ(std::get<Tensor>(outs[0]).toDoubles(), (std::vector<double>{3, 6, 7, 6, 12, 16}));
  EXPECT_EQ(std::get<Tensor>(outs[1]).toDoubles(), (std::vector<double>{0, 2, 3, 0, 0, 6}));
  EXPECT_EQ(std::get<Tensor>(outs[2]).toDoubles(), (std::vector<double>{4, 5, 6}));
}

TEST(IndexingOps, BadInputsAreErrorsAtTheirPlace) {
  struct Case {
    std::string line;  // body line 4 (file line 8), after T0, T1 and T2
    int column;        // in the body line
    const char* phrase;
  };
  const Case cases[] = {
      {"T3 = fd.ops.index_select(T0, T0, 0)", 6,
       "fd.ops.index_select: index must be an Int or Int32 tensor, got Float"},
      {"T3 = fd.ops.index_select(T0, T2, 0)", 6,
       "has rank 2; index_select takes a vector of indices (rank 0 or 1)"},
      {"T3 = fd.ops.index_select(T0, T1, 2)", 6,
       "fd.ops.index_select: dim 2 is out of range for a tensor of rank 2 (expected -2..1)"},
      {"T3 = fd.ops.gather(T0, T1, 0)", 6, "(expected equal ranks)"},
      {"T3 = fd.ops.take_along_axis(T0, T2, -3)", 6, "dim -3 is out of range"},
      {"T3 = fd.ops.scatter(T0, T2, T2, 0)", 6, "is Int32 but the input"},
      {"T3 = fd.ops.select(T0, 0.5, 0)", 6, "fd.ops.select: index must be an integer scalar"},
      {"T3 = fd.ops.select(T0, T1, 0)", 24, "T1 is a tensor, expected a scalar"},
      {"T3 = fd.ops.cumsum(T0)", 6, "fd.ops.cumsum takes 2 arguments, got 1 (missing 'dim')"},
      {"T3 = fd.ops.cumsum(T0, dims=[1])", 24, "unexpected keyword 'dims' for fd.ops.cumsum"},
      {"T3 = fd.ops.triu(T1)", 6, "fd.ops.triu: the input T1_g[i2] has rank 1"},
      {"T3 = fd.ops.embedding_fwd(T2, T0, None, 1.0)", 41,
       "fd.ops.embedding_fwd: max_norm is not supported: torch renormalizes the rows of weight "
       "in place"},
      {"T3 = fd.ops.embedding_fwd(T0, T0)", 6,
       "fd.ops.embedding_fwd: input must be an Int or Int32 tensor"},
      {"T3 = fd.ops.nextafter(T2, T2)", 6, "fd.ops.nextafter: expects floating-point operands"},
      {"T3 = fd.ops.gcd(T0, T2)", 6, "fd.ops.gcd: expects integer operands, got Float and Int32"},
      {"T3 = fd.ops.real(T0)", 6,
       "fd.ops.real: complex dtypes are not supported (fusebox has no complex tensors"},
      {"T3 = fd.ops.imag(T0)", 6, "fd.ops.imag: complex dtypes are not supported"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    testing::expectRefusedAt(script(kT012 + c.line), 8, c.column + 4, c.phrase);
  }
}

TEST(IndexingOps, OutOfRangeIndicesFailWhenTheFusionRuns) {
  PythonDefinition d = parsePythonDefinition(
      script(kT012 + "T3 = fd.ops.index_select(T0, T1, 0)\nfd.add_output(T3)"), "r.py");
  try {
    evaluateFusion(*d.fusion, {makeTensor(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}),
                               makeTensor(DataType::Int64, {2}, {1, -1}),
                               makeTensor(DataType::Int32, {1, 1}, {0})});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index_select: index -1 (at [1] of T1_g) is out of range for "
                                    "dim 0 of T0_g, of size 2 (expected 0 <= index < 2)"));
  }
}

TEST(IndexingOps, PrintedScriptsReadBackAsTheSameFusion) {
  const std::string body = R"(S3 = fd.define_scalar(None, dtype=DataType.Int)
T4 = fd.ops.index_select(T0, T1, dim=1)
T5 = fd.ops.select(T0, S3, 0)
T6 = fd.ops.gather(T0, T2, 1)
T7 = fd.ops.take_along_axis(T0, T2, 1)
T8 = fd.ops.scatter(T0, T2, T0, 0)
T9 = fd.ops.scatter(T0, T2, 2.5, dim=1)
T10 = fd.ops.cumsum(T0, 1)
T11 = fd.ops.cummin(T2, 0)
T12 = fd.ops.triu(T0, -1)
T13 = fd.ops.embedding_fwd(T2, T0)
T14 = fd.ops.signbit(T0)
T15 = fd.ops.nextafter(T0, 0.0)
T16 = fd.ops.gcd(T2, T1)
T17 = fd.ops.logical_right_shift(T2, 3))";
  const std::string source = script(withOutputs(kT012 + body, 4, 17));
  PythonDefinition d = parsePythonDefinition(source, "rt.py");
  const std::string printed = printPythonDefinition(*d.fusion);
  EXPECT_THAT(printed, HasSubstr("fd.ops.index_select(T0, T1, dim=1)"));
  EXPECT_THAT(printed, HasSubstr("fd.ops.select(T0, S3, dim=0)"));
  EXPECT_THAT(printed, HasSubstr("fd.ops.scatter(T0, T2, S"));
  EXPECT_THAT(printed, HasSubstr("fd.ops.cummin(T2, dim=0)"));
  PythonDefinition back = parsePythonDefinition(printed, "printed.py");
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(*d.fusion, *back.fusion, &why)) << why << "\n" << printed;
  EXPECT_EQ(printPythonDefinition(*back.fusion), printed);
}

// The CLI: index_select is an indirect load inside the kernel of the ops
// around it (the scan scheduler's: a cumsum along rows follows), scatter a
// segment of its own on expr_eval; --validate compares every output.
TEST(IndexingOps, RunsThroughTheRuntimeWithIndexSelectInAKernel) {
  testing::TempDir dir;
  const std::string source = script(R"(T0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
T2 = fd.define_tensor(shape=[-1], dtype=DataType.Int)
T3 = fd.ops.add(T0, T1)
T4 = fd.ops.index_select(T3, T2, 0)
T5 = fd.ops.relu(T4)
T6 = fd.ops.cumsum(T5, 1)
T7 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Int)
T8 = fd.ops.scatter(T5, T7, 2.5, 1)
T9 = fd.ops.mul(T8, T8)
fd.add_output(T5)
fd.add_output(T6)
fd.add_output(T9))") + R"(
inputs = [
    torch.randn(8, 16, device='cuda'),
    torch.randn(8, 16, device='cuda'),
    torch.randint(0, 8, (6,), device='cuda'),
    torch.randint(0, 16, (6, 3), device='cuda'),
]
)";
  const auto path = dir.write("index_select.py", source);
  const auto r = testing::runCommand(std::string(FUSEBOX_EXE) + " run " + path.string() +
                                     " --backend host --validate --no-ir --dump=segmenter_log");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("group 0 by scan, group 1 by expr_eval, group 2 by pointwise"));
  EXPECT_THAT(r.output, HasSubstr("pointwise: compile time: scatter (expr 4) writes at run-time "
                                  "indices"));
  EXPECT_THAT(r.output, HasSubstr("pointwise: compile time: cumsum (expr 3) is a scan: the scan "
                                  "scheduler's along the innermost dim"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (3 outputs"));

  // An index out of range is a user error (exit code 1) naming the op, the
  // index, the dim and its size: from the kernel on the host backend, from
  // the evaluator on eval.
  const auto bad = dir.write(
      "bad.py", script(kT012 + "T3 = fd.ops.index_select(T0, T1, 1)\nfd.add_output(T3)") +
                    "\ninputs = [\n    torch.randn(2, 3),\n    torch.randint(3, 4, (2,)),\n    "
                    "torch.randint(0, 3, (1, 1), dtype=torch.int32),\n]\n");
  const auto rb =
      testing::runCommand(std::string(FUSEBOX_EXE) + " run " + bad.string() + " --backend host");
  EXPECT_EQ(rb.exit_code, 1) << rb.output;
  EXPECT_THAT(rb.output, HasSubstr("index_select (expr 0): index 3 is out of range for dim 1 of "
                                   "T0_g, of size 3 (expected 0 <= index < 3); kernel "
                                   "fusebox_pointwise_"));
  const auto re =
      testing::runCommand(std::string(FUSEBOX_EXE) + " run " + bad.string() + " --backend eval");
  EXPECT_EQ(re.exit_code, 1) << re.output;
  EXPECT_THAT(re.output, HasSubstr("index_select: index 3 (at [0] of T1_g) is out of range for "
                                   "dim 1 of T0_g, of size 3"));
}

TEST(IndexingOps, CrossEntropyIsARowKernelAndAGatheringReduction) {
  // examples/cross_entropy.py: gather_before_pointwise picks the target's
  // logit instead of the whole log-softmax, so the row kernel writes per-row
  // values only and the mean over the rows gathers the logits in its
  // prologue: two kernels.
  const std::string run = std::string(FUSEBOX_EXE) + " run " + FUSEBOX_SOURCE_DIR +
                          "/examples/cross_entropy.py --backend host --no-ir --input T1=37:int64";
  const auto r =
      testing::runCommand(run + " --input T0=37x1000:bfloat16 --validate --dump kernel_source");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 segments in "));
  EXPECT_THAT(r.output, HasSubstr("group 0 by inner_persistent, group 1 by reduction"));
  EXPECT_THAT(r.output, HasSubstr("validate: PASS (1 output"));
  // The log-sum-exp's terms are approximate exps (the loss is float, but
  // only a logged sum reads them: kernelgen/approximate_math.h).
  EXPECT_THAT(r.output, HasSubstr("fusebox::op::exp_approx("));
  // Random int64 inputs lie in [0, 10): past a vocabulary of 5 some target
  // is out of range, the reduction kernel's index error.
  const auto rb = testing::runCommand(run + " --input T0=37x5:bfloat16");
  EXPECT_EQ(rb.exit_code, 1) << rb.output;
  EXPECT_THAT(rb.output, HasSubstr("take_along_axis (expr "));
  EXPECT_THAT(rb.output, HasSubstr("is out of range for dim 1 of T0_g, of size 5 (expected 0 <= "
                                   "index < 5); kernel fusebox_reduction_"));
}

}  // namespace
}  // namespace fusebox

// The kernel IR's printers: C++ precedence decides the parentheses, each
// statement kind prints as the kernels expect, and the dump shows the
// structure.
#include <fusebox/error.h>

#include <gtest/gtest.h>
#include <cstdint>

#include "kernel_ir/kernel_ir.h"
#include "kernel_ir/kernel_source.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"

namespace fusebox::kir {
namespace {

TEST(KernelIrValues, ParenthesesFollowPrecedence) {
  const Value a = var("a"), b = var("b"), c = var("c");
  EXPECT_EQ(printValue(a + b * c), "a + b * c");
  EXPECT_EQ(printValue((a + b) * c), "(a + b) * c");
  EXPECT_EQ(printValue(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(printValue((a - b) - c), "a - b - c");
  EXPECT_EQ(printValue(a / (b * c)), "a / (b * c)");
  EXPECT_EQ(printValue(a < b && b < c), "a < b && b < c");
  EXPECT_EQ(printValue((a || b) && c), "(a || b) && c");
  EXPECT_EQ(printValue(-(a + b)), "-(a + b)");
  EXPECT_EQ(printValue(a * lit(-2)), "a * -2");
  EXPECT_EQ(printValue(-lit(-2)), "-(-2)");  // not the decrement --2
  EXPECT_EQ(printValue(-(-a)), "-(-a)");
  EXPECT_EQ(printValue(a - lit(-2)), "a - -2");  // valid C++: the space separates them
  EXPECT_EQ(printValue(-text("-1.5f")), "-(-1.5f)");
  EXPECT_EQ(printValue(~(a + b)), "~(a + b)");
  EXPECT_EQ(printValue(lit(INT64_MIN) + a), "(-9223372036854775807ll - 1) + a");
  EXPECT_EQ(printValue(select(a < b, a, b) + c), "(a < b ? a : b) + c");
  EXPECT_EQ(printValue((a == b) && (b != c)), "a == b && b != c");
  EXPECT_EQ(printValue((a < b) == c), "a < b == c");
  EXPECT_EQ(printValue(a == (b == c)), "a == (b == c)");
}

TEST(KernelIrValues, PostfixFormsBindTightest) {
  const Value sc = var("sc");
  EXPECT_EQ(printValue(subscript(sc, var("v") - lit(1))), "sc[v - 1]");
  EXPECT_EQ(printValue(var("c") + cast(indexType(), threadIdx('x')) * lit(4)),
            "c + static_cast<idx_t>(threadIdx.x) * 4");
  EXPECT_EQ(printValue(call("fusebox::dynamicSharedMemory", {}, {named("float")})),
            "fusebox::dynamicSharedMemory<float>()");
  EXPECT_EQ(printValue(call("f", {var("x") + lit(1), lit(2)})), "f(x + 1, 2)");
  EXPECT_EQ(printValue(subscript(var("p") + lit(1), lit(0))), "(p + 1)[0]");
}

TEST(KernelIrStatements, LoopsBranchesAndDeclarations) {
  Block k;
  const Value n = text("p.ints[0]");
  const Value carry = k.declare("carry", named("float"), text("0.0f"));
  k.declare("row", indexType(), cast(indexType(), blockIdx('x')),
            {.is_const = true, .maybe_unused = true});
  Block chunk = k.forLoop("c", indexType(), lit(0), n, lit(256));
  const Value active = chunk.declare("active", boolType(), var("c") < n, {.is_const = true});
  const Value sc = chunk.declareArray("sc", named("float"), 4);
  auto [then_block, else_block] = chunk.ifElse(active);
  then_block.forLoop("v", intType(), lit(1), lit(4), {}, Unroll::Full, BodyStyle::SameLine)
      .assign(subscript(sc, var("v")), subscript(sc, var("v") - lit(1)), "+=");
  else_block.ret();
  chunk.assign(carry, subscript(sc, lit(3)), "+=");
  chunk.syncThreads();
  EXPECT_EQ(printCuda(k, 1),
            "  float carry = 0.0f;\n"
            "  [[maybe_unused]] const idx_t row = static_cast<idx_t>(blockIdx.x);\n"
            "  for (idx_t c = 0; c < p.ints[0]; c += 256) {\n"
            "    const bool active = c < p.ints[0];\n"
            "    float sc[4];\n"
            "    if (active) {\n"
            "      FUSEBOX_UNROLL\n"
            "      for (int v = 1; v < 4; ++v) sc[v] += sc[v - 1];\n"
            "    } else {\n"
            "      return;\n"
            "    }\n"
            "    carry += sc[3];\n"
            "    __syncthreads();\n"
            "  }\n");
}

TEST(KernelIrStatements, SameLineAndNextLineBodies) {
  Block k;
  Block guarded = k.ifThen(var("active"), BodyStyle::SameLine);
  Block split = guarded.forExisting(var("s"), var("s") < var("n"), lit(8), BodyStyle::NextLine);
  split.forLoop("v", intType(), lit(0), lit(2), {}, Unroll::None, BodyStyle::SameLine)
      .assign(subscript(var("acc"), var("v")), var("x"));
  EXPECT_EQ(printCuda(k, 0),
            "if (active) for (; s < n; s += 8)\n"
            "  for (int v = 0; v < 2; ++v) acc[v] = x;\n");
}

TEST(KernelIrStatements, AssignmentTargetsEvaluationsAndComments) {
  Block k;
  k.comment("the last block combines");
  k.assign(select(var("c"), var("a"), var("b")), lit(1));  // c ? a : b = 1 would assign b only
  k.evaluate(call("fusebox::arrive", {var("tickets")}));
  k.forLoop("i", intType(), lit(0), lit(2)).ifThen(var("done"), BodyStyle::SameLine).breakLoop();
  EXPECT_EQ(printCuda(k, 0),
            "// the last block combines\n"
            "(c ? a : b) = 1;\n"
            "fusebox::arrive(tickets);\n"
            "for (int i = 0; i < 2; ++i) {\n"
            "  if (done) break;\n"
            "}\n");
}

TEST(KernelIrStatements, ANextLineBodyIsOneLoopOrBranch) {
  // Text of two lines after a braceless loop header would leave the second
  // line out of the loop.
  Block k;
  k.forLoop("v", intType(), lit(0), lit(2), {}, Unroll::None, BodyStyle::NextLine)
      .code("x[v] = 0;\ny[v] = 0;");
  EXPECT_THROW(printCuda(k), InternalError);
  Block same;
  same.forLoop("v", intType(), lit(0), lit(2), {}, Unroll::None, BodyStyle::SameLine)
      .code("x[v] = 0;");
  EXPECT_THROW(printCuda(same), InternalError);
}

TEST(KernelIrStatements, CodeKeepsItsLinesAtTheBlocksIndent) {
  Block k;
  Block body = k.forLoop("i", intType(), lit(0), lit(2));
  body.code("const float t0 = x[i];\nif (t0 > 0) {\n  y[i] = t0;\n}");
  EXPECT_EQ(printCuda(k, 1),
            "  for (int i = 0; i < 2; ++i) {\n"
            "    const float t0 = x[i];\n"
            "    if (t0 > 0) {\n"
            "      y[i] = t0;\n"
            "    }\n"
            "  }\n");
}

TEST(KernelIrStatements, AnUnrolledLoopCannotFollowASameLineHeader) {
  Block k;
  k.ifThen(var("a"), BodyStyle::SameLine)
      .forLoop("v", intType(), lit(0), lit(2), {}, Unroll::Full, BodyStyle::SameLine)
      .assign(var("x"), var("v"));
  EXPECT_THROW(printCuda(k), InternalError);
}

TEST(KernelIrStatements, ASharedArrayIsOnePerBlock) {
  Block k;
  const Value partial = k.declareArray("partial", named("float"), 256, {.shared = true});
  k.assign(subscript(partial, threadIdx('x')), text("0.0f"));
  EXPECT_EQ(printCuda(k, 1),
            "  __shared__ float partial[256];\n"
            "  partial[threadIdx.x] = 0.0f;\n");
  EXPECT_EQ(printIr(k), "decl shared partial: float[256]\npartial[threadIdx.x] = 0.0f\n");
}

// The frame every kernel opens with: the index type and restrict pointers.
TEST(KernelIrStatements, TypeAliasesAndKernelParameterPointers) {
  Block k;
  k.typeAlias("idx_t", named("int32_t"));
  const Type in = constOf(named("float"));
  k.declare("in0", restrictPointerTo(in), cast(pointerTo(in), text("p.ptr[0]")),
            {.maybe_unused = true});
  EXPECT_EQ(printCuda(k, 0),
            "using idx_t = int32_t;\n"
            "[[maybe_unused]] const float* __restrict__ in0 = static_cast<const "
            "float*>(p.ptr[0]);\n");
  EXPECT_EQ(printIr(k),
            "type idx_t = int32_t\n"
            "decl maybe_unused in0: const float* __restrict__ = static_cast<const "
            "float*>(p.ptr[0])\n");
}

// A chain opened one branch at a time, as the element writer opens a cat's
// branches: `else if` for each further condition, `else` last.
TEST(KernelIrStatements, AnIfChainPrintsElseIf) {
  Block k;
  IfChain chain(k);
  chain.branch(var("i") < lit(4)).assign(var("x"), var("a"));
  chain.branch(var("i") < lit(9)).assign(var("x"), var("b"));
  chain.otherwise().assign(var("x"), var("c"));
  EXPECT_EQ(printCuda(k, 0),
            "if (i < 4) {\n"
            "  x = a;\n"
            "} else if (i < 9) {\n"
            "  x = b;\n"
            "} else {\n"
            "  x = c;\n"
            "}\n");
  EXPECT_EQ(printIr(k),
            "if i < 4 {\n"
            "  x = a\n"
            "} else if i < 9 {\n"
            "  x = b\n"
            "} else {\n"
            "  x = c\n"
            "}\n");
  // An else needs a branch before it, and ends the chain.
  Block none;
  IfChain empty(none);
  EXPECT_THROW(empty.otherwise(), InternalError);
  EXPECT_THROW(chain.branch(var("j")), InternalError);
  EXPECT_THROW(chain.otherwise(), InternalError);
}

TEST(KernelIrSource, TheTranslationUnitNamesTheKernelByItsBody) {
  Block k;
  k.ret();
  const KernelSource a = kernelSource("row_sum", "threads = 64", k, true, {64, 2});
  EXPECT_EQ(a.name.rfind("fusebox_row_sum_", 0), 0u) << a.name;
  EXPECT_TRUE(a.uses_block_sync);
  EXPECT_NE(a.source.find("//   threads = 64\n"), std::string::npos) << a.source;
  EXPECT_NE(a.source.find("#include <fusebox_runtime.cuh>"), std::string::npos) << a.source;
  EXPECT_NE(a.source.find("extern \"C\" __global__ void __launch_bounds__(64, 2) " + a.name +
                          "([[maybe_unused]] fusebox::KernelParams p) {\n  return;\n}\n"),
            std::string::npos)
      << a.source;
  // Another body, another name; the same body, the same name.
  Block other;
  other.syncThreads();
  EXPECT_NE(kernelSource("row_sum", "threads = 64", other, true).name, a.name);
  EXPECT_EQ(kernelSource("row_sum", "other params", k, true, {64, 2}).name, a.name);
}

TEST(KernelIrDump, ShowsTheStructure) {
  Block k;
  Block loop = k.forLoop("v", intType(), lit(0), lit(4), {}, Unroll::Full);
  loop.declare("m0", indexType(), var("mb") + var("v"), {.is_const = true, .maybe_unused = true});
  loop.code("out[m0] = 1.0f;");
  Block guarded = k.ifThen(var("active"));
  guarded.syncThreads();
  k.forExisting(var("r"), var("r") < var("n"), lit(8)).ret();
  EXPECT_EQ(printIr(k),
            "unrolled for v: int = 0 while v < 4 step += 1 {\n"
            "  decl const maybe_unused m0: idx_t = mb + v\n"
            "  code {\n"
            "  | out[m0] = 1.0f;\n"
            "  }\n"
            "}\n"
            "if active {\n"
            "  sync_threads\n"
            "}\n"
            "for r (declared before) while r < n step += 8 {\n"
            "  return\n"
            "}\n");
}

}  // namespace
}  // namespace fusebox::kir

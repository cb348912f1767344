// Combines as kernel IR nodes: each lowers one way (shuffles or shared
// memory across lanes, [y][v][x] shared memory across rows, a ticket or a
// barrier across blocks), refuses what it cannot lower, and dumps as one
// node. Their results are checked by the reduction and persistent suites,
// which run the lowered kernels on the host backend.
#include <fmt/format.h>
#include <fusebox/error.h>

#include <gtest/gtest.h>

#include <string>

#include "kernel_ir/combine.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"

namespace fusebox::kir {
namespace {

CombineState sumOf(const std::string& name) {
  return {var(name), named("float"), "fusebox::ReduceSum", text("0.0f")};
}

std::string lanes(int n, Value smem = var("smem")) {
  Block k;
  combineLanes(k, {sumOf("acc"), n, smem});
  return printCuda(k, 0);
}

TEST(KernelIrCombine, LanesShuffleWithinAWarpAndGoThroughSharedMemoryBeyond) {
  EXPECT_EQ(lanes(1), "");
  EXPECT_EQ(lanes(16), "acc = fusebox::warpGroupReduce<16>(acc, fusebox::ReduceSum{});\n");
  EXPECT_EQ(lanes(32), "acc = fusebox::warpGroupReduce<32>(acc, fusebox::ReduceSum{});\n");
  const std::string block =
      "acc = fusebox::blockReduceX(acc, fusebox::ReduceSum{}, reinterpret_cast<float*>(smem));\n";
  EXPECT_EQ(lanes(64), block);
  // Shuffles need a power of two: 24 lanes go through shared memory.
  EXPECT_EQ(lanes(24), block);
  EXPECT_THROW(lanes(64, Value()), InternalError);
  EXPECT_THROW(lanes(0), InternalError);
  // What sizes a kernel's shared memory for the combine says the same.
  EXPECT_TRUE(lanesCombineShuffles(1) && lanesCombineShuffles(16) && lanesCombineShuffles(32));
  EXPECT_FALSE(lanesCombineShuffles(24) || lanesCombineShuffles(64) || lanesCombineShuffles(0));
  EXPECT_EQ(lanesCombineSharedBytes(32, 256, 4), 0);
  EXPECT_EQ(lanesCombineSharedBytes(24, 48, 4), 48 * 4);
  EXPECT_EQ(lanesCombineSharedBytes(128, 256, 8), 256 * 8 + 128);
}

TEST(KernelIrCombine, SeveralStatesOfLanesShareTheirBarriers) {
  auto many = [](int lanes, size_t count) {
    Block k;
    LanesCombine c{sumOf("acc0"), lanes, var("smem")};
    for (size_t i = 1; i < count; ++i)
      c.more.push_back({var(fmt::format("acc{}", i)), named(i == 1 ? "double" : "float"),
                        "fusebox::ReduceMax", text("0")});
    combineLanes(k, std::move(c));
    return printCuda(k, 0);
  };
  // Each state's region after the one before it, in the state's own type.
  EXPECT_EQ(many(128, 3),
            "{\n"
            "  unsigned char* const lane_smem = reinterpret_cast<unsigned char*>(smem);\n"
            "  float* const lane_slots0 = reinterpret_cast<float*>(lane_smem);\n"
            "  double* const lane_slots1 = reinterpret_cast<double*>(lane_smem + "
            "fusebox::warpSlotBytes<float>());\n"
            "  float* const lane_slots2 = reinterpret_cast<float*>(lane_smem + "
            "(fusebox::warpSlotBytes<float>() + fusebox::warpSlotBytes<double>()));\n"
            "  fusebox::storeWarpPartial(acc0, fusebox::ReduceSum{}, lane_slots0);\n"
            "  fusebox::storeWarpPartial(acc1, fusebox::ReduceMax{}, lane_slots1);\n"
            "  fusebox::storeWarpPartial(acc2, fusebox::ReduceMax{}, lane_slots2);\n"
            "  __syncthreads();\n"
            "  acc0 = fusebox::combineWarpPartials<4>(fusebox::ReduceSum{}, lane_slots0);\n"
            "  acc1 = fusebox::combineWarpPartials<4>(fusebox::ReduceMax{}, lane_slots1);\n"
            "  acc2 = fusebox::combineWarpPartials<4>(fusebox::ReduceMax{}, lane_slots2);\n"
            "  __syncthreads();\n"
            "}\n");
  // Within a warp, shuffles a state; 24 lanes, a tree a state.
  EXPECT_EQ(many(16, 2),
            "acc0 = fusebox::warpGroupReduce<16>(acc0, fusebox::ReduceSum{});\n"
            "acc1 = fusebox::warpGroupReduce<16>(acc1, fusebox::ReduceMax{});\n");
  EXPECT_EQ(
      many(24, 2),
      "acc0 = fusebox::blockReduceX(acc0, fusebox::ReduceSum{}, reinterpret_cast<float*>(smem));\n"
      "acc1 = fusebox::blockReduceX(acc1, fusebox::ReduceMax{}, "
      "reinterpret_cast<double*>(smem));\n");
  EXPECT_NO_THROW(many(64, kMaxLanesStates));
  EXPECT_THROW(many(64, kMaxLanesStates + 1), InternalError);
  Block k;
  combineLanes(k, {sumOf("acc0"), 64, var("smem"), {sumOf("acc1")}});
  EXPECT_EQ(printIr(k),
            "combine lanes(64) acc0: float by fusebox::ReduceSum, acc1: float by "
            "fusebox::ReduceSum through smem\n");
}

TEST(KernelIrCombine, RowsCombineInOrderOfYLaidOutYVX) {
  Block k;
  combineRows(k, {.s = sumOf("acc"),
                  .rows = 4,
                  .columns = 32,
                  .width = 2,
                  .smem = var("smem"),
                  .broadcast = false});
  EXPECT_EQ(
      printCuda(k, 0),
      "{\n"
      "  float* const csm = reinterpret_cast<float*>(smem);\n"
      "  FUSEBOX_UNROLL\n"
      "  for (int v = 0; v < 2; ++v) csm[(threadIdx.y * 2 + v) * 32 + threadIdx.x] = acc[v];\n"
      "  __syncthreads();\n"
      "  if (threadIdx.y == 0) {\n"
      "    FUSEBOX_UNROLL\n"
      "    for (int v = 0; v < 2; ++v) acc[v] = csm[v * 32 + threadIdx.x];\n"
      "    for (int y = 1; y < 4; ++y) {\n"
      "      FUSEBOX_UNROLL\n"
      "      for (int v = 0; v < 2; ++v) acc[v] = fusebox::ReduceSum{}(acc[v], csm[(y * 2 + v) * "
      "32 + threadIdx.x]);\n"
      "    }\n"
      "  }\n"
      "  __syncthreads();\n"
      "}\n");
  // Broadcast: every row reads the result, no branch.
  Block every;
  combineRows(every,
              {.s = sumOf("acc"), .rows = 4, .columns = 32, .width = 2, .smem = var("smem")});
  EXPECT_EQ(printCuda(every, 0).find("if (threadIdx.y == 0)"), std::string::npos);
  Block one;
  combineRows(one, {.s = sumOf("acc"), .rows = 1, .columns = 32, .width = 2});
  EXPECT_EQ(printCuda(one, 0), "");  // one row: nothing to combine, no shared memory needed
  Block none;
  combineRows(none, {.s = sumOf("acc"), .rows = 2, .columns = 32, .width = 2});
  EXPECT_THROW(printCuda(none), InternalError);
  Block negative;
  combineRows(negative,
              {.s = sumOf("acc"), .rows = 2, .columns = 32, .width = -1, .smem = var("m")});
  EXPECT_THROW(printCuda(negative), InternalError);
}

TEST(KernelIrCombine, ARowsCombineOfScalarsAtTheThreadsItNames) {
  // Threads laid out by the caller: column tid % 8 of row `slice`.
  Block k;
  combineRows(k, {.s = sumOf("a"),
                  .rows = 4,
                  .columns = 8,
                  .width = 0,
                  .smem = var("m"),
                  .x = var("tid") % lit(8),
                  .y = var("slice")});
  EXPECT_EQ(printCuda(k, 0),
            "{\n"
            "  float* const csm = reinterpret_cast<float*>(m);\n"
            "  csm[slice * 8 + tid % 8] = a;\n"
            "  __syncthreads();\n"
            "  a = csm[tid % 8];\n"
            "  for (int y = 1; y < 4; ++y) a = fusebox::ReduceSum{}(a, csm[y * 8 + tid % 8]);\n"
            "  __syncthreads();\n"
            "}\n");
  // Stored: the states are in place already; no barrier, row 0 reads.
  Block in_place;
  combineRows(in_place, {.s = sumOf("s"),
                         .rows = 2,
                         .columns = 32,
                         .width = 0,
                         .smem = var("slots"),
                         .broadcast = false,
                         .stored = true});
  EXPECT_EQ(printCuda(in_place, 0),
            "{\n"
            "  float* const csm = reinterpret_cast<float*>(slots);\n"
            "  if (threadIdx.y == 0) {\n"
            "    s = csm[threadIdx.x];\n"
            "    for (int y = 1; y < 2; ++y) s = fusebox::ReduceSum{}(s, csm[y * 32 + "
            "threadIdx.x]);\n"
            "  }\n"
            "}\n");
  // Slots interleaved with others' (16-byte groups): `stride` states apart.
  Block strided;
  combineRows(strided, {.s = sumOf("s"),
                        .rows = 2,
                        .columns = 32,
                        .width = 0,
                        .smem = var("slots"),
                        .broadcast = false,
                        .stored = true,
                        .stride = 4});
  EXPECT_EQ(printCuda(strided, 0),
            "{\n"
            "  float* const csm = reinterpret_cast<float*>(slots);\n"
            "  if (threadIdx.y == 0) {\n"
            "    s = csm[threadIdx.x * 4];\n"
            "    for (int y = 1; y < 2; ++y) s = fusebox::ReduceSum{}(s, csm[(y * 32 + "
            "threadIdx.x) * 4]);\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(printIr(strided),
            "combine rows(2 of 32 columns) s: float by fusebox::ReduceSum through slots, slots 4 "
            "apart, to row 0\n");
  RowsCombine no_stride{.s = sumOf("s"), .rows = 2, .smem = var("slots"), .stride = 0};
  Block bad;
  combineRows(bad, no_stride);
  EXPECT_THROW(printCuda(bad, 0), InternalError);
}

GridCombine gridOf(GridProtocol protocol, int width) {
  GridCombine g;
  g.protocol = protocol;
  g.states.push_back({sumOf("acc"), var("part")});
  g.width = width;
  g.group = cast(indexType(), blockIdx('y'));
  g.groups = lit(6);
  g.known_groups = 6;
  g.stride = text("kept");
  g.own = var("row");
  g.writes = binary(BinaryOp::Eq, threadIdx('x'), lit(0)) && var("active");
  g.reads = var("active");
  g.walker = cast(indexType(), threadIdx('x'));
  g.walkers = 4;
  g.sync = var("ticket");
  g.blocks = gridDim('y');
  return g;
}

TEST(KernelIrCombine, TheLastBlockToArriveReadsEveryGroupsPartials) {
  Block k;
  combineGrid(k, gridOf(GridProtocol::LastBlock, 0));
  EXPECT_EQ(printCuda(k, 0),
            "if (threadIdx.x == 0 && active) part[static_cast<idx_t>(blockIdx.y) * kept + row] = "
            "acc;\n"
            "if (!fusebox::arriveLastOfBlocks(ticket, gridDim.y)) return;\n"
            "acc = 0.0f;\n"
            "FUSEBOX_UNROLL\n"
            "for (int j = 0; j < 2; ++j) {\n"
            "  const idx_t g = static_cast<idx_t>(threadIdx.x) + j * 4;\n"
            "  if (active && g < 6) acc = fusebox::ReduceSum{}(acc, "
            "fusebox::loadFromOtherBlock(&part[g * kept + row]));\n"
            "}\n");
  // Many groups a thread: a loop, not 64 unrolled steps.
  GridCombine many = gridOf(GridProtocol::LastBlock, 0);
  many.groups = lit(512);
  many.known_groups = 512;
  many.walkers = 8;
  Block m;
  combineGrid(m, many);
  EXPECT_NE(
      printCuda(m, 0).find("for (idx_t g = static_cast<idx_t>(threadIdx.x); g < 512; g += 8)"),
      std::string::npos)
      << printCuda(m, 0);
  // A group count the kernel does not know (a size parameter): a loop.
  GridCombine unknown = gridOf(GridProtocol::LastBlock, 0);
  unknown.known_groups.reset();
  unknown.groups = text("z3");
  Block u;
  combineGrid(u, unknown);
  EXPECT_NE(
      printCuda(u, 0).find("if (active)\n"
                           "  for (idx_t g = static_cast<idx_t>(threadIdx.x); g < z3; g += 4) {\n"
                           "    acc = fusebox::ReduceSum{}(acc, "
                           "fusebox::loadFromOtherBlock(&part[g * kept + row]));\n"),
      std::string::npos)
      << printCuda(u, 0);
}

TEST(KernelIrCombine, ABarrierLetsEveryBlockReadThePartials) {
  Block k;
  combineGrid(k, gridOf(GridProtocol::Barrier, 4));
  const std::string cuda = printCuda(k, 0);
  EXPECT_EQ(cuda.find("arriveLastOfBlocks"), std::string::npos);
  EXPECT_NE(cuda.find("fusebox::gridSync(ticket);\n"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("part[static_cast<idx_t>(blockIdx.y) * kept + row + v] = acc[v];"),
            std::string::npos)
      << cuda;
  EXPECT_NE(cuda.find("acc[v] = fusebox::ReduceSum{}(acc[v], "
                      "fusebox::loadFromOtherBlock(&part[g * kept + row + v]));"),
            std::string::npos)
      << cuda;
}

TEST(KernelIrCombine, StoredPartialsAreOnlyRead) {
  // The caller stored the partials and passed a barrier: no store, no sync,
  // no group of its own (and none needed).
  GridCombine stored = gridOf(GridProtocol::Stored, 0);
  stored.group = Value();
  stored.writes = Value();
  stored.sync = Value();
  stored.max_unrolled = 1;  // two groups a thread: a loop
  Block k;
  combineGrid(k, stored);
  EXPECT_EQ(printCuda(k, 0),
            "acc = 0.0f;\n"
            "if (active)\n"
            "  for (idx_t g = static_cast<idx_t>(threadIdx.x); g < 6; g += 4) {\n"
            "    acc = fusebox::ReduceSum{}(acc, fusebox::loadFromOtherBlock(&part[g * kept + "
            "row]));\n"
            "  }\n");
  EXPECT_EQ(printIr(k),
            "combine grid(stored, group g of 6, element g * kept + row, read by "
            "static_cast<idx_t>(threadIdx.x) step 4) acc: float by fusebox::ReduceSum at part\n");
  // A barrier combine still needs its sync word.
  GridCombine no_sync = gridOf(GridProtocol::Barrier, 0);
  no_sync.sync = Value();
  Block b;
  combineGrid(b, no_sync);
  EXPECT_THROW(printCuda(b), InternalError);
}

TEST(KernelIrCombine, AGridCombineNeedsItsLayoutAndItsTicketsBlocks) {
  GridCombine no_blocks = gridOf(GridProtocol::LastBlock, 0);
  no_blocks.blocks = Value();
  Block a;
  combineGrid(a, no_blocks);
  EXPECT_THROW(printCuda(a), InternalError);
  GridCombine no_states = gridOf(GridProtocol::Barrier, 0);
  no_states.states.clear();
  Block b;
  combineGrid(b, no_states);
  EXPECT_THROW(printCuda(b), InternalError);
  GridCombine no_identity = gridOf(GridProtocol::Barrier, 0);
  no_identity.states[0].s.identity = Value();
  Block c;
  combineGrid(c, no_identity);
  EXPECT_THROW(printCuda(c), InternalError);
}

TEST(KernelIrCombine, TheDumpShowsACombineAsOneNode) {
  Block k;
  combineLanes(k, {sumOf("acc0"), 128, var("smem")});
  combineRows(k, {.s = sumOf("acc1"), .rows = 8, .columns = 16, .width = 4, .smem = var("smem")});
  combineGrid(k, gridOf(GridProtocol::LastBlock, 0));
  EXPECT_EQ(printIr(k),
            "combine lanes(128) acc0: float by fusebox::ReduceSum through smem\n"
            "combine rows(8 of 16 columns) acc1: float[4] by fusebox::ReduceSum through smem\n"
            "combine grid(last block, group static_cast<idx_t>(blockIdx.y) of 6, element "
            "static_cast<idx_t>(blockIdx.y) * kept + row, read by static_cast<idx_t>(threadIdx.x) "
            "step 4) acc: float by fusebox::ReduceSum at part\n");
}

TEST(KernelIrCombine, ABlockScanIsOneNodeLoweredToTheRuntimesScan) {
  Block k;
  scanBlock(k, {.s = {subscript(var("sc"), lit(3)), named("float"), "fusebox::ReduceMax",
                      text("-INFINITY")},
                .smem = var("scan_smem"),
                .prefix = var("before"),
                .total = var("total")});
  EXPECT_EQ(printCuda(k, 0),
            "before = fusebox::blockExclusiveScan(sc[3], fusebox::ReduceMax{}, scan_smem, "
            "total);\n");
  EXPECT_EQ(printIr(k),
            "scan block (exclusive) sc[3]: float by fusebox::ReduceMax through scan_smem into "
            "before, total total\n");
  Block no_smem;
  scanBlock(no_smem, {.s = sumOf("x"), .prefix = var("p"), .total = var("t")});
  EXPECT_THROW(printCuda(no_smem), InternalError);
  Block no_total;
  scanBlock(no_total, {.s = sumOf("x"), .smem = var("s"), .prefix = var("p")});
  EXPECT_THROW(printCuda(no_total), InternalError);
}

TEST(KernelIrStatements, ScopesAddressesConstPointersAndAlignment) {
  Block k;
  Block s = k.scope();
  s.declare("p", constPointerTo(named("float")),
            reinterpretAs(pointerTo(named("float")), var("m")));
  s.evaluate(call("f", {addressOf(subscript(var("p"), lit(1)))}));
  k.declareArray("m", named("unsigned char"), 64, {.shared = true, .align = 16});
  EXPECT_EQ(printCuda(k, 0),
            "{\n"
            "  float* const p = reinterpret_cast<float*>(m);\n"
            "  f(&p[1]);\n"
            "}\n"
            "alignas(16) __shared__ unsigned char m[64];\n");
  EXPECT_EQ(printIr(k),
            "scope {\n"
            "  decl p: float* const = reinterpret_cast<float*>(m)\n"
            "  eval f(&p[1])\n"
            "}\n"
            "decl aligned(16) shared m: unsigned char[64]\n");
}

}  // namespace
}  // namespace fusebox::kir

// inner_outer_persistent's rejections, each with its reason, its options,
// and a deliberately wrong column part that validation must catch. (Its
// comparisons against the evaluator are in persistent_cases.inc.)
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include "persistent/persistent_test_util.h"

namespace {

using namespace fusebox;
using namespace fusebox::test;

// Rows reduced (y = x - sum(x, 1)) and a column sum of `column_input`.
std::unique_ptr<Fusion> rowsAndColumns(bool column_of_output, bool column_variance = false) {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* r = sum(x, {1});
  TensorView* y = binaryOp(BinaryOpType::Sub, x, broadcast(r, {false, true}));
  f->addOutput(y);
  TensorView* in = column_of_output ? y : x;
  f->addOutput(column_variance ? variance(in, {0}, 0) : sum(in, {0}));
  return f;
}

TEST(InnerOuterPersistentRejects, EachReductionTypeGoesToItsOwner) {
  PythonDefinition fwd = normDefinition(Norm::LayerNormFwd, DataType::Float);
  expectReason(compileTime("inner_outer_persistent", *fwd.fusion),
               "the reduction type is inner, not inner-outer: the inner_persistent scheduler's "
               "job");
  PythonDefinition bwd = normDefinition(Norm::LayerNormBwd, DataType::Float);
  EXPECT_TRUE(compileTime("inner_outer_persistent", *bwd.fusion).accepted());
  expectReason(compileTime("inner_persistent", *bwd.fusion),
               "the inner_outer_persistent scheduler's job");
}

TEST(InnerOuterPersistentRejects, WhatOneGridPassCannotDo) {
  // A column sum of the row part's output is fine: it reads no column result.
  EXPECT_TRUE(compileTime("inner_outer_persistent", *rowsAndColumns(true)).accepted());
  expectReason(compileTime("inner_outer_persistent", *rowsAndColumns(false, true)),
               "is a variance over the rows");
  // x - mean(x, 0) beside a row reduction: the full domain needs the column result.
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* r = sum(x, {1});
  f->addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(r, {false, true})));
  TensorView* c = sum(x, {0});
  f->addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(c, {true, false})));
  expectReason(compileTime("inner_outer_persistent", *f), "the outer_persistent pattern");
  // Columns of a 3-d domain whose rows are only its last dim: the column
  // reduction leaves a dim the rows keep.
  auto g = std::make_unique<Fusion>();
  TensorView* z = defineTensor(*g, {-1, -1, -1}, DataType::Float);
  TensorView* zr = sum(z, {2});
  g->addOutput(binaryOp(BinaryOpType::Sub, z, broadcast(zr, {false, false, true})));
  g->addOutput(sum(z, {0}));
  expectReason(compileTime("inner_outer_persistent", *g),
               "one kernel reduces the rows of the domain whose columns it reduces");
}

TEST(InnerOuterPersistentRejects, ARowTooWideForTheRegistersNamesItsSizes) {
  PythonDefinition def = normDefinition(Norm::LayerNormBwd, DataType::BFloat16);
  auto infos = [](int64_t rows, int64_t width) {
    return std::vector<ArgumentInfo>{
        tensorInfo(DataType::BFloat16, {rows, width}),
        tensorInfo(DataType::BFloat16, {rows, width}), tensorInfo(DataType::Float, {rows}),
        tensorInfo(DataType::Float, {rows}), tensorInfo(DataType::BFloat16, {width})};
  };
  const Decision d = runTime("inner_outer_persistent", *def.fusion, infos(4, 262144));
  expectReason(d, "a row of 262144 elements keeps");
  expectReason(d, "column accumulators (8 B)");
  EXPECT_TRUE(runTime("inner_outer_persistent", *def.fusion, infos(4, 4096)).accepted());
}

// The shapes measured best on an H100 (docs/perf.md): 4 chunks a thread, two
// 256-thread blocks per SM, a grid of the SMs' blocks, the column
// accumulators in shared memory.
// Layernorm backward's inputs at [rows, width], and the params the
// scheduler picks for them on `device`.
std::string layernormBackwardParams(const DeviceProperties& device, int64_t rows, int64_t width,
                                    const OptionSettings& options = {}) {
  PythonDefinition def = normDefinition(Norm::LayerNormBwd, DataType::BFloat16);
  const std::vector<ArgumentInfo> infos = {
      tensorInfo(DataType::BFloat16, {rows, width}), tensorInfo(DataType::BFloat16, {rows, width}),
      tensorInfo(DataType::Float, {rows}), tensorInfo(DataType::Float, {rows}),
      tensorInfo(DataType::BFloat16, {width})};
  auto s = builtinScheduler("inner_outer_persistent");
  s->configure(options);
  CompileTimeCache cache;
  RuntimeInfo info(*def.fusion, infos, device);
  const Decision d = runTimeDecision(*s, *def.fusion, info);
  if (!d) return d.reason();
  return paramsOf(*s, *def.fusion, info)->toString();
}

TEST(InnerOuterPersistentHeuristics, LayernormBackwardOnAnH100) {
  DeviceProperties h100 = h100Properties();
  for (auto [rows, width, block] :
       {std::tuple<int64_t, int64_t, const char*>{16384, 4096, "[128, 2, 1]"},
        {32768, 1024, "[32, 8, 1]"}}) {
    SCOPED_TRACE(fmt::format("{}x{}", rows, width));
    const std::string params = layernormBackwardParams(h100, rows, width);
    EXPECT_EQ(paramLine(params, "block"), block) << params;
    EXPECT_EQ(paramLine(params, "batch"), "4") << params;
    EXPECT_EQ(paramLine(params, "grid"), "[264, 1, 1]") << params;
    EXPECT_EQ(paramLine(params, "launch_bounds"), "256 threads, 2 blocks per SM") << params;
    EXPECT_EQ(paramLine(params, "column accumulators"), "shared memory (65536 B a block, dynamic)")
        << params;
  }
  // Where a block's shared memory is too small for them, registers.
  h100.shared_memory_per_block = 48 * 1024;
  const std::string params = layernormBackwardParams(h100, 16384, 4096);
  EXPECT_EQ(paramLine(params, "column accumulators"), "registers") << params;
}

// Layernorm backward's kernel on an H100 at 16384x4096 (column accumulators
// in shared memory): the row's two sums combine in one pair of barriers, and
// the output pass moves each chunk's accumulators between shared memory and
// registers whole, in 16-byte groups ([c][k][v / 4][thread][v % 4]), not an
// element at a time. (Its results: persistent_cases.inc.)
TEST(InnerOuterPersistentKernel, RowSumsShareBarriersAndAccumulatorsMoveAsVectors) {
  DeviceProperties h100 = h100Properties();
  PythonDefinition def = normDefinition(Norm::LayerNormBwd, DataType::BFloat16);
  const std::vector<ArgumentInfo> infos = {
      tensorInfo(DataType::BFloat16, {16384, 4096}), tensorInfo(DataType::BFloat16, {16384, 4096}),
      tensorInfo(DataType::Float, {16384}), tensorInfo(DataType::Float, {16384}),
      tensorInfo(DataType::BFloat16, {4096})};
  auto s = builtinScheduler("inner_outer_persistent");
  s->configure({});
  RuntimeInfo info(*def.fusion, infos, h100);
  ASSERT_TRUE(runTimeDecision(*s, *def.fusion, info).accepted());
  auto plan = planOf(*s, *def.fusion, info);
  auto* kp = dynamic_cast<KernelPlan*>(plan.get());
  ASSERT_NE(kp, nullptr);
  const std::string& src = kp->kernel.source;
  auto count = [&src](const std::string& what) {
    size_t n = 0;
    for (size_t p = src.find(what); p != std::string::npos; p = src.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("fusebox::storeWarpPartial("), 2u) << src;
  EXPECT_EQ(count("fusebox::blockReduceX("), 0u) << src;
  EXPECT_NE(src.find("for (int v = 0; v < 8; ++v) ccl0[v] = cacc0[((k * 2 + v / 4) * 256 + ctid) "
                     "* 4 + v % 4];"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("ccl1[v] = fusebox::ReduceSum{}(ccl1[v], "), std::string::npos) << src;
  EXPECT_NE(src.find("for (int v = 0; v < 8; ++v) cacc1[((k * 2 + v / 4) * 256 + ctid) * 4 + v % "
                     "4] = ccl1[v];"),
            std::string::npos)
      << src;
  // The block's rows read each other's slots 4 states apart.
  EXPECT_NE(src.find("s = fusebox::ReduceSum{}(s, csm[(y * 128 + threadIdx.x) * 4]);"),
            std::string::npos)
      << src;
}

// Rows of 384 chunks or more take 128 threads and as many chunks as they
// need while their buffers keep at most 256 B a thread; past that, 4 chunks
// still.
TEST(InnerOuterPersistentHeuristics, WideRowsTake128ThreadsWhileTheirBuffersFit) {
  DeviceProperties h100 = h100Properties();
  for (auto [width, block, batch] : {std::tuple<int64_t, const char*, const char*>{
                                         2048, "[64, 4, 1]", "4"},  // 256 chunks: 4 a thread
                                     {3072, "[128, 2, 1]", "3"},
                                     {5120, "[128, 2, 1]", "5"},  // 240 B a thread
                                     {6144, "[192, 1, 1]", "4"},  // 288 B at 128
                                     {8192, "[256, 1, 1]", "4"}}) {
    SCOPED_TRACE(fmt::format("8192x{}", width));
    const std::string params = layernormBackwardParams(h100, 8192, width);
    EXPECT_EQ(paramLine(params, "block"), block) << params;
    EXPECT_EQ(paramLine(params, "batch"), batch) << params;
    // In registers (the next row group staged in shared memory beside them).
    EXPECT_EQ(paramLine(params, "buffer_placement").rfind("registers", 0), 0u) << params;
  }
}

// prefetch_rows = "on" keeps both stages of the row buffers in shared
// memory beside the column accumulators, or says why it cannot.
TEST(InnerOuterPersistentHeuristics, PrefetchedRowsTakeTwoStagesOfSharedMemory) {
  DeviceProperties h100 = h100Properties();
  OptionSettings on;
  on["prefetch_rows"] = OptionSetting{OptionValue(std::string("on")), {}};
  // 128 threads x 5 chunks x 8 elements x 2 rows x 2 stages x 2 B, for
  // each of x, dy and the weight.
  const std::string params = layernormBackwardParams(h100, 8192, 5120, on);
  EXPECT_EQ(paramLine(params, "buffer_placement"),
            "shared memory, 2 stages: the next row group copied while this one is computed "
            "(122880 B a block, dynamic)")
      << params;
  EXPECT_EQ(paramLine(params, "launch_bounds"), "256 threads, 1 blocks per SM") << params;
  // With the accumulators' 81920 B, a block of 16384x4096 would need more
  // than it may have.
  h100.shared_memory_per_block = 96 * 1024;
  const std::string refused = layernormBackwardParams(h100, 16384, 4096, on);
  EXPECT_NE(refused.find("prefetch_rows = \"on\": two stages of the row buffers take"),
            std::string::npos)
      << refused;
}

// prefetch_rows = "staged" takes one stage of the buffers a row group
// loads (x and dy, not the weight, which is loaded once), or says why it
// cannot.
TEST(InnerOuterPersistentHeuristics, StagedRowsTakeOneStageOfTheRowsBuffers) {
  DeviceProperties h100 = h100Properties();
  OptionSettings staged;
  staged["prefetch_rows"] = OptionSetting{OptionValue(std::string("staged")), {}};
  // 128 threads x 2 rows x 5 chunks x 8 elements x 2 B, for x and dy.
  const std::string params = layernormBackwardParams(h100, 8192, 5120, staged);
  EXPECT_EQ(paramLine(params, "buffer_placement"),
            "registers; the next row group staged in shared memory (cp.async) while this one is "
            "computed (40960 B a block, dynamic)")
      << params;
  // With the 81920 B of column accumulators, one block an SM.
  EXPECT_EQ(paramLine(params, "launch_bounds"), "256 threads, 1 blocks per SM") << params;
  // Where the stage and the accumulators do not fit together, the
  // accumulators go to registers ("auto"), or the stage is refused.
  h100.shared_memory_per_block = 96 * 1024;
  const std::string fallback = layernormBackwardParams(h100, 16384, 4096, staged);
  EXPECT_EQ(paramLine(fallback, "column accumulators"), "registers") << fallback;
  EXPECT_EQ(paramLine(fallback, "buffer_placement").rfind("registers; the next row group", 0), 0u)
      << fallback;
  staged["column_accumulators"] = OptionSetting{OptionValue(std::string("shared")), {}};
  const std::string refused = layernormBackwardParams(h100, 16384, 4096, staged);
  EXPECT_NE(refused.find("prefetch_rows = \"staged\": a stage of the row buffers takes"),
            std::string::npos)
      << refused;
}

TEST(InnerOuterPersistentOptions, BadValuesNameTheSchedulerAndOption) {
  auto s = builtinScheduler("inner_outer_persistent");
  OptionSettings settings;
  settings["threads_per_row"] = OptionSetting{OptionValue(int64_t{48}), {}};
  try {
    s->configure(settings);
    ADD_FAILURE() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("scheduler 'inner_outer_persistent': option "
                                         "'threads_per_row'"),
              std::string::npos)
        << e.what();
  }
  OptionSettings prefetch;
  prefetch["prefetch_rows"] = OptionSetting{OptionValue(std::string("always")), {}};
  try {
    s->configure(prefetch);
    ADD_FAILURE() << "accepted prefetch_rows = \"always\"";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("prefetch_rows"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

// A forced shape needing more than 1024 threads a row is refused with the
// count, not launched (both row schedulers share the check).
TEST(RowShapeOptions, ForcedChunksNeedingTooManyThreadsAreRefused) {
  for (const char* scheduler : {"inner_persistent", "inner_outer_persistent"}) {
    SCOPED_TRACE(scheduler);
    const Norm n =
        std::string(scheduler) == "inner_persistent" ? Norm::SoftmaxFwd : Norm::RmsNormBwd;
    PythonDefinition def = normDefinition(n, DataType::Float);
    std::vector<ArgumentInfo> infos;
    // 4097 chunks of 4 floats, whole from each row's start.
    for (const Argument& a : normInputs(def, 2, 4 * 4097, 1)) infos.push_back(argumentInfo(a));
    auto s = builtinScheduler(scheduler);
    OptionSettings settings;
    settings["chunks_per_thread"] = OptionSetting{OptionValue(int64_t{1}), {}};
    s->configure(settings);
    CompileTimeCache cache;
    RuntimeInfo info(*def.fusion, infos, {});
    expectReason(
        runTimeDecision(*s, *def.fusion, info),
        "chunks_per_thread 1 needs 4128 threads for the row's 4097 chunks, more than 1024");
  }
}

}  // namespace

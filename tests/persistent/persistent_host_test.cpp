// The persistent schedulers on the host backend, against the reference
// evaluator (the cases are shared with the GPU suite: persistent_cases.inc),
// plus their rejections, each with its reason.
#include <fusebox/ir/ops.h>

#include <sstream>

#include "persistent/host_fixture.h"
#include "persistent/persistent_test_util.h"

#include "persistent/persistent_cases.inc"

namespace {

// x - mean(x, 0): a column normalization.
std::unique_ptr<Fusion> columnNormalization() {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* m = sum(x, {0});
  f->addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(m, {true, false})));
  return f;
}

TEST(InnerPersistentRejects, EachReductionTypeGoesToItsOwner) {
  expectReason(compileTime("inner_persistent", *columnNormalization()),
               "the reduction type is outer, not inner: the outer_persistent scheduler's job");
  // Layernorm backward: rows (grad input) and columns (grad weight).
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* r = sum(x, {1});
  f->addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(r, {false, true})));
  f->addOutput(sum(x, {0}));
  expectReason(compileTime("inner_persistent", *f),
               "the reduction type is inner-outer, not inner: the inner_outer_persistent "
               "scheduler's job");
}

TEST(InnerPersistentRejects, WhatIsNotANormalization) {
  Fusion pointwise;
  pointwise.addOutput(exp(defineTensor(pointwise, {-1}, DataType::Float)));
  expectReason(compileTime("inner_persistent", pointwise), "has no reduction");
  // A plain row sum keeps nothing on chip: the reduction scheduler's.
  Fusion plain;
  plain.addOutput(sum(exp(defineTensor(plain, {-1, -1}, DataType::Float)), {1}));
  expectReason(compileTime("inner_persistent", plain), "the reduction scheduler's job");
  // The sum of a sum needs two kernels (both reduce their fastest dim).
  Fusion nested;
  TensorView* x = defineTensor(nested, {-1, -1}, DataType::Float);
  TensorView* s = sum(x, {1});
  nested.addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(s, {false, true})));
  nested.addOutput(sum(s, {0}));
  expectReason(compileTime("inner_persistent", nested), "reductions of reductions need separate");
}

// The reducing schedulers share their segment checks (common/reduction):
// each refuses the same segments for the same reasons, naming itself.
TEST(ReducingSchedulersReject, TheSameSegmentsEachInItsOwnName) {
  for (const std::string name :
       {"reduction", "inner_persistent", "outer_persistent", "inner_outer_persistent"}) {
    SCOPED_TRACE(name);
    // A row sum written into its own input.
    Fusion aliased;
    TensorView* x = defineTensor(aliased, {-1, -1}, DataType::Float);
    TensorView* y = defineTensor(aliased, {-1}, DataType::Float);
    TensorView* s = sum(x, {1});
    aliased.addOutput(s);
    aliased.aliasOutputToInput(s, y);
    expectReason(compileTime(name, aliased),
                 "aliases an input (written in place); the " + name +
                     " scheduler allocates fresh outputs");
    Fusion mm;
    TensorView* a = defineTensor(mm, {-1, -1}, DataType::Float);
    TensorView* b = defineTensor(mm, {-1, -1}, DataType::Float);
    mm.addOutput(sum(matmul(a, b), {1}));
    expectReason(compileTime(name, mm), "is a matmul; the " + name +
                                            " scheduler does not schedule matmuls");
    Fusion none;
    none.addOutput(exp(defineTensor(none, {-1}, DataType::Float)));
    expectReason(compileTime(name, none), "the segment has no reduction");
  }
}

// On the host backend (clusters of 8 blocks, 48 KB of shared memory a
// block), a row of 1M bf16 elements does not fit a cluster's registers and
// shared memory: kept on chip ("registers" or "shared") it is refused with
// the sizes; by default each pass reads it again, at any width.
TEST(InnerPersistentRejects, ARowTooWideForTheRegistersNamesItsSizes) {
  PythonDefinition def = normDefinition(Norm::SoftmaxFwd, DataType::BFloat16);
  auto decide = [&](const std::string& placement) {
    auto s = builtinScheduler("inner_persistent");
    OptionSettings settings;
    settings["persistent_buffers"] = OptionSetting{OptionValue(placement), {}};
    s->configure(settings);
    RuntimeInfo info(*def.fusion, {tensorInfo(DataType::BFloat16, {2, 1048576})}, {});
    return runTimeDecision(*s, *def.fusion, info);
  };
  expectReason(decide("shared"),
               "a row of 1048576 elements keeps 2097152 B of persistent buffers on chip (T0_g (2 "
               "B)): more than the 49152 B of shared memory a block may have (x 8 blocks)");
  expectReason(decide("registers"),
               "256 B per thread at 1024 threads in each of a cluster's 8 blocks, more than the "
               "128 B of registers a thread may hold");
  EXPECT_TRUE(decide("auto").accepted());
  EXPECT_TRUE(runTime("inner_persistent", *def.fusion, {tensorInfo(DataType::BFloat16, {2, 16384})})
                  .accepted());
}

// The heuristics' choice of where a row lives, at an H100's limits, kept in
// one block (blocks_per_row = 1): a float softmax row of 65536 (256 KB)
// overflows what one block's registers hold (about 200 KB) and keeps the
// chunks that do not fit in shared memory (loads only: the exponentials are
// recomputed); 262144 bf16 elements (512 KB) overflow both; "registers"
// refuses what needs shared memory. Left to the heuristics, such a row is
// read again by each pass instead.
TEST(InnerPersistentHeuristics, RowsTooWideForTheRegistersGoToSharedMemory) {
  DeviceProperties h100 = h100Properties();
  auto decide = [&](DataType dtype, int64_t width, const std::string& placement,
                    std::string* params) {
    PythonDefinition def = normDefinition(Norm::SoftmaxFwd, dtype);
    auto s = builtinScheduler("inner_persistent");
    OptionSettings settings;
    settings["persistent_buffers"] = OptionSetting{OptionValue(placement), {}};
    settings["blocks_per_row"] = OptionSetting{OptionValue(int64_t{1}), {}};
    s->configure(settings);
    RuntimeInfo info(*def.fusion, {tensorInfo(dtype, {4, width})}, h100);
    const Decision d = runTimeDecision(*s, *def.fusion, info);
    if (d && params != nullptr) *params = paramsOf(*s, *def.fusion, info)->toString();
    return d;
  };
  std::string params;
  ASSERT_TRUE(decide(DataType::Float, 65536, "auto", &params).accepted());
  EXPECT_EQ(paramLine(params, "persistent_buffers"), "[T0_g (4 B)]") << params;
  EXPECT_EQ(paramLine(params, "buffer_placement"),
            "24 of 32 chunks in registers, 8 in shared memory (65536 B a block, dynamic)")
      << params;
  // Rows that fit the registers stay there.
  ASSERT_TRUE(decide(DataType::Float, 4096, "auto", &params).accepted());
  EXPECT_EQ(paramLine(params, "buffer_placement"), "registers") << params;

  expectReason(decide(DataType::Float, 65536, "registers", nullptr),
               "more than the 128 B of registers a thread may hold, and shared memory is not "
               "tried (persistent_buffers = \"registers\"");
  expectReason(decide(DataType::BFloat16, 262144, "auto", nullptr),
               "a row of 262144 elements keeps 524288 B of persistent buffers on chip (T0_g (2 "
               "B)): 512 B per thread at 1024 threads, more than the 128 B of registers a thread "
               "may hold, and more than the 232448 B of shared memory a block may have");
  // No shape forced: the heuristics keep the row in shared memory over the
  // smallest cluster whose blocks hold their share at two blocks an SM (4
  // blocks of 64 KB; 2 of 128 KB would be one block an SM), and without
  // clusters read it again in each pass.
  PythonDefinition def = normDefinition(Norm::SoftmaxFwd, DataType::Float);
  auto s = builtinScheduler("inner_persistent");
  s->configure({});
  RuntimeInfo info(*def.fusion, {tensorInfo(DataType::Float, {4, 65536})}, h100);
  params = paramsOf(*s, *def.fusion, info)->toString();
  EXPECT_EQ(paramLine(params, "row_split").rfind("4 blocks a row", 0), 0u) << params;
  EXPECT_EQ(paramLine(params, "buffer_placement"),
            "0 of 8 chunks in registers, 8 in shared memory (65536 B a block, dynamic)")
      << params;
  DeviceProperties no_clusters = h100;
  no_clusters.max_cluster_blocks = 1;
  RuntimeInfo old_gpu(*def.fusion, {tensorInfo(DataType::Float, {4, 65536})}, no_clusters);
  params = paramsOf(*s, *def.fusion, old_gpu)->toString();
  EXPECT_EQ(paramLine(params, "buffer_placement").rfind("none: every pass reads", 0), 0u) << params;
}

// Rows keeping two loaded inputs (softmax backward's gradient and output)
// get one chunk a thread from 128 chunks to 1024; rows of one input keep
// four, and so do rows that also keep a computed value (softmax forward).
TEST(InnerPersistentHeuristics, RowsOfTwoLoadedBuffersTakeOneChunkAThread) {
  DeviceProperties h200;
  h200.multiprocessor_count = 132;
  h200.shared_memory_per_block = 227 * 1024;
  auto shape = [&](Norm norm, int64_t width) {
    PythonDefinition def = normDefinition(norm, DataType::BFloat16);
    auto s = builtinScheduler("inner_persistent");
    s->configure({});
    std::vector<ArgumentInfo> inputs;
    for (size_t i = 0; i < def.fusion->inputs().size(); ++i) {
      const auto* tv = def.fusion->inputs()[i]->as<TensorView>();
      inputs.push_back(tv->nDims() == 2 ? tensorInfo(DataType::BFloat16, {8192, width})
                                        : tensorInfo(tv->dtype(), {width}));
    }
    RuntimeInfo info(*def.fusion, inputs, h200);
    EXPECT_TRUE(runTimeDecision(*s, *def.fusion, info).accepted());
    const std::string params = paramsOf(*s, *def.fusion, info)->toString();
    return paramLine(params, "batch") + " x " + paramLine(params, "block");
  };
  EXPECT_EQ(shape(Norm::SoftmaxBwd, 1024), "1 x [128, 2, 1]");
  EXPECT_EQ(shape(Norm::SoftmaxBwd, 4096), "1 x [512, 1, 1]");
  EXPECT_EQ(shape(Norm::SoftmaxBwd, 8192), "1 x [1024, 1, 1]");
  EXPECT_EQ(shape(Norm::LayerNormFwd, 4096), "4 x [128, 2, 1]");
  EXPECT_EQ(shape(Norm::SoftmaxFwd, 4096), "4 x [128, 2, 1]");
}

// With clusters (an H100's 8 blocks), rows kept on chip (persistent_buffers
// = "registers") too wide for one block spread over a cluster's blocks,
// each keeping its share in registers: a float row of 65536 and a bf16 row
// of 262144 become one kernel of clusters; rows one block holds stay in
// one block; blocks_per_row forces a split and 1 forbids it; a forced
// cluster the device does not have is refused.
TEST(InnerPersistentHeuristics, RowsTooWideForOneBlockSpanACluster) {
  DeviceProperties h100;
  h100.name = "an H100";
  h100.is_gpu = true;
  h100.compute_major = 9;
  h100.multiprocessor_count = 132;
  h100.shared_memory_per_block = 227 * 1024;
  auto scheduler = [](int64_t blocks_per_row, const char* placement) {
    auto s = builtinScheduler("inner_persistent");
    OptionSettings settings;
    settings["blocks_per_row"] = OptionSetting{OptionValue(blocks_per_row), {}};
    settings["persistent_buffers"] = OptionSetting{OptionValue(std::string(placement)), {}};
    s->configure(settings);
    return s;
  };
  auto decide = [&](DataType dtype, int64_t width, int64_t blocks_per_row,
                    const char* placement = "registers") {
    PythonDefinition def = normDefinition(Norm::SoftmaxFwd, dtype);
    auto s = scheduler(blocks_per_row, placement);
    RuntimeInfo info(*def.fusion, {tensorInfo(dtype, {4, width})}, h100);
    return paramsOf(*s, *def.fusion, info)->toString();
  };
  for (auto [dtype, width] : {std::pair{DataType::Float, int64_t{65536}},
                              std::pair{DataType::BFloat16, int64_t{262144}}}) {
    const std::string params = decide(dtype, width, 0);
    EXPECT_EQ(paramLine(params, "buffer_placement"), "registers") << params;
    const int split = std::stoi(paramLine(params, "row_split"));
    EXPECT_GE(split, 2) << params;
    // The cluster's blocks cover the row, one row a block.
    EXPECT_EQ(paramLine(params, "grid"), fmt::format("[{}, 1, 1]", 4 * split)) << params;
  }
  const std::string narrow = decide(DataType::BFloat16, 4096, 0);
  EXPECT_EQ(narrow.find("row_split"), std::string::npos) << narrow;
  const std::string forced = decide(DataType::BFloat16, 4096, 4);
  EXPECT_EQ(paramLine(forced, "row_split").rfind("4 blocks a row", 0), 0u) << forced;
  const std::string single = decide(DataType::Float, 65536, 1, "auto");
  EXPECT_EQ(single.find("row_split"), std::string::npos) << single;
  EXPECT_NE(paramLine(single, "buffer_placement").find("in shared memory"), std::string::npos)
      << single;
  // Reloaded rows stay in one block while its 1024 threads x 32 chunks
  // cover them (a softmax row's max and exp-sum in one pass, then the
  // outputs: two reads); past that they span a cluster.
  const std::string reloaded = decide(DataType::BFloat16, 131072, 0, "reload");
  EXPECT_EQ(reloaded.find("row_split"), std::string::npos) << reloaded;
  EXPECT_EQ(paramLine(reloaded, "row_reads"), "2 (max and sum of exp in one pass: T2_g and T7_g)")
      << reloaded;
  const std::string widest = decide(DataType::BFloat16, 1048576, 0, "reload");
  EXPECT_GE(std::stoi(paramLine(widest, "row_split")), 2) << widest;

  DeviceProperties no_clusters = h100;
  no_clusters.name = "an old GPU";
  no_clusters.max_cluster_blocks = 1;
  PythonDefinition def = normDefinition(Norm::SoftmaxFwd, DataType::BFloat16);
  auto s = scheduler(4, "auto");
  RuntimeInfo info(*def.fusion, {tensorInfo(DataType::BFloat16, {4, 4096})}, no_clusters);
  expectReason(runTimeDecision(*s, *def.fusion, info),
               "blocks_per_row 4 needs clusters of 4 blocks, but an old GPU allows at most 1");
}

TEST(InnerPersistentRejects, AnElementReadingAnotherRowsResult) {
  // y[i, j] = x[i, j] - max(x)[j]: the row results are read transposed.
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  TensorView* m = max(x, {1});
  f->addOutput(binaryOp(BinaryOpType::Sub, x, broadcast(m, {true, false})));
  expectReason(runTime("inner_persistent", *f, {tensorInfo(DataType::Float, {5, 5})}),
               "at another kept element");
}

TEST(InnerPersistentOptions, BadValuesNameTheOption) {
  auto s = builtinScheduler("inner_persistent");
  for (auto [key, value] : {std::pair{"threads_per_row", int64_t{48}},
                            {"threads_per_row", int64_t{2048}},
                            {"chunks_per_thread", int64_t{33}},
                            {"chunks_per_thread", int64_t{-1}},
                            {"blocks_per_row", int64_t{3}},
                            {"blocks_per_row", int64_t{16}},
                            {"blocks_per_sm", int64_t{9}},
                            {"blocks_per_sm", int64_t{-1}}}) {
    SCOPED_TRACE(fmt::format("{} = {}", key, value));
    OptionSettings settings;
    settings[key] = OptionSetting{OptionValue(value), {}};
    try {
      s->configure(settings);
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

TEST(InnerPersistentOptions, BufferPlacementIsOneOfFour) {
  auto s = builtinScheduler("inner_persistent");
  OptionSettings settings;
  settings["persistent_buffers"] =
      OptionSetting{OptionValue(std::string("smem")), SourceLocation{"cfg.toml", 3, 22}};
  try {
    s->configure(settings);
    ADD_FAILURE() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cfg.toml:3:22"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scheduler 'inner_persistent': option "
                                         "'persistent_buffers' must be \"auto\", \"registers\", "
                                         "\"shared\" or \"reload\", got \"smem\""),
              std::string::npos)
        << e.what();
  }
}

TEST_F(PersistentFixture, ForcedShapesStillMatch) {
  PythonDefinition def = normDefinition(Norm::LayerNormFwd, DataType::BFloat16);
  for (auto [threads, chunks] : {std::pair<int64_t, int64_t>{32, 4}, {128, 1}, {64, 0}}) {
    SCOPED_TRACE(fmt::format("{} threads x {} chunks", threads, chunks));
    auto s = builtinScheduler("inner_persistent");
    OptionSettings settings;
    settings["threads_per_row"] = OptionSetting{OptionValue(threads), {}};
    settings["chunks_per_thread"] = OptionSetting{OptionValue(chunks), {}};
    s->configure(settings);
    SchedulerRun r = expectSchedulerMatchesEvaluator(*s, backend(), *def.fusion,
                                                     normInputs(def, 6, 1024, 9), device());
    ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
    EXPECT_EQ(paramLine(r.params, "block").rfind(fmt::format("[{}, ", threads), 0), 0u) << r.params;
  }
}

// blocks_per_sm replaces the launch bounds the heuristic asks ptxas for
// (one block an SM for a row kept in shared memory) and still matches the
// evaluator; a count whose threads no SM holds is refused with both figures.
TEST_F(PersistentFixture, BlocksPerSmSetsTheLaunchBounds) {
  PythonDefinition def = normDefinition(Norm::SoftmaxFwd, DataType::BFloat16);
  const auto inputs = normInputs(def, 3, 32000, 5);
  auto s = builtinScheduler("inner_persistent");
  s->configure({});
  SchedulerRun heuristic =
      expectSchedulerMatchesEvaluator(*s, backend(), *def.fusion, inputs, h200());
  ASSERT_TRUE(heuristic.run_time.accepted()) << heuristic.run_time.reason();
  EXPECT_EQ(paramLine(heuristic.params, "launch_bounds"), "512 threads, 1 blocks per SM")
      << heuristic.params;

  OptionSettings settings;
  settings["blocks_per_sm"] = OptionSetting{OptionValue(int64_t{3}), {}};
  s->configure(settings);
  SchedulerRun forced = expectSchedulerMatchesEvaluator(*s, backend(), *def.fusion, inputs, h200());
  ASSERT_TRUE(forced.run_time.accepted()) << forced.run_time.reason();
  EXPECT_EQ(paramLine(forced.params, "launch_bounds"), "512 threads, 3 blocks per SM")
      << forced.params;
  EXPECT_NE(forced.source.find("__launch_bounds__(512, 3)"), std::string::npos) << forced.source;

  settings["blocks_per_sm"] = OptionSetting{OptionValue(int64_t{5}), {}};
  s->configure(settings);
  SchedulerRun refused = runScheduler(*s, backend(), *def.fusion, inputs, h200());
  ASSERT_FALSE(refused.run_time.accepted());
  EXPECT_NE(refused.run_time.reason().find(
                "blocks_per_sm 5 of 512 threads each exceed the 2048 threads an SM holds"),
            std::string::npos)
      << refused.run_time.reason();
}

// A reloaded row's pass of two or more vector loads a chunk issues a
// group's loads before their math (row_kernel.cpp): eight loads a group, so
// softmax backward (dy and y a chunk) loads all four chunks at once in each
// of its two passes, and layernorm forward's output pass (x, weight, bias)
// two chunks at a time. Passes of one load a chunk keep it in the chunk's
// code: layernorm's mean and variance passes, and all of softmax forward.
// Chunks past the row's end load its last chunk instead of branching
// around the loads, and still match the evaluator.
TEST_F(PersistentFixture, ReloadedPassesIssueAGroupsLoadsFirst) {
  struct Case {
    Norm norm;
    int64_t width, threads, chunks;
    size_t groups, loads_in_chunks;
  };
  for (const Case& c :
       {Case{Norm::SoftmaxBwd, 3000, 128, 4, 2, 0}, Case{Norm::LayerNormFwd, 3000, 128, 4, 2, 2},
        Case{Norm::SoftmaxFwd, 9000, 64, 20, 0, 2}}) {
    SCOPED_TRACE(fmt::format("{} width {}", normName(c.norm), c.width));
    PythonDefinition def = normDefinition(c.norm, DataType::BFloat16);
    auto s = builtinScheduler("inner_persistent");
    OptionSettings settings;
    settings["persistent_buffers"] = OptionSetting{OptionValue(std::string("reload")), {}};
    settings["threads_per_row"] = OptionSetting{OptionValue(c.threads), {}};
    settings["chunks_per_thread"] = OptionSetting{OptionValue(c.chunks), {}};
    s->configure(settings);
    SchedulerRun r = expectSchedulerMatchesEvaluator(*s, backend(), *def.fusion,
                                                     normInputs(def, 5, c.width, 12), device());
    ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
    // Each group declares its clamped chunk start once; a load is either a
    // group's (into its array) or its chunk's own.
    const std::string clamp = fmt::format("q < {} ? q : {}", c.width, c.width - 8);
    size_t groups = 0, in_chunks = 0;
    std::istringstream lines(r.source);
    for (std::string line; std::getline(lines, line);) {
      groups += line.find(clamp) != std::string::npos ? 1 : 0;
      if (line.find("fusebox::loadVec") == std::string::npos) continue;
      if (line.find("const fusebox::Array<") != std::string::npos)
        ++in_chunks;
      else
        EXPECT_NE(line.find("s[k] = fusebox::loadVecHinted<"), std::string::npos) << line;
    }
    EXPECT_EQ(groups, c.groups) << r.source;
    EXPECT_EQ(in_chunks, c.loads_in_chunks) << r.source;
  }
}

// Rows wider than the registers hold, left to the heuristics on an H200's
// limits: kept in shared memory when two of their blocks fit an SM (one
// bf16 input of 32000: 64 KB a block), by a power of two of threads, every
// chunk copied in asynchronously, a group a chunk, each waited for alone
// by the first pass that reads it (an odd width too: its chunks start after
// a scalar head; softmax backward's two inputs of 24576: 96 KB). A row of
// which an SM holds one block (softmax backward's two inputs of 32000: 128
// KB; one input of 65537) is kept over a cluster of two
// blocks, each holding half at two blocks an SM or more. Both ask ptxas
// for one block an SM, which leaves it its registers; without clusters
// it is read again by each pass, and then a row of one load a pass asks
// ptxas for two blocks an SM, one of more loads (a group in flight) for
// one. Every case matches the evaluator.
TEST_F(PersistentFixture, WideRowsTwoBlocksAnSMHoldStayInSharedMemory) {
  enum class Where { Shared, Cluster, Reload };
  struct Case {
    Norm norm;
    DataType dtype;
    int64_t width;
    Where where;
    int copy_bytes;  // the asynchronous copies' size
  };
  for (const Case& c : {Case{Norm::SoftmaxFwd, DataType::BFloat16, 32000, Where::Shared, 16},
                        Case{Norm::LayerNormFwd, DataType::BFloat16, 32000, Where::Shared, 16},
                        Case{Norm::RmsNormFwd, DataType::Half, 24576, Where::Shared, 16},
                        Case{Norm::LogSoftmaxFwd, DataType::Float, 12000, Where::Shared, 16},
                        Case{Norm::SoftmaxFwd, DataType::BFloat16, 31999, Where::Shared, 16},
                        Case{Norm::SoftmaxFwd, DataType::BFloat16, 65537, Where::Cluster, 16},
                        Case{Norm::SoftmaxBwd, DataType::BFloat16, 32000, Where::Cluster, 16},
                        Case{Norm::SoftmaxBwd, DataType::BFloat16, 24576, Where::Shared, 16},
                        Case{Norm::SoftmaxFwd, DataType::BFloat16, 65537, Where::Reload, 0},
                        Case{Norm::SoftmaxBwd, DataType::BFloat16, 32000, Where::Reload, 0}}) {
    DeviceProperties limits = h200();
    if (c.where == Where::Reload) limits.max_cluster_blocks = 1;  // a device without clusters
    SCOPED_TRACE(fmt::format("{} {} width {}, clusters of up to {}", normName(c.norm),
                             irName(c.dtype), c.width, limits.max_cluster_blocks));
    PythonDefinition def = normDefinition(c.norm, c.dtype);
    auto s = builtinScheduler("inner_persistent");
    s->configure({});
    SchedulerRun r = expectSchedulerMatchesEvaluator(*s, backend(), *def.fusion,
                                                     normInputs(def, 3, c.width, 21), limits);
    ASSERT_TRUE(r.run_time.accepted()) << r.run_time.reason();
    const std::string placement = paramLine(r.params, "buffer_placement");
    const std::string bounds = paramLine(r.params, "launch_bounds");
    if (c.where == Where::Reload) {
      EXPECT_EQ(placement.rfind("none: every pass reads", 0), 0u) << r.params;
      const bool one_load = c.norm != Norm::SoftmaxBwd;
      EXPECT_NE(bounds.find(one_load ? ", 2 blocks per SM" : ", 1 blocks per SM"),
                std::string::npos)
          << r.params;
      continue;
    }
    EXPECT_EQ(paramLine(r.params, "row_split").rfind("2 blocks a row", 0) == 0,
              c.where == Where::Cluster)
        << r.params;
    EXPECT_EQ(placement.rfind("0 of ", 0), 0u) << r.params;
    // Blocks of a power of two of threads (a shorter combine).
    const int64_t threads = std::stoll(paramLine(r.params, "block").substr(1));
    EXPECT_EQ(threads & (threads - 1), 0) << r.params;
    EXPECT_NE(placement.find("in shared memory"), std::string::npos) << r.params;
    // One block an SM asked of ptxas, in one block and over a cluster: two
    // capped the registers and cost the rows kept in shared memory 4-7%.
    EXPECT_NE(bounds.find(", 1 blocks per SM"), std::string::npos) << r.params;
    const std::string copy = fmt::format("fusebox::asyncCopy<{}>(pb0_s + ", c.copy_bytes);
    EXPECT_NE(r.source.find(copy), std::string::npos) << r.source;
    // Each chunk a group, waited for alone by the first pass that reads it.
    EXPECT_NE(r.source.find("fusebox::asyncCommit();"), std::string::npos) << r.source;
    EXPECT_NE(r.source.find("fusebox::asyncWaitPending<"), std::string::npos) << r.source;
    EXPECT_EQ(r.source.find("fusebox::asyncWait<"), std::string::npos) << r.source;
  }
}

// A row read once (a log-sum-exp: the max and the sum of exp(x - max) in one
// pass, then per-row results only) is not kept anywhere, even where a
// cluster would hold it: it is read again (here: once) by its one pass.
// Softmax over the same rows, read twice, is kept over a cluster. Both
// match the evaluator.
TEST_F(PersistentFixture, ARowReadOnceIsNotKeptOverACluster) {
  const DeviceProperties limits = h200();
  const int64_t width = 131072;  // 256 KB of bfloat16: no block holds it
  auto lse = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*lse, {-1, -1}, DataType::BFloat16);
  TensorView* xf = castOp(DataType::Float, x);
  TensorView* m = max(xf, {1});
  TensorView* e = exp(binaryOp(BinaryOpType::Sub, xf, broadcast(m, {false, true})));
  lse->addOutput(binaryOp(BinaryOpType::Add, unaryOp(UnaryOpType::Log, sum(e, {1})), m));
  auto s = builtinScheduler("inner_persistent");
  s->configure({});
  SchedulerRun once = expectSchedulerMatchesEvaluator(
      *s, backend(), *lse, {randomTensor(DataType::BFloat16, {3, width}, 17)}, limits);
  ASSERT_TRUE(once.run_time.accepted()) << once.run_time.reason();
  EXPECT_EQ(paramLine(once.params, "buffer_placement").rfind("none: every pass reads", 0), 0u)
      << once.params;
  EXPECT_EQ(paramLine(once.params, "row_reads").rfind("1", 0), 0u) << once.params;
  EXPECT_EQ(once.params.find("row_split"), std::string::npos) << once.params;

  PythonDefinition softmax = normDefinition(Norm::SoftmaxFwd, DataType::BFloat16);
  SchedulerRun twice = expectSchedulerMatchesEvaluator(*s, backend(), *softmax.fusion,
                                                       normInputs(softmax, 3, width, 19), limits);
  ASSERT_TRUE(twice.run_time.accepted()) << twice.run_time.reason();
  EXPECT_EQ(paramLine(twice.params, "row_split").rfind("4 blocks a row", 0), 0u) << twice.params;
  EXPECT_NE(paramLine(twice.params, "buffer_placement").find("in shared memory"), std::string::npos)
      << twice.params;
}

// A deliberately wrong kernel: layernorm forward whose rstd is sqrt(var + eps)
// instead of its reciprocal square root gives O(1) outputs off by a few
// tenths; the tolerance model must catch it in every output it touches.
TEST_F(PersistentFixture, AWrongKernelFailsValidation) {
  PythonDefinition def = normDefinition(Norm::LayerNormFwd, DataType::BFloat16);
  const std::vector<Argument> inputs = normInputs(def, 8, 4096, 11);
  std::vector<ArgumentInfo> infos;
  for (const Argument& a : inputs) infos.push_back(argumentInfo(a));
  RuntimeInfo info(*def.fusion, infos, device());
  auto s = builtinScheduler("inner_persistent");
  s->configure({});
  CompileTimeCache cache;
  ASSERT_TRUE(runTimeDecision(*s, *def.fusion, info).accepted());
  auto params = paramsOf(*s, *def.fusion, info);
  auto plan = planOf(*s, *def.fusion, info);
  auto* kp = dynamic_cast<KernelPlan*>(plan.get());
  ASSERT_NE(kp, nullptr);
  const std::string rsqrt = "fusebox::op::rsqrt(";
  ASSERT_NE(kp->kernel.source.find(rsqrt), std::string::npos) << kp->kernel.source;
  for (size_t p = kp->kernel.source.find(rsqrt); p != std::string::npos;
       p = kp->kernel.source.find(rsqrt, p))
    kp->kernel.source.replace(p, rsqrt.size(), "fusebox::op::sqrt(");
  const std::string wrong_name = kp->kernel.name + "_wrong";
  for (size_t p = kp->kernel.source.find(kp->kernel.name); p != std::string::npos;
       p = kp->kernel.source.find(kp->kernel.name, p + wrong_name.size()))
    kp->kernel.source.replace(p, kp->kernel.name.size(), wrong_name);
  kp->kernel.name = wrong_name;

  std::vector<Tensor> outs = allocateKernelOutputs(backend(), *kp);
  SharedScratch shared;
  const std::vector<Tensor> scratch = allocateKernelScratch(backend(), *kp, shared);
  backend().compile(kp->kernel)->launch(kp->launch, bindKernelParams(*kp, inputs, outs, scratch));
  backend().synchronize();
  const std::vector<Argument> expected = evaluateFusion(*def.fusion, inputs);
  const std::vector<OutputTolerance> tolerances = outputTolerances(*def.fusion, inputs);
  // y and rstd are wrong; the mean is not.
  EXPECT_FALSE(checkClose(Argument(outs[0]), expected[0], tolerances[0]).pass);
  EXPECT_TRUE(checkClose(Argument(outs[1]), expected[1], tolerances[1]).pass);
  EXPECT_FALSE(checkClose(Argument(outs[2]), expected[2], tolerances[2]).pass);
}

}  // namespace

// A row the heuristics keep in one block's shared memory gets the kernel
// `persistent_buffers = "shared"` forces, source and params alike, so an
// A/B of the option against another setting measures the shipped kernel.
TEST_F(PersistentFixture, ForcedSharedBuffersBuildTheKernelTheHeuristicsChoose) {
  for (Norm n : {Norm::SoftmaxFwd, Norm::LayerNormFwd}) {
    SCOPED_TRACE(normName(n));
    PythonDefinition def = normDefinition(n, DataType::BFloat16);
    auto a = builtinScheduler("inner_persistent");
    a->configure({});
    SchedulerRun ra = expectSchedulerMatchesEvaluator(*a, backend(), *def.fusion,
                                                      normInputs(def, 3, 32000, 21), h200());
    auto b = builtinScheduler("inner_persistent");
    OptionSettings settings;
    settings["persistent_buffers"] = OptionSetting{OptionValue(std::string("shared")), {}};
    b->configure(settings);
    SchedulerRun rb = expectSchedulerMatchesEvaluator(*b, backend(), *def.fusion,
                                                      normInputs(def, 3, 32000, 21), h200());
    EXPECT_EQ(ra.params, rb.params);
    EXPECT_EQ(ra.source, rb.source);
    EXPECT_EQ(paramLine(ra.params, "buffer_placement").rfind("0 of 8 chunks in registers", 0), 0u)
        << ra.params;
  }
}

// outer_persistent's rejections, each with its reason, its heuristics on an
// H100's shape, and its options. (Its comparisons against the evaluator are
// in persistent_cases.inc.)
#include <fusebox/backend/host_backend.h>
#include <fusebox/ir/ops.h>

#include "persistent/persistent_test_util.h"

namespace {

using namespace fusebox;
using namespace fusebox::test;

std::vector<ArgumentInfo> batchNormInfos(int64_t rows, int64_t columns) {
  return {tensorInfo(DataType::BFloat16, {rows, columns}),
          tensorInfo(DataType::BFloat16, {columns}), tensorInfo(DataType::BFloat16, {columns})};
}

DeviceProperties h100() {
  DeviceProperties d;
  d.multiprocessor_count = 132;
  return d;
}

std::string paramsOn(const DeviceProperties& device, const Fusion& f,
                     const std::vector<ArgumentInfo>& infos, Decision* decision = nullptr) {
  auto s = builtinScheduler("outer_persistent");
  s->configure({});
  CompileTimeCache cache;
  RuntimeInfo info(f, infos, device);
  const Decision d = runTimeDecision(*s, f, info);
  if (decision != nullptr) *decision = d;
  if (!d) return d.reason();
  return paramsOf(*s, f, info)->toString();
}

TEST(OuterPersistentRejects, EachReductionTypeGoesToItsOwner) {
  PythonDefinition fwd = normDefinition(Norm::LayerNormFwd, DataType::Float);
  expectReason(compileTime("outer_persistent", *fwd.fusion),
               "the reduction type is inner, not outer: the inner_persistent scheduler's job");
  PythonDefinition bwd = normDefinition(Norm::LayerNormBwd, DataType::Float);
  expectReason(compileTime("outer_persistent", *bwd.fusion),
               "the reduction type is inner-outer, not outer: the inner_outer_persistent "
               "scheduler's job");
  PythonDefinition bn = normDefinition(Norm::BatchNormFwd, DataType::Float);
  EXPECT_TRUE(compileTime("outer_persistent", *bn.fusion).accepted());
  expectReason(compileTime("inner_persistent", *bn.fusion), "the outer_persistent scheduler's job");
  // A plain column sum keeps nothing on chip: the reduction scheduler's.
  Fusion plain;
  plain.addOutput(sum(defineTensor(plain, {-1, -1}, DataType::Float), {0}));
  expectReason(compileTime("outer_persistent", plain), "the reduction scheduler's job");
}

// Columns too long for the grid's registers are refused with the sizes
// (the segmenter then splits the fusion); the same fusion, shorter, fits.
TEST(OuterPersistentRejects, AColumnTooLongForTheRegistersNamesItsSizes) {
  PythonDefinition def = normDefinition(Norm::BatchNormFwd, DataType::BFloat16);
  Decision d = Decision::accept();
  paramsOn(h100(), *def.fusion, batchNormInfos(16384, 1024), &d);
  expectReason(d,
               "a column of 16384 elements keeps 32768 B of persistent buffers on chip (T0_g "
               "(2 B)) for each of the 1024 columns");
  // Both attempts: one block an SM (32 rows a thread), then two.
  expectReason(d, "blocks at once, but 132 fit (1 per multiprocessor); 16384 rows in bands");
  expectReason(d, "blocks at once, but 264 fit (2 per multiprocessor)");
  paramsOn(h100(), *def.fusion, batchNormInfos(4096, 2048), &d);
  EXPECT_TRUE(d.accepted()) << d.reason();
}

// The shapes the heuristics pick on an H100: 16-byte loads along the
// columns, a warp across 256 columns, 8 rows of threads, and as many bands
// of rows as one block per SM keeps resident, up to 32 rows a thread (a
// short column: one band, no grid reduction, two blocks per SM).
TEST(OuterPersistentHeuristics, BatchNormOnAnH100) {
  PythonDefinition def = normDefinition(Norm::BatchNormFwd, DataType::BFloat16);
  struct Case {
    int64_t rows, columns;
    const char *grid, *batch, *bounds;
  };
  for (const Case& c : {Case{4096, 2048, "[8, 16, 1]", "32", "256 threads, 1 blocks per SM"},
                        Case{2048, 1024, "[4, 32, 1]", "8", "256 threads, 1 blocks per SM"},
                        Case{7, 4096, "[16, 1, 1]", "1", "256 threads, 2 blocks per SM"}}) {
    SCOPED_TRACE(fmt::format("{}x{}", c.rows, c.columns));
    const std::string params = paramsOn(h100(), *def.fusion, batchNormInfos(c.rows, c.columns));
    EXPECT_EQ(paramLine(params, "vector_width"), "8") << params;
    EXPECT_EQ(paramLine(params, "block"), "[32, 8, 1]") << params;
    EXPECT_EQ(paramLine(params, "grid"), c.grid) << params;
    EXPECT_EQ(paramLine(params, "batch"), c.batch) << params;
    EXPECT_EQ(paramLine(params, "launch_bounds"), c.bounds) << params;
  }
}

TEST(OuterPersistentOptions, ForcedRowsPerThreadSetTheBands) {
  PythonDefinition def = normDefinition(Norm::ColumnCenter, DataType::Float);
  auto s = builtinScheduler("outer_persistent");
  OptionSettings settings;
  settings["rows_per_thread"] = OptionSetting{OptionValue(int64_t{4}), {}};
  s->configure(settings);
  CompileTimeCache cache;
  RuntimeInfo info(*def.fusion, {tensorInfo(DataType::Float, {1000, 64})}, h100());
  ASSERT_TRUE(runTimeDecision(*s, *def.fusion, info).accepted());
  const std::string params = paramsOf(*s, *def.fusion, info)->toString();
  // 64 float columns: 16 threads of 4, 16 rows of threads, 4 rows each: 64
  // rows a band, 16 bands.
  EXPECT_EQ(paramLine(params, "batch"), "4") << params;
  EXPECT_EQ(paramLine(params, "grid"), "[1, 16, 1]") << params;
}

TEST(OuterPersistentOptions, BadValuesNameTheSchedulerAndOption) {
  for (auto [key, value] :
       {std::pair<const char*, int64_t>{"rows_per_thread", 33}, {"blocks_per_sm", -1}}) {
    auto s = builtinScheduler("outer_persistent");
    OptionSettings settings;
    settings[key] = OptionSetting{OptionValue(value), {}};
    try {
      s->configure(settings);
      ADD_FAILURE() << key << " accepted";
    } catch (const UserError& e) {
      EXPECT_NE(
          std::string(e.what()).find(fmt::format("scheduler 'outer_persistent': option '{}'", key)),
          std::string::npos)
          << e.what();
    }
  }
}

}  // namespace

// The reduction scheduler on the host backend, against the reference
// evaluator (the cases are shared with the GPU suite: reduction_cases.inc),
// plus the scheduler's rejections, each with its reason.
#include <fusebox/ir/ops.h>

#include <array>
#include <cstdio>

#include "reduction/reduction_test_util.h"
#include "support/host_suite.h"

class ReductionFixture : public ::testing::Test {
 protected:
  static fusebox::Backend& backend() { return fusebox::test::hostBackend(); }
  static fusebox::DeviceProperties device() { return fusebox::test::h100Shape(); }
};

#include "reduction/reduction_cases.inc"

namespace {

Decision compileTime(const Fusion& f) {
  CompileTimeCache cache;
  return structuralDecision(*reductionScheduler(), f);
}

Decision runTime(const Fusion& f, const std::vector<ArgumentInfo>& inputs) {
  CompileTimeCache cache;
  auto s = reductionScheduler();
  if (Decision d = structuralDecision(*s, f); !d) return d;
  RuntimeInfo info(f, inputs, {});
  return runTimeDecision(*s, f, info);
}

TensorArgInfo floats(std::vector<int64_t> sizes) {
  return TensorArgInfo{DataType::Float, sizes, contiguousStrides(sizes), 16};
}

void expectReason(const Decision& d, const std::string& part) {
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find(part), std::string::npos) << d.reason();
}

TEST(ReductionRejects, NoReductionIsPointwisesJob) {
  Fusion f;
  f.addOutput(exp(defineTensor(f, {-1}, DataType::Float)));
  expectReason(compileTime(f), "has no reduction");
}

TEST(ReductionRejects, NormalizationNeedsAPersistentBuffer) {
  // x - mean(x): the reduced value meets the input it was reduced from.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* e = exp(x);
  TensorView* mean = div(sum(e, {1}, true), f.constantDouble(8.0));
  f.addOutput(sub(e, mean));
  expectReason(compileTime(f), "persistent buffer");
}

TEST(ReductionRejects, ReducedValueBroadcastBackOverTheReducedDims) {
  // sum(x) + y with y of x's shape: known only at run time (y is an input).
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* y = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(add(sum(x, {1}, true), y));
  expectReason(runTime(f, {floats({4, 8}), floats({4, 8})}), "persistent");
}

TEST(ReductionRejects, ReductionsOverDifferentAxes) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(sum(x, {0}));
  f.addOutput(sum(x, {1}));
  expectReason(compileTime(f), "one kernel reduces one iteration/reduction structure");
}

TEST(ReductionRejects, ReductionOfAReducedValue) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1, -1}, DataType::Float);
  f.addOutput(sum(sum(x, {2}), {1}));
  expectReason(compileTime(f), "reductions in sequence need separate kernels");
}

TEST(ReductionRejects, EpilogueThatMovesElements) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1, -1}, DataType::Float);
  f.addOutput(permute(sum(x, {2}), {1, 0}));
  expectReason(compileTime(f), "moves reduced elements");
}

TEST(ReductionRejects, MaxOfAnEmptySetIsLeftToTheEvaluatorsError) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(max(x, {1}));
  expectReason(runTime(f, {floats({4, 0})}), "max of an empty set");
  EXPECT_TRUE(runTime(f, {floats({4, 1})}).accepted());
}

TEST(ReductionRejects, ReductionsOfDifferentDomains) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* y = defineTensor(f, {-1, -1}, DataType::Float);
  f.addOutput(sum(x, {1}));
  f.addOutput(sum(y, {1}));
  EXPECT_TRUE(compileTime(f).accepted());
  expectReason(runTime(f, {floats({4, 8}), floats({4, 16})}), "one kernel reduces one domain");
  EXPECT_TRUE(runTime(f, {floats({4, 8}), floats({4, 8})}).accepted());
}

// Configuring the reduction scheduler with `option` = `value`, set at
// cfg.toml:line:col, is a UserError naming that place and the valid range.
void expectOutOfRange(const std::string& option, int64_t value, int line, int col,
                      const std::string& range) {
  auto s = builtinScheduler("reduction");
  OptionSettings settings;
  settings[option] = OptionSetting{OptionValue(value), {"cfg.toml", line, col}};
  try {
    s->configure(settings);
    FAIL() << "accepted " << option << " = " << value;
  } catch (const UserError& e) {
    const std::string where = "cfg.toml:" + std::to_string(line) + ":" + std::to_string(col);
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(range), std::string::npos) << e.what();
  }
}

TEST(ReductionOptions, GridSplitsOutOfRangeNamesTheSetting) {
  expectOutOfRange("grid_splits", 70000, 7, 15, "[0, 65535]");
}

TEST(ReductionOptions, MaxVectorWidthOutOfRangeNamesTheSettingAndCapsTheWidth) {
  expectOutOfRange("max_vector_width", 32, 3, 20, "[0, 16]");
  // A bf16 column sum loads 8 elements at once; capped at 6, 4 (a power of two).
  for (const auto& [cap, width] : {std::pair<int64_t, std::string>{0, "8"}, {6, "4"}, {1, "1"}}) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
    f.addOutput(sum(x, {0}));
    auto r = builtinScheduler("reduction");
    OptionSettings cfg;
    cfg["max_vector_width"] = OptionSetting{OptionValue(cap), {}};
    r->configure(cfg);
    CompileTimeCache cache;
    const std::vector<int64_t> sizes = {64, 256};
    RuntimeInfo info(f, {TensorArgInfo{DataType::BFloat16, sizes, contiguousStrides(sizes), 256}},
                     {});
    ASSERT_TRUE(structuralDecision(*r, f).accepted());
    ASSERT_TRUE(runTimeDecision(*r, f, info).accepted());
    EXPECT_EQ(paramLine(paramsOf(*r, f, info)->toString(), "vector_width"), width) << cap;
  }
}

TEST(ReductionOptions, UnrollOutOfRangeNamesTheSetting) {
  expectOutOfRange("unroll", 17, 6, 9, "[0, 16]");
}

TEST(ReductionOptions, RowLanesOutOfRangeOrNotAPowerOfTwoNamesTheSetting) {
  expectOutOfRange("row_lanes", 1024, 4, 12, "[0, 512]");
  auto s = builtinScheduler("reduction");
  OptionSettings settings;
  settings["row_lanes"] = OptionSetting{OptionValue(int64_t{12}), {"cfg.toml", 5, 3}};
  try {
    s->configure(settings);
    FAIL() << "accepted row_lanes = 12";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cfg.toml:5:3"), std::string::npos) << what;
    EXPECT_NE(what.find("'row_lanes' = 12: expected 0 or a power of two"), std::string::npos)
        << what;
  }
}

TEST(ReductionOptions, StreamedLoadsOtherThanAutoOnOrOffNamesTheSetting) {
  auto s = builtinScheduler("reduction");
  OptionSettings settings;
  settings["streamed_loads"] = OptionSetting{OptionValue(std::string("yes")), {"cfg.toml", 7, 1}};
  try {
    s->configure(settings);
    FAIL() << "accepted streamed_loads = \"yes\"";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cfg.toml:7:1"), std::string::npos) << what;
    EXPECT_NE(what.find("streamed_loads"), std::string::npos) << what;
    EXPECT_NE(what.find("\"auto\", \"on\" or \"off\""), std::string::npos) << what;
  }
}

TEST(ReductionParamsTest, H100ShapesOfTheBenchmarks) {
  // Heuristics only: what the benchmark workloads get on a 132-SM GPU.
  struct Case {
    std::vector<int64_t> sizes;
    int64_t axis;
    DataType dtype;
    std::string kind, vector_width;
    bool split;
  };
  const Case cases[] = {{{32768, 4096}, 1, DataType::Float, "inner", "4", false},
                        {{32768, 4096}, 0, DataType::Float, "outer", "4", true},
                        {{16384, 4096}, 1, DataType::BFloat16, "inner", "8", false},
                        {{128, 1048576}, 0, DataType::Float, "outer", "4", false},
                        {{1048576, 32}, 1, DataType::Float, "inner", "4", false}};
  for (const Case& c : cases) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1, -1}, c.dtype);
    f.addOutput(sum(x, {c.axis}));
    CompileTimeCache cache;
    auto s = reductionScheduler();
    DeviceProperties d;
    d.multiprocessor_count = 132;
    RuntimeInfo info(f, {TensorArgInfo{c.dtype, c.sizes, contiguousStrides(c.sizes), 256}}, d);
    ASSERT_TRUE(runTimeDecision(*s, f, info).accepted());
    const std::string p = paramsOf(*s, f, info)->toString();
    EXPECT_EQ(paramLine(p, "kind"), c.kind) << p;
    EXPECT_EQ(paramLine(p, "vector_width"), c.vector_width) << p;
    EXPECT_EQ(paramLine(p, "grid_reduction") != "no", c.split) << p;
    if (c.split && c.kind == "outer") {
      // About 4 waves of 8 blocks per SM, and the launch bounds that make
      // 8 blocks fit.
      int64_t gx = 0, gy = 0;
      ASSERT_EQ(std::sscanf(paramLine(p, "grid").c_str(), "[%ld, %ld, 1]", &gx, &gy), 2) << p;
      const int64_t blocks = gx * gy;
      EXPECT_GE(blocks, 3 * 8 * 132) << p;
      EXPECT_LE(blocks, 5 * 8 * 132) << p;
      EXPECT_EQ(paramLine(p, "launch_bounds"), "256 threads, 8 blocks per SM") << p;
    } else {
      EXPECT_EQ(paramLine(p, "launch_bounds"), "none") << p;
    }
  }
}

// Welford states are dear to combine: an outer var_mean keeps 4 states a
// thread and splits its rows into one wave of six blocks per SM at most, each
// thread first reducing at least 32 rows, where a sum of the same shape loads
// 8 bf16 at once and splits to about four waves.
TEST(ReductionParamsTest, OuterWelfordSplitsLeaveEachThreadAtLeast64Rows) {
  auto gridOf = [](bool welford, std::vector<int64_t> sizes) {
    Fusion f;
    TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
    TensorView* xf = castOp(DataType::Float, x);
    if (welford) {
      auto [var, mean] = varMean(xf, {0}, 0, false);
      f.addOutput(var);
      f.addOutput(mean);
    } else {
      f.addOutput(sum(xf, {0}));
    }
    CompileTimeCache cache;
    auto s = reductionScheduler();
    DeviceProperties d;
    d.multiprocessor_count = 132;
    RuntimeInfo info(f, {TensorArgInfo{DataType::BFloat16, sizes, contiguousStrides(sizes), 256}},
                     d);
    EXPECT_TRUE(runTimeDecision(*s, f, info).accepted());
    const std::string p = paramsOf(*s, f, info)->toString();
    int64_t gx = 0, gy = 0, bx = 0, by = 0;
    EXPECT_EQ(std::sscanf(paramLine(p, "grid").c_str(), "[%ld, %ld, 1]", &gx, &gy), 2) << p;
    EXPECT_EQ(std::sscanf(paramLine(p, "block").c_str(), "[%ld, %ld, 1]", &bx, &by), 2) << p;
    return std::array<int64_t, 3>{gx, gy, by};
  };
  for (const auto& sizes : {std::vector<int64_t>{16384, 1024}, {65536, 1024}, {16384, 4096}}) {
    const auto [gx, splits, block_y] = gridOf(true, sizes);
    EXPECT_GT(splits, 1) << sizes[0];
    const int64_t one_wave = (6 * 132 + gx - 1) / gx;
    const int64_t rows_32 = (sizes[0] + block_y * 32 - 1) / (block_y * 32);
    EXPECT_EQ(splits, std::min(one_wave, rows_32)) << sizes[0];
    EXPECT_EQ(gx * 32 * 4, sizes[1]) << "4 columns a thread";
    const auto [sum_gx, sum_splits, sum_block_y] = gridOf(false, sizes);
    EXPECT_GT(sum_splits, splits) << sizes[0];
    EXPECT_EQ(sum_gx * 32 * 8, sizes[1]) << "8 columns a thread";
  }
}

}  // namespace

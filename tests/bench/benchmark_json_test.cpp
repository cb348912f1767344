// Google Benchmark JSON: parsed back, with the fields and types that
// tools/compare.py (gbench/util.py and report.py) read, and the grouping by
// name that its U test relies on.
#include "bench/benchmark_json.h"

#include <fusebox/error.h>

#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <tuple>

#include "support/user_error_text.h"

namespace fusebox::bench {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

using testing::userErrorText;

// 9 repetitions (compare.py's UTEST_OPTIMAL_REPETITIONS), out of order, in ms:
// 1..9 us, so mean = median = 5 us and stddev = sqrt(60 / 8).
const std::vector<double> kNine = {0.003, 0.001, 0.009, 0.005, 0.007, 0.002, 0.008, 0.004, 0.006};

std::vector<BenchmarkRun> twoRuns() {
  return {{"bias_gelu/variant:a", kNine, 100, {{"variant", "a"}, {"segments", 3}}},
          {"bias_gelu/variant:b", {0.25}, 7, nullptr}};
}

// Round trip through text, as compare.py gets it.
json written(const std::vector<BenchmarkRun>& runs, const json& context_extra = nullptr) {
  return json::parse(googleBenchmarkJson(runs, context_extra, "fusebox bench").dump(2));
}

TEST(BenchmarkJson, ContextHasGoogleBenchmarksFields) {
  json out = written(twoRuns(), {{"fusebox_version", "0.1.0"}, {"host_name", "given"}});
  const json& c = out.at("context");
  EXPECT_TRUE(std::regex_match(c.at("date").get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d)")))
      << c.at("date");
  EXPECT_EQ(c.at("host_name"), "given");  // context_extra wins
  EXPECT_EQ(c.at("fusebox_version"), "0.1.0");
  EXPECT_EQ(c.at("executable"), "fusebox bench");
  EXPECT_TRUE(c.at("num_cpus").is_number_integer());
  EXPECT_GE(c.at("num_cpus").get<int>(), 1);
  EXPECT_TRUE(c.at("mhz_per_cpu").is_number_integer());
  EXPECT_TRUE(c.at("cpu_scaling_enabled").is_boolean());
  ASSERT_TRUE(c.at("caches").is_array());
  for (const json& cache : c.at("caches")) {
    EXPECT_TRUE(cache.at("type").is_string());
    EXPECT_TRUE(cache.at("level").is_number_integer());
    EXPECT_TRUE(cache.at("size").is_number_integer());
    EXPECT_TRUE(cache.at("num_sharing").is_number_integer());
  }
  EXPECT_TRUE(c.at("load_avg").is_array());
  EXPECT_TRUE(c.at("library_build_type") == "release" || c.at("library_build_type") == "debug");
  // gbench/util.py exits unless a present json_schema_version is 1.
  EXPECT_EQ(c.at("json_schema_version"), 1);
}

TEST(BenchmarkJson, RepetitionsThenAggregates) {
  json out = written(twoRuns());
  const json& b = out.at("benchmarks");
  ASSERT_EQ(b.size(), 9u + 4u + 1u);
  for (size_t i = 0; i < 9; ++i) {
    const json& e = b[i];
    EXPECT_EQ(e.at("name"), "bias_gelu/variant:a");
    EXPECT_EQ(e.at("run_name"), "bias_gelu/variant:a");
    EXPECT_EQ(e.at("run_type"), "iteration");
    EXPECT_EQ(e.at("family_index"), 0);
    EXPECT_EQ(e.at("per_family_instance_index"), 0);
    EXPECT_EQ(e.at("repetitions"), 9);
    EXPECT_EQ(e.at("repetition_index"), i);
    EXPECT_EQ(e.at("threads"), 1);
    EXPECT_EQ(e.at("iterations"), 100);
    EXPECT_TRUE(e.at("real_time").is_number());
    EXPECT_NEAR(e.at("real_time").get<double>(), kNine[i] * 1000, 1e-9);
    EXPECT_EQ(e.at("cpu_time"), e.at("real_time"));
    EXPECT_EQ(e.at("time_unit"), "us");
    EXPECT_FALSE(e.contains("aggregate_name"));
    EXPECT_EQ(e.at("variant"), "a");
    EXPECT_EQ(e.at("segments"), 3);
  }
  const std::tuple<const char*, const char*, double> aggregates[] = {
      {"mean", "time", 5},
      {"median", "time", 5},
      {"stddev", "time", std::sqrt(7.5)},
      {"cv", "percentage", std::sqrt(7.5) / 5}};
  for (size_t k = 0; k < 4; ++k) {
    const auto& [aggregate, unit, value] = aggregates[k];
    const json& e = b[9 + k];
    EXPECT_EQ(e.at("name"), std::string("bias_gelu/variant:a_") + aggregate);
    EXPECT_EQ(e.at("run_name"), "bias_gelu/variant:a");
    EXPECT_EQ(e.at("run_type"), "aggregate");
    EXPECT_EQ(e.at("aggregate_name"), aggregate);
    EXPECT_EQ(e.at("aggregate_unit"), unit);
    EXPECT_FALSE(e.contains("repetition_index"));
    EXPECT_EQ(e.at("repetitions"), 9);
    EXPECT_EQ(e.at("iterations"), 100);
    EXPECT_NEAR(e.at("real_time").get<double>(), value, 1e-9) << aggregate;
    EXPECT_EQ(e.at("cpu_time"), e.at("real_time"));
    EXPECT_EQ(e.at("time_unit"), "us");
    EXPECT_EQ(e.at("variant"), "a");
  }
  // One sample: one entry, no aggregates (as Google Benchmark), null extra.
  const json& single = b[13];
  EXPECT_EQ(single.at("name"), "bias_gelu/variant:b");
  EXPECT_EQ(single.at("family_index"), 1);
  EXPECT_EQ(single.at("repetitions"), 1);
  EXPECT_EQ(single.at("iterations"), 7);
  EXPECT_DOUBLE_EQ(single.at("real_time").get<double>(), 250);
  EXPECT_FALSE(single.contains("variant"));
}

TEST(BenchmarkJson, GroupsAsCompareDotPyDoes) {
  json out = written(twoRuns());
  // gbench/util.py sort_benchmark_results: a stable sort by family_index,
  // per_family_instance_index, aggregates last, repetition_index (-1 if none).
  // The file is already in that order.
  std::vector<json> sorted(out["benchmarks"].begin(), out["benchmarks"].end());
  auto key = [](const json& e) {
    return std::make_tuple(e.value("family_index", -1), e.value("per_family_instance_index", -1),
                           e.value("run_type", "") == "aggregate" ? 1 : 0,
                           e.value("repetition_index", -1));
  };
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const json& x, const json& y) { return key(x) < key(y); });
  EXPECT_EQ(json(sorted), out["benchmarks"]);
  // report.py partition_benchmarks groups entries by name, and only those
  // with time_unit, real_time and cpu_time; calc_utest needs >= 2 per side.
  std::map<std::string, int> per_name;
  for (const json& e : out["benchmarks"]) {
    ASSERT_TRUE(e.at("name").is_string());
    ASSERT_TRUE(e.contains("time_unit") && e.contains("real_time") && e.contains("cpu_time"));
    ++per_name[e["name"].get<std::string>()];
  }
  EXPECT_EQ(per_name["bias_gelu/variant:a"], 9);  // the U test's samples
  for (const char* aggregate : {"_mean", "_median", "_stddev", "_cv"})
    EXPECT_EQ(per_name[std::string("bias_gelu/variant:a") + aggregate], 1);
  EXPECT_EQ(per_name["bias_gelu/variant:b"], 1);  // too few: compare.py skips its U test
}

TEST(BenchmarkJson, RejectsWhatCompareDotPyCouldNotRead) {
  auto with = [](BenchmarkRun run) { return userErrorText([&] { written({run}); }); };
  EXPECT_THAT(with({"", {1}, 1, nullptr}), HasSubstr("a run has no name"));
  EXPECT_THAT(with({"x", {}, 1, nullptr}), HasSubstr("run 'x' has no samples"));
  EXPECT_THAT(with({"x", {1, 0}, 1, nullptr}), HasSubstr("the time 0 ms"));
  EXPECT_THAT(with({"x", {NAN}, 1, nullptr}), HasSubstr("not positive and finite"));
  EXPECT_THAT(with({"x", {1}, 0, nullptr}), HasSubstr("0 iterations per sample"));
  EXPECT_THAT(with({"x", {1}, 1, json::array({1})}), HasSubstr("not an object"));
  EXPECT_THAT(with({"x", {1}, 1, {{"real_time", 1}}}),
              HasSubstr("extra key 'real_time' is one Google Benchmark writes"));
  EXPECT_THAT(with({"x", {1}, 1, {{"name", "y"}}}), HasSubstr("extra key 'name'"));
  EXPECT_THAT(userErrorText([] {
                written({{"x", {1}, 1, nullptr}, {"x", {2}, 1, nullptr}});
              }),
              HasSubstr("two runs would write entries named 'x'"));
  // x's aggregates are named x_mean, x_median, ...
  EXPECT_THAT(userErrorText([] {
                written({{"x", {1, 2}, 1, nullptr}, {"x_mean", {2}, 1, nullptr}});
              }),
              HasSubstr("entries named 'x_mean'"));
  EXPECT_THAT(userErrorText([] { written({}, json::array()); }),
              HasSubstr("the extra context is not an object"));
  EXPECT_EQ(written({}).at("benchmarks"), json::array());
}

}  // namespace
}  // namespace fusebox::bench

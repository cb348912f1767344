// Google Benchmark's JSON output, written the way its json_reporter.cc does
// (what tools/compare.py and gbench/util.py read back).
#include "bench/benchmark_json.h"

#include "bench/statistics.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <utility>

namespace fusebox::bench {
namespace {

// The first line of a small system file; empty when it cannot be read.
std::string readLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Like Google Benchmark: local time with the UTC offset, 2024-05-01T12:34:56+02:00.
std::string localDate() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::array<char, 64> buf{};
  std::string date(buf.data(),
                   std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%S%z", &local));
  // +0200 -> +02:00 (fmt, not insert: GCC 12 at -O3 warns, -Wrestrict, on that).
  if (date.size() > 5)
    date = fmt::format("{}:{}", date.substr(0, date.size() - 2), date.substr(date.size() - 2));
  return date;
}

std::string hostName() {
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) != 0) return "";
  return buf.data();
}

// The nominal frequency: cpufreq's maximum (in kHz), else /proc/cpuinfo's
// "cpu MHz"; 0 when neither says.
int64_t mhzPerCpu() {
  const std::string khz = readLine("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!khz.empty()) return std::llround(std::strtod(khz.c_str(), nullptr) / 1000);
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("cpu MHz"))
      if (size_t colon = line.find(':'); colon != std::string::npos)
        return std::llround(std::strtod(line.c_str() + colon + 1, nullptr));
  return 0;
}

// Scaling is on unless the governor pins the frequency (or there is none).
bool cpuScalingEnabled() {
  const std::string governor = readLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  return !governor.empty() && governor != "performance";
}

// cpu0's caches as Google Benchmark lists them: type, level, size in bytes,
// and how many CPUs share each (the bits set in shared_cpu_map).
nlohmann::json caches() {
  nlohmann::json list = nlohmann::json::array();
  const std::filesystem::path dir = "/sys/devices/system/cpu/cpu0/cache";
  for (int i = 0;; ++i) {
    const std::filesystem::path index = dir / ("index" + std::to_string(i));
    const std::string type = readLine(index / "type");
    if (type.empty()) break;
    const std::string size = readLine(index / "size");  // "48K", "2048K", "32M"
    char* unit = nullptr;
    int64_t bytes = std::strtoll(size.c_str(), &unit, 10);
    if (unit && *unit == 'K') bytes *= 1024;
    if (unit && *unit == 'M') bytes *= 1024 * 1024;
    int sharing = 0;
    for (char c : readLine(index / "shared_cpu_map")) {  // "00000000,0000ffff"
      const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                        : c >= 'a' && c <= 'f'                      ? c - 'a' + 10
                                                                    : 0;
      sharing += std::popcount(static_cast<unsigned>(digit));
    }
    list.push_back({{"type", type},
                    {"level", std::atoi(readLine(index / "level").c_str())},
                    {"size", bytes},
                    {"num_sharing", sharing}});
  }
  return list;
}

nlohmann::json context(std::string_view executable) {
  std::array<double, 3> load{};
  nlohmann::json load_avg = nlohmann::json::array();
  if (getloadavg(load.data(), 3) == 3) load_avg = load;
#ifdef NDEBUG
  const char* build_type = "release";
#else
  const char* build_type = "debug";
#endif
  return {{"date", localDate()},
          {"host_name", hostName()},
          {"executable", std::string(executable)},
          {"num_cpus", std::thread::hardware_concurrency()},
          {"mhz_per_cpu", mhzPerCpu()},
          {"cpu_scaling_enabled", cpuScalingEnabled()},
          {"caches", caches()},
          {"load_avg", load_avg},
          {"library_build_type", build_type},
          {"json_schema_version", 1}};
}

// Keys json_reporter.cc writes: `extra` may not replace them.
// clang-format off
constexpr std::string_view kReservedKeys[] = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
    "skip_message", "label"};
// clang-format on

void checkRun(const BenchmarkRun& run) {
  FUSEBOX_USER_CHECK(!run.name.empty(), "benchmark JSON: a run has no name");
  FUSEBOX_USER_CHECK(!run.times_ms.empty(), "benchmark JSON: run '{}' has no samples", run.name);
  for (double t : run.times_ms)
    FUSEBOX_USER_CHECK(t > 0 && std::isfinite(t),
                       "benchmark JSON: run '{}' has the time {} ms (not positive and finite)",
                       run.name, t);
  FUSEBOX_USER_CHECK(run.iterations_per_sample >= 1,
                     "benchmark JSON: run '{}' has {} iterations per sample", run.name,
                     run.iterations_per_sample);
  FUSEBOX_USER_CHECK(run.extra.is_null() || run.extra.is_object(),
                     "benchmark JSON: the extra keys of run '{}' are not an object", run.name);
  for (std::string_view key : kReservedKeys)
    FUSEBOX_USER_CHECK(!run.extra.contains(key),
                       "benchmark JSON: run '{}': extra key '{}' is one Google Benchmark writes",
                       run.name, key);
}

}  // namespace

nlohmann::json googleBenchmarkJson(const std::vector<BenchmarkRun>& runs,
                                   const nlohmann::json& context_extra,
                                   std::string_view executable) {
  FUSEBOX_USER_CHECK(context_extra.is_null() || context_extra.is_object(),
                     "benchmark JSON: the extra context is not an object");
  nlohmann::json ctx = context(executable);
  if (context_extra.is_object()) ctx.update(context_extra);

  nlohmann::json benchmarks = nlohmann::json::array();
  std::set<std::string> names;  // compare.py groups entries by name: one name, one series
  auto claim = [&](const std::string& name) {
    FUSEBOX_USER_CHECK(names.insert(name).second,
                       "benchmark JSON: two runs would write entries named '{}'", name);
  };
  for (size_t family = 0; family < runs.size(); ++family) {
    const BenchmarkRun& run = runs[family];
    checkRun(run);
    const size_t n = run.times_ms.size();
    auto entry = [&](const std::string& name, const char* run_type) {
      nlohmann::json e = run.extra.is_object() ? run.extra : nlohmann::json::object();
      e["name"] = name;
      e["family_index"] = family;
      e["per_family_instance_index"] = 0;
      e["run_name"] = run.name;
      e["run_type"] = run_type;
      e["repetitions"] = n;
      e["threads"] = 1;
      e["iterations"] = run.iterations_per_sample;
      e["time_unit"] = std::string(kTimeUnit);
      return e;
    };
    claim(run.name);
    for (size_t i = 0; i < n; ++i) {
      nlohmann::json e = entry(run.name, "iteration");
      e["repetition_index"] = i;
      e["real_time"] = e["cpu_time"] = run.times_ms[i] * 1000;
      benchmarks.push_back(std::move(e));
    }
    // Google Benchmark computes aggregates from two repetitions on.
    if (n < 2) continue;
    std::vector<double> us;
    for (double t : run.times_ms) us.push_back(t * 1000);
    const Summary summary = summarize(us);
    const double mean = summary.mean, median = summary.median;
    double squares = 0;
    for (double t : us) squares += (t - mean) * (t - mean);
    const double stddev = std::sqrt(squares / static_cast<double>(n - 1));
    const std::pair<const char*, double> aggregates[] = {
        {"mean", mean}, {"median", median}, {"stddev", stddev}, {"cv", stddev / mean}};
    for (const auto& [aggregate, value] : aggregates) {
      const std::string name = run.name + "_" + aggregate;
      claim(name);
      nlohmann::json e = entry(name, "aggregate");
      e["aggregate_name"] = aggregate;
      e["aggregate_unit"] = std::string_view(aggregate) == "cv" ? "percentage" : "time";
      e["real_time"] = e["cpu_time"] = value;
      benchmarks.push_back(std::move(e));
    }
  }
  return {{"context", std::move(ctx)}, {"benchmarks", std::move(benchmarks)}};
}

std::map<std::string, std::vector<double>> readSampleTimesMs(const std::string& path) {
  std::ifstream in(path);
  FUSEBOX_USER_CHECK(in.good(), "{}: cannot open the file", path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("{}: not benchmark JSON: {}", path, e.what()));
  }
  FUSEBOX_USER_CHECK(doc.is_object() && doc.contains("benchmarks") && doc["benchmarks"].is_array(),
                     "{}: expected Google Benchmark JSON, an object with a \"benchmarks\" array",
                     path);
  const std::map<std::string, double> to_ms = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3}};
  std::map<std::string, std::vector<double>> samples;
  size_t index = 0;
  for (const nlohmann::json& entry : doc["benchmarks"]) {
    const std::string where = fmt::format("{}: benchmarks[{}]", path, index++);
    FUSEBOX_USER_CHECK(entry.is_object() && entry.contains("name") && entry["name"].is_string(),
                       "{}: expected an object with a \"name\"", where);
    if (entry.value("run_type", std::string("iteration")) != "iteration") continue;
    const std::string unit = entry.value("time_unit", std::string("ns"));
    const auto scale = to_ms.find(unit);
    FUSEBOX_USER_CHECK(scale != to_ms.end(), "{}: time_unit '{}': expected ns, us, ms or s", where,
                       unit);
    FUSEBOX_USER_CHECK(entry.contains("real_time") && entry["real_time"].is_number(),
                       "{}: expected a numeric \"real_time\"", where);
    const double ms = entry["real_time"].get<double>() * scale->second;
    FUSEBOX_USER_CHECK(ms > 0 && std::isfinite(ms), "{}: real_time {} is not a positive time",
                       where, entry["real_time"].get<double>());
    samples[entry["name"].get<std::string>()].push_back(ms);
  }
  return samples;
}

}  // namespace fusebox::bench

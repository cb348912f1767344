// [runtime] device (device_spec.h).
#include <fusebox/device_spec.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <vector>

#include "config/text_items.h"

namespace fusebox {

namespace {

// The Hopper SXM parts the project measures on: 132 multiprocessors, 227 KiB
// of shared memory a block (opt-in), 50 MiB of L2, clusters of up to 8
// portable blocks. The H200 differs in its memory, which planning does not
// see.
DeviceProperties hopperSxm(const char* name) {
  DeviceProperties d;
  d.name = name;
  d.compute_major = 9;
  d.compute_minor = 0;
  d.multiprocessor_count = 132;
  d.max_threads_per_block = 1024;
  d.shared_memory_per_block = 232448;
  d.registers_per_block = 65536;
  d.max_cluster_blocks = 8;
  d.l2_cache_bytes = 52428800;
  return d;
}

struct Key {
  const char* name;
  int64_t min, max;
  const char* meaning;
};

const std::vector<Key>& keys() {
  static const std::vector<Key> k = {
      {"sm", 50, 199, "compute capability x 10 (90 for 9.0)"},
      {"sms", 1, 4096, "multiprocessors"},
      {"threads", 32, 1024, "threads a block may have"},
      {"shared", 1024, int64_t{1} << 24, "bytes of shared memory a block may have (opt-in)"},
      {"registers", 1024, int64_t{1} << 24, "32-bit registers a block may have"},
      {"l2", 0, int64_t{1} << 36, "bytes of L2 cache (0: unknown)"},
      {"clusters", 1, 16, "blocks a thread-block cluster may have (1: no clusters)"},
  };
  return k;
}

std::string keyList() {
  std::string out;
  for (const Key& k : keys())
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", k.name, k.meaning);
  return out;
}

}  // namespace

DeviceProperties parseDeviceSpec(std::string_view text, const SourceLocation& where) {
  const std::string shown(text);
  auto fail = [&](const std::string& what) -> UserError {
    return UserError(where, fmt::format("[runtime] device \"{}\": {}", displayText(shown), what));
  };
  DeviceProperties d;
  d.name = "host";
  std::vector<std::string> seen;
  bool first = true, named = false;
  for (const std::string_view item : config_text::commaItems(text)) {
    if (item.empty() && !config_text::trim(text).empty())
      throw fail("an empty item (two commas in a row, or one at an end)");
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      const std::string preset(item);
      if (!first)
        throw fail(
            fmt::format("'{}' is not key=value; a preset name (h100, h200) may only come "
                        "first",
                        displayText(preset)));
      if (preset == "h100")
        d = hopperSxm("H100 (planned on the host)");
      else if (preset == "h200")
        d = hopperSxm("H200 (planned on the host)");
      else
        throw fail(
            fmt::format("unknown preset '{}'; the presets are h100 and h200, or give "
                        "key=value items: {}",
                        displayText(preset), keyList()));
      named = true;
      first = false;
      continue;
    }
    first = false;
    const std::string key(config_text::trim(item.substr(0, eq)));
    const std::string value(config_text::trim(item.substr(eq + 1)));
    auto k =
        std::find_if(keys().begin(), keys().end(), [&](const Key& x) { return key == x.name; });
    if (k == keys().end())
      throw fail(fmt::format("unknown key '{}'; the keys are {}", displayText(key), keyList()));
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw fail(fmt::format("'{}' is given twice", key));
    seen.push_back(key);
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || n < k->min || n > k->max)
      throw fail(fmt::format("'{}' expects an integer from {} to {} ({}), got '{}'", key, k->min,
                             k->max, k->meaning, displayText(value)));
    if (key == "sm") {
      d.compute_major = static_cast<int>(n / 10);
      d.compute_minor = static_cast<int>(n % 10);
    } else if (key == "sms") {
      d.multiprocessor_count = static_cast<int>(n);
    } else if (key == "threads") {
      if (n % 32 != 0) throw fail(fmt::format("'threads' must be a multiple of 32, got {}", n));
      d.max_threads_per_block = static_cast<int>(n);
    } else if (key == "shared") {
      d.shared_memory_per_block = n;
    } else if (key == "registers") {
      d.registers_per_block = n;
    } else if (key == "l2") {
      d.l2_cache_bytes = n;
    } else {
      d.max_cluster_blocks = static_cast<int>(n);
    }
  }
  if (!named && seen.empty()) throw fail("empty; give a preset (h100, h200) or key=value items");
  if (!named)
    d.name = d.compute_major > 0
                 ? fmt::format("sm_{}{} (planned on the host)", d.compute_major, d.compute_minor)
                 : "a GPU planned on the host";
  d.is_gpu = false;  // the host backend runs the kernels
  return d;
}

std::string deviceSpecText(const DeviceProperties& d) {
  return fmt::format("sm={},sms={},threads={},shared={},registers={},l2={},clusters={}",
                     d.compute_major * 10 + d.compute_minor, d.multiprocessor_count,
                     d.max_threads_per_block, d.shared_memory_per_block, d.registers_per_block,
                     d.l2_cache_bytes, d.max_cluster_blocks);
}

}  // namespace fusebox

// The dumps written when an input signature is first seen: the IR after passes,
// the segmentation, the segmenter's log, and the segment graph for Graphviz
// (with an SVG when `dot` is installed).
#include <fusebox/ir/printer.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "backend/host/process.h"
#include "file_access.h"
#include "runtime/runtime_internal.h"

namespace fusebox::runtime_detail {

namespace fs = std::filesystem;

namespace {

// `dot` on PATH, or empty.
fs::path findDot() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view rest(path);
  while (true) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    if (!dir.empty()) {
      fs::path candidate = fs::path(dir) / "dot";
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
    if (colon == std::string_view::npos) return {};
    rest.remove_prefix(colon + 1);
  }
}

// Runs `dot -Tsvg` without a shell, within a time limit (a huge graph, or an
// SVG path no one reads, must not hang the run); returns "" or what went wrong.
std::string renderSvg(const fs::path& dot, const fs::path& in, const fs::path& out) {
  constexpr double kDotTimeoutSeconds = 60;
  std::error_code ec;
  const fs::path log = fs::temp_directory_path(ec) /
                       fmt::format("fusebox-dot-{}-{}.log", ::getpid(), out.filename().string());
  const host::ProcessResult r = host::runProcess(
      {dot.string(), "-Tsvg", "-o", out.string(), in.string()}, log, kDotTimeoutSeconds);
  fs::remove(log, ec);
  if (!r.started) return fmt::format("could not start {}: {}", dot.string(), r.error);
  if (r.timed_out)
    return fmt::format("{} did not finish within {} s and was stopped", dot.string(),
                       kDotTimeoutSeconds);
  if (r.exit_code != 0) return fmt::format("{} failed (exit status {})", dot.string(), r.exit_code);
  return {};
}

void writeGraph(const SegmentedFusion& segmented, const std::string& file, std::ostream& out,
                std::ostream& diagnostics) {
  fs::path dot_file(file);
  {
    std::ostringstream graph;
    segmented.writeGraphviz(graph);
    try {
      // Not an ofstream: opening a FIFO that no one reads would wait forever.
      const std::string text = graph.str();
      WritableFile os(dot_file, "the graph file");
      os.write(text.data(), text.size());
      os.close();
    } catch (const UserError& e) {
      throw UserError(fmt::format("graph_file: {}", e.what()));
    }
  }
  out << "segment graph written to " << file << "\n";
  fs::path svg = dot_file;
  svg.replace_extension(".svg");
  fs::path dot = findDot();
  if (dot.empty()) {
    out << "SVG skipped: `dot` (Graphviz) is not on PATH\n";
    return;
  }
  std::string problem = renderSvg(dot, dot_file, svg);
  if (problem.empty())
    out << "SVG written to " << svg.string() << "\n";
  else
    diagnostics << "warning: SVG of the segment graph not written: " << problem << "\n";
}

}  // namespace

void dumpFusionIr(const Fusion& fusion, const std::string& signature, const Options& options,
                  std::ostream& out) {
  IrPrintOptions print_options;
  print_options.transforms = options.printTransforms();
  out << "=== fusion IR after passes (inputs " << signature << ") ===\n"
      << printFusion(fusion, print_options) << "\n";
}

void dumpCacheDecisions(const CacheEntry& entry, bool concretization_reused, std::ostream& out) {
  const ConcretizedEntry& c = *entry.concretized;
  out << fmt::format("runtime cache: new signature {}\n", entry.signature);
  out << fmt::format("  concretization #{} ({}): {}\n", c.id,
                     concretization_reused ? "reused" : "new",
                     c.key.empty() ? "(no facts)" : c.key);
  out << fmt::format("  kernels over {} sizes\n",
                     entry.shape_mode == ShapeMode::Symbolic ? "symbolic" : "static");
  const auto& groups = entry.segmented->groups();
  for (size_t g = 0; g < entry.scheduled.size(); ++g) {
    const ScheduledSegment& s = entry.scheduled[g];
    if (!s.ready()) continue;
    std::string what = "host plan";
    if (s.kernel_plan != nullptr)
      what = fmt::format("kernel {} {}", s.kernel_plan->kernel.name,
                         s.kernel_origin == ScheduledSegment::KernelOrigin::Reused
                             ? "reused (same params and source)"
                             : "compiled");
    out << fmt::format("  group {} ({}, params {:016x}): {}\n", groups[g].id, s.plugin.name,
                       s.params_hash, what);
  }
  out << fmt::format("  concretization #{}: {} signature{}, {} kernel{}\n", c.id, c.signatures,
                     c.signatures == 1 ? "" : "s", c.kernels.size(),
                     c.kernels.size() == 1 ? "" : "s");
}

void dumpSegmentation(const CacheEntry& entry, const Options& options, RuntimeStreams streams) {
  if (options.dumpSegmentedFusion()) {
    const size_t groups = entry.segmented->groups().size();
    streams.dump << "=== segmented fusion (" << groups << (groups == 1 ? " group" : " groups")
                 << ") ===\n"
                 << entry.segmented->toString() << "\n";
  }
  if (options.dumpSegmenterLog()) {
    streams.dump << "=== segmenter log ===\n";
    if (entry.log.empty())
      streams.dump << "(no refusals: the first scheduler tried accepted every segment)\n";
    else
      streams.dump << formatSegmenterLog(entry.log);
  }
  if (!options.graphFile().empty())
    writeGraph(*entry.segmented, options.graphFile(), streams.dump, streams.diagnostics);
}

}  // namespace fusebox::runtime_detail

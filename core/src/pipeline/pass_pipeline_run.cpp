// Running the pass pipeline: each pass on the fusion, guarded and rolled back
// when it fails, with the IR dumps, timing and verification the options ask for.
#include <fusebox/ir/printer.h>
#include <fusebox/ir/verifier.h>
#include <fusebox/pass_pipeline.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "pipeline/pipeline_internal.h"

namespace fusebox {

using namespace pipeline_detail;

namespace {

// What print_after selects.
struct PrintSelection {
  bool all = false;
  bool changed = false;
  std::set<std::string> names;
  bool wants(const std::string& name, bool did_change) const {
    return all || names.count(name) || (changed && did_change);
  }
};

PrintSelection selectPrints(const std::vector<std::string>& print_after,
                            const std::vector<std::string>& known) {
  PrintSelection s;
  for (const auto& p : print_after) {
    if (p == "all") {
      s.all = true;
    } else if (p == "changed") {
      s.changed = true;
    } else if (std::find(known.begin(), known.end(), p) != known.end()) {
      s.names.insert(p);
    } else {
      throw UserError(
          fmt::format("print_after: unknown pass '{}'; expected \"all\", \"changed\" "
                      "or a pass name: {}",
                      p, fmt::join(known, ", ")));
    }
  }
  return s;
}

std::vector<std::string> verifierProblems(const Fusion& fusion) {
  try {
    return findFusionProblems(fusion);
  } catch (const std::exception& e) {
    return {fmt::format("the verifier could not walk the fusion: {}", e.what())};
  }
}

std::string statusName(PassRunRecord::Status s) {
  switch (s) {
    case PassRunRecord::Status::Unchanged:
      return "no";
    case PassRunRecord::Status::Changed:
      return "yes";
    case PassRunRecord::Status::Failed:
      return "failed";
  }
  return "?";
}

void printTimingTable(const PipelineReport& report, std::ostream& out) {
  size_t width = 4;
  for (const auto& r : report.passes) width = std::max(width, r.name.size());
  out << fmt::format("{:<{}}  {:>10}  {}\n", "pass", width, "time (ms)", "changed");
  double total = 0;
  for (const auto& r : report.passes) {
    out << fmt::format("{:<{}}  {:>10.3f}  {}\n", r.name, width, r.milliseconds,
                       statusName(r.status));
    total += r.milliseconds;
  }
  out << fmt::format("{:<{}}  {:>10.3f}\n", "total", width, total);
}

}  // namespace

PipelineReport PassPipeline::run(std::unique_ptr<Fusion>& fusion, const Options& options,
                                 std::ostream& out, std::ostream* diagnostics) const {
  FUSEBOX_CHECK(fusion != nullptr, "the pipeline needs a fusion");
  std::ostream& diag = diagnostics ? *diagnostics : out;
  const PrintSelection prints = selectPrints(options.printAfter(), known_names_);
  const bool verify = options.verifyPasses();
  IrPrintOptions print_options;
  print_options.transforms = options.printTransforms();

  PipelineReport report;
  auto note = [&](std::string message) {
    diag << "warning: " << message << "\n";
    report.diagnostics.push_back(std::move(message));
  };
  for (const auto& message : setup_diagnostics_) note(message);
  // A pass named in print_after that this pipeline does not run prints
  // nothing: say so instead of staying silent.
  for (const std::string& name : prints.names)
    if (std::none_of(entries_.begin(), entries_.end(),
                     [&](const PipelineEntry& e) { return e.plugin.name == name; }))
      note(
          fmt::format("print_after names pass '{}', which does not run (disabled, or not in "
                      "[passes] order): nothing is printed after it",
                      name));

  for (const auto& entry : entries_) {
    const std::string& name = entry.plugin.name;
    PassRunRecord record{name, PassRunRecord::Status::Unchanged, 0};
    // The copy to fall back on if the pass fails halfway.
    std::unique_ptr<Fusion> backup = fusion->clone();
    const uint64_t hash_before = verify ? fusion->structuralHash() : 0;

    bool changed = false;
    std::string failure;
    auto start = std::chrono::steady_clock::now();
    try {
      changed = entry.pass->run(*fusion);
    } catch (...) {
      failure = describePluginException(std::current_exception());
    }
    record.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    if (failure.empty() && verify) {
      auto problems = verifierProblems(*fusion);
      if (!problems.empty())
        failure = fmt::format("it left an invalid fusion:\n  {}", fmt::join(problems, "\n  "));
    }
    if (!failure.empty()) {
      note(fmt::format("pass {} failed: {}; its changes were discarded and the pipeline goes on",
                       describePass(entry.plugin), failure));
      fusion = std::move(backup);
      record.status = PassRunRecord::Status::Failed;
      report.passes.push_back(record);
      continue;
    }
    if (verify && !changed) {
      const uint64_t hash_after = fusion->structuralHash();
      if (hash_after != hash_before) {
        note(
            fmt::format("pass {} reported no change, but the fusion changed (structural hash "
                        "{:016x} -> {:016x}); counted as changed",
                        describePass(entry.plugin), hash_before, hash_after));
        changed = true;
      }
    }
    record.status = changed ? PassRunRecord::Status::Changed : PassRunRecord::Status::Unchanged;
    report.passes.push_back(record);
    if (prints.wants(name, changed))
      out << fmt::format("=== IR after pass '{}' ({}) ===\n", name,
                         changed ? "changed" : "unchanged")
          << printFusion(*fusion, print_options) << "\n";
  }
  if (options.timePasses()) printTimingTable(report, out);
  return report;
}

}  // namespace fusebox

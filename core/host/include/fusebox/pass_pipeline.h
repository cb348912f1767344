// The pass pipeline: the configured passes in order, each configured with its
// option table, checked against every pass's ordering constraints; runs them on
// a fusion with the instrumentation the options ask for (IR after passes, a
// timing table, the verifier and a check of each pass's "changed" claim).
#pragma once

#include <fusebox/config.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/options.h>
#include <fusebox/pass.h>
#include <fusebox/plugin/plugin_registry.h>

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace fusebox {

// One pass in a pipeline: its plugin (file empty for a pass made in-process)
// and where the config placed it.
struct PipelineEntry {
  PluginDescriptor plugin;
  std::shared_ptr<Pass> pass;
  SourceLocation where;
};

struct PassRunRecord {
  enum class Status { Unchanged, Changed, Failed };
  std::string name;
  Status status = Status::Unchanged;
  double milliseconds = 0;
};

struct PipelineReport {
  std::vector<PassRunRecord> passes;
  // Plugin failures, invalid results, wrong "changed" claims: one line each.
  std::vector<std::string> diagnostics;
  bool changed() const;
};

class PassPipeline {
 public:
  // The pipeline `config` describes with the passes `registry` found.
  // `extra_disabled` adds names (from --disable-pass). Throws UserError for:
  // unknown names (listing the known passes and where each was found), a name
  // twice in the order, a required pass disabled or missing from the order, an
  // order that breaks a constraint, and invalid pass options. A plugin that
  // fails while being set up is left out with a diagnostic (setupDiagnostics()).
  static PassPipeline build(const Config& config, const PluginRegistry& registry,
                            const std::vector<NamedSetting>& extra_disabled = {});

  // A pipeline of given passes, in this order (checked against constraints).
  explicit PassPipeline(std::vector<PipelineEntry> entries,
                        std::vector<std::string> known_names = {});

  const std::vector<PipelineEntry>& entries() const { return entries_; }
  std::vector<std::string> names() const;
  const std::vector<std::string>& setupDiagnostics() const { return setup_diagnostics_; }

  // Runs every pass in order on `fusion`. A pass that throws (or, when verifying,
  // leaves an invalid fusion) is reported and its changes are discarded:
  // `fusion` is then replaced by the copy taken before that pass, so pointers into
  // the old fusion are invalid. IR dumps and the timing table go to `out`;
  // diagnostics go to `diagnostics` (defaults to `out`).
  PipelineReport run(std::unique_ptr<Fusion>& fusion, const Options& options, std::ostream& out,
                     std::ostream* diagnostics = nullptr) const;

 private:
  void checkConstraints() const;
  std::vector<PipelineEntry> entries_;
  std::vector<std::string> known_names_;  // every pass print_after may name
  std::vector<std::string> setup_diagnostics_;
};

}  // namespace fusebox

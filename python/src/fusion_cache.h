// The process-wide fusion cache: definitions that are structurally equal
// (Fusion::structurallyEqual) share one CachedFusion, and with it the
// runtimes (passes, segmentation, kernels) made for it, one per backend and
// configuration. nvFuser users know it as FusionCache.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/runtime.h>

#include <array>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox::python {

// What decides a runtime besides the fusion: the config and the switches a
// definition or a call sets. Equal keys share a runtime.
struct RunSettings {
  std::string config;                 // a TOML file; empty: $FUSEBOX_CONFIG, else the default
  std::vector<std::string> settings;  // "KEY=VALUE", as --set
  std::vector<std::string> disabled_passes;
  std::vector<std::string> disabled_schedulers;
  std::vector<std::string> dumps;  // [dump] options, as --dump ("kernel_source", "print_after=all")
  // Canonical text of the above, made at the first call: the Python side
  // makes a RunSettings once and does not change it afterwards.
  const std::string& key() const;

 private:
  mutable std::string key_;
};

class CachedFusion {
 public:
  CachedFusion(int64_t id, std::unique_ptr<Fusion> fusion);
  // Index errors still pending are written to stderr: nothing is left to
  // raise them from.
  ~CachedFusion();

  int64_t id() const { return id_; }
  const Fusion& fusion() const { return *fusion_; }
  // The fusion's inputs as the module's handles name them (handleName: "T0", "S1").
  const std::vector<std::string>& inputNames() const { return eval_options_.input_names; }
  // The evaluator's options naming them, for the checks of each call.
  const EvaluatorOptions& evaluatorOptions() const { return eval_options_; }
  // The runtime for these settings on this backend (Host or Cuda), made at
  // first use. Config errors are UserErrors.
  FusionRuntime& runtime(const RunSettings& settings, BackendChoice backend);
  // The runtime of the last call that ran; nullptr before any.
  FusionRuntime* lastRuntime() const { return last_; }
  void setLastRuntime(FusionRuntime* runtime) { last_ = runtime; }
  size_t runtimeCount() const { return runtime_count_; }

  // Raises the first index error an earlier call's kernel found, on any of
  // this fusion's runtimes (RuntimeOptions::defer_index_errors); with
  // `wait`, waits for every call's kernels first.
  void checkDeferredIndexErrors(bool wait);

  // Dumps and warnings the runtimes write, drained after each call.
  std::string takeDump();
  std::string takeDiagnostics();

 private:
  int64_t id_;
  std::unique_ptr<Fusion> fusion_;
  EvaluatorOptions eval_options_;  // input_names: inputNames()
  // By settings key: the host runtime, then the cuda one (made at first use).
  std::map<std::string, std::array<std::unique_ptr<FusionRuntime>, 2>, std::less<>> runtimes_;
  size_t runtime_count_ = 0;
  FusionRuntime* last_ = nullptr;
  std::unique_ptr<std::ostringstream> dump_, diagnostics_;
};

class FusionCache {
 public:
  static FusionCache& get();
  // The entry structurally equal to `fusion`, made when there is none.
  std::shared_ptr<CachedFusion> intern(std::unique_ptr<Fusion> fusion);
  size_t size() const { return entries_.size(); }
  // Forgets every entry (definitions holding one keep it; ids go on counting).
  void clear();
  std::shared_ptr<CachedFusion> byId(int64_t id) const;
  // CachedFusion::checkDeferredIndexErrors(wait) of every fusion still alive,
  // in the cache or only in a definition (after clear()).
  void checkDeferredIndexErrors();

 private:
  std::vector<std::shared_ptr<CachedFusion>> entries_;
  std::vector<std::weak_ptr<CachedFusion>> made_;  // every entry made, cleared or not
  std::unordered_multimap<uint64_t, size_t> by_hash_;
  int64_t next_id_ = 0;  // ids are not reused after clear()
};

}  // namespace fusebox::python

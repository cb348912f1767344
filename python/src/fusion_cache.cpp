#include "fusion_cache.h"

#include <fmt/format.h>
#include <fusebox/config.h>
#include <fusebox/frontend/definition_builder.h>
#include <fusebox/options.h>
#include <fusebox/plugin/plugin_registry.h>

#include <iostream>
#include <sstream>

namespace fusebox::python {
namespace {

std::vector<NamedSetting> named(const std::vector<std::string>& names, const char* origin) {
  std::vector<NamedSetting> out;
  for (const std::string& n : names) out.push_back({n, {origin, 0, 0}});
  return out;
}

std::vector<std::string> namesOfInputs(const Fusion& fusion) {
  std::vector<std::string> names;
  for (const Val* v : fusion.inputs()) names.push_back(handleName(v));
  return names;
}

}  // namespace

const std::string& RunSettings::key() const {
  if (!key_.empty()) return key_;
  key_ = fmt::format("config={}\nset={}\npasses-={}\nschedulers-={}\ndump={}", config,
                     fmt::join(settings, "\x1f"), fmt::join(disabled_passes, ","),
                     fmt::join(disabled_schedulers, ","), fmt::join(dumps, "\x1f"));
  return key_;
}

CachedFusion::CachedFusion(int64_t id, std::unique_ptr<Fusion> fusion)
    : id_(id),
      fusion_(std::move(fusion)),
      dump_(std::make_unique<std::ostringstream>()),
      diagnostics_(std::make_unique<std::ostringstream>()) {
  eval_options_.input_names = namesOfInputs(*fusion_);
}

FusionRuntime& CachedFusion::runtime(const RunSettings& settings, BackendChoice backend) {
  // Each (settings, backend) pair has its runtime, found by the settings'
  // cached text (no string is made on a call).
  const size_t slot = backend == BackendChoice::Cuda ? 1 : 0;
  auto found = runtimes_.find(settings.key());
  if (found != runtimes_.end() && found->second[slot]) return *found->second[slot];

  // As the CLI's --config/--set/--dump: config < environment < these settings.
  Config config =
      loadConfig(settings.config.empty() ? std::nullopt
                                         : std::optional<std::filesystem::path>(settings.config));
  Config overrides;
  for (const std::string& s : settings.settings) {
    applySetting(config, s, "settings");
    applySetting(overrides, s, "settings");
  }
  Options options;
  options.applyConfig(config);
  options.applyEnvironment();
  for (const std::string& d : settings.dumps) options.applyEnvironmentText("dump", "dump", d);
  options.apply("dump", overrides.dump);
  options.apply("runtime", overrides.runtime);
  PluginRegistry registry;
  registry.discover(config.plugin_paths);
  requirePluginsFound(config, registry);
  for (const auto& d : registry.diagnostics()) *diagnostics_ << "warning: " << d.message << "\n";

  RuntimeOptions runtime;
  runtime.input_names = inputNames();
  runtime.backend = backend;
  runtime.outputs_on_host = false;  // device outputs stay on the device, as torch's do
  // On the GPU a call does not wait for its kernels: index errors surface at
  // a later call or at synchronize() (on the host backend, at once).
  runtime.defer_index_errors = backend == BackendChoice::Cuda;
  runtime.dump = dump_.get();
  runtime.diagnostics = diagnostics_.get();
  auto made =
      std::make_unique<FusionRuntime>(fusion_->clone(), config, registry, options, runtime,
                                      named(settings.disabled_passes, "disabled passes"),
                                      named(settings.disabled_schedulers, "disabled schedulers"));
  std::unique_ptr<FusionRuntime>& stored = runtimes_[settings.key()][slot];
  stored = std::move(made);
  ++runtime_count_;
  return *stored;
}

void CachedFusion::checkDeferredIndexErrors(bool wait) {
  for (auto& [key, pair] : runtimes_)
    for (auto& runtime : pair)
      if (runtime) runtime->checkDeferredIndexErrors(wait);
}

CachedFusion::~CachedFusion() {
  for (auto& [key, pair] : runtimes_) {
    for (auto& runtime : pair) {
      if (!runtime) continue;
      try {
        runtime->checkDeferredIndexErrors(/*wait=*/true);
      } catch (const UserError& e) {
        std::cerr << "fusebox: a freed fusion's earlier call failed: " << e.what() << "\n";
      } catch (...) {
        // The driver is shutting down (interpreter exit): nothing to report.
      }
    }
  }
}

std::string CachedFusion::takeDump() {
  std::string s = dump_->str();
  dump_->str({});
  return s;
}

std::string CachedFusion::takeDiagnostics() {
  std::string s = diagnostics_->str();
  diagnostics_->str({});
  return s;
}

FusionCache& FusionCache::get() {
  // Never destroyed: its entries' runtimes hold CUDA state, which must not
  // outlive the driver's own statics at process exit.
  static FusionCache* cache = new FusionCache;
  return *cache;
}

std::shared_ptr<CachedFusion> FusionCache::intern(std::unique_ptr<Fusion> fusion) {
  uint64_t hash = fusion->structuralHash();
  auto [begin, end] = by_hash_.equal_range(hash);
  for (auto it = begin; it != end; ++it)
    if (Fusion::structurallyEqual(entries_[it->second]->fusion(), *fusion))
      return entries_[it->second];
  auto entry = std::make_shared<CachedFusion>(next_id_++, std::move(fusion));
  by_hash_.emplace(hash, entries_.size());
  entries_.push_back(entry);
  made_.push_back(entry);
  return entry;
}

void FusionCache::checkDeferredIndexErrors() {
  std::erase_if(made_, [](const std::weak_ptr<CachedFusion>& w) { return w.expired(); });
  for (const auto& weak : made_)
    if (std::shared_ptr<CachedFusion> entry = weak.lock()) entry->checkDeferredIndexErrors(true);
}

void FusionCache::clear() {
  entries_.clear();
  by_hash_.clear();
}

std::shared_ptr<CachedFusion> FusionCache::byId(int64_t id) const {
  for (const auto& entry : entries_)
    if (entry->id() == id) return entry;
  return nullptr;
}

}  // namespace fusebox::python

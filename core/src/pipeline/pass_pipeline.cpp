// Building the pass pipeline from the config: names checked against the plugins
// found, required passes kept, options applied, ordering constraints checked.
// Running it lives in pass_pipeline_run.cpp.
#include <fusebox/pass_pipeline.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipeline/pipeline_internal.h"

namespace fusebox {

namespace pipeline_detail {

std::string describePass(const PluginDescriptor& plugin) {
  if (plugin.file.empty()) return fmt::format("'{}'", plugin.name);
  return fmt::format("'{}' ({})", plugin.name, plugin.file.string());
}

PassFacts readFacts(const PluginDescriptor& plugin, Pass& pass) {
  PassFacts facts;
  facts.required = callPlugin(plugin, "required()", [&] { return pass.required(); });
  facts.runs_after = callPlugin(plugin, "runsAfter()", [&] { return pass.runsAfter(); });
  facts.runs_before = callPlugin(plugin, "runsBefore()", [&] { return pass.runsBefore(); });
  return facts;
}

}  // namespace pipeline_detail

using namespace pipeline_detail;

namespace {

std::string position(size_t index, const SourceLocation& where) {
  if (!where.known()) return fmt::format("position {}", index + 1);
  return fmt::format("position {} ({})", index + 1, where.str());
}

// No [passes] order: every pass, in an order that satisfies the constraints,
// alphabetical where they leave a choice.
std::vector<std::string> constraintOrder(const std::map<std::string, PassFacts>& facts) {
  std::map<std::string, std::set<std::string>> must_follow;  // name -> passes that must come first
  for (const auto& [name, f] : facts) {
    must_follow[name];
    for (const auto& a : f.runs_after)
      if (facts.count(a)) must_follow[name].insert(a);
    for (const auto& b : f.runs_before)
      if (facts.count(b)) must_follow[b].insert(name);
  }
  std::vector<std::string> order;
  std::set<std::string> placed;
  while (order.size() < must_follow.size()) {
    auto ready = std::find_if(must_follow.begin(), must_follow.end(), [&](const auto& kv) {
      if (placed.count(kv.first)) return false;
      return std::all_of(kv.second.begin(), kv.second.end(),
                         [&](const std::string& d) { return placed.count(d) > 0; });
    });
    if (ready == must_follow.end()) {
      std::vector<std::string> left;
      for (const auto& [name, deps] : must_follow)
        if (!placed.count(name)) left.push_back(name);
      throw UserError(
          fmt::format("the ordering constraints of passes {} form a cycle; give an "
                      "explicit [passes] order",
                      fmt::join(left, ", ")));
    }
    placed.insert(ready->first);
    order.push_back(ready->first);
  }
  return order;
}

}  // namespace

PassPipeline::PassPipeline(std::vector<PipelineEntry> entries, std::vector<std::string> known_names)
    : entries_(std::move(entries)), known_names_(std::move(known_names)) {
  for (const auto& e : entries_)
    if (std::find(known_names_.begin(), known_names_.end(), e.plugin.name) == known_names_.end())
      known_names_.push_back(e.plugin.name);
  checkConstraints();
}

std::vector<std::string> PassPipeline::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.plugin.name);
  return out;
}

void PassPipeline::checkConstraints() const {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < entries_.size(); ++i) {
    auto [it, fresh] = index.emplace(entries_[i].plugin.name, i);
    if (!fresh)
      throw UserError(
          entries_[i].where,
          fmt::format("pass '{}' appears twice in the pass order, at {} and {}",
                      entries_[i].plugin.name, position(it->second, entries_[it->second].where),
                      position(i, entries_[i].where)));
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    const auto& e = entries_[i];
    PassFacts facts = readFacts(e.plugin, *e.pass);
    const std::string& name = e.plugin.name;
    for (const auto& a : facts.runs_after) {
      auto j = index.find(a);
      if (j == index.end() || j->second < i) continue;
      throw UserError(e.where, fmt::format("pass order conflict: '{}' must run after '{}' (a "
                                           "constraint declared by '{}'), but the order puts "
                                           "'{}' at {} and '{}' at {}",
                                           name, a, name, name, position(i, e.where), a,
                                           position(j->second, entries_[j->second].where)));
    }
    for (const auto& b : facts.runs_before) {
      auto j = index.find(b);
      if (j == index.end() || j->second > i) continue;
      throw UserError(e.where,
                      fmt::format("pass order conflict: '{}' must run before '{}' (a "
                                  "constraint declared by '{}'), but the order puts "
                                  "'{}' at {} and '{}' at {}",
                                  name, b, name, b, position(j->second, entries_[j->second].where),
                                  name, position(i, e.where)));
    }
  }
}

PassPipeline PassPipeline::build(const Config& config, const PluginRegistry& registry,
                                 const std::vector<NamedSetting>& extra_disabled) {
  requirePluginsFound(config, registry);
  auto unknown = [&](const SourceLocation& where, const std::string& context,
                     const std::string& name) {
    return UserError(where, fmt::format("{}unknown pass '{}'; known passes: {}",
                                        context.empty() ? "" : context + ": ", name,
                                        registry.describeKnown(PluginKind::Pass)));
  };
  std::vector<std::string> diagnostics;

  std::map<std::string, SourceLocation> disabled;
  for (const auto* list : {&config.disabled_passes, &extra_disabled})
    for (const auto& d : *list) {
      // A command-line entry's location already says "--disable-pass".
      const std::string context = list == &extra_disabled ? "" : "[passes] disabled";
      if (!registry.find(d.name, PluginKind::Pass)) throw unknown(d.where, context, d.name);
      disabled.emplace(d.name, d.where);
    }
  for (const auto& [name, table] : config.pass_options)
    if (!registry.find(name, PluginKind::Pass))
      throw unknown(table.where, fmt::format("[passes.{}]", name), name);
  if (config.pass_order)
    for (const auto& n : *config.pass_order)
      if (!registry.find(n.name, PluginKind::Pass))
        throw unknown(n.where, "[passes] order", n.name);

  // Every pass found is made once: required() and the constraints are the
  // pass's to say. A plugin that fails here is left out with a diagnostic.
  std::map<std::string, std::shared_ptr<Pass>> passes;
  std::map<std::string, PassFacts> facts;
  for (const auto& plugin : registry.plugins(PluginKind::Pass)) {
    try {
      auto pass = registry.createPass(plugin.name);
      facts[plugin.name] = readFacts(plugin, *pass);
      passes[plugin.name] = std::move(pass);
    } catch (const PluginError& e) {
      diagnostics.push_back(fmt::format("{}; the pass is left out", e.what()));
    }
  }

  std::vector<NamedSetting> order;
  if (config.pass_order) {
    order = *config.pass_order;
  } else {
    std::map<std::string, PassFacts> enabled;
    for (const auto& [name, f] : facts)
      if (!disabled.count(name)) enabled[name] = f;
    // The default config's order first, then the other passes in
    // constraint order.
    for (const std::string& name :
         defaultOrderFirst(config.default_pass_order, constraintOrder(enabled)))
      order.push_back({name, {}});
  }

  for (const auto& [name, f] : facts) {
    if (!f.required) continue;
    if (auto d = disabled.find(name); d != disabled.end())
      throw UserError(d->second, fmt::format("pass '{}' is required and cannot be disabled", name));
    bool listed = std::any_of(order.begin(), order.end(),
                              [&](const NamedSetting& n) { return n.name == name; });
    if (!listed)
      throw UserError(
          fmt::format("{}pass '{}' ({}) is required, but [passes] order does not list "
                      "it; add it to the order",
                      config.file.empty() ? "" : config.file.string() + ": ", name,
                      registry.find(name, PluginKind::Pass)->file.string()));
  }

  // Options: every table is checked, even a disabled pass's, so typos surface.
  for (auto& [name, pass] : passes) {
    const PluginDescriptor& plugin = *registry.find(name, PluginKind::Pass);
    auto table = config.pass_options.find(name);
    OptionSettings settings =
        table == config.pass_options.end() ? OptionSettings{} : table->second.settings;
    try {
      callPlugin(
          plugin, "configure()", [&] { pass->configure(settings); }, /*pass_user_errors=*/true);
    } catch (const PluginError& e) {
      diagnostics.push_back(fmt::format("{}; the pass is left out", e.what()));
      pass.reset();
    }
  }

  std::vector<PipelineEntry> entries;
  for (const auto& n : order) {
    if (disabled.count(n.name)) continue;
    auto it = passes.find(n.name);
    if (it == passes.end() || !it->second) continue;  // left out above, with a diagnostic
    entries.push_back({*registry.find(n.name, PluginKind::Pass), it->second, n.where});
  }
  std::vector<std::string> known;
  for (const auto& p : registry.plugins(PluginKind::Pass)) known.push_back(p.name);
  PassPipeline pipeline(std::move(entries), std::move(known));
  pipeline.setup_diagnostics_ = std::move(diagnostics);
  return pipeline;
}

bool PipelineReport::changed() const {
  return std::any_of(passes.begin(), passes.end(), [](const PassRunRecord& r) {
    return r.status == PassRunRecord::Status::Changed;
  });
}

}  // namespace fusebox

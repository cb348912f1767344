// Segmenter: asking the schedulers (guarded, with compile-time decisions
// cached per segment structure) and assembling the SegmentedFusion the search
// (group_merger.cpp) found.
#include <fmt/format.h>

#include <fusebox/segmenter.h>

#include "segment/group_merger.h"

namespace fusebox {
namespace {

// A scheduler call that throws counts as a rejection saying what it threw.
template <class F>
Decision guardedDecision(const SchedulerEntry& entry, std::string_view what, F&& fn) {
  try {
    return callPlugin(entry.plugin, what, std::forward<F>(fn));
  } catch (const PluginError& e) {
    return Decision::reject(fmt::format("threw: {}", e.what()));
  }
}

const std::string& nameOf(const SchedulerEntry& entry) {
  return entry.plugin.name;
}

}  // namespace

Segmenter::Segmenter(std::vector<SchedulerEntry> schedulers) : schedulers_(std::move(schedulers)) {
  for (auto& entry : schedulers_) {
    FUSEBOX_CHECK(entry.scheduler != nullptr, "scheduler entry '{}' has no scheduler",
                  entry.plugin.name);
    // Schedulers made directly (tests, benchmarks) have no plugin record.
    if (entry.plugin.name.empty()) {
      entry.plugin.name = entry.scheduler->name();
      entry.plugin.kind = PluginKind::Scheduler;
    }
    // A scheduler that cannot say counts as a primary one: it is still asked.
    bool fallback = false;
    try {
      fallback = callPlugin(entry.plugin, "isFallback", [&] { return entry.scheduler->isFallback(); });
    } catch (const PluginError&) {
    }
    fallback_.push_back(fallback);
  }
}

bool Segmenter::isFallback(const SchedulerEntry& entry) const {
  auto index = &entry - schedulers_.data();
  FUSEBOX_CHECK(index >= 0 && index < static_cast<ptrdiff_t>(schedulers_.size()),
                "scheduler entry '{}' is not one of this segmenter's", entry.plugin.name);
  return fallback_[index];
}

CompileTimeCache& Segmenter::compileTimeCache(const std::string& scheduler, const Fusion& segment) {
  return caches_[{scheduler, segment.structuralHash()}];
}

const SchedulerEntry* Segmenter::findScheduler(const Fusion& segment, RuntimeInfo& info,
                                               std::vector<SegmenterLogEntry>* log,
                                               const std::vector<int64_t>& groups,
                                               const std::vector<std::string>& group_labels,
                                               const std::string& stage,
                                               SchedulerTier tier) {
  const uint64_t hash = segment.structuralHash();
  auto refuse = [&](const SchedulerEntry& entry, const std::string& reason) {
    if (log) log->push_back({stage, groups, group_labels, nameOf(entry), reason});
  };
  for (const auto& entry : schedulers_) {
    if (tier != SchedulerTier::Any && isFallback(entry) != (tier == SchedulerTier::Fallback))
      continue;
    const auto key = std::make_pair(nameOf(entry), hash);
    CompileTimeCache& cache = caches_[key];
    auto known = compile_time_decisions_.find(key);
    if (known != compile_time_decisions_.end()) {
      ++counters_.compile_time_cache_hits;
    } else {
      ++counters_.compile_time_checks;
      Decision d = guardedDecision(entry, "canScheduleCompileTime", [&] {
        return entry.scheduler->canScheduleCompileTime(segment, cache);
      });
      known = compile_time_decisions_.emplace(key, std::move(d)).first;
    }
    if (!known->second) {
      refuse(entry, "compile time: " + known->second.reason());
      continue;
    }
    ++counters_.run_time_checks;
    Decision run_time = guardedDecision(entry, "canScheduleRunTime", [&] {
      return entry.scheduler->canScheduleRunTime(segment, info, cache);
    });
    if (!run_time) {
      refuse(entry, "run time: " + run_time.reason());
      continue;
    }
    return &entry;
  }
  return nullptr;
}

std::unique_ptr<SegmentedFusion> Segmenter::segment(const Fusion& complete,
                                                    FusionRuntimeFacts& facts,
                                                    std::vector<SegmenterLogEntry>* log) {
  FUSEBOX_CHECK(&facts.complete() == &complete,
                "segment: the runtime facts describe another fusion");
  segment_detail::GroupMerger merger(*this, complete, facts, log);
  auto accepted = merger.run();
  counters_.extractions += merger.extractions();

  auto result = std::make_unique<SegmentedFusion>();
  result->complete_ = &complete;
  for (auto& a : accepted) {
    SegmentGroup g;
    g.id = static_cast<int64_t>(result->groups_.size());
    g.exprs = std::move(a.exprs);
    g.inputs = std::move(a.segment.inputs);
    g.outputs = std::move(a.segment.outputs);
    g.forwarded = std::move(a.segment.forwarded);
    g.scheduler = nameOf(*a.scheduler);
    g.fusion = std::move(a.segment.fusion);
    for (const Expr* e : g.exprs) result->group_of_[e] = g.id;
    result->groups_.push_back(std::move(g));
  }
  for (const auto& g : result->groups_)
    for (Val* v : g.inputs) {
      if (!v->isTensor() || v->definition() == nullptr) continue;
      int64_t from = result->groupOf(v->definition());
      FUSEBOX_CHECK(from >= 0 && from < g.id, "group {} reads {} from group {}", g.id,
                    v->toString(), from);
      result->edges_.push_back({from, g.id, v});
    }
  return result;
}

int64_t SegmentedFusion::groupOf(const Expr* e) const {
  auto it = group_of_.find(e);
  return it == group_of_.end() ? -1 : it->second;
}

}  // namespace fusebox

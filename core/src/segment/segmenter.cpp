// Segmenter: asking the schedulers (guarded, with compile-time decisions
// cached per segment structure) and assembling the SegmentedFusion the search
// (group_merger.cpp) found.
#include <fmt/format.h>

#include <fusebox/segmenter.h>

#include "segment/group_merger.h"

namespace fusebox {
namespace {

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

Answer Segmenter::ask(const SchedulerEntry& entry, const Fusion& segment, uint64_t structure,
                      RuntimeInfo& info) {
  const auto key = std::make_pair(nameOf(entry), structure);
  if (auto known = structural_refusals_.find(key); known != structural_refusals_.end()) {
    ++counters_.structural_refusals_reused;
    return known->second;
  }
  ++counters_.proposals_asked;
  CompileTimeCache& cache = caches_[key];
  Answer answer = Refusal::ofInputs("no answer");
  try {
    answer = callPlugin(entry.plugin, "propose",
                        [&] { return entry.scheduler->propose(segment, info, cache); });
  } catch (const PluginError& e) {
    return Refusal::ofInputs(fmt::format("threw: {}", e.what()));
  }
  if (!answer.proposed() && answer.refusal().structural()) {
    structural_refusals_.emplace(key, answer.refusal());
    ++counters_.structural_refusals_kept;
  }
  return answer;
}

SchedulerChoice Segmenter::choose(const Fusion& segment, RuntimeInfo& info, SchedulerTier tier,
                                  const RefusalSink& refused, const SchedulerEntry* first,
                                  std::unique_ptr<Proposal> kept, const Take& take) {
  bool started = first == nullptr;
  const uint64_t structure = segment.structuralHash();  // once: it walks the whole segment
  for (const auto& entry : schedulers_) {
    started |= &entry == first;
    if (!started) continue;
    if (tier != SchedulerTier::Any && isFallback(entry) != (tier == SchedulerTier::Fallback))
      continue;
    std::unique_ptr<Proposal> proposal;
    if (&entry == first && kept != nullptr) {
      proposal = std::move(kept);
    } else {
      Answer answer = ask(entry, segment, structure, info);
      if (!answer.proposed()) {
        refused(entry, answer.refusal().describe(), false);
        continue;
      }
      proposal = answer.takeProposal();
    }
    if (take) {
      if (std::optional<std::string> failure = take(entry, *proposal)) {
        refused(entry, *failure, true);
        continue;
      }
    }
    return {&entry, std::move(proposal)};
  }
  return {};
}

SchedulerChoice Segmenter::findScheduler(const Fusion& segment, RuntimeInfo& info,
                                         std::vector<SegmenterLogEntry>* log,
                                         const std::vector<int64_t>& groups,
                                         const std::vector<std::string>& group_labels,
                                         const std::string& stage, SchedulerTier tier) {
  return choose(segment, info, tier,
                [&](const SchedulerEntry& entry, const std::string& reason, bool) {
                  if (log) log->push_back({stage, groups, group_labels, nameOf(entry), reason});
                });
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
    g.proposer = a.scheduler->scheduler;
    g.proposal = std::move(a.proposal);
    g.proposed_for = std::move(a.proposed_for);
    g.proposed_mode = facts.shapeMode();
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

// GroupMerger: the segmentation search.
//
// Fallback schedulers (Scheduler::isFallback: expr_eval) accept anything, so
// they are kept out of every question where another scheduler could answer:
// they never see the whole fusion or a merge that involves a group another
// scheduler took. Otherwise a fusion with one op no kernel scheduler handles
// would run entirely on the fallback.
//
// 1. The whole fusion, offered to every primary scheduler in order.
// 2. Otherwise one group per tensor expression (scalar arithmetic belongs to
//    no group: it is copied into whichever segment needs it; nor do forwarded
//    input chains, Segmenter::setForwardInputs: each segment that reads one
//    recomputes it), offered to the
//    primary schedulers, then to the fallbacks. Each must be accepted by some
//    scheduler, or the fusion cannot run at all.
// 3. Rounds of level-by-level merging: groups are ranked by level (longest
//    path from a source in the group graph); each round walks them by (level,
//    id) and merges a group with its first consumer one level further down
//    that some scheduler accepts together with it, each group merging at most
//    once per round. Pairing neighbours this way grows groups evenly (a chain
//    of n expressions needs about log2(n) rounds, each extracting O(n)
//    expressions in total) instead of growing one group by one expression at
//    a time.
//    Two fallback groups are offered to the fallbacks; any other pair to the
//    primary schedulers.
// 4. A final greedy pass over every remaining producer-consumer pair, until a
//    whole pass merges nothing.
// 5. Horizontal merging: two groups of primary schedulers with no path
//    between them (independent outputs of one input, a pointwise part beside
//    a reduction on the fallback) are offered together, so that they run as
//    one kernel where a scheduler takes both. Only while few groups are left
//    (kHorizontalGroupLimit): the pairs are quadratic.
// 6. When every group ended with a fallback, the whole fusion goes to the
//    fallbacks as one group (what the fallback alone would have done).
// A merge is refused without asking a scheduler when another path joins the
// two groups (the union would be part of a cycle) or when the edge carries a
// segment_set output. Refusals are remembered per (group, version) pair, so an
// unchanged pair is never tried twice.
#include "segment/group_merger.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include <fusebox/ir/printer.h>

namespace fusebox::segment_detail {

GroupMerger::GroupMerger(Segmenter& segmenter, const Fusion& complete, FusionRuntimeFacts& facts,
                         std::vector<SegmenterLogEntry>* log)
    : segmenter_(segmenter), facts_(facts), log_(log), extractor_(complete) {}

std::vector<AcceptedGroup> GroupMerger::run() {
  const auto& exprs = extractor_.tensorExprs();
  if (exprs.empty()) return {};
  if (auto whole = tryWholeFusion(SchedulerTier::Primary, "whole fusion")) {
    std::vector<AcceptedGroup> out;
    out.push_back(std::move(*whole));
    return out;
  }
  if (segmenter_.forwardInputs()) forwardInputChains();
  for (Expr* e : exprs)
    if (!extractor_.isForwarded(e)) {
      grouped_position_[e] = static_cast<int64_t>(grouped_.size());
      grouped_.push_back(e);
    }
  // Edges between single-expression groups: producer position -> consumer
  // position (a forwarded producer is no group: no edge).
  std::vector<std::pair<int64_t, int64_t>> edges;
  for (size_t c = 0; c < grouped_.size(); ++c)
    for (const Val* in : grouped_[c]->inputs()) {
      if (!in->isTensor() || in->definition() == nullptr) continue;
      int64_t p = groupedPosition(in->definition());
      if (p >= 0) edges.emplace_back(p, static_cast<int64_t>(c));
    }
  graph_.emplace(static_cast<int64_t>(grouped_.size()), edges);
  accepted_.resize(grouped_.size());
  acceptSingleExpressions();
  for (int round = 1; mergeRound(round); ++round) {
  }
  greedyMerge();
  horizontalMerge();

  std::vector<AcceptedGroup> out;
  if (auto whole = allFallbackAsOne()) {
    out.push_back(std::move(*whole));
    return out;
  }
  for (int64_t g : graph_->runOrder()) out.push_back(std::move(*accepted_[g]));
  keepUnsharedChainsInTheirGroup(out);
  return out;
}

// A forwarded chain whose readers all ended in one group is recomputed by
// that group alone: it is simply part of it (a chain's links always travel
// together, so each link has the same count).
void GroupMerger::keepUnsharedChainsInTheirGroup(std::vector<AcceptedGroup>& groups) const {
  std::unordered_map<const Expr*, int> recomputed;
  for (const auto& g : groups)
    for (const Expr* e : g.segment.forwarded) ++recomputed[e];
  for (auto& g : groups) {
    auto& forwarded = g.segment.forwarded;
    auto shared = [&](const Expr* e) { return recomputed[e] > 1; };
    auto own = std::stable_partition(forwarded.begin(), forwarded.end(), shared);
    if (own == forwarded.end()) continue;
    g.exprs.insert(g.exprs.end(), own, forwarded.end());
    forwarded.erase(own, forwarded.end());
    std::sort(g.exprs.begin(), g.exprs.end(), [&](const Expr* a, const Expr* b) {
      return extractor_.position(a) < extractor_.position(b);
    });
  }
}

bool GroupMerger::isFallbackGroup(int64_t group) const {
  return segmenter_.isFallback(*accepted_[group]->scheduler);
}

std::optional<AcceptedGroup> GroupMerger::allFallbackAsOne() {
  const auto groups = graph_->groupsInOrder();
  if (groups.size() < 2) return std::nullopt;
  for (int64_t g : groups)
    if (!isFallbackGroup(g)) return std::nullopt;
  return tryWholeFusion(SchedulerTier::Fallback, "whole fusion (fallback)");
}

std::optional<AcceptedGroup> GroupMerger::tryWholeFusion(SchedulerTier tier,
                                                        const std::string& stage) {
  const auto& exprs = extractor_.tensorExprs();
  // A segment_set read by another expression asks for a boundary.
  for (const Expr* e : exprs) {
    if (e->op() != OpType::SegmentSet) continue;
    for (const Expr* use : e->output(0)->uses())
      if (extractor_.position(use) >= 0) {
        if (log_)
          log_->push_back({stage,
                           {0},
                           {"whole fusion"},
                           "(segmenter)",
                           fmt::format("{} is a segment_set output read by another expression: "
                                       "producer and consumer go to different segments",
                                       e->output(0)->toString())});
        return std::nullopt;
      }
  }
  AcceptedGroup whole;
  whole.exprs = exprs;
  whole.segment = extract(exprs);
  RuntimeInfo info = facts_.forSegment(*whole.segment.fusion, whole.segment.inputs);
  if (!whole.take(segmenter_.findScheduler(*whole.segment.fusion, info, log_, {0}, {"whole fusion"},
                                           stage, tier),
                  info))
    return std::nullopt;
  return whole;
}

void GroupMerger::forwardInputChains() {
  for (const auto& chain : extractor_.forwardableChains()) {
    bool forward = true;
    for (Expr* reader : chain.readers) {
      if (!acceptedByPrimary({reader})) continue;
      extractor_.setForwarded(chain, true);
      forward = acceptedByPrimary({reader});
      extractor_.setForwarded(chain, false);
      if (!forward) break;
    }
    extractor_.setForwarded(chain, forward);
  }
}

bool GroupMerger::acceptedByPrimary(const std::vector<Expr*>& exprs) {
  ExtractedSegment segment = extract(exprs);
  RuntimeInfo info = facts_.forSegment(*segment.fusion, segment.inputs);
  return static_cast<bool>(segmenter_.findScheduler(*segment.fusion, info, nullptr, {}, {},
                                                    "input forwarding", SchedulerTier::Primary));
}

int64_t GroupMerger::groupedPosition(const Expr* e) const {
  auto it = grouped_position_.find(e);
  return it == grouped_position_.end() ? -1 : it->second;
}

void GroupMerger::acceptSingleExpressions() {
  const auto& exprs = grouped_;
  const std::string stage = "single expression";
  for (size_t i = 0; i < exprs.size(); ++i) {
    const auto id = static_cast<int64_t>(i);
    AcceptedGroup group;
    group.exprs = {exprs[i]};
    group.segment = extract(group.exprs);
    RuntimeInfo info = facts_.forSegment(*group.segment.fusion, group.segment.inputs);
    std::vector<SegmenterLogEntry> refusals;
    if (!group.take(segmenter_.findScheduler(*group.segment.fusion, info, &refusals, {id},
                                             {label(id)}, stage, SchedulerTier::Primary),
                    info))
      group.take(segmenter_.findScheduler(*group.segment.fusion, info, &refusals, {id}, {label(id)},
                                          stage, SchedulerTier::Fallback),
                 info);
    if (log_) log_->insert(log_->end(), refusals.begin(), refusals.end());
    if (group.scheduler == nullptr) {
      std::string why;
      for (const auto& r : refusals) why += fmt::format("\n  {}: {}", r.scheduler, r.reason);
      if (segmenter_.schedulers().empty()) why = "\n  (no scheduler is configured)";
      throw UserError(
          fmt::format("no scheduler accepts this expression, so the fusion cannot "
                      "run:\n{}the schedulers said:{}",
                      printExpr(exprs[i]), why));
    }
    accepted_[i] = std::move(group);
  }
}

bool GroupMerger::mergeRound(int round) {
  const std::string stage = fmt::format("merge round {}", round);
  const auto level = graph_->levels();
  auto groups = graph_->groupsInOrder();
  std::stable_sort(groups.begin(), groups.end(), [&](int64_t a, int64_t b) {
    return level[a] != level[b] ? level[a] < level[b] : a < b;
  });
  std::unordered_set<int64_t> touched;
  bool merged = false;
  for (int64_t p : groups) {
    if (touched.count(p) || !graph_->alive(p)) continue;
    for (int64_t c : graph_->successors(p)) {
      if (level[c] != level[p] + 1 || touched.count(c)) continue;
      if (tryMerge(p, c, stage)) {
        touched.insert(p);
        touched.insert(c);
        merged = true;
        break;
      }
    }
  }
  return merged;
}

void GroupMerger::greedyMerge() {
  const std::string stage = "greedy merge";
  for (bool merged = true; merged;) {
    merged = false;
    for (int64_t p : graph_->groupsInOrder()) {
      // A merge earlier in this pass may have absorbed p, or grown it.
      while (graph_->alive(p)) {
        bool grew = false;
        for (int64_t c : graph_->successors(p))
          if (tryMerge(p, c, stage)) {
            grew = merged = true;
            p = std::min(p, c);
            break;
          }
        if (!grew) break;
      }
    }
  }
}

void GroupMerger::horizontalMerge() {
  constexpr int64_t kHorizontalGroupLimit = 256;
  const std::string stage = "horizontal merge";
  if (graph_->size() > kHorizontalGroupLimit) return;
  for (bool merged = true; merged;) {
    merged = false;
    const auto groups = graph_->groupsInOrder();
    for (size_t i = 0; i < groups.size(); ++i) {
      int64_t first = groups[i];
      if (!graph_->alive(first) || isFallbackGroup(first)) continue;
      for (size_t j = i + 1; j < groups.size(); ++j) {
        const int64_t second = groups[j];
        if (!graph_->alive(second) || !graph_->alive(first) || isFallbackGroup(second) ||
            graph_->hasEdge(first, second))
          continue;
        if (tryMergeIndependent(first, second, stage)) {
          merged = true;
          first = std::min(first, second);
        }
      }
    }
  }
}

const Val* GroupMerger::segmentSetBetween(int64_t producer, int64_t consumer) const {
  for (int64_t e : graph_->members(consumer))
    for (const Val* in : grouped_[e]->inputs()) {
      const Expr* def = in->definition();
      if (!in->isTensor() || def == nullptr || def->op() != OpType::SegmentSet) continue;
      int64_t p = groupedPosition(def);
      if (p >= 0 && graph_->groupOf(p) == producer) return in;
    }
  return nullptr;
}

ExtractedSegment GroupMerger::extract(const std::vector<Expr*>& exprs) {
  ++extractions_;
  return extractor_.extract(exprs);
}

std::vector<Expr*> GroupMerger::exprsOf(const std::vector<int64_t>& positions) const {
  std::vector<Expr*> out;
  out.reserve(positions.size());
  for (int64_t p : positions) out.push_back(grouped_[p]);
  return out;
}

std::string GroupMerger::label(int64_t group) const {
  std::vector<std::string> names;
  const auto& members = graph_ ? graph_->members(group) : std::vector<int64_t>{group};
  for (int64_t e : members)
    for (const Val* out : grouped_[e]->outputs()) names.push_back(out->toString());
  constexpr size_t kShown = 4;
  if (names.size() <= kShown + 1) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{} and {} more", fmt::join(names.begin(), names.begin() + kShown, ", "),
                     names.size() - kShown);
}

void GroupMerger::refuse(const std::string& stage, int64_t producer, int64_t consumer,
                         const std::string& reason) {
  refused_.insert({producer, graph_->version(producer), consumer, graph_->version(consumer)});
  if (log_)
    log_->push_back(
        {stage, {producer, consumer}, {label(producer), label(consumer)}, "(segmenter)", reason});
}

bool GroupMerger::tryMerge(int64_t producer, int64_t consumer, const std::string& stage) {
  const std::array<int64_t, 4> key = {producer, graph_->version(producer), consumer,
                                      graph_->version(consumer)};
  if (refused_.count(key)) return false;
  if (const Val* boundary = segmentSetBetween(producer, consumer)) {
    refuse(stage, producer, consumer,
           fmt::format("{} is a segment_set output: producer and consumer stay in different "
                       "segments",
                       boundary->toString()));
    return false;
  }
  if (int64_t via = graph_->cycleThrough(producer, consumer); via >= 0) {
    refuse(stage, producer, consumer,
           fmt::format("merging would create a cycle: #{} {{{}}} depends on #{} and feeds #{}", via,
                       label(via), producer, consumer));
    return false;
  }
  return mergeIfAccepted(producer, consumer, stage, key, /*logged=*/true);
}

bool GroupMerger::tryMergeIndependent(int64_t first, int64_t second, const std::string& stage) {
  if (graph_->position(first) > graph_->position(second)) std::swap(first, second);
  const std::array<int64_t, 4> key = {first, graph_->version(first), second,
                                      graph_->version(second)};
  if (refused_.count(key)) return false;
  // A path between them would put the union on a cycle. Not logged: most
  // pairs of a fusion are connected, and the log would drown in them.
  if (graph_->reaches(first, second)) {
    refused_.insert(key);
    return false;
  }
  return mergeIfAccepted(first, second, stage, key, /*logged=*/false);
}

bool GroupMerger::mergeIfAccepted(int64_t first, int64_t second, const std::string& stage,
                                  const std::array<int64_t, 4>& key, bool logged) {
  std::vector<int64_t> positions;
  const auto& a = graph_->members(first);
  const auto& b = graph_->members(second);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(positions));
  AcceptedGroup group;
  group.exprs = exprsOf(positions);
  group.segment = extract(group.exprs);
  RuntimeInfo info = facts_.forSegment(*group.segment.fusion, group.segment.inputs);
  std::vector<SegmenterLogEntry>* log = logged ? log_ : nullptr;
  std::vector<std::string> labels;
  if (log) labels = {label(first), label(second)};
  const SchedulerTier tier = isFallbackGroup(first) && isFallbackGroup(second)
                                 ? SchedulerTier::Fallback
                                 : SchedulerTier::Primary;
  if (!group.take(segmenter_.findScheduler(*group.segment.fusion, info, log, {first, second},
                                           labels, stage, tier),
                  info)) {
    refused_.insert(key);
    return false;
  }
  int64_t survivor = graph_->merge(first, second);
  accepted_[first].reset();
  accepted_[second].reset();
  accepted_[survivor] = std::move(group);
  return true;
}

}  // namespace fusebox::segment_detail

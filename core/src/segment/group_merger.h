// The search behind Segmenter::segment: the whole fusion first, then one group
// per tensor expression merged level by level and finally greedily.
#pragma once

#include <fusebox/segmenter.h>

#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "segment/group_graph.h"
#include "segment/segment_extractor.h"

namespace fusebox::segment_detail {

// A group some scheduler accepted, with its extracted sub-fusion.
struct AcceptedGroup {
  std::vector<Expr*> exprs;  // complete-fusion expressions, topological order
  ExtractedSegment segment;
  const SchedulerEntry* scheduler = nullptr;
  std::unique_ptr<Proposal> proposal;      // the scheduler's, kept for the runtime
  std::vector<ArgumentInfo> proposed_for;  // the inputs it was made for
  // Takes the scheduler and proposal of `choice`, made for `info`; false when
  // no scheduler proposed.
  bool take(SchedulerChoice choice, const RuntimeInfo& info) {
    scheduler = choice.entry;
    proposal = std::move(choice.proposal);
    proposed_for = info.inputs();
    return scheduler != nullptr;
  }
};

class GroupMerger {
 public:
  GroupMerger(Segmenter& segmenter, const Fusion& complete, FusionRuntimeFacts& facts,
              std::vector<SegmenterLogEntry>* log);
  // The groups in run order. Throws UserError when some expression is
  // accepted by no scheduler.
  std::vector<AcceptedGroup> run();
  // How many candidate segments were extracted.
  int64_t extractions() const { return extractions_; }

 private:
  // The whole fusion as one group, offered to `tier`'s schedulers (unless a
  // segment_set asks for a boundary).
  std::optional<AcceptedGroup> tryWholeFusion(SchedulerTier tier, const std::string& stage);
  // Step 5: every group went to a fallback; offer them the whole fusion.
  std::optional<AcceptedGroup> allFallbackAsOne();
  bool isFallbackGroup(int64_t group) const;
  // Input forwarding (Segmenter::setForwardInputs): marks the chains to
  // forward in the extractor. A chain stays unforwarded when one of its
  // readers is taken alone by a primary scheduler but not with the chain
  // before it: forwarding must never push an expression off its kernel.
  void forwardInputChains();
  bool acceptedByPrimary(const std::vector<Expr*>& exprs);
  void keepUnsharedChainsInTheirGroup(std::vector<AcceptedGroup>& groups) const;
  void acceptSingleExpressions();
  // One level-by-level round; true when something merged.
  bool mergeRound(int round);
  void greedyMerge();
  // Step 5: groups with no path between them, both taken by primary
  // schedulers, merged where a scheduler accepts them together.
  void horizontalMerge();
  bool tryMerge(int64_t producer, int64_t consumer, const std::string& stage);
  bool tryMergeIndependent(int64_t first, int64_t second, const std::string& stage);
  // Extracts the union of two groups, offers it to the schedulers and merges
  // the groups when one accepts; `key` is remembered on refusal, and the
  // schedulers' refusals go to the log when `logged` (horizontal merges are
  // not: most pairs are refused, and the log would drown in them).
  bool mergeIfAccepted(int64_t first, int64_t second, const std::string& stage,
                       const std::array<int64_t, 4>& key, bool logged);
  // A tensor produced in `producer` by a segment_set and read in `consumer`.
  const Val* segmentSetBetween(int64_t producer, int64_t consumer) const;
  ExtractedSegment extract(const std::vector<Expr*>& exprs);
  std::vector<Expr*> exprsOf(const std::vector<int64_t>& positions) const;
  // Position of a grouped expression in grouped_, or -1 (not live, or
  // forwarded).
  int64_t groupedPosition(const Expr* e) const;
  std::string label(int64_t group) const;
  void refuse(const std::string& stage, int64_t producer, int64_t consumer,
              const std::string& reason);

  Segmenter& segmenter_;
  FusionRuntimeFacts& facts_;
  std::vector<SegmenterLogEntry>* log_;
  SegmentExtractor extractor_;
  // The tensor expressions that start as groups (the live ones, less the
  // forwarded ones), in topological order: group graph vertex i is grouped_[i].
  std::vector<Expr*> grouped_;
  std::unordered_map<const Expr*, int64_t> grouped_position_;
  std::optional<GroupGraph> graph_;
  std::vector<std::optional<AcceptedGroup>> accepted_;  // by group id
  // Merges already refused, by (producer, version, consumer, version).
  std::set<std::array<int64_t, 4>> refused_;
  int64_t extractions_ = 0;
};

}  // namespace fusebox::segment_detail

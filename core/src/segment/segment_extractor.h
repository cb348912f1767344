// Extracting many segments of one complete fusion: what every extraction needs
// to know about the complete fusion (its live tensor expressions, in order) is
// computed once.
#pragma once

#include <fusebox/segmenter.h>

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fusebox::segment_detail {

class SegmentExtractor {
 public:
  explicit SegmentExtractor(const Fusion& complete);

  const Fusion& complete() const { return complete_; }
  // The live tensor expressions, in the complete fusion's topological order.
  const std::vector<Expr*>& tensorExprs() const { return tensor_exprs_; }
  // Position of a live tensor expression in tensorExprs(), or -1.
  int64_t position(const Expr* e) const;
  // See extractSegment (segmenter.h). `exprs` in topological order. With
  // forwarded expressions, a segment that reads a forwarded value recomputes
  // its chain (ExtractedSegment::forwarded), and forwarded values are never
  // segment outputs.
  ExtractedSegment extract(const std::vector<Expr*>& exprs,
                           std::unordered_map<const Val*, Val*>* map = nullptr) const;

  // A chain Segmenter::setForwardInputs describes: its expressions from the
  // input on, and the expressions that read its last value.
  struct InputChain {
    std::vector<Expr*> exprs;
    std::vector<Expr*> readers;
  };
  // Every such chain, in the order of the fusion's inputs.
  std::vector<InputChain> forwardableChains() const;
  // Marks (or unmarks) a chain's expressions as forwarded.
  void setForwarded(const InputChain& chain, bool forwarded);
  bool isForwarded(const Expr* e) const { return forwarded_.count(e) > 0; }

 private:
  // The forwarded expressions `exprs` need, not among them, in topological
  // order.
  std::vector<Expr*> forwardedChains(const std::vector<Expr*>& exprs) const;
  // The live expressions that read `v`.
  std::vector<Expr*> liveUses(const Val* v) const;

  const Fusion& complete_;
  std::vector<Expr*> tensor_exprs_;
  std::unordered_map<const Expr*, int64_t> position_;
  std::unordered_set<const Expr*> forwarded_;
};

}  // namespace fusebox::segment_detail

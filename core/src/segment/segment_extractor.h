// Extracting many segments of one complete fusion: what every extraction needs
// to know about the complete fusion (its live tensor expressions, in order) is
// computed once.
#pragma once

#include <fusebox/segmenter.h>

#include <unordered_map>
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
  // See extractSegment (segmenter.h). `exprs` in topological order.
  ExtractedSegment extract(const std::vector<Expr*>& exprs,
                           std::unordered_map<const Val*, Val*>* map = nullptr) const;

 private:
  const Fusion& complete_;
  std::vector<Expr*> tensor_exprs_;
  std::unordered_map<const Expr*, int64_t> position_;
};

}  // namespace fusebox::segment_detail

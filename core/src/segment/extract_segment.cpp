// extractSegment: the self-contained sub-fusion of a group of tensor
// expressions.
//
// Extents are the delicate part. A tensor that crosses into the segment gets a
// fresh domain whose non-constant extents are free symbolic extents of the new
// input: the segment learns those sizes from the tensor it is given, whatever
// scalar arithmetic produced them in the complete fusion (a reshape's product,
// a slice's clamped difference). Every other scalar the segment needs (an
// operand, or an extent of a tensor it produces) is copied together with its
// scalar arithmetic, down to leaves that are either already known here
// (constants, extents of the segment's tensor inputs) or free values of the
// complete fusion (its scalar inputs, extents of tensors the segment does not
// read), which become scalar inputs. So every extent and operand of the
// segment can be evaluated from the segment's own inputs, and the segment
// never needs to know how its inputs were made.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "segment/segment_extractor.h"

namespace fusebox {
namespace segment_detail {
namespace {

class SegmentBuilder {
 public:
  SegmentBuilder(const Fusion& complete, std::unordered_map<const Val*, Val*>& map,
                 ExtractedSegment& out)
      : complete_(complete), map_(map), out_(out), seg_(*out.fusion) {}

  // A tensor read by the segment but produced outside it (or a fusion input).
  void addTensorInput(const TensorView* tv) {
    const bool fusion_input = tv->isFusionInput();
    std::vector<IterDomain*> logical;
    for (IterDomain* id : tv->logicalNoReductions()) {
      Scalar* extent = inputExtent(id->extent());
      Scalar* expanded = id->expandedExtent() ? inputExtent(id->expandedExtent()) : nullptr;
      logical.push_back(named(seg_.newIterDomain(extent, id->iterType(), expanded), id));
    }
    TensorView* ntv = named(seg_.newTensor(logical, tv->dtype()), tv);
    // The layout the producer writes: a required stride order wins over an
    // allocation hint (as the evaluator and the runtime allocate outputs).
    const auto* required = fusion_input ? nullptr : complete_.requiredStrideOrder(tv);
    if (required)
      ntv->setStrideOrder(*required);
    else if (tv->hasAllocation())
      ntv->setAllocation(mapDomains(tv->allocation()));
    // A fusion input keeps the layout the user declared; an intermediate
    // arrives as a fresh dense allocation in its allocation order.
    if (fusion_input)
      ntv->setContiguity(tv->contiguity());
    else
      ntv->setContiguous();
    seg_.addInput(ntv);
    map_[tv] = ntv;
    out_.inputs.push_back(const_cast<TensorView*>(tv));
  }

  // A tensor one of the segment's expressions produces.
  TensorView* producedTensor(const TensorView* tv) {
    std::vector<IterDomain*> logical;
    for (IterDomain* id : tv->logical()) logical.push_back(mapDomain(id));
    TensorView* ntv = named(seg_.newTensor(logical, tv->dtype()), tv);
    if (tv->hasAllocation()) ntv->setAllocation(mapDomains(tv->allocation()));
    ntv->setContiguity(tv->contiguity());
    map_[tv] = ntv;
    return ntv;
  }

  void copyExpr(const Expr* e) {
    std::vector<Val*> ins, outs;
    for (Val* in : e->inputs()) {
      if (in->isTensor()) {
        auto it = map_.find(in);
        FUSEBOX_CHECK(it != map_.end(), "extractSegment: {} read before it is available",
                      in->toString());
        ins.push_back(it->second);
      } else {
        ins.push_back(mapScalar(in->as<Scalar>()));
      }
    }
    for (Val* o : e->outputs()) outs.push_back(producedTensor(o->as<TensorView>()));
    seg_.setName(seg_.newExpr(e->op(), std::move(ins), std::move(outs), e->attrs()), e->name());
  }

  void addOutput(const Val* v) {
    Val* nv = map_.at(v);
    seg_.addOutput(nv);
    out_.outputs.push_back(const_cast<Val*>(v));
    if (v->isTensor())
      if (const auto* order = complete_.requiredStrideOrder(v->as<TensorView>()))
        seg_.setRequiredStrideOrder(nv->as<TensorView>(), *order);
    // Aliases stay with the complete fusion: a segment always writes fresh
    // outputs, and the runtime copies aliased ones into their inputs once
    // every segment has run, so every read of an input sees its value from
    // before the call.
  }

 private:
  template <class T>
  T* named(T* copy, const Val* original) {
    seg_.setName(copy, original->name());
    map_[original] = copy;
    return copy;
  }

  // An extent of a tensor input: a constant is copied; anything else becomes
  // (or reuses) a free symbolic extent, bound by the input's size.
  Scalar* inputExtent(const Scalar* s) {
    if (s->isConst()) return mapScalar(s);
    if (auto it = map_.find(s); it != map_.end()) return it->second->as<Scalar>();
    return named(seg_.newScalar(s->dtype()), s);
  }

  IterDomain* mapDomain(const IterDomain* id) {
    if (auto it = map_.find(id); it != map_.end()) return it->second->as<IterDomain>();
    Scalar* extent = mapScalar(id->extent());
    Scalar* expanded = id->expandedExtent() ? mapScalar(id->expandedExtent()) : nullptr;
    return named(seg_.newIterDomain(extent, id->iterType(), expanded), id);
  }

  std::vector<IterDomain*> mapDomains(const std::vector<IterDomain*>& ids) {
    std::vector<IterDomain*> out;
    for (IterDomain* id : ids) out.push_back(mapDomain(id));
    return out;
  }

  // A scalar with its scalar arithmetic; free leaves not known here become
  // scalar inputs. Operands are copied first, left to right, with an explicit
  // stack (a chain of scalar ops can be as long as the fusion).
  Scalar* mapScalar(const Scalar* root) {
    struct Frame {
      const Scalar* s;
      size_t next_input = 0;
      std::vector<Val*> operands;
    };
    std::vector<Frame> stack;
    Scalar* result = nullptr;
    // The copy of `s` when it needs no operands copied first; otherwise pushes
    // a frame for it and returns null.
    auto visit = [&](const Scalar* s) -> Scalar* {
      if (auto it = map_.find(s); it != map_.end()) return it->second->as<Scalar>();
      if (s->isConst()) return named(seg_.constant(*s->value(), s->dtype()), s);
      const Expr* def = s->definition();
      if (def == nullptr) {
        Scalar* in = named(seg_.newScalar(s->dtype()), s);
        seg_.addInput(in);
        out_.inputs.push_back(const_cast<Scalar*>(s));
        return in;
      }
      FUSEBOX_CHECK(!def->isTensorOp(), "scalar {} is produced by a tensor expression",
                    s->toString());
      stack.push_back({s, 0, {}});
      return nullptr;
    };
    auto deliver = [&](Scalar* copy) {
      if (stack.empty())
        result = copy;
      else
        stack.back().operands.push_back(copy);
    };
    if (Scalar* copy = visit(root)) return copy;
    while (!stack.empty()) {
      Frame& top = stack.back();
      const Expr* def = top.s->definition();
      if (top.next_input < def->inputs().size()) {
        if (Scalar* copy = visit(def->input(top.next_input++)->as<Scalar>()))  // may push
          deliver(copy);
        continue;
      }
      const Scalar* s = top.s;
      std::vector<Val*> operands = std::move(top.operands);
      stack.pop_back();
      // A scalar expression has one output; a shared subexpression is copied
      // once (the map), so diamonds in scalar arithmetic stay diamonds.
      if (auto it = map_.find(s); it != map_.end()) {
        deliver(it->second->as<Scalar>());
        continue;
      }
      Scalar* copy = named(seg_.newScalar(s->dtype()), s);
      seg_.setName(seg_.newExpr(def->op(), std::move(operands), {copy}, def->attrs()), def->name());
      deliver(copy);
    }
    return result;
  }

  const Fusion& complete_;
  std::unordered_map<const Val*, Val*>& map_;
  ExtractedSegment& out_;
  Fusion& seg_;
};

}  // namespace

SegmentExtractor::SegmentExtractor(const Fusion& complete) : complete_(complete) {
  tensor_exprs_ = complete.tensorExprs();
  position_.reserve(tensor_exprs_.size());
  for (size_t i = 0; i < tensor_exprs_.size(); ++i)
    position_[tensor_exprs_[i]] = static_cast<int64_t>(i);
}

int64_t SegmentExtractor::position(const Expr* e) const {
  auto it = position_.find(e);
  return it == position_.end() ? -1 : it->second;
}

ExtractedSegment SegmentExtractor::extract(const std::vector<Expr*>& exprs,
                                           std::unordered_map<const Val*, Val*>* map) const {
  ExtractedSegment out;
  out.fusion = std::make_unique<Fusion>();
  std::unordered_map<const Val*, Val*> local;
  auto& m = map ? *map : local;
  m.clear();
  // Forwarded chains read only fusion inputs and each other: they go first.
  out.forwarded = forwardedChains(exprs);
  std::vector<Expr*> all = out.forwarded;
  all.insert(all.end(), exprs.begin(), exprs.end());
  std::unordered_set<const Expr*> members(all.begin(), all.end());
  FUSEBOX_CHECK(members.size() == all.size(), "extractSegment: an expression is listed twice");
  SegmentBuilder builder(complete_, m, out);

  // Tensor inputs first (their extents are what the rest is expressed in).
  std::unordered_set<const Val*> produced;
  std::unordered_set<const Val*> inputs;
  for (const Expr* e : all) {
    FUSEBOX_CHECK(position(e) >= 0,
                  "extractSegment: {} is not a live tensor expression of the "
                  "fusion",
                  e->opName());
    for (const Val* in : e->inputs()) {
      if (!in->isTensor() || produced.count(in) || inputs.count(in)) continue;
      FUSEBOX_CHECK(in->definition() == nullptr || !members.count(in->definition()),
                    "extractSegment: expressions are not in topological order ({} is read "
                    "before it is produced)",
                    in->toString());
      inputs.insert(in);
      builder.addTensorInput(in->as<TensorView>());
    }
    for (const Val* o : e->outputs()) produced.insert(o);
  }
  for (const Expr* e : all) builder.copyExpr(e);

  // Outputs: what the complete fusion returns or an expression outside reads;
  // a forwarded value is recomputed by each segment that reads it instead.
  for (const Expr* e : exprs) {
    if (isForwarded(e)) continue;
    for (const Val* o : e->outputs()) {
      bool needed = o->isFusionOutput();
      for (const Expr* use : o->uses())
        needed = needed || (!members.count(use) && position(use) >= 0);
      if (needed) builder.addOutput(o);
    }
  }
  return out;
}

}  // namespace segment_detail

ExtractedSegment extractSegment(const Fusion& complete, const std::vector<Expr*>& exprs,
                                std::unordered_map<const Val*, Val*>* map) {
  return segment_detail::SegmentExtractor(complete).extract(exprs, map);
}

}  // namespace fusebox

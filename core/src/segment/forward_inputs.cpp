// Input forwarding (Segmenter::setForwardInputs): which unary chains hang off
// fusion inputs, and which of them a segment must recompute.
//
// Why only chains whose last value has two or more readers: that is where
// forwarding saves memory traffic. Without it, the chain goes to the group of
// one reader and that group writes the chain's value (a bf16 input's float
// cast: twice the input's bytes) for the others to read back; with it, each
// reader's kernel reads the input itself and recomputes the cheap chain. A
// chain with one reader merges with that reader like any other producer.
#include <algorithm>

#include "segment/segment_extractor.h"

namespace fusebox::segment_detail {
namespace {

// A link of a forwarded chain: an elementwise op of one tensor operand whose
// value is no fusion output (forwarding an output would leave a group that
// only returns it).
bool isForwardableLink(const Expr* e) {
  if (e->op() != OpType::Unary && e->op() != OpType::Cast) return false;
  const Val* out = e->output(0);
  return out->isTensor() && !out->isFusionOutput();
}

}  // namespace

std::vector<Expr*> SegmentExtractor::liveUses(const Val* v) const {
  std::vector<Expr*> uses;
  for (Expr* use : v->uses())
    if (position(use) >= 0 && std::find(uses.begin(), uses.end(), use) == uses.end())
      uses.push_back(use);
  return uses;
}

std::vector<SegmentExtractor::InputChain> SegmentExtractor::forwardableChains() const {
  std::vector<InputChain> chains;
  for (const Val* input : complete_.inputs()) {
    if (!input->isTensor()) continue;
    InputChain chain;
    chain.readers = liveUses(input);
    while (chain.readers.size() == 1 && isForwardableLink(chain.readers[0])) {
      chain.exprs.push_back(chain.readers[0]);
      chain.readers = liveUses(chain.exprs.back()->output(0));
    }
    if (!chain.exprs.empty() && chain.readers.size() >= 2) chains.push_back(std::move(chain));
  }
  return chains;
}

void SegmentExtractor::setForwarded(const InputChain& chain, bool forwarded) {
  for (const Expr* e : chain.exprs) {
    if (forwarded)
      forwarded_.insert(e);
    else
      forwarded_.erase(e);
  }
}

std::vector<Expr*> SegmentExtractor::forwardedChains(const std::vector<Expr*>& exprs) const {
  std::vector<Expr*> chains;
  if (forwarded_.empty()) return chains;
  std::unordered_set<const Expr*> have(exprs.begin(), exprs.end());
  std::vector<const Val*> pending;
  for (const Expr* e : exprs)
    for (const Val* in : e->inputs())
      if (in->isTensor()) pending.push_back(in);
  while (!pending.empty()) {
    const Val* v = pending.back();
    pending.pop_back();
    Expr* def = v->definition();
    if (def == nullptr || !isForwarded(def) || !have.insert(def).second) continue;
    chains.push_back(def);
    for (const Val* in : def->inputs())
      if (in->isTensor()) pending.push_back(in);
  }
  std::sort(chains.begin(), chains.end(),
            [&](const Expr* a, const Expr* b) { return position(a) < position(b); });
  return chains;
}

}  // namespace fusebox::segment_detail

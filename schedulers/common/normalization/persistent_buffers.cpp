// Which loads a row kernel keeps on chip (persistent_buffers.h).
#include "normalization/persistent_buffers.h"

#include <fusebox/checked_math.h>

#include <map>

namespace fusebox::normalization {

using kernelgen::Access;

namespace {

bool movesAlongReducedDims(const Access& a, const RowFacts& facts) {
  if (!a.offset.affine) return true;
  for (size_t d = 0; d < facts.domain.size(); ++d)
    if (facts.reduced[d] && facts.domain[d] > 1 && a.offset.a.coef[d] != 0) return true;
  return false;
}

}  // namespace

RowBufferPlan planRowBuffers(const RowAccesses& accesses, const RowFacts& facts) {
  const kernelgen::IterSpace space = domainSpace(facts);
  struct Seen {
    const Access* access = nullptr;
    std::set<int> stages;
  };
  std::map<std::string, Seen> loads;
  for (size_t k = 0; k < accesses.accesses.size(); ++k) {
    const Access& a = accesses.accesses[k];
    // A load under a pad or cat bound check is made only where it is in
    // bounds: it is read again, never loaded ahead.
    if (a.is_output || a.conditional || !movesAlongReducedDims(a, facts)) continue;
    Seen& s = loads[accessKey(a.tv, a.offset, space)];
    s.access = &a;
    s.stages.insert(accesses.stage[k]);
  }
  RowBufferPlan plan;
  for (const auto& [key, seen] : loads) {
    if (seen.stages.size() < 2) continue;
    plan.cached.insert(key);
    plan.buffers.push_back({seen.access->tv->toString(), seen.access->element_size});
    plan.bytes_per_row = checked::orThrow(
        checked::add(plan.bytes_per_row,
                     checked::mul(seen.access->element_size, facts.reduced_extent)),
        "persistent: the buffer size");
  }
  return plan;
}

int64_t registerBudgetBytes(const DeviceProperties& device) {
  return device.registers_per_block * 4 / 2;
}

}  // namespace fusebox::normalization

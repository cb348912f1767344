// The shape facts every persistent scheduler shares (domain_shape.h).
#include "normalization/domain_shape.h"

#include <fusebox/checked_math.h>

#include <algorithm>

namespace fusebox::normalization {

void describeDomain(const RowFacts& facts, const RowBufferPlan& plan,
                    const DeviceProperties& device, PersistentParams& p) {
  p.sizes = facts.domain;
  p.reduced = facts.reduced;
  p.kept_extent = facts.kept_extent;
  p.reduced_extent = facts.reduced_extent;
  for (size_t d = 0; d < p.sizes.size(); ++d)
    if (p.sizes[d] != 1)
      (p.reduced[d] ? p.reduced_dims : p.kept_dims).push_back(static_cast<int>(d));
  if (p.reduced_dims.empty())  // one reduced element: walk the last reduced dim
    for (size_t d = p.sizes.size(); d-- > 0;)
      if (p.reduced[d]) {
        p.reduced_dims.push_back(static_cast<int>(d));
        break;
      }
  p.buffers = plan.buffers;
  p.buffer_bytes = plan.bytes_per_row;
  p.buffer_budget = registerBudgetBytes(device);
}

int64_t threadBudgetBytes(int64_t threads, const DeviceProperties& device, int64_t max_registers) {
  const int64_t regs = std::min<int64_t>(std::min<int64_t>(255, max_registers),
                                         device.registers_per_block / threads);
  return std::max<int64_t>(0, regs - kRegisterOverhead) * 4;
}

bool fitsIndex32(const PersistentParams& p, const RowAccesses& accesses, int64_t positions) {
  const int64_t limit = (int64_t{1} << 31) - 1;
  const std::optional<int64_t> numel = checked::product(p.sizes);
  bool fits = numel.has_value() && *numel < limit && positions < limit;
  for (const kernelgen::Access& a : accesses.accesses) fits &= a.max_offset < limit;
  return fits && accesses.epilogue_max_offset < limit;
}

}  // namespace fusebox::normalization

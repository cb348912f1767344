// Printing and comparing persistent params (params.h).
#include "normalization/params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <typeinfo>

namespace fusebox::normalization {

uint64_t PersistentParams::hash() const {
  return std::hash<std::string>()(toString());
}

bool PersistentParams::sameAs(const HeuristicParams& other) const {
  return typeid(other) == typeid(*this) && other.toString() == toString();
}

std::string PersistentParams::toString() const {
  std::vector<std::string> classes, kept;
  for (size_t d = 0; d < sizes.size(); ++d)
    classes.push_back(fmt::format("{}{}", reduced[d] ? "r" : "i", sizes[d]));
  for (const PersistentBuffer& b : buffers)
    kept.push_back(fmt::format("{} ({} B)", b.tensor, b.element_bytes));
  std::string out = fmt::format(
      "type: {}\n"
      "input: [{}]\n"
      "kept_dims: [{}] (extent {})\n"
      "reduced_dims: [{}] (extent {})\n"
      "stages: {}\n"
      "vector_width: {}\n"
      "batch: {}\n"
      "block: [{}, {}, 1]\n"
      "grid: [{}, {}, {}]\n"
      "persistent_buffers: [{}]\n"
      "buffer_bytes: {} per kept element (budget {})\n"
      "buffer_placement: {}\n"
      "launch_bounds: {} threads, {} blocks per SM\n"
      "index_type: {}",
      normalization::toString(type), fmt::join(classes, ", "), fmt::join(kept_dims, ", "),
      kept_extent, fmt::join(reduced_dims, ", "), reduced_extent, stages, vector_width, batch,
      block[0], block[1], grid[0], grid[1], grid[2], fmt::join(kept, ", "), buffer_bytes,
      buffer_budget,
      shared_buffer_bytes > 0
          ? fmt::format("{} of {} chunks in registers, {} in shared memory ({} B a block, dynamic)",
                        register_batch, batch, batch - register_batch, shared_buffer_bytes)
          : std::string("registers"),
      threads(), min_blocks_per_sm, index32 ? "int32" : "int64");
  if (const std::string extra = extraLines(); !extra.empty()) out += "\n" + extra;
  return out;
}

}  // namespace fusebox::normalization

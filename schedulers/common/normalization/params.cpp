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

int64_t clusterExchangeBytes(int64_t rows, int64_t state_bytes) {
  return (2 * rows * state_bytes + 15) / 16 * 16;
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
      reload ? std::string("none: every pass reads its inputs again (from the L2 while the row "
                           "is in flight)")
      : staged_rows
          ? fmt::format("registers; the next row group staged in shared memory (cp.async) "
                        "while this one is computed ({} B a block, dynamic)",
                        shared_buffer_bytes)
      : shared_buffer_bytes > 0 && buffer_stages > 1
          ? fmt::format("shared memory, {} stages: the next row group copied while this one "
                        "is computed ({} B a block, dynamic)",
                        buffer_stages, shared_buffer_bytes)
      : shared_buffer_bytes > 0
          ? fmt::format("{} of {} chunks in registers, {} in shared memory ({} B a block, dynamic)",
                        register_batch, batch, batch - register_batch, shared_buffer_bytes)
          : std::string("registers"),
      threads(), min_blocks_per_sm, index32 ? "int32" : "int64");
  if (row_split > 1)
    out += fmt::format(
        "\nrow_split: {} blocks a row (a thread-block cluster; {} B of shared memory to combine)",
        row_split, cluster_exchange_bytes);
  if (rowEdges())
    out += fmt::format(
        "\nrow_edges: a scalar head aligns each row's chunks (lead offset mod {}: [{}] + {}), "
        "and a scalar tail ends it",
        vector_width, fmt::join(head_coef_residues, ", "), head_const_residue);
  if (reload)
    out +=
        fmt::format("\nrow_reads: {}{}", row_reads,
                    online_exp_sums.empty() ? std::string()
                                            : fmt::format(" (max and sum of exp in one pass: {})",
                                                          fmt::join(online_exp_sums, ", ")));
  if (const std::string extra = extraLines(); !extra.empty()) out += "\n" + extra;
  return out;
}

}  // namespace fusebox::normalization

// The transpose scheduler's choices (tile_layout.h).
#include "tile_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace fusebox::transpose {

int64_t TransposeParams::otherElements() const {
  int64_t n = 1;
  for (size_t d = 0; d < iter_sizes.size(); ++d)
    if (static_cast<int>(d) != inner_dim && static_cast<int>(d) != tile_dim) n *= iter_sizes[d];
  return n;
}

uint64_t TransposeParams::hash() const {
  return std::hash<std::string>()(toString());
}

bool TransposeParams::sameAs(const HeuristicParams& other) const {
  const auto* o = dynamic_cast<const TransposeParams*>(&other);
  return o != nullptr && o->toString() == toString();
}

std::string TransposeParams::toString() const {
  return fmt::format(
      "reference_output: {} (sizes [{}])\n"
      "inner_dim: {} (the outputs' stride-1 dim; threads run along it when computing)\n"
      "tile_dim: {} (the transposed inputs' stride-1 dim; threads run along it when loading)\n"
      "staged_inputs: [{}] (read through a {}x{} shared-memory tile)\n"
      "threads: [{}, {}]\n"
      "grid: [{}, {}, {}]\n"
      "index_type: {}",
      reference_output, fmt::join(iter_sizes, ", "), inner_dim, tile_dim,
      fmt::join(staged_inputs, ", "), kTile, kTile, kTile, kRows, grid[0], grid[1], grid[2],
      index32 ? "int32" : "int64");
}

namespace {

// The iteration dim along which an access moves one element at a time (of
// extent above 1), or -1.
int unitStrideDim(const kernelgen::Access& a, const std::vector<int64_t>& sizes) {
  for (size_t d = 0; d < a.offset.a.coef.size() && d < sizes.size(); ++d)
    if (sizes[d] > 1 && (a.offset.a.coef[d] == 1 || a.offset.a.coef[d] == -1))
      return static_cast<int>(d);
  return -1;
}

int inputPosition(const Fusion& segment, const TensorView* tv) {
  const auto& ins = segment.inputs();
  return static_cast<int>(std::find(ins.begin(), ins.end(), tv) - ins.begin());
}

}  // namespace

Layout chooseLayout(const pointwise::SegmentFacts& facts,
                    const std::vector<kernelgen::Access>& accesses, const Fusion& segment) {
  Layout out;
  TransposeParams& p = out.params;
  p.reference_output = facts.reference_output;
  p.iter_sizes = facts.iter_sizes;
  const std::vector<int64_t>& sizes = p.iter_sizes;
  int inner = -1;
  for (const kernelgen::Access& a : accesses) {
    if (!a.offset.affine || !a.offset.a.terms.empty() || a.conditional) {
      out.problem = fmt::format(
          "the access of {} is not affine in the iteration index (a reshape "
          "that splits a dim, an indirect load, a pad or cat branch)",
          a.tv->toString());
      return out;
    }
    if (!a.is_output) continue;
    const int d = unitStrideDim(a, sizes);
    if (d < 0 || (inner >= 0 && d != inner)) {
      out.problem = fmt::format("the outputs do not share one stride-1 dim ({} runs along {})",
                                a.tv->toString(), d);
      return out;
    }
    inner = d;
  }
  if (inner < 0) {
    out.problem = "no output has a stride-1 dim";
    return out;
  }
  // The other stride-1 dim of the inputs read across `inner` (moving by more
  // than one element along it; a broadcast along it is read once per row and
  // needs no tile), weighted by bytes.
  const auto transposed = [&](const kernelgen::Access& a) {
    const int64_t step = a.offset.a.coef[static_cast<size_t>(inner)];
    const int d = unitStrideDim(a, sizes);
    return !a.is_output && step != 0 && step != 1 && d >= 0 && d != inner;
  };
  std::map<int, int64_t> across;
  for (const kernelgen::Access& a : accesses)
    if (transposed(a)) across[unitStrideDim(a, sizes)] += a.element_size * (a.max_offset + 1);
  if (across.empty()) {
    out.problem = fmt::format(
        "every input is read along the outputs' stride-1 dim {} (or "
        "broadcast across it): nothing to transpose",
        inner);
    return out;
  }
  const int tile = std::max_element(across.begin(), across.end(), [](auto& a, auto& b) {
                     return a.second < b.second;
                   })->first;
  if (sizes[static_cast<size_t>(inner)] < kTile || sizes[static_cast<size_t>(tile)] < kTile) {
    out.problem = fmt::format(
        "dims {} and {} have extents {} and {}; a tile needs {} of each "
        "(pointwise reads small extents directly)",
        inner, tile, sizes[static_cast<size_t>(inner)], sizes[static_cast<size_t>(tile)], kTile);
    return out;
  }
  p.inner_dim = inner;
  p.tile_dim = tile;
  for (const kernelgen::Access& a : accesses) {
    if (!transposed(a) || unitStrideDim(a, sizes) != tile) continue;
    const int k = inputPosition(segment, a.tv);
    if (std::find(p.staged_inputs.begin(), p.staged_inputs.end(), k) == p.staged_inputs.end())
      p.staged_inputs.push_back(k);
  }
  std::sort(p.staged_inputs.begin(), p.staged_inputs.end());
  const auto tiles = [](int64_t n) { return (n + kTile - 1) / kTile; };
  const int64_t gx = tiles(sizes[static_cast<size_t>(inner)]);
  const int64_t gy = tiles(sizes[static_cast<size_t>(tile)]);
  if (gx >= (int64_t{1} << 31) || gy > 65535) {
    out.problem = fmt::format("{} x {} tiles need a grid beyond CUDA's limits", gx, gy);
    return out;
  }
  p.grid = {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy),
            static_cast<uint32_t>(std::min<int64_t>(p.otherElements(), 65535))};
  int64_t reach = facts.numel + 2 * kTile;
  for (const kernelgen::Access& a : accesses) reach = std::max(reach, a.max_offset);
  p.index32 = reach < (int64_t{1} << 31) - 1;
  return out;
}

}  // namespace fusebox::transpose

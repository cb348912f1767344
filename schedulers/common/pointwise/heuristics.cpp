// The pointwise heuristics: merged dims, vector width, 1-D or 2-D schedule,
// block and grid sizes, index width (heuristics.h).
#include "pointwise/heuristics.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <algorithm>
#include <cstdint>
#include <functional>

#include "kernelgen/branch_bounds.h"
#include "kernelgen/int_math.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/shape_classes.h"

namespace fusebox::pointwise {

using kernelgen::ceilDiv;
using kernelgen::pow2Ceil;
using kernelgen::pow2Floor;

int64_t PointwiseParams::outerExtent() const {
  int64_t e = 1;
  for (int g = 0; g < break_point; ++g) e *= group_extents[static_cast<size_t>(g)];
  return e;
}

int64_t PointwiseParams::innerExtent() const {
  int64_t e = 1;
  for (size_t g = static_cast<size_t>(break_point); g < group_extents.size(); ++g)
    e *= group_extents[g];
  return e;
}

uint64_t PointwiseParams::hash() const {
  return std::hash<std::string>()(identity());
}

bool PointwiseParams::sameAs(const HeuristicParams& other) const {
  const auto* o = dynamic_cast<const PointwiseParams*>(&other);
  return o != nullptr && o->identity() == identity();
}

std::string PointwiseParams::identity() const {
  if (shape_mode == ShapeMode::Static) return toString();
  return structure() + "\n" + shape_classes;  // "shapes: symbolic" first: never a Static one
}

std::string PointwiseParams::structure() const {
  if (shape_mode == ShapeMode::Static) return toString();
  std::vector<std::string> gs;
  for (const auto& g : groups) gs.push_back(fmt::format("[{}]", fmt::join(g, ", ")));
  std::vector<size_t> size_one;
  for (size_t d = 0; d < iter_sizes.size(); ++d)
    if (iter_sizes[d] == 1) size_one.push_back(d);
  const bool tail =
      vector_width > 1 && !group_extents.empty() && group_extents.back() % vector_width != 0;
  // rows_per_block is a kernel parameter, unless 1 (kernelgen/size_literals.h).
  return fmt::format(
             "shapes: symbolic\n"
             "reference_output: {} (rank {}; size-1 dims [{}])\n"
             "merged_dims: [{}]\n"
             "schedule: {}\n"
             "vector_width: {}{}\n"
             "vector_tail: {}\n"
             "unroll: {}\n"
             "rows_per_block: {}\n"
             "index_type: {}",
             reference_output, iter_sizes.size(), fmt::join(size_one, ", "), fmt::join(gs, ", "),
             break_point == 0 ? std::string("1-D")
                              : fmt::format("2-D (break_point {})", break_point),
             vector_width, branchLines(), tail ? "possible" : "none", unroll,
             rows_per_block == 1 ? "1" : "more than 1", index32 ? "int32" : "int64") +
         inPlaceLine();
}

std::string PointwiseParams::inPlaceLine() const {
  if (in_place.empty()) return "";
  std::vector<std::string> pairs;
  for (const InPlaceRequest& r : in_place)
    pairs.push_back(fmt::format("output {} over input {}", r.output, r.input));
  return fmt::format("\nin_place: [{}]", fmt::join(pairs, ", "));
}

std::string PointwiseParams::branchLines() const {
  std::string out;
  if (!branch_checks.empty())
    out += fmt::format("\nbranch_checks: [{}]", fmt::join(branch_checks, ", "));
  if (!branch_loads.empty())
    out += fmt::format("\nbranch_loads: [{}]", fmt::join(branch_loads, ", "));
  return out;
}

std::string PointwiseParams::toString() const {
  std::vector<std::string> gs;
  for (const auto& g : groups) gs.push_back(fmt::format("[{}]", fmt::join(g, ", ")));
  std::string schedule =
      break_point == 0
          ? std::string("1-D")
          : fmt::format("2-D (break_point {}: merged dims [0, {}) are rows, [{}, {}) columns)",
                        break_point, break_point, break_point, groups.size());
  return fmt::format(
             "reference_output: {} (sizes [{}])\n"
             "merged_dims: [{}] (iteration dims; extents [{}])\n"
             "schedule: {}\n"
             "break_point: {}\n"
             "vector_width: {}{}\n"
             "unroll: {}\n"
             "threads: {}\n"
             "rows_per_block: {}\n"
             "grid: [{}, {}, {}]\n"
             "index_type: {}{}",
             reference_output, fmt::join(iter_sizes, ", "), fmt::join(gs, ", "),
             fmt::join(group_extents, ", "), schedule, break_point, vector_width, branchLines(),
             unroll, threads, rows_per_block, grid[0], grid[1], grid[2],
             index32 ? "int32" : "int64",
             shape_mode == ShapeMode::Symbolic ? "\nshapes: symbolic" : "") +
         inPlaceLine();
}

void setShapeMode(PointwiseParams& p, const Fusion& segment, RuntimeInfo& info,
                  const SegmentFacts& facts, const std::vector<kernelgen::Access>& accesses) {
  p.shape_mode = info.shapeMode();
  p.shape_classes =
      p.shape_mode == ShapeMode::Symbolic
          ? kernelgen::shapeClasses(segment, facts.sizes, info, accesses, {facts.iter_sizes})
          : std::string();
}

using kernelgen::Access;
using kernelgen::Affine;
using kernelgen::zeroOn;

namespace {

// Coefficient of the innermost iteration dim of `group` (the group's stride).
int64_t groupStride(const Affine& a, const std::vector<int>& group) {
  return a.coef[static_cast<size_t>(group.back())];
}

// Merge neighbouring iteration dims (size-1 dims are always index 0 and drop
// out) when every affine access walks them as one: the outer dim's
// coefficient is the inner one's times the inner extent. Opaque accesses
// (split reshapes) do not block merging: they index through i<d>, which the
// kernel recovers from the merged index.
void mergeDims(PointwiseParams& p, const SegmentFacts& facts, const std::vector<Access>& accesses) {
  if (facts.numel > 0) {
    // Walk the iteration dims in the reference output's memory order
    // (outermost first), so a channels-last output still has its innermost
    // memory dim innermost in the loop.
    const auto& ref_strides = facts.output_strides[static_cast<size_t>(facts.reference_output)];
    std::vector<size_t> order(facts.iter_sizes.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return ref_strides[a] > ref_strides[b]; });
    for (size_t d : order) {
      if (facts.iter_sizes[d] == 1) continue;
      bool merge = !p.groups.empty();
      if (merge) {
        const size_t prev = static_cast<size_t>(p.groups.back().back());
        for (const Access& a : accesses)
          if (a.offset.affine && a.offset.a.coef[prev] != a.offset.a.coef[d] * facts.iter_sizes[d])
            merge = false;
      }
      if (merge) {
        p.groups.back().push_back(static_cast<int>(d));
        p.group_extents.back() *= facts.iter_sizes[d];
      } else {
        p.groups.push_back({static_cast<int>(d)});
        p.group_extents.push_back(facts.iter_sizes[d]);
      }
    }
  }
}

// 2-D schedule. A load that no row dim moves (a bias [K] added to [N, K])
// would be re-read for every row by a 1-D schedule; splitting the merged
// dims at the first dim that load depends on lets each thread load it once
// (hoisted above its loop over rows) and reuse it for rows_per_block rows.
// The smallest such break point keeps the widest column space. Only used
// when there are at least 2 rows and 128 columns (narrower rows would leave
// most threads of a block idle).
void chooseBreakPoint(PointwiseParams& p, const std::vector<Access>& accesses) {
  const int m = static_cast<int>(p.groups.size());
  for (int b = 1; b < m && p.break_point == 0; ++b) {
    for (const Access& a : accesses) {
      if (a.is_output || a.conditional || !a.offset.affine || !a.offset.a.terms.empty()) continue;
      bool outer_zero = true, inner_moves = false;
      for (int g = 0; g < m; ++g) {
        const bool z = zeroOn(a.offset.a, p.groups[static_cast<size_t>(g)]);
        if (g < b)
          outer_zero &= z;
        else
          inner_moves |= !z;
      }
      if (outer_zero && inner_moves) {
        p.break_point = b;
        break;
      }
    }
  }
  if (p.break_point > 0 && (p.outerExtent() < 2 || p.innerExtent() < 128)) p.break_point = 0;
}

// Vector width: 16-byte accesses where every unconditional affine access
// that walks the innermost merged dim contiguously allows it: its element
// size, its data alignment, its constant offset and the strides of the other
// merged dims must all be multiples of the vector. The innermost extent must
// be a multiple too, unless it is the only merged dim the threads walk (then
// a scalar tail handles the rest). A load under pad / cat checks that hold
// alike over a chunk (kernelgen/branch_bounds.h) and would be an aligned
// vector counts as a plain access; other loads under checks are read per
// element and do not narrow the vector.
void chooseVectorWidth(PointwiseParams& p, const SegmentFacts& facts,
                       const std::vector<Access>& accesses, int cap) {
  const int m = static_cast<int>(p.groups.size());
  if (m > 0) {
    const auto& last = p.groups.back();
    const int64_t last_extent = p.group_extents.back();
    const bool single_chunked_group = (p.break_point == 0 ? m : m - p.break_point) == 1;
    int width = 16;
    bool any = false;
    for (const Access& a : accesses)
      if (!a.conditional && a.offset.affine && groupStride(a.offset.a, last) == 1) {
        width = std::min<int>(width, static_cast<int>(16 / a.element_size));
        any = true;
      }
    if (!any) width = 1;
    if (cap > 0) width = std::min(width, static_cast<int>(pow2Floor(cap)));
    auto fits = [&](int v) {
      if (!single_chunked_group && last_extent % v != 0) return false;
      for (const Access& a : accesses) {
        if (!a.offset.affine || groupStride(a.offset.a, last) != 1) continue;
        const int own = std::min<int>(v, static_cast<int>(16 / a.element_size));
        if (a.conditional) {
          if (own < v && kernelgen::uniformOverChunk(a.branches, p.groups, facts.iter_sizes, v) &&
              kernelgen::vectorAligned(a.offset.a, a.alignment, a.element_size, p.groups, own))
            return false;
        } else if (!kernelgen::vectorAligned(a.offset.a, a.alignment, a.element_size, p.groups,
                                             v)) {
          return false;
        }
      }
      return true;
    };
    while (width > 1 && !fits(width)) width /= 2;
    p.vector_width = width;
  }
}

// What the kernel makes of each branch and of each load under branches at
// that width (kernelgen::VectorPlacement decides the same way).
void describeBranches(PointwiseParams& p, const SegmentFacts& facts,
                      const std::vector<Access>& accesses) {
  for (const Access& a : accesses) {
    for (const kernelgen::BranchBounds& b : a.opened)
      p.branch_checks.push_back(
          kernelgen::uniformOverChunk({b}, p.groups, facts.iter_sizes, p.vector_width) ? "chunk"
                                                                                       : "element");
    if (a.conditional)
      p.branch_loads.push_back(kernelgen::chunkReadName(
          kernelgen::boundedRead(a.offset, a.branches, a.alignment, a.element_size, p.groups,
                                 facts.iter_sizes, p.vector_width)));
  }
}

}  // namespace

PointwiseParams pointwiseLayout(const SegmentFacts& facts, const std::vector<Access>& accesses,
                                int max_vector_width) {
  PointwiseParams p;
  p.reference_output = facts.reference_output;
  p.iter_sizes = facts.iter_sizes;
  mergeDims(p, facts, accesses);
  chooseBreakPoint(p, accesses);
  chooseVectorWidth(p, facts, accesses, max_vector_width);
  describeBranches(p, facts, accesses);
  return p;
}

int64_t PointwiseParams::chunks() const {
  return ceilDiv(break_point == 0 ? numel() : innerExtent(), vector_width);
}

int64_t PointwiseParams::numel() const {
  int64_t n = 1;
  for (int64_t s : iter_sizes) n *= s;
  return n;
}

void finishLaunch(PointwiseParams& p, const SegmentFacts& facts,
                  const std::vector<Access>& accesses) {
  const int64_t v = p.vector_width;
  const int64_t chunks = p.chunks();
  if (p.break_point == 0) {
    p.rows_per_block = 1;
    p.grid[0] = static_cast<uint32_t>(std::min<int64_t>(
        std::max<int64_t>(1, ceilDiv(chunks, int64_t{p.threads} * p.unroll)), UINT32_MAX));
    p.grid[1] = 1;
  } else {
    p.unroll = 1;
    p.grid[0] = static_cast<uint32_t>(std::min<int64_t>(ceilDiv(chunks, p.threads), UINT32_MAX));
    p.grid[1] = static_cast<uint32_t>(
        std::min<int64_t>(ceilDiv(p.outerExtent(), p.rows_per_block), UINT32_MAX));
  }
  p.grid[2] = 1;

  // 32-bit indexing when every offset and every position a thread computes fits.
  const int64_t limit = (int64_t{1} << 31) - 1;
  int64_t reach = facts.numel;
  if (p.break_point == 0)
    reach = std::max(reach, int64_t{p.grid[0]} * p.threads * p.unroll * v);
  else
    reach = std::max(
        {reach, int64_t{p.grid[0]} * p.threads * v, int64_t{p.grid[1]} * p.rows_per_block});
  p.index32 = reach < limit;
  for (const Access& a : accesses) p.index32 &= a.max_offset < limit;
  for (const auto& [tv, sizes] : facts.sizes) p.index32 &= product(sizes) < limit;
}

namespace {

// Bytes of the inputs no row dim moves: the loads a 2-D block's threads
// make once and reuse for each of the block's rows (saturating: a sum past
// int64 is "more than any cache").
int64_t rowInvariantInputBytes(const PointwiseParams& p, const std::vector<Access>& accesses) {
  std::optional<int64_t> bytes = 0;
  for (const Access& a : accesses) {
    if (a.is_output || !a.offset.affine || !a.offset.a.terms.empty()) continue;
    bool moves = false;
    for (int64_t g = 0; g < p.break_point; ++g)
      for (int d : p.groups[static_cast<size_t>(g)])
        moves |= a.offset.a.coef[static_cast<size_t>(d)] != 0;
    if (!moves) bytes = checked::add(bytes, checked::mul(a.max_offset + 1, a.element_size));
  }
  return bytes.value_or(INT64_MAX);
}

// Whether an input is read at positions other values give (a gather, an
// embedding lookup; or at an offset the kernel computes per element, which
// counts alike): each such read waits for the index load before it.
bool readsThroughIndices(const std::vector<Access>& accesses) {
  for (const Access& a : accesses)
    if (!a.is_output && (!a.offset.affine || !a.offset.a.terms.empty())) return true;
  return false;
}

}  // namespace

PointwiseParams computePointwiseParams(const SegmentFacts& facts,
                                       const std::vector<Access>& accesses,
                                       const DeviceProperties& device,
                                       const LaunchOverrides& overrides) {
  PointwiseParams p = pointwiseLayout(facts, accesses, overrides.max_vector_width);
  const int64_t sms = std::max(1, device.multiprocessor_count);
  const int64_t chunks = p.chunks();
  // 1-D: 256 threads once there are 4 waves of them, one chunk a thread
  // (H200, L2 flushed: Adam over 16M floats 116.1 us at 1, 117.7 at 2, 117.6
  // at 4 chunks a thread; an 8192x8192 bfloat16 cast-mul-add 129.2, 129.5,
  // 130.5; H100 2.8% faster at 1 than 4; docs/perf.md), but 4 chunks when
  // loads go through indices, whose index and data loads are a chain each:
  // a thread's chunks keep more chains in flight (take_along_axis over
  // 8192x4096 floats 186.6 / 158.6 / 145.6 / 143.3 us at 1 / 2 / 4 / 8; an
  // embedding lookup, 16384x4096 bf16, 78.2 / 72.7 / 71.1 / 72.8).
  // 2-D: a block covers 128 or 256 columns and one row, or 2 rows when their
  // shared loads (the inputs no row dim moves) are more than an L1 keeps,
  // and 2 rows leave at least 4 blocks an SM; more rows only where grid.y
  // would pass 65535.
  // Rows of a block run one after another in each thread, so sharing pays
  // only for loads that would come from the L2 again (H200, L2 flushed, 1 /
  // 2 / 4 rows a block: 32768x4096 float bias-GELU, a 16 KB bias, 256.8 /
  // 257.2 / 262.0 us; GELU backward 98.9 / 99.4 / 101.1; broadcast_heavy
  // 129.9 / 131.4 / 133.5; 8 and 16 rows were slower still: bias-GELU 261.9
  // and 271.1). RoPE, 2 MB of cos and sin, took 164.1 / 152.6 / 147.7 with
  // the kernels of the time; its kernel today, 1 / 2 / 4 / 8 rows: 133.9 /
  // 133.6 / 136.6 / 142.9 (the same in two calls; docs/perf/corpus-5.md).
  if (p.break_point == 0) {
    constexpr int kGatherUnroll = 4;
    p.threads = chunks >= 256 * sms * 4 ? 256 : 128;
    if (overrides.threads > 0) p.threads = overrides.threads;
    p.unroll = readsThroughIndices(accesses) ? kGatherUnroll : 1;
    if (overrides.unroll > 0) p.unroll = overrides.unroll;
  } else {
    p.threads = chunks >= 256 ? 256 : 128;
    if (overrides.threads > 0) p.threads = overrides.threads;
    const int64_t blocks_x = ceilDiv(chunks, p.threads);
    const int64_t outer = p.outerExtent();
    constexpr int64_t kRows = 2;
    constexpr int64_t kL1Bytes = 128 << 10;
    const bool share =
        rowInvariantInputBytes(p, accesses) > kL1Bytes && outer * blocks_x >= 4 * kRows * sms;
    const int64_t rows = overrides.rows_per_block > 0 ? overrides.rows_per_block
                         : share                      ? kRows
                                                      : 1;
    p.rows_per_block = std::max(rows, ceilDiv(outer, 65535));
  }
  finishLaunch(p, facts, accesses);
  return p;
}

}  // namespace fusebox::pointwise

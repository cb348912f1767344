// The tiled transpose kernel (tile_kernel.h).
#include "tile_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kernel_ir/kernel_ir.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_source.h"
#include "kernelgen/plan_outputs.h"

namespace fusebox::transpose {

using kernelgen::CodeSink;
using kernelgen::ElementRef;
using kernelgen::IterSpace;

namespace {

// One row of padding keeps a tile's columns in distinct banks.
constexpr int kPitch = kTile + 1;

// Loads of staged inputs read the tile at the thread's transposed position;
// every other access is a scalar one at its offset. Each distinct staged
// access (input and offset) gets a tile, recorded for the load phase.
class TilePlacement final : public kernelgen::Placement {
 public:
  struct Staged {
    ElementRef ref;
    std::string tile;
  };

  // `at`: the tile element the computing thread reads.
  TilePlacement(const IterSpace& space, const TransposeParams& p, kir::Value at)
      : space_(space), direct_(space), p_(p), at_(std::move(at)) {}

  kir::Value load(CodeSink& sink, const ElementRef& ref) override {
    if (!staged(ref)) return direct_.load(sink, ref);
    const std::string key =
        fmt::format("{}@{}", ref.pointer, kernelgen::indexKey({ref.offset}, space_));
    auto it = tiles_.find(key);
    if (it == tiles_.end()) {
      it = tiles_.emplace(key, staged_.size()).first;
      staged_.push_back({ref, fmt::format("tile{}", staged_.size())});
    }
    ElementRef in_tile = ref;
    in_tile.pointer = staged_[it->second].tile;
    return kernelgen::scalarLoad(sink, in_tile, at_);
  }
  void store(CodeSink& sink, const ElementRef& ref, const kir::Value& value) override {
    direct_.store(sink, ref, value);
  }
  const std::vector<Staged>& stagedAccesses() const { return staged_; }

 private:
  bool staged(const ElementRef& ref) const {
    return std::find(p_.staged_inputs.begin(), p_.staged_inputs.end(), ref.index) !=
           p_.staged_inputs.end();
  }
  const IterSpace& space_;
  kernelgen::ScalarPlacement direct_;  // every access but the staged loads
  const TransposeParams& p_;
  kir::Value at_;
  std::map<std::string, size_t> tiles_;
  std::vector<Staged> staged_;
};

// The load phase: each tile filled with the thread's lane along tile_dim.
// The block's threads and tile origin.
struct TileThreads {
  kir::Value ti, tj, tx, ty;
  kir::Value r = kir::var("r", kir::intType());  // the row loop of either phase
};

kir::Block loadTiles(const std::vector<TilePlacement::Staged>& staged, const IterSpace& space,
                     const TransposeParams& p, const TileThreads& t, const kir::Value& inner_extent,
                     const kir::Value& tile_extent) {
  const kir::Type idx = kir::indexType();
  kir::Block out;
  kir::Block row = out.forLoop("r", kir::intType(), kir::lit(0), kir::lit(kTile), kir::lit(kRows),
                               kir::Unroll::Full);
  const kir::Value a = row.declare("a", idx, t.ti + t.ty + t.r, {.is_const = true});
  const kir::Value b = row.declare("b", idx, t.tj + t.tx, {.is_const = true});
  kir::Block inside = row.ifThen(a < inner_extent && b < tile_extent);
  IterSpace loading = space;
  loading.values.assign(space.rank(), kir::Value());
  loading.values[static_cast<size_t>(p.inner_dim)] = a;
  loading.values[static_cast<size_t>(p.tile_dim)] = b;
  for (const TilePlacement::Staged& s : staged) {
    const kir::Value from = s.ref.offset.value(loading, s.ref.pointer);
    inside.assign(kir::subscript(kir::var(s.tile), (t.ty + t.r) * kir::lit(kPitch) + t.tx),
                  kir::subscript(kir::var(s.ref.pointer), from));
  }
  return out;
}

// Index variables of the dims other than inner_dim and tile_dim, as the
// row-major digits of `o` over them (size-1 dims are 0 at the kernel's top).
void declareOtherDims(kir::Block& out, const IterSpace& space, const TransposeParams& p) {
  int64_t below = 1;
  for (size_t d = space.rank(); d-- > 0;) {
    if (static_cast<int>(d) == p.inner_dim || static_cast<int>(d) == p.tile_dim ||
        space.sizes[d] == 1)
      continue;
    kir::Value digit = kernelgen::indexVariable("o");
    if (below > 1) digit = digit / space.literal(below, "");
    if (below * space.sizes[d] < p.otherElements())
      digit = digit % space.literal(space.sizes[d], "");
    out.declare(space.names[d], kir::indexType(), digit, kir::kConstUnused);
    below *= space.sizes[d];
  }
}

}  // namespace

std::unique_ptr<KernelPlan> makeTilePlan(const Fusion& segment,
                                         const pointwise::SegmentFacts& facts,
                                         const TransposeParams& p, RuntimeInfo& info) {
  const kernelgen::ParamLayout params(segment);
  kernelgen::SizeLiterals lits(ShapeMode::Static, params.intSlots(), p.index32);
  IterSpace iter_space = IterSpace::named(p.iter_sizes);
  iter_space.literals = &lits;
  kernelgen::ElementWriter w(segment, facts.sizes, params, info, std::move(iter_space));
  const IterSpace& space = w.space();
  const kir::Type idx = kir::indexType();

  kir::Block top;
  params.declareKernelTop(top, p.index32, lits);
  for (size_t d = 0; d < space.rank(); ++d)
    if (space.sizes[d] == 1) top.declare(space.names[d], idx, kir::lit(0), kir::kConstUnused);
  TileThreads t;
  t.ti = top.declare("ti", idx, kir::cast(idx, kir::blockIdx('x')) * kir::lit(kTile),
                     {.is_const = true});
  t.tj = top.declare("tj", idx, kir::cast(idx, kir::blockIdx('y')) * kir::lit(kTile),
                     {.is_const = true});
  t.tx = top.declare("tx", idx, kir::cast(idx, kir::threadIdx('x')), {.is_const = true});
  t.ty = top.declare("ty", idx, kir::cast(idx, kir::threadIdx('y')), {.is_const = true});

  // Computing, the thread's lane runs along inner_dim: it reads a tile's column.
  TilePlacement placement(space, p, t.tx * kir::lit(kPitch) + t.ty + t.r);
  w.storeOutputs(facts.output_strides, placement);
  top.append(w.prologue);
  for (const TilePlacement::Staged& s : placement.stagedAccesses())
    top.declareArray(s.tile, kir::storageTypeFor(s.ref.tv->dtype()), kTile * kPitch,
                     {.shared = true});

  const size_t inner = static_cast<size_t>(p.inner_dim), tile = static_cast<size_t>(p.tile_dim);
  const kir::Value inner_extent = space.literal(space.sizes[inner], "");
  const kir::Value tile_extent = space.literal(space.sizes[tile], "");
  kir::Block each =
      top.forLoop("o", idx, kir::cast(idx, kir::blockIdx('z')),
                  space.literal(p.otherElements(), ""), kir::cast(idx, kir::gridDim('z')));
  declareOtherDims(each, space, p);
  each.comment("load: lanes along the transposed inputs' stride-1 dim");
  each.append(loadTiles(placement.stagedAccesses(), space, p, t, inner_extent, tile_extent));
  each.syncThreads();
  each.comment("compute: lanes along the outputs' stride-1 dim");
  kir::Block row = each.forLoop("r", kir::intType(), kir::lit(0), kir::lit(kTile), kir::lit(kRows),
                                kir::Unroll::Full);
  const kir::Value i = row.declare(space.names[inner], idx, t.ti + t.tx, {.is_const = true});
  const kir::Value j = row.declare(space.names[tile], idx, t.tj + t.ty + t.r, {.is_const = true});
  row.ifThen(i < inner_extent && j < tile_extent).append(w.sink.body);
  each.comment("the tiles are refilled for the next o");
  each.syncThreads();

  auto plan = std::make_unique<KernelPlan>();
  plan->kernel = kernelgen::kernelSource("transpose", p, kir::printCuda(top),
                                         /*uses_block_sync=*/true);
  plan->kernel_ir = kir::printIr(top);
  plan->bindings = params.bindings();
  lits.addBindings(plan->bindings);
  plan->index_checks = w.indexChecks();
  plan->launch.grid = p.grid;
  plan->launch.block = {static_cast<uint32_t>(kTile), static_cast<uint32_t>(kRows), 1};
  kernelgen::describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
  return plan;
}

}  // namespace fusebox::transpose

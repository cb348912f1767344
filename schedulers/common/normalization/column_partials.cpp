// The column part of inner-outer kernels (column_partials.h).
#include "normalization/column_partials.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <algorithm>

#include "kernel_ir/combine.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/int_math.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"
#include "normalization/row_facts.h"

namespace fusebox::normalization {

using kernelgen::ceilDiv;
using kernelgen::pow2Ceil;
using kernelgen::pow2Floor;

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

ColumnPartials::ColumnPartials(const InnerOuterParts& parts, const PersistentParams& p,
                               bool shared_accumulators)
    : parts_(parts), p_(p), shared_(shared_accumulators) {
  for (const Expr* r : parts.column_reductions) accs_.push_back(accumulatorFor(r));
}

int64_t ColumnPartials::registerBytesPerElement(const InnerOuterParts& parts) {
  int64_t bytes = 0;
  for (const Expr* r : parts.column_reductions) bytes += accumulatorFor(r).state_bytes;
  return bytes;
}

int64_t ColumnPartials::sharedBytes() const {
  int64_t widest = 0;
  for (const Accumulator& a : accs_) widest = std::max(widest, a.state_bytes);
  return int64_t{p_.threads()} * std::max(1, p_.vector_width) * widest;
}

int64_t ColumnPartials::dynamicSharedBytes() const {
  if (!shared_) return 0;
  int64_t bytes = 0;
  for (const Accumulator& a : accs_)
    bytes += int64_t{p_.threads()} * p_.batch * p_.vector_width * a.state_bytes;
  return bytes;
}

int64_t ColumnPartials::group(size_t c) const {
  if (!shared_) return 1;
  return std::min<int64_t>(std::max(1, p_.vector_width),
                           kernelgen::pow2Floor(std::max<int64_t>(1, 16 / accs_[c].state_bytes)));
}

// Shared slots [c][k][v / G][thread][v % G], G states a 16-byte group: a
// thread moves its chunk's states in 16-byte vectors, and a warp's vectors
// are consecutive (no bank conflict).
kir::Value ColumnPartials::slot(size_t c) const {
  const kir::Value acc = kir::var(fmt::format("cacc{}", c));
  const kir::Value k = kir::var("k", kir::intType()), v = kir::var("v", kir::intType());
  if (!shared_) return kir::subscript(kir::subscript(acc, k), v);
  const int64_t G = group(c);
  const kir::Value ctid = kir::var("ctid", kir::intType());
  if (G == 1)
    return kir::subscript(acc, (k * kir::lit(p_.vector_width) + v) * kir::lit(p_.threads()) + ctid);
  return kir::subscript(
      acc, ((k * kir::lit(p_.vector_width / G) + v / kir::lit(G)) * kir::lit(p_.threads()) + ctid) *
                   kir::lit(G) +
               v % kir::lit(G));
}

kir::Value ColumnPartials::chunkCopy(size_t c) const {
  return kir::subscript(kir::var(fmt::format("ccl{}", c)), kir::var("v", kir::intType()));
}

namespace {

// This thread's threadIdx.y * blockDim.x + threadIdx.x.
kir::Value threadInBlock() {
  return kir::cast(kir::intType(), kir::threadIdx('y') * kir::blockDim('x') + kir::threadIdx('x'));
}

// The loops over a thread's chunks k and their elements v, unrolled.
kir::Block chunkElements(kir::Block& k, int64_t batch, int64_t width, kir::BodyStyle chunk,
                         kir::BodyStyle element) {
  return k.forLoop("k", kir::intType(), kir::lit(0), kir::lit(batch), {}, kir::Unroll::Full, chunk)
      .forLoop("v", kir::intType(), kir::lit(0), kir::lit(width), {}, kir::Unroll::Full, element);
}

}  // namespace

void ColumnPartials::declare(kir::Block& k) const {
  if (shared_) k.declare("ctid", kir::intType(), threadInBlock(), {.is_const = true});
  // After the row buffers' shared memory, if any (prefetched rows).
  int64_t offset = p_.shared_buffer_bytes;
  for (size_t c = 0; c < accs_.size(); ++c) {
    const Accumulator& A = accs_[c];
    const std::string name = fmt::format("cacc{}", c);
    const kir::Type st = kir::named(A.stateType());
    if (shared_) {
      const kir::Value smem =
          kir::call("fusebox::dynamicSharedMemory", {}, {kir::named("unsigned char")});
      k.declare(name, kir::constPointerTo(st),
                kir::reinterpretAs(kir::pointerTo(st), smem + kir::lit(offset)));
      offset += int64_t{p_.threads()} * p_.batch * p_.vector_width * A.state_bytes;
    } else {
      k.declareArray(
          name, kir::named(fmt::format("fusebox::Array<{}, {}>", A.stateType(), p_.vector_width)),
          p_.batch);
    }
    chunkElements(k, p_.batch, p_.vector_width, kir::BodyStyle::NextLine, kir::BodyStyle::SameLine)
        .assign(slot(c), A.identity());
  }
}

void ColumnPartials::beginChunk(kir::Block& pre_chunk, kir::Block& post_chunk) const {
  if (!shared_) return;
  // A chunk's states are copied in and out whole: vector accesses, and no
  // shared memory access between an element's update and the next.
  for (size_t c = 0; c < accs_.size(); ++c) {
    const Accumulator& A = accs_[c];
    pre_chunk.declare(
        fmt::format("ccl{}", c),
        kir::named(fmt::format("fusebox::Array<{}, {}>", A.stateType(), p_.vector_width)), {});
    pre_chunk
        .forLoop("v", kir::intType(), kir::lit(0), kir::lit(p_.vector_width), {}, kir::Unroll::Full,
                 kir::BodyStyle::SameLine)
        .assign(chunkCopy(c), slot(c));
    post_chunk
        .forLoop("v", kir::intType(), kir::lit(0), kir::lit(p_.vector_width), {}, kir::Unroll::Full,
                 kir::BodyStyle::SameLine)
        .assign(slot(c), chunkCopy(c));
  }
}

void ColumnPartials::accumulate(kir::Block& at, size_t c, const kir::Value& x) const {
  accs_[c].update(at, shared_ ? chunkCopy(c) : slot(c), x);
}

void ColumnPartials::storeBlockPartial(kir::Block& k, size_t c) const {
  const Accumulator& A = accs_[c];
  const kir::Type st = kir::named(A.stateType());
  const int64_t H = p_.reduced_extent, V = p_.vector_width;
  // Column (k * block[0] + x) * V + v of the thread's chunk k, element v.
  auto column = [&](kir::Block& b) {
    return b.declare(
        "col", kir::indexType(),
        (kir::asIndex(kir::var("k")) * kir::lit(p_.block[0]) + kir::asIndex(kir::threadIdx('x'))) *
                kir::lit(V) +
            kir::var("v"),
        {.is_const = true});
  };
  auto store = [&](kir::Block& b, const kir::Value& when, const kir::Value& value) {
    b.ifThen(when, kir::BodyStyle::SameLine)
        .assign(kir::subscript(kir::var(fmt::format("partial{}", c)),
                               kir::asIndex(kir::blockIdx('x')) * kir::lit(H) + kir::var("col")),
                value);
  };
  if (p_.block[1] == 1) {
    kir::Block e = chunkElements(k, p_.batch, V, kir::BodyStyle::NextLine, kir::BodyStyle::Braces);
    store(e, column(e) < kir::lit(H), slot(c));
    return;
  }
  if (shared_) {
    // The accumulators are in shared memory already, [k][v / G][y][x][v % G]
    // per reduction: row 0 reads the rows of each (k, v) in place (G states
    // apart: a 4-way bank conflict for floats, once a kernel), its loops
    // inside the one branch so that the compiler schedules every (k, v)'s
    // loads together (a branch a (k, v) cost RMSNorm backward 65536x768
    // 2.5% on an H200).
    k.syncThreads();
    kir::Block row0 = k.ifThen(kir::threadIdx('y') == kir::lit(0));
    kir::Block e =
        chunkElements(row0, p_.batch, V, kir::BodyStyle::Braces, kir::BodyStyle::Braces);
    const kir::Value s = e.declare("s", st, {});
    const int64_t G = group(c);
    const kir::Value kk = kir::var("k"), v = kir::var("v");
    kir::combineRows(e, {.s = {s, st, A.functor, A.identity()},
                         .rows = p_.block[1],
                         .columns = p_.block[0],
                         .width = 0,
                         .smem = kir::var(fmt::format("cacc{}", c)) +
                                 (G == 1 ? (kk * kir::lit(V) + v) * kir::lit(p_.threads())
                                         : (kk * kir::lit(V / G) + v / kir::lit(G)) *
                                                   kir::lit(p_.threads() * G) +
                                               v % kir::lit(G)),
                         .stored = true,
                         .stride = static_cast<int>(G)});
    store(e, column(e) < kir::lit(H), s);
    return;
  }
  // The block's rows share columns: combine them (a rows combine), one
  // chunk at a time, and row 0 stores the block's partial.
  kir::Block chunk =
      k.forLoop("k", kir::intType(), kir::lit(0), kir::lit(p_.batch), {}, kir::Unroll::Full);
  const kir::Value state = kir::subscript(kir::var(fmt::format("cacc{}", c)), kir::var("k"));
  kir::combineRows(chunk, {.s = {state, st, A.functor, A.identity()},
                           .rows = p_.block[1],
                           .columns = p_.block[0],
                           .width = p_.vector_width,
                           .smem = kir::var("fusebox_col_smem"),
                           .broadcast = false});
  kir::Block lane =
      chunk.ifThen(kir::threadIdx('y') == kir::lit(0), kir::BodyStyle::NextLine)
          .forLoop("v", kir::intType(), kir::lit(0), kir::lit(V), {}, kir::Unroll::Full);
  store(lane, column(lane) < kir::lit(H), kir::subscript(state, kir::var("v")));
}

// Block b reduces columns [b * per_block, (b + 1) * per_block): `width`
// of them at a time, each over `slices` threads that take every slices-th
// partial row, then combined in slice order (cred<c>).
void ColumnPartials::reducePartials(kir::Block& k, int64_t width, int64_t slices) const {
  const int64_t G = p_.grid[0];
  kir::GridCombine grid;
  grid.protocol = kir::GridProtocol::Stored;
  for (size_t c = 0; c < accs_.size(); ++c) {
    const Accumulator& A = accs_[c];
    const kir::Type st = kir::named(A.stateType());
    grid.states.push_back(
        {{k.declare(fmt::format("cred{}", c), st, {}), st, A.functor, A.identity()},
         kir::var(fmt::format("partial{}", c))});
  }
  grid.groups = kir::lit(G);
  grid.known_groups = G;
  grid.stride = kir::lit(p_.reduced_extent);
  grid.own = kir::var("col");
  grid.reads = kir::var("col_active") && kir::var("slice") < kir::lit(slices);
  grid.walker = kir::var("slice");
  grid.walkers = static_cast<int>(slices);
  // Every partial a thread reads unrolled, every load issued before the
  // first combine waits on it (the grid has a few blocks an SM).
  grid.max_unrolled = G;
  std::vector<kir::CombineState> states;
  for (const kir::GridPartials& part : grid.states) states.push_back(part.s);
  kir::combineGrid(k, std::move(grid));
  for (const kir::CombineState& s : states)
    kir::combineRows(k, {.s = s,
                         .rows = static_cast<int>(slices),
                         .columns = static_cast<int>(width),
                         .width = 0,
                         .smem = kir::var("fusebox_col_smem"),
                         .broadcast = true,
                         .x = kir::var("tid") % kir::lit(width),
                         .y = kir::var("slice")});
}

void ColumnPartials::finish(kir::Block& k, ElementWriter& w, ParamLayout& layout,
                            const Fusion& segment, const RowFacts& facts) const {
  const int64_t H = p_.reduced_extent;
  const int64_t G = p_.grid[0];
  // Scratch: the barrier word, then per column reduction G partial rows.
  std::vector<int64_t> offsets;
  int64_t bytes = 16;
  for (const Accumulator& A : accs_) {
    offsets.push_back(bytes);
    const int64_t part =
        checked::orThrow(checked::product(std::vector<int64_t>{G, H, A.state_bytes}),
                         "inner-outer: the column partials' size");
    bytes = checked::orThrow(checked::add(bytes, (part + 15) / 16 * 16),
                             "inner-outer: the column partials' size");
  }
  const kir::Type bytes_type = kir::named("unsigned char");
  const kir::Value scratch = kir::var("col_scratch");
  k.comment("the block's partial column sums, one row per block");
  k.declare("col_scratch", kir::constPointerTo(bytes_type),
            kir::cast(kir::pointerTo(bytes_type), kir::var(layout.addScratch(bytes))));
  k.declare("tid", kir::intType(), threadInBlock(), {.is_const = true});
  for (size_t c = 0; c < accs_.size(); ++c) {
    const kir::Type st = kir::named(accs_[c].stateType());
    k.declare(fmt::format("partial{}", c), kir::constPointerTo(st),
              kir::reinterpretAs(kir::pointerTo(st), scratch + kir::lit(offsets[c])));
    storeBlockPartial(k, c);
  }
  k.evaluate(kir::call("fusebox::gridSync",
                       {kir::reinterpretAs(kir::pointerTo(kir::named("unsigned int")), scratch)}));

  const int64_t per_block = std::max<int64_t>(1, ceilDiv(H, G));
  const int64_t width = std::min<int64_t>(per_block, p_.threads());
  const int64_t slices = p_.threads() / width;
  k.comment(fmt::format(
      "the final reduction of the partials: {} columns per block, {} at a time over {} slices "
      "of the {} partial rows",
      per_block, width, slices, G));
  const kir::Type index = kir::indexType();
  kir::Block cb = k.forLoop("cb", index, kir::lit(0), kir::lit(per_block), kir::lit(width));
  const kir::Value in_block = cb.declare(
      "in_block", index, kir::var("cb") + kir::var("tid") % kir::lit(width), {.is_const = true});
  const kir::Value col =
      cb.declare("col", index, kir::asIndex(kir::blockIdx('x')) * kir::lit(per_block) + in_block,
                 {.is_const = true});
  const kir::Value slice =
      cb.declare("slice", kir::intType(), kir::var("tid") / kir::lit(width), {.is_const = true});
  const kir::Value col_active =
      cb.declare("col_active", kir::boolType(), in_block < kir::lit(per_block) && col < kir::lit(H),
                 {.is_const = true});
  reducePartials(cb, width, slices);

  // The column outputs, at this thread's column.
  w.setSpace(columnSpace(facts));
  const IterSpace space = w.space();
  const std::string own = indexKey(space.index(), space);
  for (size_t c = 0; c < accs_.size(); ++c)
    for (size_t o = 0; o < accs_[c].expr->outputs().size(); ++o) {
      const auto* tv = accs_[c].expr->output(o)->as<TensorView>();
      const kir::Value value = accs_[c].result(o, kir::var(fmt::format("cred{}", c)));
      w.provide(tv, [tv, value, own, space](const Index& at) {
        if (indexKey(at, space) != own)
          throw Unschedulable(
              fmt::format("a column output reads {} at another column ({} instead of {})",
                          tv->toString(), indexKey(at, space), own));
        return value;
      });
    }
  w.sink.reset();
  ScalarPlacement placement(space);
  for (const TensorView* out : parts_.column_outputs) {
    const auto o =
        static_cast<size_t>(std::find(segment.outputs().begin(), segment.outputs().end(), out) -
                            segment.outputs().begin());
    w.store(o, w.iterationIndexOf(out), facts.output_strides[o], placement);
  }
  kir::Block outputs = cb.ifThen(col_active && slice == kir::lit(0));
  declareDimIndices(outputs, p_.reduced_dims, p_.sizes, "col");
  outputs.append(w.sink.body);
}

}  // namespace fusebox::normalization

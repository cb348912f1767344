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

using namespace fusebox::kernelgen;
using namespace fusebox::reduction;

namespace {

std::string idx(const std::string& s) {
  return fmt::format("static_cast<idx_t>({})", s);
}

}  // namespace

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

// Slots [c][k][v][thread]: a warp's accesses hit consecutive banks.
std::string ColumnPartials::slot(size_t c, const std::string& k, const std::string& v,
                                 const std::string& thread) const {
  if (!shared_) return fmt::format("cacc{}[{}][{}]", c, k, v);
  return fmt::format("cacc{}[({} * {} + {}) * {} + {}]", c, k, p_.vector_width, v, p_.threads(),
                     thread);
}

void ColumnPartials::declare(Buffer& k) const {
  if (shared_) {
    k.line("const int ctid = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);");
    int64_t offset = 0;
    for (size_t c = 0; c < accs_.size(); ++c) {
      const std::string st = accs_[c].stateType();
      k.line(fmt::format(
          "{}* const cacc{} = reinterpret_cast<{}*>(fusebox::dynamicSharedMemory<unsigned char>() "
          "+ {});",
          st, c, st, offset));
      offset += int64_t{p_.threads()} * p_.batch * p_.vector_width * accs_[c].state_bytes;
      k.line("FUSEBOX_UNROLL");
      k.line(fmt::format("for (int k = 0; k < {}; ++k)", p_.batch));
      k.line("  FUSEBOX_UNROLL");
      k.line(fmt::format("  for (int v = 0; v < {}; ++v) {} = {};", p_.vector_width,
                         slot(c, "k", "v"), accs_[c].identity()));
    }
    return;
  }
  for (size_t c = 0; c < accs_.size(); ++c) {
    const Accumulator& A = accs_[c];
    k.line(fmt::format("fusebox::Array<{}, {}> cacc{}[{}];", A.stateType(), p_.vector_width, c,
                       p_.batch));
    k.line("FUSEBOX_UNROLL");
    k.line(fmt::format("for (int k = 0; k < {}; ++k)", p_.batch));
    k.line("  FUSEBOX_UNROLL");
    k.line(fmt::format("  for (int v = 0; v < {}; ++v) cacc{}[k][v] = {};", p_.vector_width, c,
                       A.identity()));
  }
}

std::string ColumnPartials::accumulate(size_t c, const std::string& x) const {
  return accs_[c].update(slot(c, "k", "v"), x);
}

void ColumnPartials::finish(Buffer& k, ElementWriter& w, ParamLayout& layout, const Fusion& segment,
                            const RowFacts& facts) const {
  const int64_t H = p_.reduced_extent;
  const int64_t G = p_.grid[0];
  const int64_t T = p_.threads();
  const int64_t BX = p_.block[0], BY = p_.block[1], V = p_.vector_width;
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
  const std::string scratch = layout.addScratch(bytes);
  k.line("// the block's partial column sums, one row per block");
  k.line(
      fmt::format("unsigned char* const col_scratch = static_cast<unsigned char*>({});", scratch));
  k.line("const int tid = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);");
  for (size_t c = 0; c < accs_.size(); ++c) {
    const Accumulator& A = accs_[c];
    const std::string st = A.stateType();
    k.line(fmt::format("{}* const partial{} = reinterpret_cast<{}*>(col_scratch + {});", st, c, st,
                       offsets[c]));
    if (BY == 1) {
      k.line("FUSEBOX_UNROLL");
      k.line(fmt::format("for (int k = 0; k < {}; ++k)", p_.batch));
      k.line("  FUSEBOX_UNROLL");
      k.line(fmt::format("  for (int v = 0; v < {}; ++v) {{", V));
      k.line(fmt::format("    const idx_t col = ({} * {} + {}) * {} + v;", idx("k"), BX,
                         idx("threadIdx.x"), V));
      k.line(fmt::format("    if (col < {}) partial{}[{} * {} + col] = {};", H, c,
                         idx("blockIdx.x"), H, slot(c, "k", "v")));
      k.line("  }");
      continue;
    }
    if (shared_) {
      // The block's rows share columns; the accumulators are in shared
      // memory already: thread row 0 combines the rows' slots.
      k.line("__syncthreads();");
      k.line("if (threadIdx.y == 0) {");
      ++k.indent;
      k.line("FUSEBOX_UNROLL");
      k.line(fmt::format("for (int k = 0; k < {}; ++k) {{", p_.batch));
      ++k.indent;
      k.line("FUSEBOX_UNROLL");
      k.line(fmt::format("for (int v = 0; v < {}; ++v) {{", V));
      ++k.indent;
      k.line(fmt::format("{} s = {};", st, slot(c, "k", "v", "threadIdx.x")));
      k.line(fmt::format(
          "for (int row = 1; row < {}; ++row) s = {};", BY,
          A.combined("s", slot(c, "k", "v", fmt::format("(row * {} + threadIdx.x)", BX)))));
      k.line(fmt::format("const idx_t col = ({} * {} + {}) * {} + v;", idx("k"), BX,
                         idx("threadIdx.x"), V));
      k.line(
          fmt::format("if (col < {}) partial{}[{} * {} + col] = s;", H, c, idx("blockIdx.x"), H));
      --k.indent;
      k.line("}");
      --k.indent;
      k.line("}");
      --k.indent;
      k.line("}");
      continue;
    }
    // The block's rows share columns: combine them (a rows combine), one
    // chunk at a time, and row 0 stores the block's partial.
    kir::Block b;
    kir::Block chunk =
        b.forLoop("k", kir::intType(), kir::lit(0), kir::lit(p_.batch), {}, kir::Unroll::Full);
    const kir::Value state = kir::subscript(kir::var(fmt::format("cacc{}", c)), kir::var("k"));
    kir::combineRows(chunk, {.s = {state, kir::named(st), A.functor, kir::text(A.identity())},
                             .rows = p_.block[1],
                             .columns = p_.block[0],
                             .width = p_.vector_width,
                             .smem = kir::var("fusebox_col_smem"),
                             .broadcast = false});
    kir::Block lane =
        chunk.ifThen(kir::threadIdx('y') == kir::lit(0), kir::BodyStyle::NextLine)
            .forLoop("v", kir::intType(), kir::lit(0), kir::lit(V), {}, kir::Unroll::Full);
    const kir::Type index = kir::indexType();
    const kir::Value col = lane.declare(
        "col", index,
        (kir::cast(index, kir::var("k")) * kir::lit(BX) + kir::cast(index, kir::threadIdx('x'))) *
                kir::lit(V) +
            kir::var("v"),
        {.is_const = true});
    lane.ifThen(col < kir::lit(H), kir::BodyStyle::SameLine)
        .assign(kir::subscript(kir::var(fmt::format("partial{}", c)),
                               kir::cast(index, kir::blockIdx('x')) * kir::lit(H) + col),
                kir::subscript(state, kir::var("v")));
    k.append(b);
  }
  k.line("fusebox::gridSync(reinterpret_cast<unsigned int*>(col_scratch));");

  // Block b reduces columns [b * per_block, (b + 1) * per_block): `width`
  // of them at a time, each over `slices` threads that take every
  // slices-th partial row, then combined in slice order.
  const int64_t per_block = std::max<int64_t>(1, ceilDiv(H, G));
  const int64_t width = std::min(per_block, T);
  const int64_t slices = T / width;
  k.line(
      fmt::format("// the final reduction of the partials: {} columns per block, {} at a "
                  "time over {} slices of the {} partial rows",
                  per_block, width, slices, G));
  k.line(fmt::format("for (idx_t cb = 0; cb < {}; cb += {}) {{", per_block, width));
  ++k.indent;
  k.line(fmt::format("const idx_t in_block = cb + tid % {};", width));
  k.line(fmt::format("const idx_t col = {} * {} + in_block;", idx("blockIdx.x"), per_block));
  k.line(fmt::format("const int slice = tid / {};", width));
  k.line(fmt::format("const bool col_active = in_block < {} && col < {};", per_block, H));
  for (size_t c = 0; c < accs_.size(); ++c) {
    const Accumulator& A = accs_[c];
    const std::string st = A.stateType();
    k.line(fmt::format("{} cred{};", st, c));
    k.line("{");
    ++k.indent;
    k.line(fmt::format("{}* const csm = reinterpret_cast<{}*>(fusebox_col_smem);", st, st));
    k.line(fmt::format("{} a = {};", st, A.identity()));
    // Partial rows slice, slice + slices, ...: a known count, unrolled, so
    // every load is issued before the first combine waits on it.
    k.line("FUSEBOX_UNROLL");
    k.line(fmt::format("for (int j = 0; j < {}; ++j) {{", ceilDiv(G, slices)));
    k.line(fmt::format("  const idx_t g = slice + j * {};", slices));
    k.line(fmt::format("  if (col_active && slice < {} && g < {})", slices, G));
    k.line(fmt::format(
        "    a = {};",
        A.combined("a",
                   fmt::format("fusebox::loadFromOtherBlock(&partial{}[g * {} + col])", c, H))));
    k.line("}");
    k.line("csm[tid] = a;");
    k.line("__syncthreads();");
    k.line(fmt::format("cred{} = csm[tid % {}];", c, width));
    k.line(fmt::format(
        "for (int s = 1; s < {}; ++s) cred{} = {};", slices, c,
        A.combined(fmt::format("cred{}", c), fmt::format("csm[s * {} + tid % {}]", width, width))));
    k.line("__syncthreads();");
    --k.indent;
    k.line("}");
  }
  // The column outputs, at this thread's column.
  w.setSpace(columnSpace(facts));
  const IterSpace space = w.space();
  const std::string own = indexKey(space.index(), space);
  for (size_t c = 0; c < accs_.size(); ++c)
    for (size_t o = 0; o < accs_[c].expr->outputs().size(); ++o) {
      const auto* tv = accs_[c].expr->output(o)->as<TensorView>();
      const std::string value = accs_[c].result(o, fmt::format("cred{}", c));
      w.provide(tv, [tv, value, own, space](const Index& at) {
        if (indexKey(at, space) != own)
          throw Unschedulable(
              fmt::format("a column output reads {} at another column ({} instead of {})",
                          tv->toString(), indexKey(at, space), own));
        return value;
      });
    }
  w.sink.body = Buffer{};
  ScalarPlacement placement(space);
  for (const TensorView* out : parts_.column_outputs) {
    const auto o =
        static_cast<size_t>(std::find(segment.outputs().begin(), segment.outputs().end(), out) -
                            segment.outputs().begin());
    w.store(o, w.iterationIndexOf(out), facts.output_strides[o], placement);
  }
  k.line(fmt::format("if (col_active && slice == 0) {{"));
  ++k.indent;
  std::vector<int> col_dims;
  for (int d : p_.reduced_dims) col_dims.push_back(d);
  declareDimIndices(k, col_dims, p_.sizes, "col");
  k.append(w.sink.body);
  --k.indent;
  k.line("}");
  --k.indent;
  k.line("}");
}

}  // namespace fusebox::normalization

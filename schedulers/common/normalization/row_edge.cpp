// A row's scalar edge (row_edge.h).
#include "normalization/row_edge.h"

namespace fusebox::normalization {

namespace {

PersistentParams edgeParams(const PersistentParams& chunks) {
  PersistentParams p = chunks;
  p.vector_width = 1;
  p.batch = 1;
  p.register_batch = 1;
  p.shared_buffer_bytes = 0;
  p.buffer_stages = 1;
  return p;
}

kernelgen::MergedDims edgeDims(const kernelgen::MergedDims& chunks) {
  kernelgen::MergedDims md = chunks;
  md.vector_width = 1;
  return md;
}

}  // namespace

RowEdge::RowEdge(const PassContext& chunks, const RowBufferPlan& buffers)
    : p_(edgeParams(chunks.p)),
      md_(edgeDims(chunks.md)),
      arrays_(md_, p_, "pe"),
      kept_(buffers.kept_values, p_, arrays_, "ve"),
      pass_{chunks.segment, chunks.st, chunks.facts, p_,          chunks.cached,
            chunks.w,       md_,       arrays_,      kept_,       chunks.accs,
            chunks.per_column, chunks.online} {}

PassChunk RowEdge::pass(int stage, bool deviations, kir::LoadHint hint) {
  pass_.load_hint = hint;
  return writePassChunk(pass_, stage, deviations);
}

}  // namespace fusebox::normalization

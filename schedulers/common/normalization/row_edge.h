// The scalar edge of rows whose vector chunks a head aligns
// (PersistentParams::rowEdges): a row of an extent no vector divides, or
// one that starts off a vector's alignment, is its head (the elements before
// the lead offset's next multiple of vector_width), its body of aligned
// chunks, and its tail (the elements past the last whole chunk). The body
// is the row kernel's usual chunks; head and tail, at most
// 2 * vector_width - 2 elements, go one a thread. RowEdge writes each pass's
// code for one such element: the same pass as the chunks' (the same states
// accumulate, the same outputs are stored), over chunks of one element,
// with persistent buffers and kept values of its own (pe<n>, ve<n>: one
// element a thread, in registers).
#pragma once

#include "kernelgen/merged_dims.h"
#include "normalization/chunk_buffers.h"
#include "normalization/params.h"
#include "normalization/pass_chunk.h"
#include "normalization/persistent_buffers.h"

namespace fusebox::normalization {

class RowEdge {
 public:
  // `chunks`: the context of the chunks' passes (its online pairs, states
  // and writer are shared).
  RowEdge(const PassContext& chunks, const RowBufferPlan& buffers);
  RowEdge(const RowEdge&) = delete;
  RowEdge& operator=(const RowEdge&) = delete;

  // The edge element's code of pass `stage` (writePassChunk's arguments),
  // its loads hinted as the chunks' are.
  PassChunk pass(int stage, bool deviations, kir::LoadHint hint);
  // The edge's arrays, for the top of the kernel, and its load pass.
  const kir::Block& decls() const { return arrays_.decls; }
  const kir::Block& loads() const { return arrays_.loads; }

 private:
  PersistentParams p_;  // chunks of one element, one a thread, in registers
  kernelgen::MergedDims md_;
  BufferArrays arrays_;
  KeptValues kept_;
  PassContext pass_;
};

}  // namespace fusebox::normalization

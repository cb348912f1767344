// The column part of an inner-outer kernel (inner_outer.h): each thread
// accumulates the column reductions over the rows it walks, in registers at
// the columns it holds; after the rows, each block combines its threads'
// sums and stores one partial row per column reduction to scratch memory,
// the grid waits at fusebox::gridSync (a cooperative launch), and block b
// reduces the partials of its share of the columns and writes the column
// outputs. The order of every combination is fixed: the result does not
// depend on which block finishes first.
#pragma once

#include <fusebox/scheduler.h>

#include <string>
#include <vector>

#include "kernel_ir/kernel_ir.h"
#include "kernelgen/kernel_params.h"
#include "normalization/inner_outer.h"
#include "normalization/params.h"
#include "reduction/accumulator.h"

namespace fusebox::kernelgen {
class ElementWriter;
}

namespace fusebox::normalization {

class ColumnPartials {
 public:
  // `shared_accumulators`: the per-thread accumulators live in dynamic
  // shared memory (dynamicSharedBytes() of it) instead of registers.
  ColumnPartials(const InnerOuterParts& parts, const PersistentParams& p,
                 bool shared_accumulators = false);

  // The per-thread accumulators, at their identity: cacc<c>[batch] in
  // registers, or slots of the dynamic shared memory.
  void declare(kir::Block& k) const;
  // Around the output pass's element loop: with the accumulators in shared
  // memory, the chunk's states are copied into registers before it and
  // back after it.
  void beginChunk(kir::Block& pre_chunk, kir::Block& post_chunk) const;
  // Value `x` of column reduction c's input at element (k, v) of the
  // thread's chunks enters its accumulator (in the output pass, after
  // beginChunk).
  void accumulate(kir::Block& at, size_t c, const kir::Value& x) const;
  // After the row loop: the block combine, the partials, the grid barrier,
  // the final reduction and the column outputs.
  void finish(kir::Block& k, kernelgen::ElementWriter& w, kernelgen::ParamLayout& layout,
              const Fusion& segment, const RowFacts& facts) const;
  // Static shared memory finish() uses.
  int64_t sharedBytes() const;
  // Dynamic shared memory the accumulators take (0 in registers).
  int64_t dynamicSharedBytes() const;
  // Bytes of registers per element a thread holds (the accumulators).
  static int64_t registerBytesPerElement(const InnerOuterParts& parts);

 private:
  const InnerOuterParts& parts_;
  const PersistentParams& p_;
  std::vector<reduction::Accumulator> accs_;
  bool shared_;
  // Accumulator c's slot for chunk k, element v (the loop variables), of
  // this thread.
  kir::Value slot(size_t c) const;
  // States of accumulator c in one 16-byte group of its shared slots (1 in
  // registers).
  int64_t group(size_t c) const;
  // Element v of the output pass's copy of accumulator c's chunk (shared
  // accumulators).
  kir::Value chunkCopy(size_t c) const;
  // The block's partial row of accumulator c, stored at partial<c>.
  void storeBlockPartial(kir::Block& k, size_t c) const;
  // Block b's columns: the partials of every block reduced, in block order,
  // `width` columns at a time over `slices` slices of the block's threads.
  void reducePartials(kir::Block& k, int64_t width, int64_t slices) const;
};

}  // namespace fusebox::normalization

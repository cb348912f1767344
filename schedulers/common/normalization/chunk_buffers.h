// The on-chip buffers of the persistent kernels, shared by the row kernel
// (row_kernel.h) and the column kernel (column_kernel.h): a thread walks
// `batch` chunks of `vector_width` elements, chunk k at merged-dim start
// `mb`, element v of it at mb + v along the innermost merged dim (the
// row's innermost reduced dim, or the column kernel's innermost kept dim).
//   - BufferArrays: one register array per cached load (pb<n>[batch]),
//     filled by the load pass, read by every stage. When the params say so
//     (shared_buffer_bytes > 0: rows too wide for the registers), chunks
//     k >= register_batch live in a region of dynamic shared memory per
//     cached load instead, laid out [row of the block][chunk][thread x] so
//     that a warp's vector accesses fall on consecutive banks (with two
//     buffer stages, [stage][row][chunk][thread x]), and filled by
//     asynchronous copies (cp.async) when a chunk is 4, 8 or 16 bytes;
//     the loops over k are unrolled, so `k < register_batch` folds away;
//   - CachePlacement: cached loads read from those arrays, everything else
//     placed as VectorPlacement places it;
//   - KeptValues: values kept from the pass that first computes them
//     (vc<n>[batch]: softmax's exponentials), read by the later passes.
#pragma once

#include <fusebox/ir/ir.h>

#include <map>
#include <set>
#include <string>

#include "kernel_ir/kernel_ir.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"
#include "normalization/params.h"
#include "normalization/row_facts.h"

namespace fusebox::normalization {

// Bytes of dynamic shared memory one persistent buffer of `element_bytes`
// elements takes in a block of `rows` rows x `threads_per_row` threads,
// each thread keeping `batch` vectors of `vector_width` elements (rounded up
// to 16 bytes, the next region's alignment).
int64_t sharedBufferRegionBytes(int64_t element_bytes, int64_t rows, int64_t threads_per_row,
                                int64_t batch, int64_t vector_width);
// The regions of all of `buffers`, one after another.
int64_t sharedBuffersBytes(const std::vector<PersistentBuffer>& buffers, int64_t rows,
                           int64_t threads_per_row, int64_t batch, int64_t vector_width);

class BufferArrays {
 public:
  // `prefix`: the arrays' names, <prefix><n> (two sets in one kernel: a
  // row's chunks and its scalar edge, row_edge.h).
  BufferArrays(const kernelgen::MergedDims& md, const PersistentParams& p,
               std::string prefix = "pb")
      : md_(md), p_(p), prefix_(std::move(prefix)) {}

  // The buffer holding the cached load `ref` (declared and loaded on first use).
  std::string buffer(const kernelgen::ElementRef& ref, const std::string& key,
                     const kernelgen::VectorPlacement& vp);
  // The thread's chunk k of `buffer`, a whole vector. Where some chunks
  // live in shared memory (sharedChunks()), a pass copies it once a chunk
  // (one vector load from shared memory, not one an element).
  kir::Value chunkOf(const std::string& name) const;
  bool sharedChunks() const { return p_.shared_buffer_bytes > 0 && !p_.staged_rows; }
  // A chunk of a buffer of `dtype`: fusebox::Array<storage type, vector_width>.
  kir::Type chunkType(DataType dtype) const;

  kir::Block decls;  // the arrays, at the top of the kernel
  kir::Block loads;  // the load pass's chunk body
  // Kernels whose blocks walk rows grid-stride keep a thread's columns for
  // every row: a buffer in registers that no dim of `kept_dims` moves (a
  // weight over the columns) is then loaded once, by invariant_loads (a
  // chunk body over the reduced dims' indices alone) before the row loop,
  // instead of at every row.
  void hoistRowInvariant(std::vector<int> kept_dims) {
    hoist_ = true;
    hoist_kept_dims_ = std::move(kept_dims);
  }
  kir::Block invariant_loads;
  // Staged rows (PersistentParams::staged_rows): `loads` copies a row
  // group's chunks into the staging slots, and `restore` (a chunk body,
  // for the row group the loop is at) moves them into the registers and
  // makes the loads that are not copied.
  kir::Block restore;
  // Staged rows: a load of one element per row (the saved mean and rstd,
  // read by every chunk) is made a turn ahead too, into rs<n>n by `loads`,
  // and moved into rs<n> by `restore` (both at chunk 0, which every thread
  // that has chunks holds): else its DRAM latency is waited out at every
  // row group. The value to read, or none when `ref` is not such a load.
  kir::Value rowScalar(const kernelgen::ElementRef& ref, const std::string& key,
                       const kernelgen::VectorPlacement& vp);
  // Whether the load pass copies chunks into shared memory asynchronously
  // (known once a pass has read a buffer); the row kernel commits and waits
  // for them chunk by chunk (row_kernel.cpp).
  bool asyncCopies() const { return async_copies_; }

 private:
  const kernelgen::MergedDims& md_;
  const PersistentParams& p_;
  std::string prefix_;
  // Chunk k's shared slot, counted from this thread's first (<name>_s): in
  // the stage the load pass fills (`loading`) or the one the passes read.
  kir::Value slot(bool loading) const;
  // Stores `value` (an Array, or with `v` defined one element) at chunk k.
  void store(kir::Block& at, const std::string& name, const kir::Value& value,
             const kir::Value& v = {}) const;

  // The load pass's vector load of chunk k of buffer `name` from `address`:
  // into registers, or copied asynchronously into its shared slot.
  // Into `into`; `staged`: copied into the staging slot, moved by `restore`.
  void loadChunk(kir::Block& into, const std::string& name, const kir::Value& address, int vec,
                 int64_t element_bytes, bool staged = false);
  // Whether the buffer of `ref` is loaded once for every row.
  bool rowInvariant(const kernelgen::ElementRef& ref) const;

  std::map<std::string, std::string> names_;
  std::map<std::string, std::string> row_scalars_;  // key -> rs<n>
  int64_t shared_offset_ = 0;  // bytes of dynamic shared memory given out
  bool async_copies_ = false;  // the load pass copies chunks into shared memory
  bool hoist_ = false;
  std::vector<int> hoist_kept_dims_;
};

class CachePlacement final : public kernelgen::Placement {
 public:
  CachePlacement(const kernelgen::MergedDims& md, const kernelgen::IterSpace& space,
                 const std::set<std::string>& cached, BufferArrays& arrays)
      : vec(md, space, true), space_(space), cached_(cached), arrays_(arrays) {}

  kir::Value load(kernelgen::CodeSink& sink, const kernelgen::ElementRef& ref) override;
  void store(kernelgen::CodeSink& sink, const kernelgen::ElementRef& ref,
             const kir::Value& value) override {
    vec.store(sink, ref, value);
  }

  kernelgen::VectorPlacement vec;

 private:
  const kernelgen::IterSpace& space_;
  const std::set<std::string>& cached_;
  BufferArrays& arrays_;
  // Buffer -> this pass's copy of its chunk (vec.pre_chunk), when chunks
  // live in shared memory.
  std::map<std::string, std::string> chunk_copies_;
};

class KeptValues {
 public:
  KeptValues(const std::map<const TensorView*, int, ByName>& kept, const PersistentParams& p,
             BufferArrays& arrays, std::string prefix = "vc")
      : kept_(kept), p_(p), arrays_(arrays), prefix_(std::move(prefix)) {}

  // Before walking pass `pass`'s element (w's sink body fresh): the values
  // an earlier pass kept are read from their arrays, and this pass stores
  // those it first computes. Call w.observe(nullptr) after the walk.
  void beginPass(kernelgen::ElementWriter& w, int pass);
  // Whether `tv` is one of the kept values.
  bool keeps(const TensorView* tv) const { return kept_.count(tv) > 0; }

 private:
  const std::map<const TensorView*, int, ByName>& kept_;
  const PersistentParams& p_;
  BufferArrays& arrays_;
  std::string prefix_;
  std::map<const TensorView*, std::string, ByName> names_;
};

}  // namespace fusebox::normalization

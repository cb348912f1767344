// Merged iteration dims and vector chunks: the loop structure pointwise
// kernels use, and the placement of their loads and stores.
//
// A merged dim is a run of iteration dims that every affine access walks as
// one index (outermost first; the kernel names it m<g>). A thread handles a
// chunk of vector_width consecutive elements along the innermost merged dim:
// `mb` is the chunk's start, `v` the element within it, and the innermost
// merged index is mb + v. VectorPlacement turns an access that walks the
// innermost merged dim contiguously into one 16-byte-style vector load or
// store per chunk, hoists a load the element within the chunk does not move
// above the element loop, and a load no row dim moves above the row loop (a
// 2-D schedule's loop over the outer merged dims). Under pad / cat branches
// whose checks hold alike over a chunk it checks them once per chunk and
// makes those loads behind the checks (chunk_branches.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel_ir/element_math.h"
#include "kernel_ir/kernel_ir.h"
#include "kernelgen/index_math.h"
#include "kernelgen/placement.h"
#include "kernelgen/size_literals.h"

namespace fusebox::kernelgen {

struct MergedDims {
  std::vector<std::vector<int>> groups;  // iteration dims of each merged dim, outermost first
  std::vector<int64_t> extents;          // of each merged dim
  int vector_width = 1;
  // Merged dims [0, row_groups) are walked by a loop of rows around the
  // chunks (a 2-D schedule); 0: none.
  int row_groups = 0;

  // Whether the last chunk along the innermost merged dim can be partial.
  bool tailPossible() const;
  // The innermost merged index: m<last>, or mb without merged dims.
  std::string innermostName() const;
};

// Whether offset coefficients `a` walk the iteration dims of `group`
// (outermost first; their extents in `sizes`) as one index: each dim's
// coefficient is the next one's times that one's extent.
bool walksAsOne(const Affine& a, const std::vector<int>& group, const std::vector<int64_t>& sizes);
// Whether `a` does not move with any iteration dim of `group`.
bool zeroOn(const Affine& a, const std::vector<int>& group);

// Declares the merged indices of dims [begin, end) from the linear position
// variable `lin` over them (the innermost merged index of all is named mb: a
// chunk's start). Extents are values of `literals` (size_literals.h; null:
// literals) with role m<g>, divisors <lin>/m<g>.
void declareMergedIndices(kir::Block& out, const MergedDims& dims, const std::string& lin,
                          size_t begin, size_t end, SizeLiterals* literals = nullptr);
// Declares i<d> for each of `dims` (iteration dims, outermost first) from
// the linear position variable `lin` over them; the innermost is declared as
// `innermost` instead when given (a vector chunk's start). Sizes through
// `literals` with role #i<d>, divisors <lin>/i<d>.
void declareDimIndices(kir::Block& out, const std::vector<int>& dims,
                       const std::vector<int64_t>& sizes, const std::string& lin,
                       const std::string& innermost = "", SizeLiterals* literals = nullptr);
// Declares the index variables of merged dim g's iteration dims from m<g>
// (sizes through the space's literals).
void declareIterIndices(kir::Block& out, const MergedDims& dims, const IterSpace& space, size_t g);
// Their values (outermost first) from the merged index `merged` (m<g>, or
// mb at a chunk's start), as declareIterIndices declares them.
std::vector<kir::Value> iterIndexValues(const MergedDims& dims, const IterSpace& space, size_t g,
                                        const kir::Value& merged);
// The indices of element `mb + v` of a chunk (m<last> and its iteration
// indices), declared in `out`.
void declareChunkElementIndices(kir::Block& out, const MergedDims& dims, const IterSpace& space);

class VectorPlacement final : public Placement {
 public:
  // vectorize false: every access a scalar one at the merged indices (the
  // scalar tail of a partial chunk).
  VectorPlacement(const MergedDims& dims, const IterSpace& space, bool vectorize)
      : dims_(dims), space_(space), vectorize_(vectorize) {}

  kir::Value load(CodeSink& sink, const ElementRef& ref) override;
  void store(CodeSink& sink, const ElementRef& ref, const kir::Value& value) override;
  // A pad / cat branch whose checks hold alike over the chunk (with
  // uniform_branches): a bool computed once per chunk.
  kir::Value branchCondition(CodeSink& sink, const BranchBounds& bounds,
                             const kir::Value& checks) override;
  std::string indexVariable(CodeSink& sink, const kir::Value& index_value,
                            const kir::Value& expr) override;
  kir::Value position(const IndexExpr& at, const IterSpace& /*space*/,
                      const std::string& role) override {
    return offsetValue(at, dims_.innermostName(), role);
  }

  // Checks of pad / cat branches that hold alike over every chunk are made
  // once per chunk, and loads under them are read once per chunk (a vector,
  // or one element), guarded by them (branch_bounds.h). Requires chunks
  // that start on multiples of the width along the innermost merged dim, as
  // pointwise kernels' do, and finishChunk() after the walk.
  bool uniform_branches = false;
  // Writes the guarded vector loads into pre_chunk: vector loads of one
  // input under branches of one cat that exclude each other are one load
  // from the address the chunk's branch selects (RoPE's two halves of x), so
  // they are only written once every load is known.
  void finishChunk();
  // The L2 hint of the vector loads this placement makes (a reloaded row's
  // passes: normalization/persistent_writer.cpp).
  kir::LoadHint load_hint = kir::LoadHint::None;
  // A vector load that the caller issues itself, ahead of the chunk's code:
  // `var` is read in pre_chunk as element k of the array `var`s.
  struct ChunkLoad {
    std::string var;
    kir::Type type;
    kir::Value load;  // the load, over the chunk's indices (mb, m<g>)
  };
  // With loads_first, the chunk's vector loads of addresses only its
  // position moves (no run-time index, no branch) are chunk_loads, not
  // loads in pre_chunk: a writer that knows the thread's chunks issues
  // those of several chunks before their math (a reloaded row's passes,
  // normalization/row_kernel.cpp), so they are in flight together.
  bool loads_first = false;
  std::vector<ChunkLoad> chunk_loads;
  // Makes the chunk_loads loads in pre_chunk again, as without loads_first.
  void loadInChunk();

  // Vector loads of accesses that read each element at one iteration only
  // (readOnce) are streamed (kir::LoadHint::Streamed: evicted first), where
  // no pass hint is given. The reduction scheduler's choice (streamed_loads).
  bool stream_reads = false;

  kir::Block pre_row;     // loads no row dim moves: above the row loop
  kir::Block pre_chunk;   // vector loads, hoisted loads and store arrays: above the element loop
  kir::Block post_chunk;  // vector stores: after the element loop

  // An element offset over the merged indices (`last` names the innermost
  // one), falling back to the index variables where a merged dim's
  // iteration dims are not walked as one. `role`: whose offset (its pointer),
  // for the coefficients' parameters as IndexExpr::value names them.
  kir::Value offsetValue(const IndexExpr& off, const std::string& last,
                         const std::string& role = "") const;
  // Whether the access walks the innermost merged dim contiguously (one
  // vector per chunk), and vectors_allowed allows it.
  bool isVectorAccess(const ElementRef& ref) const;
  // Chunks aligned for some accesses only (rows whose chunks a scalar head
  // aligns: normalization/row_kernel.h): whether `ref` may be a vector.
  // Unset: every access that walks the innermost merged dim contiguously.
  std::function<bool(const ElementRef&)> vectors_allowed;

 private:
  // A vector some chunks load under branches: each member's guard, offset
  // and branches.
  struct GuardedVector {
    std::string var, type, pointer;
    struct Member {
      kir::Value guard, at;
      std::vector<BranchBounds> branches;
    };
    std::vector<Member> members;
  };

  kir::Value guardedLoad(CodeSink& sink, const ElementRef& ref, bool vector);
  std::string guardedVector(CodeSink& sink, const ElementRef& ref, const kir::Value& guard,
                            const kir::Value& at);
  kir::Value chunkCondition(CodeSink& sink, const BranchBounds& bounds);
  // Element `v` of hoisted vector `var`, in tv's compute type.
  static kir::Value vectorElement(const TensorView* tv, const std::string& var);
  bool walksAsOne(const Affine& a, size_t g) const {
    return kernelgen::walksAsOne(a, dims_.groups[g], space_.sizes);
  }
  bool zeroOn(const Affine& a, size_t g) const { return kernelgen::zeroOn(a, dims_.groups[g]); }

  const MergedDims& dims_;
  const IterSpace& space_;
  bool vectorize_;
  // Keys are printed values: pointer@offset[?guard] -> variable; checks at
  // the chunk's start -> bool.
  std::map<std::string, std::string> hoisted_;
  std::map<std::string, std::string> conditions_;
  std::vector<GuardedVector> guarded_;
  // Variables of pre_row / pre_chunk (hoisted loads, chunk-level indices).
  std::set<std::string> chunk_values_;
  // Whether every run-time index of `a` (Affine::terms) is one per chunk.
  bool termsPerChunk(const Affine& a) const;
  // Whether an access at `a` reads each element at one iteration only: every
  // dim of more than one element moves it, through no run-time index.
  bool readOnce(const Affine& a) const;
};

}  // namespace fusebox::kernelgen

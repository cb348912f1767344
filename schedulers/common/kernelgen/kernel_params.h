// Which KernelParams slot (core/include/fusebox/backend/kernel.h) carries
// each of a kernel's parameters, and the C++ names the kernel gives them:
// every tensor input and output of the segment a data pointer (inputs first,
// in segment order), each scalar input an i64 or f64 entry, the index-error
// words of a segment with indirect loads, then any scratch buffers the
// scheduler asks for.
#pragma once

#include <fusebox/backend/kernel.h>
#include <fusebox/ir/fusion.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "kernel_ir/kernel_ir.h"
#include "kernelgen/size_literals.h"

namespace fusebox::kernelgen {

// Whether a scalar segment input goes to KernelParams::f64 (else i64).
bool scalarGoesToDouble(DataType t);

// Why the segment's parameters (and `scratch_buffers` more pointers, and
// `size_ints` more integers: the sizes of a kernel compiled over symbolic
// sizes, size_literals.h) do not fit KernelParams, or "" when they do.
std::string paramLimitProblem(const Fusion& segment, int scratch_buffers = 0, int size_ints = 0);

// Most exprs (tensor and scalar ops) one generated kernel holds. The host
// compiler's time grows quadratically with a kernel's length (GCC 12 -O2 on
// chains of bfloat16 negations, vectorized: 256 ops 16 s, 1,024 ops 90 s;
// the fuzzer's 14,000-op chain did not finish in 10 minutes), so a longer
// segment is refused and the segmenter splits it into several kernels.
inline constexpr int64_t kMaxKernelExprs = 512;

// Why the segment is too long for one kernel, or "" when it is not.
std::string kernelSizeProblem(const Fusion& segment);

class ParamLayout {
 public:
  explicit ParamLayout(const Fusion& segment);

  // For KernelPlan::bindings.
  const std::vector<ParamBinding>& bindings() const { return bindings_; }
  // KernelParams::i64 slots the scalar inputs take: [0, intSlots()).
  int intSlots() const { return ints_; }
  // The pointer variable of a tensor input (in<slot>) and of output k (out<k>).
  std::string inputPointer(const Val* input) const;
  std::string outputPointer(size_t k) const;
  // The raw parameter of a scalar input (p.i64[<slot>] or p.f64[<slot>]), or
  // an undefined value when `v` is not a scalar input of the segment.
  kir::Value scalarParam(const Val* v) const;
  // The variable over the IndexErrors words (kernel.h) of a segment with
  // indirect loads (index_select, select, gather, take_along_axis): a
  // fusebox::IndexErrorLatch in which each thread notes its first
  // out-of-range index and records it on leaving; "" for a segment without
  // them.
  std::string indexErrors() const { return index_errors_ ? "index_errors" : ""; }
  // A scratch buffer of `bytes` (grid reductions, ...), zeroed before the
  // plan's first launch and kept for its later ones (ParamBinding::kept): the
  // kernel must leave it as it found it, as every user here does (tickets
  // the last block resets, gridSync's barrier word, partials written before
  // they are read). Its pointer variable, scratch<n>, declared as `void*` by
  // declarePointers.
  std::string addScratch(int64_t bytes);

  // Output k may be written over segment input `input`'s memory: their
  // pointers are declared without __restrict__, so the compiler keeps each
  // read of the input before the write its value reaches.
  void shareMemory(size_t input, size_t output);

  // The kernel's pointer variables, typed by dtype (restrict, but for the
  // pairs that share memory; const for inputs).
  void declarePointers(kir::Block& out) const;
  // What every generated kernel opens with: the index type, then the
  // pointers and the size literals' declarations.
  void declareKernelTop(kir::Block& out, bool index32, const SizeLiterals& literals) const;

 private:
  const Fusion& segment_;
  int pointers_ = 0;
  int ints_ = 0;
  int scratch_ = 0;
  bool index_errors_ = false;
  std::vector<ParamBinding> bindings_;
  std::unordered_map<const Val*, int> input_slot_;
  std::unordered_map<const Val*, ParamBinding> scalar_slot_;
  std::vector<int> output_slot_;
  std::vector<size_t> shared_inputs_, shared_outputs_;  // shareMemory
};

}  // namespace fusebox::kernelgen

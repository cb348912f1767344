// Concretization: what a symbolic fusion becomes for one call's inputs, before
// any pass runs (docs/runtime.md, "Concretization").
//
// A fusion is defined over symbolic sizes. Some of its facts are only known
// once sizes are: whether a reshaped, sliced, padded or concatenated dim has
// size 1 (then it broadcasts) or not, how a reshape splits and merges dims,
// and (by default) the extents of every resize. analyzeConcretization derives
// those facts from the inputs; their canonical text is the first level of the
// runtime's cache, so calls whose facts agree share the concretized fusion,
// its passes and (with shapes = "symbolic") its kernels. concretizeFusion
// applies the facts to a copy of the fusion.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusebox {

struct ConcretizationOptions {
  // Resize extents (input extent, left and right expansion of every pad,
  // slice and cat) become constants and part of the key; off: only the
  // output's IterType is (FUSEBOX_DISABLE=concretize_resize_extents).
  bool resize_extents = true;
};

struct Concretization {
  // The concrete type of one Symbolic dim (an output dim of a reshape,
  // slice, pad or cat whose size was unknown): Broadcast when its extent is 1.
  struct DimType {
    const IterDomain* id = nullptr;  // of the symbolic fusion
    const TensorView* tv = nullptr;  // the first used tensor with it
    int64_t dim = 0;                 // its position in tv->logical()
    IterType type = IterType::Iteration;
  };
  // One resized dim: the output extent is input_extent + left + right.
  struct Resize {
    const Expr* op = nullptr;  // slice, pad or cat of the symbolic fusion
    int64_t dim = 0;           // of its output
    int64_t input = 0;         // cat: which operand; else 0
    int64_t input_extent = 0;
    int64_t left = 0;   // expansion before (slice: -start; cat: the operands before)
    int64_t right = 0;  // expansion after
  };
  // One reshape as splits and merges: each group is a run of input dims whose
  // element count equals that of a run of output dims.
  struct ReshapeGroup {
    std::vector<int64_t> in_dims;
    std::vector<int64_t> out_dims;
  };
  struct Reshape {
    const Expr* op = nullptr;
    std::vector<ReshapeGroup> groups;  // empty when the tensor has no elements
  };

  bool resize_extents = true;
  std::vector<DimType> dim_types;
  std::vector<Resize> resizes;  // empty when resize extents are not concretized
  std::vector<Reshape> reshapes;

  // Canonical text of the facts, e.g.
  //   "pad T2 d1: 3 by -1 and -1 -> Broadcast; view T4: {0, 1}->{0}"
  // Equal keys give structurally equal concretized fusions.
  std::string key() const;
};

// The facts for `inputs` (checked with validateInputs before: a size that
// overflows while the facts are evaluated is a UserError naming the op).
Concretization analyzeConcretization(const Fusion& symbolic, const std::vector<Argument>& inputs,
                                     const ConcretizationOptions& options);

// A copy of `symbolic` with the facts applied: Symbolic dims get their type
// (a Broadcast dim extent 1), and with resize extents the resized inputs'
// extents, the pad widths, slice bounds and resized output extents become
// constants (extents computed from constants only are folded). The copy has
// the same inputs and outputs, in order.
std::unique_ptr<Fusion> concretizeFusion(const Fusion& symbolic, const Concretization& facts);

// The concretized_fusion dump: the IR with transforms and a section listing
// each fact as it applied to the concretized fusion's values.
std::string printConcretizedFusion(const Fusion& concretized, const Concretization& facts);

}  // namespace fusebox

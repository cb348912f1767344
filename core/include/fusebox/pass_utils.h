// Small IR helpers that rewriting passes share.
#pragma once

#include <fusebox/ir/fusion.h>

#include <cstdint>
#include <optional>

namespace fusebox {

// The value of an integral constant scalar, else nullopt.
std::optional<int64_t> constantInt(const Scalar* s);

// True when some dim of the tensor's shape (reduction axes excluded) has a
// constant size of 0: the tensor has no elements.
bool hasZeroSize(const TensorView* tv);

// Gives `to` the allocation order `from` has, dim by dim (both have one rank).
// No-op when `from` has no allocation domain.
void copyAllocationOrder(const TensorView* from, TensorView* to);

// Replaces every use of `old_tv` (operands and fusion outputs) with
// `replacement`. When `old_tv` is a fusion output, the new output keeps its
// allocation order (and, through Fusion::replaceOutput, its required stride
// order and aliases); a fusion input or an existing output is first copied
// with set() so outputs stay distinct tensors. Returns the tensor now in
// `old_tv`'s place.
TensorView* replaceTensor(Fusion& fusion, TensorView* old_tv, TensorView* replacement);

}  // namespace fusebox

// The index code of rows whose vectors a scalar head aligns (AlignedBody,
// layout_choice.h), shared by the kernels that walk rows (the persistent
// row kernel, the inner reduction): per row, the head (elements before the
// first aligned vector), the end of the last whole vector, and the count of
// edge elements (head and tail), which threads then take one at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernel_ir/kernel_ir.h"
#include "kernelgen/layout_choice.h"
#include "kernelgen/placement.h"

namespace fusebox::kernelgen {

// Declares `head`, `body_end` and `edge_count` (idx_t) for the row the kept
// indices i<d> of `kept_dims` name, from the lead's offset residues modulo
// body.width and the row's `extent`. The residues keep the arithmetic small
// whatever the sizes.
void declareRowEdge(kir::Block& out, const std::vector<int>& kept_dims, const AlignedBody& body,
                    int64_t extent);
// VectorPlacement::vectors_allowed for chunks the head aligns: the accesses
// body.aligns along iteration dim `inner`; the others go element by element.
std::function<bool(const ElementRef&)> vectorsAlignedBy(const AlignedBody& body, int inner);
// The row position of edge element `e` (< edge_count): the head's elements,
// then the tail's.
kir::Value edgePosition(const kir::Value& e);

}  // namespace fusebox::kernelgen

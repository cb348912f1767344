// Layout choices every reducing scheduler makes from the accesses its element
// code records (access.h): the order of the iteration dims in memory, and how
// wide a vector the accesses along one dim allow.
#pragma once

#include <cstdint>
#include <vector>

#include "kernelgen/access.h"

namespace fusebox::kernelgen {

// Dims of size != 1 in memory order, outermost first: by the stride of the
// input access that reaches furthest (the tensor that dominates traffic);
// dims it does not move keep their logical order, outermost.
std::vector<int> memoryOrder(const std::vector<int64_t>& sizes,
                             const std::vector<Access>& accesses);

// The widest vector (at most 16 bytes) every access that walks dim `inner`
// contiguously allows: element size, data alignment, constant offset and the
// other dims' strides all multiples of it, and the extent of `inner` too (a
// vector never crosses into the next position of an outer dim). 1 when no
// access walks `inner` contiguously.
int vectorWidthAlong(const std::vector<int64_t>& sizes, const std::vector<Access>& accesses,
                     int inner);

// Vectors along `inner` once a scalar head aligns each position of the outer
// dims: for rows of an extent no vector divides (a vocabulary of 50257) or
// that start off a vector's alignment. The lead is the input access along
// `inner` that reaches furthest; the head of a row is the elements before
// its lead offset's next multiple of `width`, and the elements past the
// row's last whole vector are its tail. The accesses whose offsets agree
// with the lead's modulo `width` (the same residue per coefficient and
// constant) get aligned vectors at the head's chunks; the others (a
// layernorm weight that every row reads from 0) are read element by element.
struct AlignedBody {
  int width = 1;  // 1: no vector helps
  // The lead's offset modulo width: per iteration dim, and its constant.
  std::vector<int64_t> coef_residues;
  int64_t c_residue = 0;

  // Whether an access of `a`, `element_size` and pointer `alignment` (bytes)
  // gets an aligned vector at every chunk the head aligns.
  bool aligns(const Affine& a, int64_t element_size, int64_t alignment, int inner) const;
};
// The widest such body (at most 16 bytes a vector for every access it aligns).
AlignedBody alignedBodyAlong(const std::vector<Access>& accesses, int inner);

}  // namespace fusebox::kernelgen

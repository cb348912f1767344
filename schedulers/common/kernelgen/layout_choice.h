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

}  // namespace fusebox::kernelgen

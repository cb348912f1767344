// Host conversions for the 16-bit float types (round to nearest even).
// Narrowing makes any NaN the canonical NaN 0x7FFF (no sign, as CUDA's cvt.rn
// and so PyTorch on the GPU give it), saturates nothing: values past the
// largest finite value by at least half an ulp become infinity.
#pragma once

#include <cstdint>

namespace fusebox {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

// Rounds a double straight to the 16-bit format. Going through float first
// would round twice and can be off by one ulp on ties.
uint16_t doubleToHalf(double value);
uint16_t doubleToBfloat16(double value);

}  // namespace fusebox

// NumPy .npy files (format 1.0/2.0/3.0, little-endian, C or Fortran order).
// Supported dtypes: bool, int32, int64, float16, float32, float64; bfloat16 is
// saved as float32 (NumPy has no bfloat16).
#pragma once

#include <fusebox/tensor.h>

#include <string>

namespace fusebox {

// Throws UserError naming the file and what was expected.
Tensor loadNpy(const std::string& path);
void saveNpy(const std::string& path, const Tensor& tensor);

}  // namespace fusebox

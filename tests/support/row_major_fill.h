// Walking a tensor's logical index in row-major order, whatever its layout:
// the loop every test helper that makes patterned inputs shares.
//   fillRowMajor(t, [](int64_t i) { return 0.25 * (i % 13 - 6); });
#pragma once

#include <fusebox/tensor.h>

#include <cstdint>
#include <vector>

namespace fusebox::testing {

// Calls visit(i, index) for each element, i its row-major position and
// index its logical index.
template <class Visit>
void forEachRowMajor(const std::vector<int64_t>& sizes, int64_t numel, Visit visit) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t i = 0; i < numel; ++i) {
    int64_t rest = i;
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    visit(i, index);
  }
}

// Element i (row-major) of `t` becomes value(i).
template <class Value>
void fillRowMajor(Tensor& t, Value value) {
  forEachRowMajor(t.sizes(), t.numel(),
                  [&](int64_t i, const std::vector<int64_t>& index) { t.setDouble(index, value(i)); });
}

}  // namespace fusebox::testing

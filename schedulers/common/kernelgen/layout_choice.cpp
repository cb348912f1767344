// Memory order and vector width from recorded accesses (layout_choice.h).
#include "kernelgen/layout_choice.h"

#include <algorithm>
#include <cstdlib>

namespace fusebox::kernelgen {

std::vector<int> memoryOrder(const std::vector<int64_t>& sizes,
                             const std::vector<Access>& accesses) {
  const Access* dominant = nullptr;
  for (const Access& a : accesses)
    if (!a.is_output && a.offset.affine &&
        (dominant == nullptr || a.max_offset > dominant->max_offset))
      dominant = &a;
  std::vector<int> order;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) order.push_back(static_cast<int>(d));
  if (dominant != nullptr)
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const int64_t ca = std::llabs(dominant->offset.a.coef[static_cast<size_t>(a)]);
      const int64_t cb = std::llabs(dominant->offset.a.coef[static_cast<size_t>(b)]);
      if ((ca == 0) != (cb == 0)) return ca == 0;  // unmoved dims outermost
      return ca > cb;
    });
  return order;
}

int vectorWidthAlong(const std::vector<int64_t>& sizes, const std::vector<Access>& accesses,
                     int inner) {
  const auto d = static_cast<size_t>(inner);
  int width = 16;
  bool any = false;
  for (const Access& a : accesses)
    if (!a.conditional && a.offset.affine && a.offset.a.coef[d] == 1) {
      width = std::min<int>(width, static_cast<int>(16 / a.element_size));
      any = true;
    }
  if (!any) return 1;
  auto fits = [&](int v) {
    if (sizes[d] % v != 0) return false;
    for (const Access& a : accesses) {
      if (a.conditional || !a.offset.affine || a.offset.a.coef[d] != 1) continue;
      if (a.alignment <= 0 || a.alignment % (v * a.element_size) != 0 || a.offset.a.c % v != 0)
        return false;
      for (size_t k = 0; k < sizes.size(); ++k)
        if (k != d && a.offset.a.coef[k] % v != 0) return false;
    }
    return true;
  };
  while (width > 1 && !fits(width)) width /= 2;
  return width;
}

}  // namespace fusebox::kernelgen

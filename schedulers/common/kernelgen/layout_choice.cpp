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

namespace {

int64_t residue(int64_t x, int64_t m) {
  const int64_t r = x % m;
  return r < 0 ? r + m : r;
}

// Whether `a` walks `inner` contiguously, without run-time terms.
bool contiguousAlong(const Access& a, int inner) {
  return !a.conditional && a.offset.affine && !a.offset.a.c_param && a.offset.a.terms.empty() &&
         a.offset.a.coef[static_cast<size_t>(inner)] == 1;
}

bool congruent(const AlignedBody& body, const Affine& a, int inner) {
  if (a.c_param || !a.terms.empty() || residue(a.c, body.width) != body.c_residue) return false;
  for (size_t k = 0; k < a.coef.size(); ++k)
    if (static_cast<int>(k) != inner && residue(a.coef[k], body.width) != body.coef_residues[k])
      return false;
  return true;
}

}  // namespace

bool AlignedBody::aligns(const Affine& a, int64_t element_size, int64_t alignment,
                         int inner) const {
  if (width <= 1 || a.coef.size() != coef_residues.size() ||
      a.coef[static_cast<size_t>(inner)] != 1)
    return false;
  const int64_t bytes = width * element_size;
  return bytes <= 16 && alignment > 0 && alignment % bytes == 0 && congruent(*this, a, inner);
}

AlignedBody alignedBodyAlong(const std::vector<Access>& accesses, int inner) {
  const Access* lead = nullptr;
  for (const Access& a : accesses)
    if (!a.is_output && contiguousAlong(a, inner) &&
        (lead == nullptr || a.max_offset > lead->max_offset))
      lead = &a;
  if (lead == nullptr) return {};
  for (int width = static_cast<int>(16 / lead->element_size); width > 1; width /= 2) {
    AlignedBody body;
    body.width = width;
    for (int64_t c : lead->offset.a.coef) body.coef_residues.push_back(residue(c, width));
    body.c_residue = residue(lead->offset.a.c, width);
    if (!body.aligns(lead->offset.a, lead->element_size, lead->alignment, inner)) continue;
    // A congruent access of wider elements caps the width, as whole-row
    // vectors are capped, rather than going element by element.
    bool fits = true;
    for (const Access& a : accesses)
      if (contiguousAlong(a, inner) && congruent(body, a.offset.a, inner))
        fits &= width * a.element_size <= 16;
    if (fits) return body;
  }
  return {};
}

}  // namespace fusebox::kernelgen

// Rows with a scalar edge (row_edge_code.h).
#include "kernelgen/row_edge_code.h"

#include <fmt/format.h>

namespace fusebox::kernelgen {

void declareRowEdge(kir::Block& out, const std::vector<int>& kept_dims, const AlignedBody& body,
                    int64_t extent) {
  const kir::Value V = kir::lit(body.width);
  kir::Value start;
  auto add = [&start](const kir::Value& term) { start = start.defined() ? start + term : term; };
  if (body.c_residue != 0) add(kir::lit(body.c_residue));
  for (int d : kept_dims) {
    const int64_t r = body.coef_residues.at(static_cast<size_t>(d));
    if (r == 0) continue;
    const kir::Value i = kir::asIndex(kir::var(fmt::format("i{}", d))) % V;
    add(r == 1 ? i : i * kir::lit(r));
  }
  if (!start.defined()) start = kir::lit(0);
  const kir::Value head =
      out.declare("head", kir::indexType(), (V - start % V) % V, {.is_const = true});
  const kir::Value end = out.declare(
      "body_end", kir::indexType(), head + (kir::lit(extent) - head) / V * V, {.is_const = true});
  out.declare("edge_count", kir::indexType(), head + kir::lit(extent) - end, {.is_const = true});
}

std::function<bool(const ElementRef&)> vectorsAlignedBy(const AlignedBody& body, int inner) {
  return [body, inner](const ElementRef& ref) {
    return ref.offset.affine &&
           body.aligns(ref.offset.a, dataTypeSize(ref.tv->dtype()), ref.alignment, inner);
  };
}

kir::Value edgePosition(const kir::Value& e) {
  const kir::Value head = kir::var("head", kir::indexType());
  return kir::select(e < head, e, kir::var("body_end", kir::indexType()) + (e - head));
}

}  // namespace fusebox::kernelgen

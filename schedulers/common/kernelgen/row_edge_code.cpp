// Rows with a scalar edge (row_edge_code.h).
#include "kernelgen/row_edge_code.h"

#include <fmt/format.h>

namespace fusebox::kernelgen {

void declareRowEdge(kir::Block& out, const std::vector<int>& kept_dims,
                    const std::vector<int64_t>& coef_residues, int64_t const_residue, int width,
                    int64_t extent) {
  const kir::Value V = kir::lit(width);
  kir::Value start;
  auto add = [&start](const kir::Value& term) { start = start.defined() ? start + term : term; };
  if (const_residue != 0) add(kir::lit(const_residue));
  for (int d : kept_dims) {
    const int64_t r = coef_residues.at(static_cast<size_t>(d));
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

kir::Value edgePosition(const kir::Value& e) {
  const kir::Value head = kir::var("head", kir::indexType());
  return kir::select(e < head, e, kir::var("body_end", kir::indexType()) + (e - head));
}

}  // namespace fusebox::kernelgen

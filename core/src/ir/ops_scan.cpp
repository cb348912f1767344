// Scans (cumsum, cumprod, cummax, cummin) and triu, the ops whose value at a
// position depends on where it is along a dim.
#include <fmt/format.h>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

TensorView* scan(ReductionOpType op, TensorView* x, int64_t dim) {
  const std::string name = pyOp(scanName(op));
  requirePresent(x, name, "input");
  FUSEBOX_USER_CHECK(x->nDims() > 0, "{}: the input {} has rank 0; it needs a dim to scan", name,
                     describe(x));
  const int64_t d = normalizeDim(dim, x->nDims(), name.c_str());
  // torch: cumsum and cumprod of bool and integers accumulate (and return) int64.
  const bool widens = op == ReductionOpType::Sum || op == ReductionOpType::Prod;
  const DataType dtype = widens && !isFloatingType(x->dtype()) ? DataType::Int64 : x->dtype();
  Fusion& f = *x->fusion();
  std::vector<IterDomain*> domain;
  auto in = x->logicalNoReductions();
  for (int64_t k = 0; k < x->nDims(); ++k)
    domain.push_back(k == d ? materializedDomain(in[k]) : cloneDomain(in[k]));
  auto* out = f.newTensor(std::move(domain), dtype);
  f.newExpr(OpType::Scan, {x}, {out}, ScanAttr{op, d});
  return out;
}

TensorView* triu(TensorView* x, Val* diagonal) {
  const std::string name = pyOp("triu");
  requirePresent(x, name, "input");
  Scalar* k = requireIntScalar(diagonal, name, "diagonal");
  fusionOf({x, k}, name);
  FUSEBOX_USER_CHECK(x->nDims() >= 2,
                     "{}: the input {} has rank {}; triu needs at least 2 dims (a matrix or a "
                     "batch of them)",
                     name, describe(x), x->nDims());
  // Keep x[..., i, j] where j - i >= diagonal: a pointwise mask from two
  // iotas, so kernels compute it like any elementwise op.
  Fusion& f = *x->fusion();
  auto position = [&](int64_t axis) {
    return iota(f, x->axis(axis)->logicalExtent(), f.zero(), f.one(), DataType::Int64);
  };
  TensorView* rows = broadcast(position(-2), {false, true});
  TensorView* cols = broadcast(position(-1), {true, false});
  TensorView* keep = binaryOp(BinaryOpType::Ge, sub(cols, rows), k);
  return where(keep, x, f.constant(int64_t{0}, x->dtype()));
}

}  // namespace fusebox

// matmul and linear with torch's shape rules: 1-D operands, broadcast batch dims.
#include <fmt/format.h>
#include <algorithm>

#include "ir/ops_internal.h"

namespace fusebox {

using namespace ops_detail;

namespace {

// Contraction dims must have the same size (no broadcasting).
void checkContraction(IterDomain* ka, IterDomain* kb, const std::string& op,
                      const std::string& a_name, const std::string& b_name) {
  auto ca = constInt(ka->logicalExtent()), cb = constInt(kb->logicalExtent());
  FUSEBOX_USER_CHECK(!ca || !cb || *ca == *cb,
                     "{}: contraction sizes differ: {} has K = {} but {} has K = {}", op, a_name,
                     *ca, b_name, *cb);
}

DataType floatingResult(const std::vector<TensorView*>& ts, const std::string& op) {
  std::vector<PromotionOperand> types;
  for (auto* t : ts) {
    FUSEBOX_USER_CHECK(isFloatingType(t->dtype()), "{}: expects floating-point operands, got {} {}",
                       op, pythonName(t->dtype()), describe(t));
    types.push_back({t->dtype(), true});
  }
  return resultType(types.data(), types.data() + types.size());
}

}  // namespace

TensorView* matmul(TensorView* a, TensorView* b) {
  const std::string name = pyOp("matmul");
  requirePresent(a, name, "first operand");
  requirePresent(b, name, "second operand");
  fusionOf({a, b}, name);
  auto da = a->logicalNoReductions(), db = b->logicalNoReductions();
  const int64_t ra = static_cast<int64_t>(da.size()), rb = static_cast<int64_t>(db.size());
  const std::string a_name = "a (" + describe(a) + ")", b_name = "b (" + describe(b) + ")";
  FUSEBOX_USER_CHECK(ra >= 1 && rb >= 1, "{}: both operands need rank >= 1, got {} and {}", name,
                     a_name, b_name);
  DataType dtype = floatingResult({a, b}, name);
  checkContraction(da[ra - 1], db[rb == 1 ? 0 : rb - 2], name, a_name, b_name);

  // Batch dims: all but the last two of each operand, right-aligned.
  const int64_t ba = std::max<int64_t>(ra - 2, 0), bb = std::max<int64_t>(rb - 2, 0);
  const int64_t batch = std::max(ba, bb);
  auto batchDims = [&](int64_t k) {
    int64_t ia = k - (batch - ba), ib = k - (batch - bb);
    return std::vector<IterDomain*>{ia >= 0 ? da[ia] : nullptr, ib >= 0 ? db[ib] : nullptr};
  };
  for (int64_t k = 0; k < batch; ++k) checkDimsAgree(batchDims(k), {a_name, b_name}, name, k, true);

  Fusion& f = *a->fusion();
  std::vector<IterDomain*> domain;
  for (int64_t k = 0; k < batch; ++k)
    domain.push_back(unifyDims(batchDims(k), {a_name, b_name}, name, k, true));
  if (ra >= 2) domain.push_back(cloneDomain(da[ra - 2]));  // M
  if (rb >= 2) domain.push_back(cloneDomain(db[rb - 1]));  // N
  auto* out = f.newTensor(std::move(domain), dtype);
  f.newExpr(OpType::Matmul, {a, b}, {out});
  return out;
}

TensorView* linear(TensorView* a, TensorView* weight, TensorView* bias) {
  const std::string name = pyOp("linear");
  requirePresent(a, name, "input");
  requirePresent(weight, name, "weight");
  std::vector<TensorView*> operands = {a, weight};
  if (bias != nullptr) operands.push_back(bias);
  fusionOf(std::vector<Val*>(operands.begin(), operands.end()), name);
  auto da = a->logicalNoReductions(), dw = weight->logicalNoReductions();
  const std::string a_name = "input (" + describe(a) + ")";
  const std::string w_name = "weight (" + describe(weight) + ")";
  FUSEBOX_USER_CHECK(!da.empty(), "{}: {} needs rank >= 1", name, a_name);
  FUSEBOX_USER_CHECK(dw.size() == 1 || dw.size() == 2, "{}: {} must have rank 1 or 2", name,
                     w_name);
  DataType dtype = floatingResult(operands, name);
  checkContraction(da.back(), dw.back(), name, a_name, w_name);
  if (bias != nullptr) {
    const std::string b_name = "bias (" + describe(bias) + ")";
    auto dbias = bias->logicalNoReductions();
    if (dw.size() == 1) {
      FUSEBOX_USER_CHECK(dbias.empty(), "{}: with a 1-D {} the {} must have rank 0", name, w_name,
                         b_name);
    } else {
      FUSEBOX_USER_CHECK(dbias.size() <= 1, "{}: {} must have rank 0 or 1", name, b_name);
      if (dbias.size() == 1)
        checkDimsAgree({dw[0], dbias[0]}, {w_name, b_name}, name,
                       static_cast<int64_t>(da.size()) - 1, /*broadcasting=*/true);
    }
  }
  Fusion& f = *a->fusion();
  std::vector<IterDomain*> domain;
  for (size_t k = 0; k + 1 < da.size(); ++k) domain.push_back(cloneDomain(da[k]));
  if (dw.size() == 2) domain.push_back(cloneDomain(dw[0]));  // N
  auto* out = f.newTensor(std::move(domain), dtype);
  f.newExpr(OpType::Linear, std::vector<Val*>(operands.begin(), operands.end()), {out});
  return out;
}

}  // namespace fusebox

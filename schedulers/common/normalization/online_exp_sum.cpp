// Max and exp-sum pairs (online_exp_sum.h).
#include "normalization/online_exp_sum.h"

#include <algorithm>

namespace fusebox::normalization {

namespace {

bool isReductionOf(const Expr* e, ReductionOpType op) {
  return e->op() == OpType::Reduction && e->attr<ReductionAttr>().op == op;
}

// `v` through the broadcasts and expands that spread a reduced value back
// over the row.
const Val* throughBroadcasts(const Val* v) {
  while (v->definition() != nullptr &&
         (v->definition()->op() == OpType::Broadcast || v->definition()->op() == OpType::Expand))
    v = v->definition()->input(0);
  return v;
}

}  // namespace

std::vector<OnlineExpSumPair> onlineExpSums(const NormalizationStructure& st) {
  std::vector<OnlineExpSumPair> pairs;
  const size_t n = st.reductions.size();
  for (size_t s = 0; s < n; ++s) {
    const Expr* sum = st.reductions[s];
    if (!isReductionOf(sum, ReductionOpType::Sum) || st.stage[s] == 0) continue;
    if (std::count(st.stage.begin(), st.stage.end(), st.stage[s]) != 1) continue;
    const Expr* exp = sum->input(0)->definition();
    if (exp == nullptr || exp->op() != OpType::Unary ||
        exp->attr<UnaryOpType>() != UnaryOpType::Exp)
      continue;
    const Expr* diff = exp->input(0)->definition();
    if (diff == nullptr || diff->op() != OpType::Binary ||
        diff->attr<BinaryOpType>() != BinaryOpType::Sub)
      continue;
    const Val* y = diff->input(0);
    const Val* max_out = throughBroadcasts(diff->input(1));
    for (size_t m = 0; m < n; ++m) {
      const Expr* max = st.reductions[m];
      if (st.stage[m] + 1 != st.stage[s] || !isReductionOf(max, ReductionOpType::Max) ||
          max->output(0) != max_out || max->input(0) != y)
        continue;
      const DataType t = y->dtype();
      if ((t != DataType::Float && t != DataType::Double) || max->output(0)->dtype() != t ||
          diff->output(0)->dtype() != t || exp->output(0)->dtype() != t ||
          sum->output(0)->dtype() != t)
        continue;
      pairs.push_back({m, s, exp});
    }
  }
  return pairs;
}

}  // namespace fusebox::normalization

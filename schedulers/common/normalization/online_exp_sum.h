// A max and the sum of exp(x - that max) computed in one pass over the row
// (fusebox_runtime/online_exp_sum.cuh) instead of one pass each: the pairs
// a segment has, which the row kernel merges when its passes read the row
// again from memory (persistent_buffers = "reload").
#pragma once

#include <cstddef>
#include <vector>

#include "normalization/structure.h"

namespace fusebox::normalization {

struct OnlineExpSumPair {
  size_t max = 0;  // the max reduction (index into NormalizationStructure::reductions)
  size_t sum = 0;  // the sum of exp(max's input - the max), the next stage's only reduction
  const Expr* exp = nullptr;  // that exp
};

// Pairs whose max and sum are floating, reduce the same tensor's values
// (the sum's input is exp(Y - broadcast(max(Y))) with the max's own input
// Y, in one dtype), and whose sum is alone in its stage, so that merging
// removes that stage's pass.
std::vector<OnlineExpSumPair> onlineExpSums(const NormalizationStructure& st);

}  // namespace fusebox::normalization

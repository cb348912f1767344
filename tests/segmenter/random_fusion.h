// Random fusions for the segmenter: pointwise ops and keepdim sums over 2-D
// tensors, whose operands are drawn from everything made so far, so they are
// full of diamonds and long skip edges (where merging neighbours naively would
// close cycles).
#pragma once

#include <fusebox/ir/ops.h>

#include <memory>
#include <random>
#include <vector>

namespace fusebox::segmenter_testing {

struct RandomFusionOptions {
  int64_t exprs = 20;
  double reduction_probability = 0.2;
  int64_t extra_outputs = 2;
};

inline std::unique_ptr<Fusion> randomFusion(uint32_t seed, const RandomFusionOptions& o = {}) {
  std::mt19937 rng(seed);
  auto f = std::make_unique<Fusion>();
  std::vector<TensorView*> made = {defineSymbolicTensor(*f, 2), defineSymbolicTensor(*f, 2)};
  // Operands lean towards recent tensors but reach back anywhere.
  auto pick = [&]() {
    std::geometric_distribution<size_t> back(0.35);
    size_t k = std::min(back(rng), made.size() - 1);
    return made[made.size() - 1 - k];
  };
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t i = 0; i < o.exprs; ++i) {
    double r = unit(rng);
    TensorView* out = nullptr;
    if (r < o.reduction_probability) {
      out = sum(pick(), {1}, /*keepdim=*/true);  // [i, 1]: broadcasts back against [i, j]
    } else if (r < 0.5) {
      out = unit(rng) < 0.5 ? tanh(pick()) : neg(pick());
    } else {
      TensorView* a = pick();
      TensorView* b = pick();
      out = unit(rng) < 0.5 ? add(a, b) : mul(a, b);
    }
    made.push_back(out);
  }
  f->addOutput(made.back());
  std::uniform_int_distribution<size_t> any(2, made.size() - 1);
  for (int64_t i = 0; i < o.extra_outputs && made.size() > 3; ++i) {
    TensorView* t = made[any(rng)];
    if (!t->isFusionOutput()) f->addOutput(t);
  }
  return f;
}

}  // namespace fusebox::segmenter_testing

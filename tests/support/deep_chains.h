// Fusions that are long chains of dependent ops, for the tests that every walk
// over the IR (hashing, the verifier, printers, the evaluator, segmentation,
// code generation) keeps its own stack instead of recursing: each chain is
// kDeepChainLength expressions long, far past what a recursive walk survives
// (about 14,000 overflowed an 8 MB stack), and each has a closed-form result.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusebox::deep_chains {

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer builds (Debug, every allocation tracked) run these chains
// about 20 times slower; 20,000 expressions are still past the depth that
// overflowed the stack before the walks were made iterative.
constexpr int64_t kDeepChainLength = 20000;
#else
constexpr int64_t kDeepChainLength = 100000;
#endif
// Chains run through the whole pipeline on the host backend: at 100,000
// expressions that takes 15 s to a minute per chain on a 2-core machine
// (docs/perf.md), mostly compiling one 200,000-line kernel; 20,000 is still
// past the depth that overflowed the stack.
constexpr int64_t kHostChainLength = 20000;

// T0 float[2, 3] negated n times: T0 again when n is even.
inline std::unique_ptr<Fusion> negChain(int64_t n) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {2, 3}, DataType::Float);
  for (int64_t k = 0; k < n; ++k) t = neg(t);
  f->addOutput(t);
  return f;
}

// An int scalar input S0, then n scalar ops alternately adding 3 and
// subtracting 2, added to T0 float[2, 3]: T0 + S0 + (n / 2) for even n.
inline std::unique_ptr<Fusion> scalarChain(int64_t n) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {2, 3}, DataType::Float);
  Val* s = defineScalar(*f, DataType::Int64);
  for (int64_t k = 0; k < n; ++k)
    s = k % 2 == 0 ? add(s, f->constantInt(3)) : sub(s, f->constantInt(2));
  f->addOutput(add(t, s));
  return f;
}

// T0 float[2, 3, 4] permuted by [1, 2, 0] n times: one such permute when n
// is 1 modulo 3.
inline std::unique_ptr<Fusion> permuteChain(int64_t n) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {2, 3, 4}, DataType::Float);
  for (int64_t k = 0; k < n; ++k) t = permute(t, {1, 2, 0});
  f->addOutput(t);
  return f;
}

// T0 float[-1, 1] through n expressions that alternate a sum over the
// size-1 dim (kept as a broadcast: two expressions) and a negation, so
// reductions and pointwise ops alternate along the chain: T0 times (-1) to
// the number of negations.
inline std::unique_ptr<Fusion> sumNegChain(int64_t n) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {-1, 1}, DataType::Float);
  for (int64_t k = 0; k + 3 <= n; k += 3) t = neg(sum(t, {1}, /*keepdim=*/true));
  f->addOutput(t);
  return f;
}

inline int64_t sumNegNegations(int64_t n) {
  return n / 3;
}

// T0 float[2, 3] reshaped to [6], [3, 2], [6], [2, 3], ... n times (sizes
// given as constants): the same row-major values, of shape [6] when n is odd.
inline std::unique_ptr<Fusion> reshapeChain(int64_t n) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {2, 3}, DataType::Float);
  const std::vector<std::vector<int64_t>> shapes = {{6}, {3, 2}, {6}, {2, 3}};
  for (int64_t k = 0; k < n; ++k) {
    std::vector<Val*> shape;
    for (int64_t s : shapes[k % 4]) shape.push_back(f->constantInt(s));
    t = reshape(t, shape);
  }
  f->addOutput(t);
  return f;
}

// T0 float[-1, -1] reshaped to [T.size(1), -1] again and again: each inferred
// extent is (a * b) / b of the previous extents a and b, so the extents form a
// graph in which every level reuses the one before twice (written out as
// trees, they double in size with every reshape). Each reshape is three
// expressions (the product, the quotient, the reshape): n / 3 reshapes.
inline int64_t symbolicReshapes(int64_t n) { return n / 3; }

inline std::unique_ptr<Fusion> symbolicReshapeChain(int64_t n) {
  auto f = std::make_unique<Fusion>();
  TensorView* t = defineTensor(*f, {-1, -1}, DataType::Float);
  for (int64_t k = 0; k < symbolicReshapes(n); ++k)
    t = reshape(t, {t->axis(1)->extent(), f->constantInt(-1)});
  f->addOutput(t);
  return f;
}

// A float tensor of `sizes` holding 0.5 * (k - 3) + salt at row-major position k.
inline Tensor sampleInput(const std::vector<int64_t>& sizes, double salt = 0) {
  Tensor t = Tensor::empty(DataType::Float, sizes);
  const int64_t n = t.numel();
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    t.setDouble(index, 0.5 * static_cast<double>(k - 3) + salt);
  }
  return t;
}

// A chain with inputs and its output in closed form.
struct Expected {
  std::vector<int64_t> sizes;
  std::vector<double> values;  // row-major
};
struct DeepChain {
  std::string name;
  std::function<std::unique_ptr<Fusion>(int64_t)> make;
  std::vector<Argument> inputs;
  std::function<Expected(int64_t)> expected;  // for a chain of that length
  // The length the FusionRuntime tests use on the eval backend.
  int64_t runtime_length = kDeepChainLength;
};

inline std::vector<double> scaled(const Tensor& t, double factor, double offset = 0) {
  std::vector<double> v = t.toDoubles();
  for (double& x : v) x = x * factor + offset;
  return v;
}

inline const std::vector<DeepChain>& allDeepChains() {
  static const std::vector<DeepChain> chains = [] {
    std::vector<DeepChain> c;
    const Tensor x23 = sampleInput({2, 3});
    c.push_back({"neg", negChain, {x23}, [x23](int64_t n) {
                   return Expected{{2, 3}, scaled(x23, n % 2 == 0 ? 1 : -1)};
                 }});
    c.push_back({"scalar", scalarChain, {x23, ScalarValue(int64_t{7})}, [x23](int64_t n) {
                   const int64_t s = 7 + 3 * ((n + 1) / 2) - 2 * (n / 2);
                   return Expected{{2, 3}, scaled(x23, 1, static_cast<double>(s))};
                 }});
    const Tensor x234 = sampleInput({2, 3, 4});
    c.push_back({"permute", permuteChain, {x234}, [x234](int64_t n) {
                   // Each permute by [1, 2, 0] moves dim 0 last: a strided view does it.
                   std::vector<int64_t> sizes = x234.sizes(), strides = x234.strides();
                   for (int64_t k = 0; k < n % 3; ++k) {
                     std::rotate(sizes.begin(), sizes.begin() + 1, sizes.end());
                     std::rotate(strides.begin(), strides.begin() + 1, strides.end());
                   }
                   return Expected{sizes, x234.asStrided(sizes, strides, 0).toDoubles()};
                 }});
    const Tensor x41 = sampleInput({4, 1});
    // Two segments per three expressions, each scheduled and run on its own:
    // 66,666 of them took 30 s through the runtime (docs/perf.md).
    c.push_back({"sum/neg", sumNegChain, {x41},
                 [x41](int64_t n) {
                   return Expected{{4, 1}, scaled(x41, sumNegNegations(n) % 2 == 0 ? 1 : -1)};
                 },
                 kHostChainLength});
    c.push_back({"reshape", reshapeChain, {x23}, [x23](int64_t n) {
                   const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {6}, {3, 2}, {6}};
                   return Expected{shapes[n % 4], x23.toDoubles()};
                 }});
    const Tensor x35 = sampleInput({3, 5});
    c.push_back({"symbolic reshape", symbolicReshapeChain, {x35}, [x35](int64_t n) {
                   return Expected{symbolicReshapes(n) % 2 == 0 ? std::vector<int64_t>{3, 5}
                                                                : std::vector<int64_t>{5, 3},
                                   x35.toDoubles()};
                 }});
    return c;
  }();
  return chains;
}

// For INSTANTIATE_TEST_SUITE_P over allDeepChains(): the chain's name as a
// test name ("sum/neg" -> "sum_neg").
inline std::string chainTestName(size_t index) {
  std::string name = allDeepChains().at(index).name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace fusebox::deep_chains

// Helpers for the evaluator tests: building host tensors from values, running a
// fusion, reading outputs back, and capturing UserError messages.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>
#include <fusebox/tensor.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fusebox::test {

// A row-major tensor holding `values` (converted to dtype as the evaluator stores).
inline Tensor makeTensor(DataType dtype, std::vector<int64_t> sizes,
                         const std::vector<double>& values) {
  Tensor t = Tensor::empty(dtype, sizes);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "makeTensor: wrong value count";
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i);
    for (size_t d = sizes.size(); d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    t.setDouble(index, values[i]);
  }
  return t;
}

inline Tensor makeFloat(std::vector<int64_t> sizes, const std::vector<double>& values) {
  return makeTensor(DataType::Float, std::move(sizes), values);
}

// 0, 1, 2, ... n-1 (as doubles).
inline std::vector<double> arange(int64_t n, double start = 0.0, double step = 1.0) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + step * static_cast<double>(i));
  return v;
}

inline std::vector<Argument> run(const Fusion& f, const std::vector<Argument>& inputs,
                                 const EvaluatorOptions& options = {}) {
  return evaluateFusion(f, inputs, options);
}

// The single tensor output of running `f`.
inline Tensor runOne(const Fusion& f, const std::vector<Argument>& inputs) {
  auto outs = evaluateFusion(f, inputs);
  EXPECT_EQ(outs.size(), 1u);
  return std::get<Tensor>(outs.at(0));
}

inline const Tensor& tensorOf(const Argument& a) {
  return std::get<Tensor>(a);
}

// Every element in row-major order.
inline std::vector<double> valuesOf(const Tensor& t) {
  return t.toDoubles();
}
inline std::vector<double> valuesOf(const Argument& a) {
  return tensorOf(a).toDoubles();
}

// Value of a float computed in double and rounded to float, as the evaluator stores it.
inline double asFloat(double v) {
  return static_cast<double>(static_cast<float>(v));
}

template <class F>
std::string userErrorMessage(F&& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a UserError: ") + e.what() + ">";
  }
  return "<no exception>";
}

// EXPECT_USER_ERROR(statement, HasSubstr("..."), ...): the statement throws a
// UserError whose message matches every matcher.
#define EXPECT_USER_ERROR(statement, ...) \
  EXPECT_THAT(::fusebox::test::userErrorMessage([&] { statement; }), ::testing::AllOf(__VA_ARGS__))

// Elementwise comparison with a relative/absolute tolerance; NaNs must match NaNs.
inline void expectNear(const std::vector<double>& got, const std::vector<double>& want,
                       double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i] << ", want nan";
      continue;
    }
    if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "element " << i;
  }
}

}  // namespace fusebox::test

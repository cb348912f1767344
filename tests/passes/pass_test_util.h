// Helpers for the pass tests: the real pass plugins loaded from the build tree,
// running one on a fusion (keeping a copy of the fusion before), comparing IR
// with a hand-built expectation, and comparing evaluator results.
#pragma once

#include <fusebox/config.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>
#include <fusebox/ir/printer.h>
#include <fusebox/ir/verifier.h>
#include <fusebox/pass.h>
#include <fusebox/plugin/plugin_registry.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/output_match.h"
#include "support/row_major_fill.h"

#include <filesystem>
#include <memory>

namespace fusebox::pass_testing {

inline const PluginRegistry& builtinPasses() {
  static const PluginRegistry registry = [] {
    PluginRegistry r;
    r.discover({{std::filesystem::path(FUSEBOX_BINARY_DIR) / "lib/fusebox/plugins", {}}});
    return r;
  }();
  return registry;
}

struct Applied {
  std::unique_ptr<Fusion> before;  // a copy taken before the pass ran
  bool changed;
};

// Runs pass `name` (from its plugin) on `f` and checks the result is valid.
inline Applied applyPass(const std::string& name, Fusion& f, const OptionSettings& options = {}) {
  auto pass = builtinPasses().createPass(name);
  pass->configure(options);
  Applied a{f.clone(), pass->run(f)};
  auto problems = findFusionProblems(f);
  EXPECT_TRUE(problems.empty()) << "invalid fusion after " << name << ":\n"
                                << ::testing::PrintToString(problems) << "\n"
                                << printFusion(f);
  // Whatever it claims, the structural hash must agree.
  EXPECT_EQ(a.changed, f.structuralHash() != a.before->structuralHash()) << name;
  return a;
}

inline void expectSameIr(const Fusion& actual, const Fusion& expected) {
  std::string why;
  EXPECT_TRUE(Fusion::structurallyEqual(actual, expected, &why))
      << why << "\n--- actual:\n"
      << printFusion(actual, {true}) << "--- expected:\n"
      << printFusion(expected, {true});
}

// The tensor ops in order, by name: "broadcast cast squeeze cast".
inline std::string opsOf(const Fusion& f) {
  std::string s;
  for (Expr* e : f.tensorExprs()) s += (s.empty() ? "" : " ") + e->opName();
  return s;
}

// A tensor of `sizes` whose values are small, exactly representable in every
// floating dtype, and differ between neighbours; laid out by `stride_order`.
inline Tensor sampleTensor(DataType dtype, const std::vector<int64_t>& sizes,
                           const std::vector<int64_t>& stride_order = {}, int salt = 0) {
  Tensor t = stride_order.empty() ? Tensor::empty(dtype, sizes)
                                  : Tensor::emptyWithStrideOrder(dtype, sizes, stride_order);
  testing::fillRowMajor(t, [&](int64_t linear) {
    double v = static_cast<double>((linear * 7 + salt * 3) % 13 - 6);
    if (isFloatingType(dtype)) v *= 0.25;
    if (isBoolType(dtype)) v = v > 0 ? 1 : 0;
    return v;
  });
  return t;
}

// Same outputs from `before` and `after` on `inputs`: dtype, sizes, every value
// bit for bit (NaN equals NaN; -0.0 is not 0.0; integers as integers) and,
// unless `compare_strides` is false, the memory layout.
inline void expectSameResults(const Fusion& before, const Fusion& after,
                              const std::vector<Argument>& inputs, bool compare_strides = true) {
  auto want = evaluateFusion(before, inputs);
  auto got = evaluateFusion(after, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(testing::matchesExactly(got[i], want[i])) << "output " << i;
    const auto* g = std::get_if<Tensor>(&got[i]);
    const auto* w = std::get_if<Tensor>(&want[i]);
    if (compare_strides && g != nullptr && w != nullptr && g->sizes() == w->sizes()) {
      EXPECT_EQ(g->strides(), w->strides()) << "output " << i;
    }
  }
}

}  // namespace fusebox::pass_testing

// Properties every segmentation must have, on many fusions (random ones full
// of diamonds, every example and corpus file): each tensor expression in
// exactly one group (or forwarded into the groups that read it), groups in
// run order with no cycle, every group input available when the group runs,
// the same result on every run, and the same outputs as the complete fusion.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <set>

#include "random_fusion.h"
#include "segmenter_test_util.h"
#include "support/row_major_fill.h"

namespace fusebox {
namespace {

using namespace segmenter_testing;

Tensor ramp(std::vector<int64_t> sizes, int salt) {
  Tensor x = Tensor::empty(DataType::Float, sizes);
  testing::fillRowMajor(
      x, [&](int64_t i) { return static_cast<double>((i * 3 + salt) % 9 - 4) * 0.125; });
  return x;
}

void expectWellFormed(const SegmentedFusion& sf, const std::string& context) {
  const Fusion& f = sf.complete();
  std::set<const Expr*> seen, forwarded;
  std::set<const Val*> available(f.inputs().begin(), f.inputs().end());
  for (size_t i = 0; i < sf.groups().size(); ++i) {
    const auto& g = sf.groups()[i];
    EXPECT_EQ(g.id, static_cast<int64_t>(i)) << context;
    EXPECT_FALSE(g.exprs.empty()) << context;
    for (const Expr* e : g.exprs) {
      EXPECT_TRUE(seen.insert(e).second) << context << ": an expression is in two groups";
      EXPECT_EQ(sf.groupOf(e), g.id) << context;
    }
    // A forwarded expression is recomputed from fusion inputs: it belongs to
    // no group and no group passes its value on.
    for (const Expr* e : g.forwarded) {
      forwarded.insert(e);
      EXPECT_EQ(sf.groupOf(e), -1) << context;
      for (const Val* in : e->inputs())
        EXPECT_TRUE(!in->isTensor() || in->isFusionInput() ||
                    std::find(g.forwarded.begin(), g.forwarded.end(), in->definition()) !=
                        g.forwarded.end())
            << context << ": forwarded " << e->opName() << " reads a non-input";
      for (const Val* out : e->outputs())
        EXPECT_TRUE(std::find(g.inputs.begin(), g.inputs.end(), out) == g.inputs.end()) << context;
    }
    for (const Val* v : g.inputs)
      EXPECT_TRUE(v->isScalar() || available.count(v))
          << context << ": group " << g.id << " reads " << v->toString()
          << " before any group produced it";
    for (const Val* v : g.outputs) available.insert(v);
    EXPECT_EQ(g.fusion->inputs().size(), g.inputs.size()) << context;
    EXPECT_EQ(g.fusion->outputs().size(), g.outputs.size()) << context;
  }
  auto all = f.tensorExprs();
  for (const Expr* e : forwarded) EXPECT_FALSE(seen.count(e)) << context;
  EXPECT_EQ(seen.size() + forwarded.size(), all.size())
      << context << ": every tensor expression is in a group or forwarded into its readers'";
  for (const Val* out : f.outputs())
    EXPECT_TRUE(out->isScalar() || available.count(out)) << context << ": " << out->toString();

  // The group graph is a DAG: edges point forward in run order, and
  // boost::topological_sort agrees.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph graph(sf.groups().size());
  for (const auto& e : sf.edges()) {
    EXPECT_LT(e.from, e.to) << context;
    boost::add_edge(e.from, e.to, graph);
  }
  std::vector<Graph::vertex_descriptor> order;
  EXPECT_NO_THROW(boost::topological_sort(graph, std::back_inserter(order))) << context;
}

std::vector<Argument> randomInputs() {
  return {ramp({3, 5}, 1), ramp({3, 5}, 2)};
}

TEST(SegmenterProperties, RandomFusionsFullOfDiamondsNeverYieldACycleAndRunCorrectly) {
  int64_t split = 0;
  for (uint32_t seed = 0; seed < 80; ++seed) {
    RandomFusionOptions options;
    options.exprs = 6 + seed % 35;
    auto f = randomFusion(seed, options);
    Segmenter segmenter(schedulersNamed({"pointwise_only", "single_reduction"}));
    FusionRuntimeFacts facts = factsFor(*f, randomInputs());
    auto sf = segmenter.segment(*f, facts);
    const std::string context = "seed " + std::to_string(seed);
    expectWellFormed(*sf, context);
    split += sf->groups().size() > 1;
    expectSameOutputs(runSegments(*f, segmentsOf(*sf), randomInputs()),
                      evaluateFusion(*f, randomInputs()), context);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << context << "\n" << sf->toString();
      return;
    }
  }
  EXPECT_GT(split, 60);  // the property was tested on real splits
}

TEST(SegmenterProperties, EveryDefinitionSegmentsIntoAWellFormedGraphThatRunsCorrectly) {
  int64_t segmented = 0;
  for (const auto& path : definitionFiles()) {
    Program p = loadProgram(path);
    Segmenter segmenter(schedulersNamed({"pointwise_only", "single_reduction"}));
    FusionRuntimeFacts facts = factsFor(p.fusion(), p.inputs());
    std::unique_ptr<SegmentedFusion> sf;
    try {
      sf = segmenter.segment(p.fusion(), facts);
    } catch (const UserError& e) {
      // Only expressions neither test scheduler takes may stop it.
      std::string m = e.what();
      EXPECT_TRUE(m.find("var") != std::string::npos || m.find("welford") != std::string::npos ||
                  m.find("matmul") != std::string::npos || m.find("linear") != std::string::npos)
          << p.name << ": " << m;
      continue;
    }
    ++segmented;
    expectWellFormed(*sf, p.name);
    expectSameOutputs(runSegments(p.fusion(), segmentsOf(*sf), p.inputs()),
                      evaluateFusion(p.fusion(), p.inputs()), p.name);
  }
  EXPECT_GE(segmented, 15);
}

TEST(SegmenterProperties, SegmentationIsTheSameOnEveryRun) {
  std::vector<std::unique_ptr<Fusion>> randoms;
  for (uint32_t seed : {3u, 17u, 42u}) {
    RandomFusionOptions options;
    options.exprs = 40;
    randoms.push_back(randomFusion(seed, options));
  }
  Program gelu = loadExample("gelu_bias_grad.py");
  std::vector<std::pair<const Fusion*, std::vector<Argument>>> cases = {
      {&gelu.fusion(), gelu.inputs()}};
  for (const auto& f : randoms) cases.push_back({f.get(), randomInputs()});
  for (const auto& [f, inputs] : cases) {
    std::string first_dump, first_log;
    std::vector<std::vector<Expr*>> first_groups;
    std::unique_ptr<Segmenter> shared;
    for (int run = 0; run < 20; ++run) {
      // A fresh segmenter every other run: its caches must not change the answer.
      if (run % 2 == 0)
        shared = std::make_unique<Segmenter>(
            schedulersNamed({"throws_always", "pointwise_only", "single_reduction"}));
      FusionRuntimeFacts facts = factsFor(*f, inputs);
      std::vector<SegmenterLogEntry> log;
      auto sf = shared->segment(*f, facts, &log);
      std::vector<std::vector<Expr*>> groups;
      for (const auto& g : sf->groups()) groups.push_back(g.exprs);
      if (run == 0) {
        first_dump = sf->toString();
        first_log = formatSegmenterLog(log);
        first_groups = groups;
        continue;
      }
      EXPECT_EQ(groups, first_groups) << "run " << run;
      EXPECT_EQ(sf->toString(), first_dump) << "run " << run;
      EXPECT_EQ(formatSegmenterLog(log), first_log) << "run " << run;
    }
  }
}

}  // namespace
}  // namespace fusebox

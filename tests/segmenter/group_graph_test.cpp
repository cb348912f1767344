// GroupGraph (core/src/segment): on random DAGs, the cycle check agrees with a
// brute-force search, and after any sequence of merges the maintained order
// is still topological, the run order too, and the groups partition the
// expressions.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "segment/group_graph.h"

namespace fusebox::segment_detail {
namespace {

// Is `to` reachable from `from` without using the direct edge from -> to?
bool otherPath(const GroupGraph& g, int64_t from, int64_t to) {
  std::vector<int64_t> stack;
  std::set<int64_t> seen;
  for (int64_t s : g.successors(from))
    if (s != to) stack.push_back(s);
  while (!stack.empty()) {
    int64_t x = stack.back();
    stack.pop_back();
    if (x == to) return true;
    if (!seen.insert(x).second) continue;
    for (int64_t s : g.successors(x)) stack.push_back(s);
  }
  return false;
}

void expectConsistent(const GroupGraph& g, int64_t n) {
  auto order = g.groupsInOrder();
  ASSERT_EQ(static_cast<int64_t>(order.size()), g.size());
  std::vector<int64_t> at(n, -1);
  for (size_t i = 0; i < order.size(); ++i) at[order[i]] = static_cast<int64_t>(i);
  auto run = g.runOrder();
  std::vector<int64_t> run_at(n, -1);
  for (size_t i = 0; i < run.size(); ++i) run_at[run[i]] = static_cast<int64_t>(i);
  std::set<int64_t> members;
  for (int64_t grp : order) {
    ASSERT_TRUE(g.alive(grp));
    EXPECT_EQ(g.members(grp).front(), grp);  // a group's id is its first expression
    for (int64_t e : g.members(grp)) {
      EXPECT_TRUE(members.insert(e).second);
      EXPECT_EQ(g.groupOf(e), grp);
    }
    for (int64_t s : g.successors(grp)) {
      EXPECT_LT(at[grp], at[s]) << "maintained order: " << grp << " -> " << s;
      EXPECT_LT(run_at[grp], run_at[s]) << "run order: " << grp << " -> " << s;
    }
  }
  EXPECT_EQ(static_cast<int64_t>(members.size()), n);
}

TEST(GroupGraph, RandomMergesKeepEveryOrderValidAndCycleChecksExact) {
  int64_t cycles = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    std::mt19937 rng(seed);
    const int64_t n = 10 + seed % 50;
    std::vector<std::pair<int64_t, int64_t>> edges;
    std::bernoulli_distribution near(0.5), far(0.06);
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = a + 1; b < n; ++b)
        if ((b - a <= 2 && near(rng)) || far(rng)) edges.emplace_back(a, b);
    GroupGraph g(n, edges);
    expectConsistent(g, n);
    int64_t merges = 0;
    for (int step = 0; step < 4 * n && g.size() > 1; ++step) {
      auto groups = g.groupsInOrder();
      int64_t p = groups[rng() % groups.size()];
      auto succ = g.successors(p);
      if (succ.empty()) continue;
      int64_t c = succ[rng() % succ.size()];
      int64_t via = g.cycleThrough(p, c);
      ASSERT_EQ(via >= 0, otherPath(g, p, c)) << "seed " << seed << " " << p << " -> " << c;
      if (via >= 0) {
        ++cycles;
        EXPECT_TRUE(g.hasEdge(via, c));
        continue;
      }
      int64_t survivor = g.merge(p, c);
      ++merges;
      EXPECT_EQ(survivor, std::min(p, c));
      ASSERT_NO_FATAL_FAILURE(expectConsistent(g, n)) << "seed " << seed << " step " << step;
    }
    EXPECT_GT(merges, 0);
  }
  EXPECT_GT(cycles, 20);  // the refusing side of the check was exercised too
}

TEST(GroupGraph, LevelsAreLongestPathsFromASource) {
  // 0 -> 1 -> 3, 0 -> 3, 2 -> 3
  GroupGraph g(4, {{0, 1}, {1, 3}, {0, 3}, {2, 3}});
  EXPECT_EQ(g.levels(), (std::vector<int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(g.cycleThrough(0, 3), 1);
  EXPECT_EQ(g.cycleThrough(1, 3), -1);
  EXPECT_EQ(g.merge(1, 3), 1);
  EXPECT_FALSE(g.alive(3));
  EXPECT_EQ(g.members(1), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(g.successors(0), std::vector<int64_t>{1});
  EXPECT_EQ(g.predecessors(1), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(g.levels(), (std::vector<int64_t>{0, 1, 0, -1}));
  EXPECT_EQ(g.runOrder(), (std::vector<int64_t>{0, 2, 1}));  // 1 waits for 2
}

}  // namespace
}  // namespace fusebox::segment_detail

// Runs of one fusion over many sizes with ShapeMode::Symbolic, grouped by
// HeuristicParams::sameAs: the property the runtime's reuse of compiled
// kernels relies on (params that compare equal give one kernel source).
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "support/scheduler_run.h"

namespace fusebox::test {

struct SourceClasses {
  size_t classes = 0;  // of sameAs
  size_t sources = 0;  // distinct kernel sources
};

// Expects every two runs whose params are sameAs to have the same source and
// hash, and no more distinct sources than classes; `labels` name the runs.
inline SourceClasses expectOneSourcePerClass(const std::vector<SchedulerRun>& runs,
                                             const std::vector<std::string>& labels) {
  std::vector<size_t> firsts;  // the first run of each class
  std::set<std::string> sources;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].heuristics == nullptr) {
      ADD_FAILURE() << labels[i] << ": no params (the scheduler rejected it)";
      continue;
    }
    sources.insert(runs[i].source);
    size_t c = 0;
    while (c < firsts.size() && !runs[firsts[c]].heuristics->sameAs(*runs[i].heuristics)) ++c;
    if (c == firsts.size()) {
      firsts.push_back(i);
      continue;
    }
    const SchedulerRun& first = runs[firsts[c]];
    EXPECT_TRUE(runs[i].heuristics->sameAs(*first.heuristics)) << labels[i];
    EXPECT_EQ(runs[i].heuristics->hash(), first.heuristics->hash()) << labels[i];
    EXPECT_EQ(runs[i].source, first.source)
        << labels[i] << " and " << labels[firsts[c]] << " have params that are sameAs";
  }
  EXPECT_LE(sources.size(), firsts.size());
  return {firsts.size(), sources.size()};
}

}  // namespace fusebox::test

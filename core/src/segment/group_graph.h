// The working graph of groups while segmenting: a Boost.Graph DAG with one
// vertex per tensor expression to begin with, and an edge wherever a group
// reads a tensor another group produces. Merging two groups contracts their
// edge into the surviving vertex (the one whose first expression comes
// first); the other vertex is left isolated and dead.
//
// Cycle checks must be cheap: the graph keeps a topological order of its
// groups and repairs it locally after every merge, so a search for a second
// path from a producer to its consumer only visits groups between the two in
// that order.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <vector>

namespace fusebox::segment_detail {

class GroupGraph {
 public:
  using Graph = boost::adjacency_list<boost::setS, boost::vecS, boost::bidirectionalS>;

  // `n` single-expression groups; edges (producer, consumer) between them.
  // Group i holds expression i; 0..n-1 must already be a topological order.
  GroupGraph(int64_t n, const std::vector<std::pair<int64_t, int64_t>>& edges);

  bool alive(int64_t g) const { return members_[g].size() > 0; }
  // Expression positions of a group, ascending. A group's id is its first.
  const std::vector<int64_t>& members(int64_t g) const { return members_[g]; }
  int64_t groupOf(int64_t expr) const { return group_of_[expr]; }
  // Bumped whenever the group changes (a refused merge is not retried on the
  // same two versions).
  int64_t version(int64_t g) const { return version_[g]; }
  // Living groups in the maintained topological order.
  std::vector<int64_t> groupsInOrder() const;
  int64_t size() const { return alive_count_; }
  std::vector<int64_t> successors(int64_t g) const;    // ascending
  std::vector<int64_t> predecessors(int64_t g) const;  // ascending
  bool hasEdge(int64_t from, int64_t to) const;
  // Longest path from a source, per group (dead groups: -1).
  std::vector<int64_t> levels() const;

  // For an edge producer -> consumer: a group on another path from producer to
  // consumer (merging the two would close a cycle through it), or -1.
  int64_t cycleThrough(int64_t producer, int64_t consumer) const;
  // Whether a path leads from `from` to `to` (`from` earlier in the order).
  bool reaches(int64_t from, int64_t to) const;
  // Merges `first` and `second` (`first` earlier in the order): the two ends
  // of an edge whose cycleThrough is -1, or two groups with no path between
  // them (a horizontal merge). Returns the surviving group's id.
  int64_t merge(int64_t first, int64_t second);
  // Position of a living group in the maintained topological order.
  int64_t position(int64_t g) const { return position_[g]; }

  // Run order of the living groups: Kahn's algorithm, smallest id first among
  // the ready ones. Also checks (boost::topological_sort) that the graph is a DAG.
  std::vector<int64_t> runOrder() const;
  const Graph& graph() const { return graph_; }

 private:
  void compact();
  Graph graph_;
  std::vector<std::vector<int64_t>> members_;
  std::vector<int64_t> group_of_;
  std::vector<int64_t> version_;
  // A topological order of the living groups, with holes (-1) left by merges;
  // position_[g] is g's slot.
  std::vector<int64_t> order_;
  std::vector<int64_t> position_;
  int64_t alive_count_ = 0;
  int64_t holes_ = 0;
};

}  // namespace fusebox::segment_detail

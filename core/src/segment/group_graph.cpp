// GroupGraph: contraction of producer-consumer edges with a topological order
// kept valid by local repair.
//
// Why the repair is local: merging producer P and consumer C (no other path
// from P to C) only disturbs the groups between them in the order. Among
// those, the ancestors of C cannot be descendants of P (that would be another
// path), so ordering the region as [ancestors of C] [P+C] [the rest], each part
// in its old relative order, keeps every edge pointing forward: P's and C's
// predecessors are before the merged group, their successors after it.
#include "segment/group_graph.h"

#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <functional>
#include <iterator>
#include <queue>
#include <unordered_set>

#include <fusebox/error.h>

namespace fusebox::segment_detail {

GroupGraph::GroupGraph(int64_t n, const std::vector<std::pair<int64_t, int64_t>>& edges)
    : graph_(static_cast<size_t>(n)),
      members_(n),
      group_of_(n),
      version_(n, 0),
      order_(n),
      position_(n),
      alive_count_(n) {
  for (int64_t i = 0; i < n; ++i) {
    members_[i] = {i};
    group_of_[i] = i;
    order_[i] = i;
    position_[i] = i;
  }
  for (auto [from, to] : edges) {
    FUSEBOX_CHECK(from < to, "group graph edge {} -> {} goes backwards", from, to);
    boost::add_edge(from, to, graph_);
  }
}

std::vector<int64_t> GroupGraph::groupsInOrder() const {
  std::vector<int64_t> out;
  out.reserve(alive_count_);
  for (int64_t g : order_)
    if (g >= 0) out.push_back(g);
  return out;
}

std::vector<int64_t> GroupGraph::successors(int64_t g) const {
  std::vector<int64_t> out;
  for (auto [it, end] = boost::adjacent_vertices(g, graph_); it != end; ++it)
    out.push_back(static_cast<int64_t>(*it));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> GroupGraph::predecessors(int64_t g) const {
  std::vector<int64_t> out;
  for (auto [it, end] = boost::in_edges(g, graph_); it != end; ++it)
    out.push_back(static_cast<int64_t>(boost::source(*it, graph_)));
  std::sort(out.begin(), out.end());
  return out;
}

bool GroupGraph::hasEdge(int64_t from, int64_t to) const {
  return boost::edge(from, to, graph_).second;
}

std::vector<int64_t> GroupGraph::levels() const {
  std::vector<int64_t> level(members_.size(), -1);
  for (int64_t g : order_) {
    if (g < 0) continue;
    int64_t l = 0;
    for (auto [it, end] = boost::in_edges(g, graph_); it != end; ++it)
      l = std::max(l, level[boost::source(*it, graph_)] + 1);
    level[g] = l;
  }
  return level;
}

int64_t GroupGraph::cycleThrough(int64_t producer, int64_t consumer) const {
  FUSEBOX_CHECK(hasEdge(producer, consumer), "no edge {} -> {}", producer, consumer);
  // Anything that reaches the consumer comes before it in the order.
  const int64_t limit = position_[consumer];
  std::vector<int64_t> stack;
  std::unordered_set<int64_t> seen;
  auto push = [&](int64_t g) {
    if (position_[g] >= limit || !seen.insert(g).second) return;
    stack.push_back(g);
  };
  for (int64_t s : successors(producer))
    if (s != consumer) push(s);
  while (!stack.empty()) {
    int64_t g = stack.back();
    stack.pop_back();
    if (hasEdge(g, consumer)) return g;
    for (auto [it, end] = boost::adjacent_vertices(g, graph_); it != end; ++it)
      push(static_cast<int64_t>(*it));
  }
  return -1;
}

bool GroupGraph::reaches(int64_t from, int64_t to) const {
  // Anything on a path to `to` comes before it in the order.
  const int64_t limit = position_[to];
  std::vector<int64_t> stack = {from};
  std::unordered_set<int64_t> seen = {from};
  while (!stack.empty()) {
    int64_t g = stack.back();
    stack.pop_back();
    for (auto [it, end] = boost::adjacent_vertices(g, graph_); it != end; ++it) {
      const auto next = static_cast<int64_t>(*it);
      if (next == to) return true;
      if (position_[next] < limit && seen.insert(next).second) stack.push_back(next);
    }
  }
  return false;
}

int64_t GroupGraph::merge(int64_t producer, int64_t consumer) {
  // With no edge between them (a horizontal merge) the same repair holds: the
  // consumer's ancestors between the two cannot be the producer's
  // descendants, or a path would join them.
  FUSEBOX_CHECK(alive(producer) && alive(consumer), "merge needs living groups, got {} and {}",
                producer, consumer);
  const int64_t lo = position_[producer], hi = position_[consumer];
  FUSEBOX_CHECK(lo < hi, "group order broken: {} at {}, {} at {}", producer, lo, consumer, hi);

  // The ancestors of the consumer between the two.
  std::vector<char> ancestor(static_cast<size_t>(hi - lo + 1), 0);
  std::vector<int64_t> stack;
  auto pushAncestor = [&](int64_t g) {
    int64_t p = position_[g];
    if (p <= lo || ancestor[p - lo]) return;
    ancestor[p - lo] = 1;
    stack.push_back(g);
  };
  for (int64_t g : predecessors(consumer)) pushAncestor(g);
  while (!stack.empty()) {
    int64_t g = stack.back();
    stack.pop_back();
    for (auto [it, end] = boost::in_edges(g, graph_); it != end; ++it)
      pushAncestor(static_cast<int64_t>(boost::source(*it, graph_)));
  }

  const int64_t survivor = std::min(producer, consumer);
  const int64_t other = std::max(producer, consumer);
  std::vector<int64_t> region;
  for (int64_t p = lo + 1; p < hi; ++p)
    if (order_[p] >= 0 && ancestor[p - lo]) region.push_back(order_[p]);
  region.push_back(survivor);
  for (int64_t p = lo + 1; p < hi; ++p)
    if (order_[p] >= 0 && !ancestor[p - lo]) region.push_back(order_[p]);
  int64_t slot = lo;
  for (int64_t g : region) {
    order_[slot] = g;
    position_[g] = slot++;
  }
  for (; slot <= hi; ++slot) {
    order_[slot] = -1;
    ++holes_;
  }
  position_[other] = -1;

  // Contract the edge into the survivor.
  std::vector<int64_t> sources = predecessors(other), targets = successors(other);
  boost::clear_vertex(other, graph_);
  for (int64_t s : sources)
    if (s != survivor) boost::add_edge(s, survivor, graph_);
  for (int64_t t : targets)
    if (t != survivor) boost::add_edge(survivor, t, graph_);

  std::vector<int64_t> merged;
  merged.reserve(members_[producer].size() + members_[consumer].size());
  std::merge(members_[producer].begin(), members_[producer].end(), members_[consumer].begin(),
             members_[consumer].end(), std::back_inserter(merged));
  for (int64_t e : members_[other]) group_of_[e] = survivor;
  members_[survivor] = std::move(merged);
  members_[other].clear();
  ++version_[survivor];
  ++version_[other];
  --alive_count_;
  if (holes_ * 2 > static_cast<int64_t>(order_.size())) compact();
  return survivor;
}

void GroupGraph::compact() {
  std::vector<int64_t> order = groupsInOrder();
  order_ = order;
  for (size_t i = 0; i < order_.size(); ++i) position_[order_[i]] = static_cast<int64_t>(i);
  holes_ = 0;
}

std::vector<int64_t> GroupGraph::runOrder() const {
  // The graph must be a DAG; boost::topological_sort throws not_a_dag otherwise.
  std::vector<Graph::vertex_descriptor> reverse_topological;
  try {
    boost::topological_sort(graph_, std::back_inserter(reverse_topological));
  } catch (const boost::not_a_dag&) {
    throw InternalError("the segment graph has a cycle");
  }
  std::vector<int64_t> pending(members_.size(), 0);
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> ready;
  for (int64_t g = 0; g < static_cast<int64_t>(members_.size()); ++g) {
    if (!alive(g)) continue;
    pending[g] = static_cast<int64_t>(boost::in_degree(g, graph_));
    if (pending[g] == 0) ready.push(g);
  }
  std::vector<int64_t> order;
  while (!ready.empty()) {
    int64_t g = ready.top();
    ready.pop();
    order.push_back(g);
    for (auto [it, end] = boost::adjacent_vertices(g, graph_); it != end; ++it)
      if (--pending[*it] == 0) ready.push(static_cast<int64_t>(*it));
  }
  FUSEBOX_CHECK(static_cast<int64_t>(order.size()) == alive_count_,
                "run order covers {} of {} groups", order.size(), alive_count_);
  return order;
}

}  // namespace fusebox::segment_detail

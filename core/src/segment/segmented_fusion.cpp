// Seeing a segmentation: the segmented_fusion dump (the complete fusion printed
// once, grouped and labelled: nvFuser issue 785), the Graphviz graph, and the
// segmenter_log dump.
#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>

#include <ostream>
#include <sstream>

#include <fusebox/ir/printer.h>
#include <fusebox/segmenter.h>

namespace fusebox {
namespace {

std::string declaration(const Val* v) {
  if (const auto* tv = dynamic_cast<const TensorView*>(v))
    return fmt::format("{}, {}", tv->domainString(), irName(tv->dtype()));
  return fmt::format("{}, {}", v->toString(), irName(v->dtype()));
}

std::string names(const std::vector<Val*>& vals) {
  std::vector<std::string> out;
  for (const Val* v : vals) out.push_back(v->toString());
  return out.empty() ? "nothing" : fmt::format("{}", fmt::join(out, ", "));
}

std::string exprCount(size_t n) {
  return fmt::format("{} expression{}", n, n == 1 ? "" : "s");
}

std::string forwardedCount(size_t n) {
  return n == 0 ? std::string() : fmt::format(" (+{} forwarded)", n);
}

// "i3 (extent of T1_g)" for a scalar input that is a tensor's extent.
std::string scalarOrigin(const Fusion& complete, const Val* v) {
  if (v->isFusionInput()) return "fusion input";
  for (const TensorView* tv : complete.usedTensors())
    for (const IterDomain* id : tv->logical())
      if (id->extent() == v || id->expandedExtent() == v)
        return fmt::format("extent of {}", tv->toString());
  return "computed from extents";
}

}  // namespace

std::string SegmentedFusion::toString() const {
  std::ostringstream os;
  std::vector<std::string> schedulers;
  for (const auto& g : groups_) schedulers.push_back(g.scheduler);
  os << fmt::format("Segmented fusion: {} group{}{}\n", groups_.size(),
                    groups_.size() == 1 ? "" : "s",
                    groups_.empty() ? "" : fmt::format(" ({})", fmt::join(schedulers, ", ")));
  os << "Inputs:\n";
  for (const Val* v : complete_->inputs()) os << "  " << declaration(v) << "\n";
  os << "Outputs:\n";
  for (const Val* v : complete_->outputs()) {
    os << "  " << declaration(v);
    if (v->isTensor())
      if (const auto* order = complete_->requiredStrideOrder(v->as<TensorView>()))
        os << fmt::format(", stride_order = [{}]", fmt::join(*order, ", "));
    if (const Val* in = complete_->aliasedInput(v)) os << ", aliases " << in->toString();
    os << "\n";
  }

  // The math once, in run order, each group under a label.
  os << "\n%kernel_math {\n";
  for (const auto& g : groups_) {
    if (g.id > 0) os << "\n";
    os << fmt::format("// group {} ({}): {}{}, reads {}; writes {}\n", g.id, g.scheduler,
                      exprCount(g.exprs.size()), forwardedCount(g.forwarded.size()),
                      names(g.inputs), names(g.outputs));
    if (!g.forwarded.empty()) {
      os << "// recomputed from the fusion inputs (forwarded):\n";
      for (const Expr* e : g.forwarded) os << printExpr(e);
      os << "// the group's own:\n";
    }
    for (const Expr* e : g.exprs) os << printExpr(e);
  }
  os << "}\n";

  os << "\nGroups:\n";
  for (const auto& g : groups_) {
    os << fmt::format("group {} ({}), {}{}\n", g.id, g.scheduler, exprCount(g.exprs.size()),
                      forwardedCount(g.forwarded.size()));
    os << "  inputs:\n";
    for (const Val* v : g.inputs) {
      os << "    " << declaration(v);
      if (v->isScalar()) os << " (" << scalarOrigin(*complete_, v) << ")";
      os << "\n";
    }
    os << "  outputs:\n";
    for (const Val* v : g.outputs) os << "    " << declaration(v) << "\n";
  }
  os << "\nEdges:\n";
  if (edges_.empty()) os << "  (none)\n";
  for (const auto& e : edges_)
    os << fmt::format("  group {} -> group {}: {}\n", e.from, e.to, e.value->toString());
  return os.str();
}

void SegmentedFusion::writeGraphviz(std::ostream& os) const {
  struct VertexLabel {
    std::string label;
  };
  struct EdgeLabel {
    std::string label;
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexLabel,
                                      EdgeLabel>;
  Graph graph(groups_.size());
  for (const auto& g : groups_)
    graph[static_cast<size_t>(g.id)].label =
        fmt::format("group {}\\n{}\\n{}", g.id, g.scheduler, exprCount(g.exprs.size()));
  for (const auto& e : edges_)
    boost::add_edge(static_cast<size_t>(e.from), static_cast<size_t>(e.to),
                    EdgeLabel{e.value->toString()}, graph);
  auto quoted = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\\\"") : std::string(1, c);
    return out + "\"";
  };
  boost::write_graphviz(
      os, graph,
      [&](std::ostream& out, Graph::vertex_descriptor v) {
        out << "[label=" << quoted(graph[v].label) << "]";
      },
      [&](std::ostream& out, Graph::edge_descriptor e) {
        out << "[label=" << quoted(graph[e].label) << "]";
      },
      [](std::ostream& out) { out << "node [shape=box];\n"; });
}

std::string formatSegmenterLog(const std::vector<SegmenterLogEntry>& log) {
  if (log.empty()) return "Segmenter log: no refusals\n";
  std::ostringstream os;
  os << fmt::format("Segmenter log: {} refusal{}\n", log.size(), log.size() == 1 ? "" : "s");
  std::string stage;
  for (const auto& entry : log) {
    if (entry.stage != stage || &entry == &log.front()) {
      stage = entry.stage;
      os << "[" << (stage.empty() ? "scheduler check" : stage) << "]\n";
    }
    std::vector<std::string> groups;
    for (size_t i = 0; i < entry.groups.size(); ++i) {
      const bool whole = entry.stage == "whole fusion";
      std::string label = i < entry.group_labels.size() ? entry.group_labels[i] : "";
      if (whole)
        groups.push_back("whole fusion");
      else if (label.empty())
        groups.push_back(fmt::format("#{}", entry.groups[i]));
      else
        groups.push_back(fmt::format("#{} {{{}}}", entry.groups[i], label));
    }
    os << fmt::format("  {}: {}: {}\n", fmt::join(groups, " + "), entry.scheduler, entry.reason);
  }
  return os.str();
}

}  // namespace fusebox

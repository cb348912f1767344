// The segmented_fusion dump (the fusion once, every expression under its
// group's label: nvFuser issue 785), the Graphviz graph and the segmenter_log.
#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "random_fusion.h"
#include "segmenter_test_util.h"

namespace fusebox {
namespace {

using namespace segmenter_testing;
using ::testing::HasSubstr;

struct Segmented {
  std::unique_ptr<SegmentedFusion> result;
  std::vector<SegmenterLogEntry> log;
};

Segmented segmentWith(const Fusion& f, const std::vector<Argument>& inputs,
                      const std::vector<std::string>& schedulers) {
  Segmented s;
  Segmenter segmenter(schedulersNamed(schedulers));
  FusionRuntimeFacts facts = factsFor(f, inputs);
  s.result = segmenter.segment(f, facts, &s.log);
  return s;
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(SegmentedFusionDump, TheIssue785ExampleIsPrintedOnceWithItsGroups) {
  // The IR as nvFuser's fusion_ir_presched prints it in issue 785 (T0/T1 the
  // script's T4/T6, the dead mul gone), each expression under its group.
  Program p = loadExample("segmented_issue785.py");
  auto s = segmentWith(p.fusion(), p.inputs(), {"pointwise_only", "single_reduction"});
  EXPECT_EQ(s.result->toString(),
            R"(Segmented fusion: 2 groups (pointwise_only, single_reduction)
Inputs:
  T0_g[ iS0{i0}, iS1{i1}, iS2{i2} ], float
  T1_g[ iS3{i3}, iS4{i4}, iS5{i5} ], float
Outputs:
  T4_g[ rS12{i0}, rS13{i1}, iS14{i2} ], float
  T3_g[ iS9{i3}, iS10{i4}, iS11{i5} ], float

%kernel_math {
// group 0 (pointwise_only): 1 expression, reads T1_g; writes T3_g
T3_g[ iS9{i3}, iS10{i4}, iS11{i5} ]
   = pow(T1_g[ iS3{i3}, iS4{i4}, iS5{i5} ]
  , double(3));

// group 1 (single_reduction): 1 expression, reads T0_g; writes T4_g
T4_g[ rS12{i0}, rS13{i1}, iS14{i2} ]
   = reduction( T0_g[ iS0{i0}, iS1{i1}, iS2{i2} ], op = add, initial value = float(0), allreduce = false );
}

Groups:
group 0 (pointwise_only), 1 expression
  inputs:
    T1_g[ iS3{i3}, iS4{i4}, iS5{i5} ], float
  outputs:
    T3_g[ iS9{i3}, iS10{i4}, iS11{i5} ], float
group 1 (single_reduction), 1 expression
  inputs:
    T0_g[ iS0{i0}, iS1{i1}, iS2{i2} ], float
  outputs:
    T4_g[ rS12{i0}, rS13{i1}, iS14{i2} ], float

Edges:
  (none)
)");
  EXPECT_EQ(formatSegmenterLog(s.log), R"(Segmenter log: 3 refusals
[whole fusion]
  whole fusion: pointwise_only: compile time: T4_g = sum is not pointwise
  whole fusion: single_reduction: compile time: T3_g = pow is neither the reduction nor a set or cast
[single expression]
  #1 {T4_g}: pointwise_only: compile time: T4_g = sum is not pointwise
)");
}

// Every tensor expression appears exactly once, and the nearest group label
// above it names its group and that group's scheduler; a forwarded one
// appears once under each group that recomputes it (two or more).
void expectEachExpressionOnceUnderItsLabel(const SegmentedFusion& sf, const std::string& context) {
  const std::string dump = sf.toString();
  const std::regex label(R"(// group (\d+) \(([a-z_]+)\))");
  for (const Expr* e : sf.complete().tensorExprs()) {
    const std::string text = printExpr(e);
    std::vector<int64_t> groups;
    if (sf.groupOf(e) >= 0) groups.push_back(sf.groupOf(e));
    for (const auto& g : sf.groups())
      if (std::find(g.forwarded.begin(), g.forwarded.end(), e) != g.forwarded.end())
        groups.push_back(g.id);
    ASSERT_TRUE(groups.size() == 1 ? sf.groupOf(e) >= 0 : sf.groupOf(e) < 0 && groups.size() > 1)
        << context << ": " << text;
    ASSERT_EQ(count(dump, text), groups.size()) << context << ": " << text;
    size_t at = 0;
    for (int64_t expected : groups) {
      at = dump.find(text, at);
      const size_t header = dump.rfind("// group ", at);
      ASSERT_NE(header, std::string::npos) << context;
      std::smatch m;
      std::string line = dump.substr(header, dump.find('\n', header) - header);
      ASSERT_TRUE(std::regex_search(line, m, label)) << line;
      const int64_t group = std::stoll(m[1]);
      EXPECT_EQ(group, expected) << context << ": " << text;
      EXPECT_EQ(m[2], sf.groups().at(group).scheduler) << context;
      at += text.size();
    }
  }
  EXPECT_EQ(count(dump, "// group "), sf.groups().size()) << context;
}

TEST(SegmentedFusionDump, EveryExpressionAppearsOnceUnderItsGroupLabel) {
  Program gelu = loadExample("gelu_bias_grad.py");
  auto s = segmentWith(gelu.fusion(), gelu.inputs(), {"pointwise_only", "single_reduction"});
  expectEachExpressionOnceUnderItsLabel(*s.result, gelu.name);
  const std::string dump = s.result->toString();
  EXPECT_THAT(dump, HasSubstr("// group 0 (pointwise_only): 21 expressions, reads T2_g, T1_g, "
                              "T0_g; writes T23_g\n"));
  EXPECT_THAT(dump, HasSubstr("Edges:\n  group 0 -> group 1: T23_g\n"));
  EXPECT_THAT(dump, HasSubstr("group 1 (single_reduction), 1 expression\n  inputs:\n    "
                              "T23_g[ iS67{i0}, iS68{i1}, iS69{i2} ], float\n  outputs:\n    "
                              "T24_g[ rS70{i0}, rS71{i1}, iS72{i2} ], float\n"));
  for (uint32_t seed = 0; seed < 10; ++seed) {
    auto f = randomFusion(seed, {25, 0.25, 2});
    std::vector<Argument> in = {Tensor::empty(DataType::Float, {2, 3}),
                                Tensor::empty(DataType::Float, {2, 3})};
    auto r = segmentWith(*f, in, {"pointwise_only", "single_reduction"});
    expectEachExpressionOnceUnderItsLabel(*r.result, "seed " + std::to_string(seed));
  }
}

TEST(SegmentedFusionDump, ScalarInputsSayWhereTheyComeFrom) {
  // The expand's group reads T0's extent without reading T0 (which only a
  // second reduction reads, in a group of its own).
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 1);
  TensorView* t1 = defineTensor(f, {-1, 1}, DataType::Float);
  TensorView* t2 = expand(t1, {f.constantInt(-1), t0->axis(0)->extent()});
  TensorView* t3 = sum(t2, {1});
  f.addOutput(t3);
  f.addOutput(sum(t0, {0}));
  std::vector<Argument> in = {Tensor::empty(DataType::Float, {4}),
                              Tensor::empty(DataType::Float, {3, 1})};
  auto s = segmentWith(f, in, {"pointwise_only", "single_reduction"});
  EXPECT_THAT(s.result->toString(), HasSubstr("    i0, int64_t (extent of T0_g)\n"));
}

TEST(SegmentedFusionDump, GraphvizHasOneNodePerGroupAndOneEdgePerEdge) {
  for (uint32_t seed : {1u, 5u, 9u}) {
    auto f = randomFusion(seed, {30, 0.3, 2});
    std::vector<Argument> in = {Tensor::empty(DataType::Float, {2, 3}),
                                Tensor::empty(DataType::Float, {2, 3})};
    auto s = segmentWith(*f, in, {"pointwise_only", "single_reduction"});
    std::ostringstream os;
    s.result->writeGraphviz(os);
    const std::string dot = os.str();
    EXPECT_EQ(dot.rfind("digraph G {", 0), 0u) << dot;
    EXPECT_EQ(dot.back(), '\n');
    EXPECT_THAT(dot, HasSubstr("}\n"));
    ASSERT_GT(s.result->groups().size(), 1u);
    for (const auto& g : s.result->groups())
      EXPECT_THAT(dot,
                  HasSubstr(fmt::format("{}[label=\"group {}\\n{}\\n", g.id, g.id, g.scheduler)));
    EXPECT_EQ(count(dot, "[label=\"group "), s.result->groups().size());
    EXPECT_EQ(count(dot, "->"), s.result->edges().size());
    for (const auto& e : s.result->edges())
      EXPECT_THAT(
          dot, HasSubstr(fmt::format("{}->{} [label=\"{}\"]", e.from, e.to, e.value->toString())));
  }
}

TEST(SegmenterLog, RefusalsAreGroupedByStageWithGroupsSchedulerAndReason) {
  // The diamond: exp feeds sum and add; {exp, add} would close a cycle.
  Fusion f;
  TensorView* t0 = defineSymbolicTensor(f, 2);
  TensorView* t1 = exp(t0);
  TensorView* t2 = sum(t1, {1});
  TensorView* t3 = add(t1, broadcast(t2, {false, true}));
  f.addOutput(t3);
  std::vector<Argument> in = {Tensor::empty(DataType::Float, {2, 3})};
  auto s = segmentWith(f, in, {"pointwise_only", "single_reduction"});
  const std::string log = formatSegmenterLog(s.log);
  EXPECT_THAT(log, HasSubstr("[whole fusion]\n"));
  EXPECT_THAT(log, HasSubstr("[single expression]\n  #1 {T2_g}: pointwise_only: compile time: "
                             "T2_g = sum is not pointwise\n"));
  EXPECT_THAT(log, HasSubstr("[merge round 1]\n  #0 {T1_g} + #1 {T2_g}: pointwise_only: "
                             "compile time: T2_g = sum is not pointwise\n"));
  EXPECT_THAT(log, HasSubstr("  #0 {T1_g} + #2 {T3_g, T4_g}: (segmenter): merging would create "
                             "a cycle: #1 {T2_g} depends on #0 and feeds #2\n"))
      << log;
  EXPECT_EQ(formatSegmenterLog({}), "Segmenter log: no refusals\n");
}

}  // namespace
}  // namespace fusebox

// The scan scheduler on the host backend against the reference evaluator (the
// cases are shared with the GPU suite: scan_cases.inc), plus its rejections.
#include <fusebox/ir/ops.h>

#include "support/host_suite.h"
#include "support/scheduler_run.h"

class ScanFixture : public ::testing::Test {
 protected:
  static fusebox::Backend& backend() { return fusebox::test::hostBackend(); }
  static fusebox::DeviceProperties device() { return {}; }
};

#include "scan/scan_cases.inc"

namespace {

fusebox::Decision compileTimeDecision(const fusebox::Fusion& f) {
  fusebox::CompileTimeCache cache;
  return fusebox::test::structuralDecision(*builtinScheduler("scan"), f);
}

TEST(ScanRejects, OuterDimReductionAndNoScanWithReasons) {
  auto f = std::make_unique<Fusion>();
  TensorView* x = defineTensor(*f, {-1, -1}, DataType::Float);
  f->addOutput(scan(ReductionOpType::Sum, x, 0));
  fusebox::Decision d = compileTimeDecision(*f);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("block scans take the innermost dim only"), std::string::npos)
      << d.reason();

  auto g = std::make_unique<Fusion>();
  TensorView* y = defineTensor(*g, {-1, -1}, DataType::Float);
  g->addOutput(scan(ReductionOpType::Sum, sum(y, {1}), 0));
  d = compileTimeDecision(*g);
  EXPECT_FALSE(d.accepted());
  EXPECT_NE(d.reason().find("is not elementwise"), std::string::npos) << d.reason();

  auto h = std::make_unique<Fusion>();
  h->addOutput(exp(defineTensor(*h, {-1}, DataType::Float)));
  d = compileTimeDecision(*h);
  EXPECT_FALSE(d.accepted());
  EXPECT_EQ(d.reason(), "the segment has no scan");
}

}  // namespace

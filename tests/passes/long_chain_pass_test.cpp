// Passes on chains of 100,000 expressions: each finishes in a few rounds over
// the fusion, not one round per rewrite.
#include "passes/pass_test_util.h"
#include "support/deep_chains.h"

namespace fusebox {
namespace {

using deep_chains::kDeepChainLength;
using namespace pass_testing;

TEST(LongChainPasses, EveryBroadcastSqueezePairOfALongChainCancels) {
  // T0, then broadcast + squeeze of a new leading dim, over and over: each
  // pair cancels. The pass used to rewrite one pair per round and stop after
  // 1,000 rounds (minutes here, with most pairs left).
  Fusion f;
  TensorView* t = defineTensor(f, {-1, -1}, DataType::Float);
  for (int64_t k = 0; k < kDeepChainLength / 2; ++k)
    t = squeeze(broadcast(t, {true, false, false}), {0});
  f.addOutput(neg(t));
  Applied a = applyPass("remove_bcast_squeeze", f);
  EXPECT_TRUE(a.changed);
  EXPECT_EQ(opsOf(f), "neg");
}

}  // namespace
}  // namespace fusebox

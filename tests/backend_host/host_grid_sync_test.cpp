// fusebox::gridSync on the host backend: a cooperative launch runs every
// block at once, the barrier orders each round's writes before the next
// reads, and a launch that is not cooperative, or a block that skips a
// barrier, is an error naming the kernel instead of a hang.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <fusebox/error.h>

#include "backend_host/grid_sync_kernel.h"
#include "backend_host/host_test_util.h"

namespace fusebox::testing {
namespace {

struct RingRun {
  std::vector<int64_t> slots, out;
  std::vector<unsigned int> barrier{0};
  KernelParams params(int64_t rounds, bool skip_block_0) {
    KernelParams p{};
    p.ptr[0] = slots.data();
    p.ptr[1] = out.data();
    p.ptr[2] = barrier.data();
    p.i64[0] = rounds;
    p.i64[1] = skip_block_0 ? 1 : 0;
    return p;
  }
  explicit RingRun(uint32_t blocks) : slots(2 * blocks, 0), out(blocks, -1) {}
};

CompiledKernel& ringKernel() {
  static std::shared_ptr<CompiledKernel> k =
      sharedHostBackend().compile(kernelSource("ring_rounds", kGridSyncRingSource, true));
  return *k;
}

TEST(HostGridSync, EveryRoundSeesTheNeighboursValueOfThatRound) {
  for (uint32_t blocks : {1u, 2u, 17u}) {
    RingRun run(blocks);
    LaunchConfig c = launchConfig({blocks, 1, 1}, {64, 1, 1});
    c.cooperative = true;
    // Twice on the same barrier word: it needs no reset between launches.
    for (int launch = 0; launch < 2; ++launch) {
      ringKernel().launch(c, run.params(5, false));
      EXPECT_EQ(run.out, ringRoundsExpected(blocks, 5)) << blocks << " blocks";
    }
  }
}

TEST(HostGridSync, LaunchThatIsNotCooperativeIsAnError) {
  RingRun run(4);
  try {
    ringKernel().launch(launchConfig({4, 1, 1}, {64, 1, 1}), run.params(1, false));
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("ring_rounds calls gridSync in a launch that is not "
                                         "cooperative"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostGridSync, BlockThatSkipsTheBarrierIsAnErrorNotAHang) {
  RingRun run(8);
  LaunchConfig c = launchConfig({8, 1, 1}, {64, 1, 1});
  c.cooperative = true;
  try {
    ringKernel().launch(c, run.params(3, true));
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("every block must call gridSync the same number of times"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostGridSync, CooperativeGridLargerThanTheHostAllowsIsRefused) {
  RingRun run(1);
  LaunchConfig c = launchConfig({5000, 1, 1}, {1, 1, 1});
  c.cooperative = true;
  EXPECT_THROW(ringKernel().launch(c, run.params(1, false)), InternalError);
}

// 1,000 blocks of 1,024 threads would keep a million fiber stacks live at
// once: refused with the counts before any block starts.
TEST(HostGridSync, CooperativeGridWithMoreLiveThreadsThanMappingsIsRefused) {
  RingRun run(1000);
  LaunchConfig c = launchConfig({1000, 1, 1}, {1024, 1, 1});
  c.cooperative = true;
  try {
    ringKernel().launch(c, run.params(1, false));
    FAIL() << "expected an error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("a cooperative launch of 1000 blocks of 1024 threads "
                                         "keeps all 1024000 threads' stacks at once"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("vm.max_map_count"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run.out, std::vector<int64_t>(1000, -1));  // no block ran
}

}  // namespace
}  // namespace fusebox::testing

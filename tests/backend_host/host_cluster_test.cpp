// Thread-block clusters on the host backend: a cluster's blocks run at once,
// clusterSync orders each round's shared memory writes before the peers'
// reads, clusterPeer maps an address to another block's shared memory, and
// a kernel that waits at a cluster barrier without clusters, a block that
// skips one, or a cluster that does not divide the grid is an error naming
// the kernel instead of a hang.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <fusebox/error.h>

#include "backend_host/cluster_kernel.h"
#include "backend_host/host_test_util.h"

namespace fusebox::testing {
namespace {

KernelParams ringParams(std::vector<int64_t>& out, int64_t rounds, bool skip_rank_0, int64_t size) {
  KernelParams p{};
  p.ptr[0] = out.data();
  p.i64[0] = rounds;
  p.i64[1] = skip_rank_0 ? 1 : 0;
  p.i64[2] = size;
  return p;
}

CompiledKernel& clusterKernel() {
  static std::shared_ptr<CompiledKernel> k =
      sharedHostBackend().compile(kernelSource("cluster_ring", kClusterRingSource, true));
  return *k;
}

LaunchConfig clusterLaunch(uint32_t blocks, uint32_t size) {
  LaunchConfig c = launchConfig({blocks, 1, 1}, {64, 1, 1});
  c.cluster = size;
  c.dynamic_shared_memory = 16;
  return c;
}

TEST(HostCluster, EveryRoundSeesTheNextBlocksValueOfThatRound) {
  for (uint32_t size : {2u, 3u, 8u}) {
    std::vector<int64_t> out(3 * size, -1);
    clusterKernel().launch(clusterLaunch(3 * size, size), ringParams(out, 5, false, size));
    EXPECT_EQ(out, clusterRingExpected(3 * size, size, 5)) << "clusters of " << size;
  }
}

TEST(HostCluster, ClusterSyncWithoutClustersIsAnError) {
  std::vector<int64_t> out(4, -1);
  LaunchConfig c = clusterLaunch(4, 1);
  try {
    clusterKernel().launch(c, ringParams(out, 1, false, 2));
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("cluster_ring calls clusterSync in a launch without "
                                         "clusters"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostCluster, BlockThatSkipsTheBarrierIsAnErrorNotAHang) {
  std::vector<int64_t> out(8, -1);
  try {
    clusterKernel().launch(clusterLaunch(8, 4), ringParams(out, 3, true, 4));
    FAIL() << "expected an error";
  } catch (const InternalError& e) {
    EXPECT_NE(
        std::string(e.what()).find("every block must call clusterSync the same number of times"),
        std::string::npos)
        << e.what();
  }
}

TEST(HostCluster, ClusterThatDoesNotDivideTheGridOrIsTooLargeIsRefused) {
  std::vector<int64_t> out(16, -1);
  for (auto [blocks, size] : {std::pair{6u, 4u}, std::pair{16u, 16u}}) {
    try {
      clusterKernel().launch(clusterLaunch(blocks, size), ringParams(out, 1, false, size));
      FAIL() << "expected an error";
    } catch (const InternalError& e) {
      EXPECT_NE(std::string(e.what()).find("a cluster has 1 to 8 blocks and divides the grid's x "
                                           "extent"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(out, std::vector<int64_t>(16, -1));  // no block ran
}

}  // namespace
}  // namespace fusebox::testing

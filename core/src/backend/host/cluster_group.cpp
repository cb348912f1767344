#include "backend/host/cluster_group.h"

#include <fmt/format.h>

#include "backend/host/block_executor.h"

namespace fusebox::host {

ClusterGroup*& currentCluster() {
  thread_local ClusterGroup* cluster = nullptr;
  return cluster;
}

void engineClusterSync(const ThreadContext* self, const std::string& kernel_name) {
  ClusterGroup* cluster = currentCluster();
  engineWait(cluster == nullptr ? nullptr : &cluster->barrier, self, kernel_name,
             "calls clusterSync in a launch without clusters (LaunchConfig::cluster = 1)");
}

const void* engineClusterMap(const ThreadContext* self, const void* p, unsigned rank,
                             const std::string& kernel_name) {
  ClusterGroup* cluster = currentCluster();
  if (cluster == nullptr)
    failKernel(self, kernel_name,
               "calls clusterPeer in a launch without clusters (LaunchConfig::cluster = 1)");
  if (rank >= cluster->shared.size())
    failKernel(self, kernel_name,
               fmt::format("calls clusterPeer for block {} of a cluster of {}", rank,
                           cluster->shared.size()));
  const auto* own = self->dynamic_shared_memory;
  const auto* at = static_cast<const unsigned char*>(p);
  if (at < own || at >= own + cluster->shared_bytes)
    failKernel(self, kernel_name,
               fmt::format("calls clusterPeer with an address outside its {} bytes of dynamic "
                           "shared memory",
                           cluster->shared_bytes));
  return cluster->shared[rank] + (at - own);
}

}  // namespace fusebox::host

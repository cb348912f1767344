// The host backend's thread-block clusters (LaunchConfig::cluster): the
// blocks of one cluster run at once, each on an OS thread of its own, and
// share a barrier (fusebox::clusterSync) and each other's dynamic shared
// memory (fusebox::clusterPeer maps an address in one block's to another's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/host/grid_barrier.h"
#include "fusebox_runtime/host/abi.h"

namespace fusebox::host {

struct ClusterGroup {
  explicit ClusterGroup(int64_t blocks) : barrier(blocks, "clusterSync") {}
  GridBarrier barrier;
  std::vector<unsigned char*> shared;  // block rank r's dynamic shared memory
  uint32_t shared_bytes = 0;           // of each
};

// The cluster this OS thread runs a block of, or null (no clusters).
ClusterGroup*& currentCluster();

// The HostOps cluster_sync and cluster_map both block engines use.
void engineClusterSync(const ThreadContext* self, const std::string& kernel_name);
const void* engineClusterMap(const ThreadContext* self, const void* p, unsigned rank,
                             const std::string& kernel_name);

}  // namespace fusebox::host

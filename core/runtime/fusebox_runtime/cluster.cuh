// Thread-block clusters (LaunchConfig::cluster, compute 9.0 and later): the
// blocks of a cluster run at once, wait for each other at clusterSync and
// read each other's dynamic shared memory through clusterPeer (distributed
// shared memory). The host backend runs a cluster's blocks on OS threads of
// their own and maps a peer's dynamic shared memory the same way.
#pragma once

namespace fusebox {

// A barrier across every thread of every block of the cluster: shared
// memory writes before it (this block's and, through clusterPeer, others')
// are visible to every block of the cluster after it. Every thread of every
// block must call it, the same number of times; a block must not return
// while another may still read its shared memory, so a kernel that reads
// peers calls it once more after its last read.
FUSEBOX_DEVICE void clusterSync() {
#if defined(FUSEBOX_CUDA_COMPILER)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#else
  __trap();  // clusters need compute 9.0; the runtime never launches one below it
#endif
#else
  __syncthreads();
  if (linearThreadIdx() == 0) ::fusebox::host::clusterWait(::fusebox::host::currentThread());
  __syncthreads();
#endif
}

// Where block `rank` of this cluster keeps what `p` (an address in this
// block's dynamic shared memory) points to.
template <typename T>
FUSEBOX_DEVICE const T* clusterPeer(const T* p, unsigned rank) {
#if defined(FUSEBOX_CUDA_COMPILER)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned long long peer;
  asm volatile("mapa.u64 %0, %1, %2;"
               : "=l"(peer)
               : "l"(reinterpret_cast<unsigned long long>(p)), "r"(rank));
  return reinterpret_cast<const T*>(peer);
#else
  (void)rank;
  __trap();
  return p;
#endif
#else
  return static_cast<const T*>(
      ::fusebox::host::clusterMap(::fusebox::host::currentThread(), p, rank));
#endif
}

}  // namespace fusebox

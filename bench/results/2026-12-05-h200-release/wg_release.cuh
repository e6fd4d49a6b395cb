// Session 40 experiment headers (not part of the runtime): two other forms of the multicast ring
// slot release, spliced into generated code by variant.py.
#pragma once
#include <cstdint>

namespace loom::rt::mbarrier {

// Before this session (runtime/loom/cluster.cuh at 6e788a3): lane 0 of each compute warp arrives
// in every block of the cluster, one rank after the other.
__device__ __forceinline__ void arrive_cluster_loop(std::uint64_t* bar, std::uint32_t blocks) {
  const std::uint32_t self = cluster_rank();
  for (std::uint32_t r = 0; r < blocks; ++r) {
    if (r == self)
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(bar))) : "memory");
    else
      asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(peer_smem(bar, r)) : "memory");
  }
}

// One arrival per compute warpgroup (not per warp) and destination block, spread over the
// warpgroup's warps: destination d = 4 lane + warp-in-warpgroup (CUTLASS's consumer_release). Valid
// when the slot's only readers are the warpgroup's wgmmas (retired as a whole by any warp's
// wgmma_wait): gemm's K loop. The barrier's count is a quarter of the per-warp form's.
__device__ __forceinline__ void arrive_cluster_wg(std::uint64_t* bar, std::uint32_t S, std::uint32_t T, bool peers) {
  const std::uint32_t d = (threadIdx.x % 32) * 4 + (threadIdx.x / 32) % 4, self = cluster_rank();
  if (d < S * T && (!peers || d % S == self % S || d / S == self / S))
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(peer_smem(bar, d)) : "memory");
}

}  // namespace loom::rt::mbarrier

// Thread-block cluster atoms (HOPPER-FACTS F7): the block's place in its cluster, the cluster
// barrier, and distributed shared memory (a peer block's shared memory, addressed through mapa).
// Used by the split-K reduction of a mapping's splitk(S) (src/codegen/splitk.cpp) and by the
// multicast loads of a mapping's multicast(S) (src/codegen/multicast.cpp); GPU test:
// tests/gpu/cluster_test.cu. Included by loom/runtime.cuh.
#pragma once

#include <cstdint>

namespace loom::rt {

// %cluster_ctarank: this block's rank in its cluster, 0 .. cluster size - 1.
__device__ __forceinline__ std::uint32_t cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// %clusterid.x / %nclusterid.x: this cluster's index in the grid of clusters (x) and their number.
__device__ __forceinline__ std::uint32_t cluster_id_x() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  return r;
}
__device__ __forceinline__ std::uint32_t cluster_count_x() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
  return r;
}

// barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of every block of
// the cluster. Orders the blocks' prior shared-memory writes (mbarrier inits included, after
// fence_barrier_init) before the peers' later accesses.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// mapa.shared::cluster.u32: the shared::cluster address of `p` (this block's shared memory) in
// the block of rank `rank` of the cluster: the same offset in the peer's shared memory.
// Not volatile: mapa only computes an address, so the compiler may hoist it out of a loop or reuse it.
__device__ __forceinline__ std::uint32_t peer_smem(const void* p, std::uint32_t rank) {
  std::uint32_t out;
  asm("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(out)
               : "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(p))), "r"(rank));
  return out;
}

// ld.shared::cluster.v4.f32: 16 bytes of a peer's shared memory (address from peer_smem).
__device__ __forceinline__ float4 ld_peer_f32x4(std::uint32_t addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}

namespace mbarrier {

// mbarrier.arrive.release.cluster.shared::cluster.b64 on the barrier at `bar`'s offset in the
// block of rank `rank`: one arrival that releases the calling thread's prior writes (and reads) at
// cluster scope, so a peer that waits with wait_cluster sees them.
__device__ __forceinline__ void arrive_peer(std::uint64_t* bar, std::uint32_t rank) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_smem(bar, rank)) : "memory");
}

// mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 spin: this block's barrier, acquiring
// at cluster scope what the arriving peers released. (A try_wait loop measured the same on an
// H100, 2026-11-25: bench/results/2026-11-25-h100-gemm-splitk.md.)
__device__ __forceinline__ void wait_cluster(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred complete;\n"
        "mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(bar))), "r"(parity)
        : "memory");
  } while (done == 0);
}

// The compute role's release of a ring slot that the blocks of a multicast(S, T) cluster fill
// (rank r at (r % S, r / S)), after wgmma_wait has retired the wgmmas that read it: each calling
// warp's lanes arrive on the barrier at `bar`'s offset in their destination blocks — every block
// when `peers` is false, else only the S + T - 1 blocks of this block's row or column (r % S or
// r / S equal to this block's), the ones whose shares land in its slots — one predicated
// instruction, the arrivals issued by the lanes at once. Per warp (`warpgroup` false) lane d
// arrives in block d; per warpgroup, for a slot whose only readers are the warpgroup's wgmmas (a
// wgmma retired by wgmma_wait in any of its warps has read its operands for all four), block
// d = 4 lane + (warp % 4) gets one arrival from the whole warpgroup, the arrivals spread over its
// warps (CUTLASS's consumer_release), and the barrier counts warpgroups. mbarrier.arrive's default
// semantics (release, CTA scope), as CUTLASS's: it does not make the caller's generic-proxy writes
// visible to the peer (HOPPER-FACTS F7, "Multicast pipeline"). Called by every lane, after
// __syncwarp, with `self` the caller's cluster_rank() (read once by the kernel: a read of
// %cluster_ctarank in the loop costs the K loop its latency at every iteration).
__device__ __forceinline__ void arrive_cluster(std::uint64_t* bar, std::uint32_t S, std::uint32_t T, bool peers,
                                               bool warpgroup, std::uint32_t self) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t d = warpgroup ? lane * 4 + (threadIdx.x / 32) % 4 : lane;
  if (d < S * T && (!peers || d % S == self % S || d / S == self / S))
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(peer_smem(bar, d)) : "memory");
}

}  // namespace mbarrier

// cp.async.bulk.tensor ... .multicast::cluster: a TMA load whose box lands at `dst`'s offset in the
// shared memory of every block whose bit is set in `mask` (bit r = cluster rank r), completing
// `bar`'s bytes at the barrier of the same offset in each of them (HOPPER-FACTS F4). Each receiving
// block's expect-tx counts the bytes that land in it, whoever issued them.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                                      std::uint16_t mask, std::int32_t c0, std::int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5}], [%2], %3;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(dst))),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(bar))), "h"(mask),
      "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_load_3d_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                                      std::uint16_t mask, std::int32_t c0, std::int32_t c1,
                                                      std::int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5, %6}], [%2], %3;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(dst))),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(bar))), "h"(mask),
      "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void tma_load_4d_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                                      std::uint16_t mask, std::int32_t c0, std::int32_t c1,
                                                      std::int32_t c2, std::int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%4, %5, %6, %7}], [%2], %3;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(dst))),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(bar))), "h"(mask),
      "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

}  // namespace loom::rt

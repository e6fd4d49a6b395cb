// How fast the blocks of a thread-block cluster can hand fp32 partial sums to one of them (the
// split-K hand-over of src/codegen/splitk.cpp): every block holds one warpgroup tile of partial sums
// in registers (128 threads x 16 float4 = 32 KB, as a 64 x 128 fp32 accumulator), and rank 0 (the
// owner) must end up with the sum of all S tiles in rank order. Four ways:
//   pull   each peer stores its tile into its own shared memory and arrives on the owner's barrier
//          (release.cluster); the owner reads the peers' tiles with ld.shared::cluster (16 float4 in
//          flight per thread and peer) and adds them (what splitk.cpp generates, 8 in flight there)
//   push   each peer stores its tile straight into the owner's shared memory (st.shared::cluster),
//          then arrives; the owner adds from its own shared memory
//   bulk   each peer stores its tile into its own shared memory, fences the async proxy, and one
//          thread copies it into the owner's shared memory with cp.async.bulk.shared::cluster
//          (complete_tx on the owner's barrier); the owner adds from its own shared memory
//   l2     each peer stores its tile to a global workspace (st.global), arrives (release.cluster);
//          the owner reads the peers' tiles with ld.global.cg (16 float4 in flight) and adds
// Every SM runs one block (the grid fills the GPU with clusters of S); each round starts with a
// cluster barrier, and the owner's clock64 from there to its added tile is the round's time (the
// median over rounds and owners is printed, with the sum checked against the expected value).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime bench/micro/exchange_rate.cu -o exchange_rate
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "loom/runtime.cuh"

constexpr int kRounds = 64;
constexpr int kTile = 128 * 16 * 16;  // bytes per block's tile

__device__ __forceinline__ void st_peer_f32x4(std::uint32_t addr, float4 v) {
  asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__device__ __forceinline__ void bulk_to_peer(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(src))), "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ float4 ld_cg(const float4* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p) : "memory");
  return v;
}

template <int S, int METHOD>
__global__ void __launch_bounds__(128, 1) exchange(long long* cycles, float* check, float4* ws) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  float4* mine_buf = reinterpret_cast<float4*>(smem);                 // this block's tile (pull, bulk)
  float4* recv = reinterpret_cast<float4*>(smem + kTile);             // the owner's (S - 1) received tiles
  std::uint64_t* bar = reinterpret_cast<std::uint64_t*>(smem + S * kTile);  // [0] ready (pull, push, l2: 128 (S-1) arrivals; bulk: 1 + tx)
  const std::uint32_t rank = loom::rt::cluster_rank();
  const int tid = threadIdx.x;
  if (tid == 0) {
    loom::rt::mbarrier::init(&bar[0], METHOD == 2 ? 1 : 128 * (S - 1));
    loom::rt::fence_barrier_init();
  }
  loom::rt::cluster_sync();
  float4 acc[16];
  for (int round = 0; round < kRounds; ++round) {
    for (int q = 0; q < 16; ++q) acc[q] = make_float4(rank + 1, round, q, tid);
    loom::rt::cluster_sync();
    const long long t0 = clock64();
    const std::uint32_t parity = round & 1;
    if (rank != 0) {
      if (METHOD == 0 || METHOD == 2) {
        for (int q = 0; q < 16; ++q) mine_buf[q * 128 + tid] = acc[q];
      }
      if (METHOD == 0) {
        loom::rt::mbarrier::arrive_peer(&bar[0], 0);
      } else if (METHOD == 1) {
        const std::uint32_t dst = loom::rt::peer_smem(recv + (rank - 1) * 2048, 0);
        for (int q = 0; q < 16; ++q) st_peer_f32x4(dst + (q * 128 + tid) * 16, acc[q]);
        loom::rt::mbarrier::arrive_peer(&bar[0], 0);
      } else if (METHOD == 2) {
        loom::rt::fence_proxy_async_shared();
        loom::rt::named_barrier_sync(1, 128);
        if (tid == 0) bulk_to_peer(loom::rt::peer_smem(recv + (rank - 1) * 2048, 0), mine_buf, kTile, loom::rt::peer_smem(&bar[0], 0));
      } else {
        float4* slot = ws + (size_t(loom::rt::cluster_id_x()) * S + rank) * 2048;
        for (int q = 0; q < 16; ++q) slot[q * 128 + tid] = acc[q];
        loom::rt::mbarrier::arrive_peer(&bar[0], 0);
      }
    } else {
      if (METHOD == 2 && tid == 0) loom::rt::mbarrier::arrive_expect_tx(&bar[0], (S - 1) * kTile);
      loom::rt::mbarrier::wait_cluster(&bar[0], parity);
      for (int p = 1; p < S; ++p) {
        float4 v[16];
        if (METHOD == 0) {
          const std::uint32_t src = loom::rt::peer_smem(mine_buf, p);
          for (int q = 0; q < 16; ++q) v[q] = loom::rt::ld_peer_f32x4(src + (q * 128 + tid) * 16);
        } else if (METHOD == 3) {
          const float4* slot = ws + (size_t(loom::rt::cluster_id_x()) * S + p) * 2048;
          for (int q = 0; q < 16; ++q) v[q] = ld_cg(slot + q * 128 + tid);
        } else {
          for (int q = 0; q < 16; ++q) v[q] = recv[(p - 1) * 2048 + q * 128 + tid];
        }
        for (int q = 0; q < 16; ++q) acc[q].x += v[q].x, acc[q].y += v[q].y, acc[q].z += v[q].z, acc[q].w += v[q].w;
      }
      const long long t1 = clock64();
      if (tid == 0) cycles[size_t(blockIdx.x) * kRounds + round] = t1 - t0;
      float bad = 0;  // x: sum of rank + 1 over the cluster
      for (int q = 0; q < 16; ++q) bad += fabsf(acc[q].x - S * (S + 1) / 2) + fabsf(acc[q].y - S * round) + fabsf(acc[q].z - S * q);
      if (bad != 0) atomicAdd(check, bad);
    }
  }
  loom::rt::cluster_sync();  // no block leaves while a peer may still touch its shared memory
}

template <int S, int METHOD>
void run(const char* name, int sms, int clock_khz, float4* ws, long long* cycles, float* check) {
  auto k = exchange<S, METHOD>;
  const int smem = S * kTile + 1024 + 64 + 65536;  // + 64 KB so that one block fits per SM
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaLaunchConfig_t occ = {};
  occ.gridDim = dim3(S);
  occ.blockDim = dim3(128);
  occ.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = S;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  occ.attrs = attr;
  occ.numAttrs = 1;
  int fit = 0;
  cudaOccupancyMaxActiveClusters(&fit, k, &occ);
  for (int clusters : {1, fit}) {
    cudaLaunchConfig_t cfg = occ;
    cfg.gridDim = dim3(clusters * S);
    cudaMemset(check, 0, sizeof(float));
    cudaMemset(cycles, 0, sizeof(long long) * 1024 * kRounds);
    for (int rep = 0; rep < 3; ++rep) cudaLaunchKernelEx(&cfg, k, cycles, check, ws);
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<long long> c(size_t(clusters) * S * kRounds);
    cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost);
    float bad = 0;
    cudaMemcpy(&bad, check, sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<long long> v;
    for (int b = 0; b < clusters * S; b += S)
      for (int r = 4; r < kRounds; ++r) v.push_back(c[size_t(b) * kRounds + r]);
    std::sort(v.begin(), v.end());
    const double ns = v.empty() ? 0 : v[v.size() / 2] / (clock_khz * 1e-6);
    const double bytes = double(S - 1) * kTile;
    std::printf("| %s | %d | %d | %.0f | %.0f | %.1f | %s |\n", name, S, clusters, bytes / 1024, ns, bytes / ns,
                e != cudaSuccess ? cudaGetErrorString(e) : bad != 0 ? "WRONG" : "ok");
  }
  (void)sms;
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  float4* ws;
  long long* cycles;
  float* check;
  cudaMalloc(&ws, size_t(1024) * 4 * kTile);
  cudaMalloc(&cycles, sizeof(long long) * 1024 * kRounds);
  cudaMalloc(&check, sizeof(float));
  std::printf("# cluster hand-over of 32 KB fp32 tiles to rank 0, %s (%d SMs), clock64 at %.2f GHz\n\n", prop.name,
              prop.multiProcessorCount, clock_khz * 1e-6);
  std::printf("| method | S | clusters | KB to the owner | owner ns (median) | GB/s into the owner | check |\n|---|---|---|---|---|---|---|\n");
  const int sms = prop.multiProcessorCount;
  run<2, 0>("pull (ld.shared::cluster)", sms, clock_khz, ws, cycles, check);
  run<2, 1>("push (st.shared::cluster)", sms, clock_khz, ws, cycles, check);
  run<2, 2>("bulk (cp.async.bulk to the owner)", sms, clock_khz, ws, cycles, check);
  run<2, 3>("l2 (st.global, ld.global.cg)", sms, clock_khz, ws, cycles, check);
  run<4, 0>("pull (ld.shared::cluster)", sms, clock_khz, ws, cycles, check);
  run<4, 1>("push (st.shared::cluster)", sms, clock_khz, ws, cycles, check);
  run<4, 2>("bulk (cp.async.bulk to the owner)", sms, clock_khz, ws, cycles, check);
  run<4, 3>("l2 (st.global, ld.global.cg)", sms, clock_khz, ws, cycles, check);
  return 0;
}

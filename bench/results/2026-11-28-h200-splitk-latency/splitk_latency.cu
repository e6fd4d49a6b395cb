// Where a split-K GEMM's time goes (bench/results/2026-11-28-h200-splitk-latency.md): per shape,
// the per-call time (CUDA events, back to back behind a spin kernel, median) of cuBLAS, of loom's
// unsplit and split mappings, and of empty kernels launched as the split mapping is (same grid,
// threads and dynamic shared memory; once as clusters of S, once without clusters); then one probed
// call of each split mapping: per block, clock64 and globaltimer at the points probe_split.py puts
// in the kernel, reported as the median over the blocks of rank 0 (the owner of warpgroup 0's
// rows) and over the other ranks (peers).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I GEN
//        splitk_latency.cu -lcuda -lcublas   (GEN/gemm.cu: probe_split.py's output)
#include <cstdint>
__device__ unsigned long long g_probe[2048 * 32];
__device__ __forceinline__ void loom_probe_record(int i) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  g_probe[blockIdx.x * 32 + i] = t;
  g_probe[blockIdx.x * 32 + 16 + i] = clock64();
}
#define LOOM_PROBE(i) loom_probe_record(i)

#include "gemm.cu"
#include "gemm_harness.cuh"
#include "cublas_gemm.cuh"
#include "timing.cuh"

#include <cstdio>
#include <functional>
#include <string>

__global__ void empty_kernel() {}

struct MapInfo { int m, U, V, S, threads, smem; };
#define MI(k, u, v, s) MapInfo{k, u, v, s, mapping##k::kThreads, mapping##k::kSmemBytes}

int main(int argc, char** argv) {
  std::vector<hx::Problem> shapes;
  for (int i = 1; i < argc; ++i) {
    long long M, N, K;
    if (std::sscanf(argv[i], "%lldx%lldx%lld", &M, &N, &K) == 3) shapes.push_back(hx::gemm_problem(M, N, K));
  }
  // examples/gemm: m1 128x128, m3 128x128 splitk(2), m4 128x128 splitk(4), m2 128x64 (K step 128),
  // m5 128x64 splitk(4), m13 64x64 splitk(4), m0 128x256, m8 64x128
  const std::vector<MapInfo> maps = {MI(0, 128, 256, 1), MI(1, 128, 128, 1), MI(2, 128, 64, 1), MI(8, 64, 128, 1),
                                     MI(3, 128, 128, 2), MI(4, 128, 128, 4), MI(5, 128, 64, 4), MI(13, 64, 64, 4)};
  cudaDeviceProp prop;
  const std::string device = hx::device_description(&prop);
  int sms = prop.multiProcessorCount, clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  std::printf("# %s, %s\n\n", device.c_str(), hx::now_utc("%Y-%m-%d %H:%M UTC").c_str());
  HX_CUDA(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448));
  HX_CUDA(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaStream_t s;
  HX_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t cublas;
  HX_CUBLAS(cublasCreate(&cublas));
  HX_CUBLAS(cublasSetStream(cublas, s));
  void* ws = nullptr;
  HX_CUDA(cudaMalloc(&ws, size_t(32) << 20));
  HX_CUBLAS(cublasSetWorkspace(cublas, ws, size_t(32) << 20));
  auto time_it = [&](std::function<int(int)> f, int sets) {
    hx::Samples smp;
    double dev_ms = 0, host_us = 0;
    int err = 0;
    hx::warm_up(f, sets, s, &dev_ms, &host_us, &err);
    const int reps = 200;
    const double spin_ms = std::min(500.0, 2.0 * host_us * 1e-3 * reps + 1.0);
    for (int r = 0; r < 2; ++r) hx::time_round(f, sets, reps, spin_ms, s, r, &smp);
    return 1e3 * hx::median(smp.ms);
  };
  auto launch_empty = [&](int grid, int threads, int smem, int cluster) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = cluster > 1 ? 1 : 0;
    return int(cudaLaunchKernelEx(&cfg, empty_kernel));
  };
  for (const hx::Problem& p : shapes) {
    const int sets = 8;
    std::vector<hx::Matrix> A, B, C;
    for (int i = 0; i < sets; ++i) {
      A.push_back(hx::make_matrix(LOOM_BF16, 1, p.M, p.K, 16));
      B.push_back(hx::make_matrix(LOOM_BF16, 1, p.K, p.N, 16));
      C.push_back(hx::make_matrix(LOOM_BF16, 1, p.M, p.N, 16));
      hx::fill_random(A[i], 11 + 2 * i, s);
      hx::fill_random(B[i], 12 + 2 * i, s);
    }
    const double cub = time_it([&](int i) { return int(hx::cublas_call(cublas, p, C[i], A[i], B[i])); }, sets);
    std::printf("## %s: cuBLAS %.2f µs\n\n", p.name().c_str(), cub);
    std::printf("| mapping | tiles | blocks (probed) | loom µs | empty, same launch µs | empty, no cluster µs | rank | %s |\n",
                "entry→cluster_sync | →1st TMA | →1st stage | →loop done | →hand-over | →sums | →store | →exit sync | →exit | start spread ns | span ns");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const MapInfo& mi : maps) {
      const int64_t tiles = ((p.M + mi.U - 1) / mi.U) * ((p.N + mi.V - 1) / mi.V);
      const double lt = time_it([&](int i) { return loom_gemm_mapping(mi.m, C[i].tensor(false), A[i].tensor(false), B[i].tensor(false), s); }, sets);
      std::vector<unsigned long long> zero(2048 * 32, 0), pr(2048 * 32);
      HX_CUDA(cudaMemcpyToSymbol(g_probe, zero.data(), zero.size() * 8));
      HX_CUDA(cudaDeviceSynchronize());
      for (int r = 0; r < 20; ++r) loom_gemm_mapping(mi.m, C[0].tensor(false), A[0].tensor(false), B[0].tensor(false), s);
      HX_CUDA(cudaStreamSynchronize(s));
      HX_CUDA(cudaMemcpyFromSymbol(pr.data(), g_probe, pr.size() * 8));
      int blocks = 0;
      while (blocks < 2048 && pr[blocks * 32] != 0) ++blocks;
      if (mi.S == 1 || blocks == 0) {
        const int grid = int(std::min<int64_t>(tiles, sms));
        const double el = time_it([&](int) { return launch_empty(grid, mi.threads, mi.smem, 1); }, sets);
        std::printf("| m%d (%dx%d) | %lld | %d | %.2f | %.2f | - | - | |||||||||||\n", mi.m, mi.U, mi.V, (long long)tiles, grid, lt, el);
        continue;
      }
      const double ec = time_it([&](int) { return launch_empty(blocks, mi.threads, mi.smem, mi.S); }, sets);
      const double en = time_it([&](int) { return launch_empty(blocks, mi.threads, mi.smem, 1); }, sets);
      for (int owner = 1; owner >= 0; --owner) {
        std::string cols;
        int prev = 0;
        for (int k = 1; k <= 9; ++k) {
          std::vector<float> d;
          for (int b = 0; b < blocks; ++b) {
            const bool is_owner = pr[b * 32 + 15] == 0;
            if (is_owner != bool(owner)) continue;
            if (pr[b * 32 + 16 + k] && pr[b * 32 + 16 + prev]) d.push_back(float(int64_t(pr[b * 32 + 16 + k] - pr[b * 32 + 16 + prev])));
          }
          if (!d.empty()) prev = k;
          cols += d.empty() ? " - |" : hx::fmt(" %.0f |", hx::median(d) / (clock_khz * 1e-6));
        }
        unsigned long long s0 = ~0ull, s1 = 0, e1 = 0;
        for (int b = 0; b < blocks; ++b) {
          s0 = std::min(s0, pr[b * 32]);
          s1 = std::max(s1, pr[b * 32]);
          e1 = std::max(e1, pr[b * 32 + 9]);
        }
        std::printf("| m%d (%dx%d s%d) | %lld | %d | %.2f | %.2f | %.2f | %s |%s %llu | %llu |\n", mi.m, mi.U, mi.V, mi.S,
                    (long long)tiles, blocks, lt, ec, en, owner ? "owner (0)" : "peers", cols.c_str(), s1 - s0, e1 - s0);
      }
      std::fflush(stdout);
    }
    std::printf("\n");
    for (int i = 0; i < sets; ++i) hx::free_matrix(A[i]), hx::free_matrix(B[i]), hx::free_matrix(C[i]);
  }
  std::printf("probe columns: ns from the previous probe that the block reached (clock64 at the %.2f GHz boost clock), median over the blocks of that rank, first tile\n", clock_khz * 1e-6);
  return 0;
}

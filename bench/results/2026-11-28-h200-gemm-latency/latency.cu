// Where a small GEMM's time goes (bench/results/2026-11-28-h200-gemm-latency.md): per shape and
// mapping, the per-call time (CUDA events, back to back behind a spin kernel, median) of loom's
// mapping, cuBLAS, and an empty kernel launched like the mapping (same grid, threads, dynamic shared
// memory) and like a small kernel (128 threads, no shared memory); then one probed call of the
// mapping: per block, clock64 and globaltimer at the points probe_insert.py puts in the kernel.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I GEN/gemm
//        -I . latency.cu -lcuda -lcublas   (GEN/gemm/gemm.cu replaced by probe_insert.py's output)
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

struct MapInfo { int m, U, V, threads, smem; };
#define MI(k, u, v) MapInfo{k, u, v, mapping##k::kThreads, mapping##k::kSmemBytes}

int main(int argc, char** argv) {
  std::vector<hx::Problem> shapes;
  for (int i = 1; i < argc; ++i) {
    long long M, N, K;
    if (std::sscanf(argv[i], "%lldx%lldx%lld", &M, &N, &K) == 3) shapes.push_back(hx::gemm_problem(M, N, K));
  }
  const std::vector<MapInfo> maps = {MI(0, 128, 256), MI(1, 128, 128), MI(2, 128, 64), MI(8, 64, 128)};
  cudaDeviceProp prop;
  const std::string device = hx::device_description(&prop);
  int sms = prop.multiProcessorCount, clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  std::printf("# %s, %s\n\n", device.c_str(), hx::now_utc("%Y-%m-%d %H:%M UTC").c_str());
  HX_CUDA(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448));
  cudaStream_t s;
  HX_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t cublas;
  HX_CUBLAS(cublasCreate(&cublas));
  HX_CUBLAS(cublasSetStream(cublas, s));
  void* ws = nullptr;
  HX_CUDA(cudaMalloc(&ws, size_t(32) << 20));
  HX_CUBLAS(cublasSetWorkspace(cublas, ws, size_t(32) << 20));
  // LAT_ONCE=1 (for ncu): five calls each, no timing
  const bool once = std::getenv("LAT_ONCE") != nullptr;
  auto time_it = [&](std::function<int(int)> f, int sets) {
    if (once) {
      for (int i = 0; i < 5; ++i) f(i % sets);
      HX_CUDA(cudaStreamSynchronize(s));
      return 0.0;
    }
    hx::Samples smp;
    double dev_ms = 0, host_us = 0;
    int err = 0;
    hx::warm_up(f, sets, s, &dev_ms, &host_us, &err);
    const int reps = 200;
    const double spin_ms = std::min(500.0, 2.0 * host_us * 1e-3 * reps + 1.0);
    for (int r = 0; r < 2; ++r) hx::time_round(f, sets, reps, spin_ms, s, r, &smp);
    return 1e3 * hx::median(smp.ms);
  };
  std::printf("| shape | cuBLAS µs | empty 128 thr µs | mapping | tiles | blocks | loom µs | empty like it µs | "
              "setup | producer setmaxnreg | producer elected | producer tile decoded | 1st TMA issued | 1st stage landed | main loop done | store committed | end | "
              "block starts spread ns | span ns (first start to last end) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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
    const double e128 = time_it([&](int) { empty_kernel<<<8, 128, 0, s>>>(); return 0; }, sets);
    for (const MapInfo& mi : maps) {
      const int64_t tiles = ((p.M + mi.U - 1) / mi.U) * ((p.N + mi.V - 1) / mi.V);
      const int blocks = int(std::min<int64_t>(tiles, sms));
      const double lt = time_it([&](int i) { return loom_gemm_mapping(mi.m, C[i].tensor(false), A[i].tensor(false), B[i].tensor(false), s); }, sets);
      const double el = time_it([&](int) { empty_kernel<<<blocks, mi.threads, mi.smem, s>>>(); return 0; }, sets);
      // probed: a call after the empty kernel's timing (cold), then the last of 20 calls back to back (warm)
      for (int warm = 0; warm < 2; ++warm) {
        std::vector<unsigned long long> zero(2048 * 32, 0), pr(2048 * 32);
        HX_CUDA(cudaMemcpyToSymbol(g_probe, zero.data(), zero.size() * 8));
        HX_CUDA(cudaDeviceSynchronize());
        for (int r = 0; r < (warm ? 20 : 1); ++r)
          loom_gemm_mapping(mi.m, C[0].tensor(false), A[0].tensor(false), B[0].tensor(false), s);
        HX_CUDA(cudaStreamSynchronize(s));
        HX_CUDA(cudaMemcpyFromSymbol(pr.data(), g_probe, pr.size() * 8));
        // per probe point: median over blocks of (clock64 at the point - clock64 at entry), in ns at the boost clock
        std::string cols;
        for (int k : {1, 7, 8, 9, 2, 3, 4, 5, 6}) {
          std::vector<float> d;
          for (int b = 0; b < blocks; ++b)
            if (pr[b * 32 + 16 + k] && pr[b * 32 + 16]) d.push_back(float(pr[b * 32 + 16 + k] - pr[b * 32 + 16]));
          cols += d.empty() ? " - |" : hx::fmt(" %.0f |", hx::median(d) / (clock_khz * 1e-6));
        }
        unsigned long long s0 = ~0ull, s1 = 0, e1 = 0;
        for (int b = 0; b < blocks; ++b) {
          s0 = std::min(s0, pr[b * 32]);
          s1 = std::max(s1, pr[b * 32]);
          e1 = std::max(e1, pr[b * 32 + 6]);
        }
        std::printf("| %s | %.2f | %.2f | m%d %s | %lld | %d | %.2f | %.2f |%s %llu | %llu |\n", p.name().c_str(), cub, e128, mi.m,
                    warm ? "warm" : "cold", (long long)tiles, blocks, lt, el, cols.c_str(), s1 - s0, e1 - s0);
      }
      std::fflush(stdout);
    }
    for (int i = 0; i < sets; ++i) hx::free_matrix(A[i]), hx::free_matrix(B[i]), hx::free_matrix(C[i]);
  }
  std::printf("\nprobe columns: ns after the block's entry (clock64 at the %.2f GHz boost clock), median over blocks, first tile\n", clock_khz * 1e-6);
  return 0;
}

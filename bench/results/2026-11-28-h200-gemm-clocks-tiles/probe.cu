// Session 22 probe: does a mapping's sustained back-to-back speed differ from its one-launch speed
// because of the clock it holds? For each of cuBLAS and the named mappings of a generated gemm.cu:
// launches back to back on rotating inputs for PHASE seconds (the host keeps at most 64 in flight),
// prints the wall-clock window (UTC, ms) and the mean device time per launch; nvidia-smi, sampling
// clocks and power in the background (probe.sh), is matched to the windows afterwards.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -IGEN/gemm
//        -DLOOM_HAVE_GEMM probe.cu -lcuda -lcublas
// Usage: probe M N K PHASE_S GAP_S m0 m6 cublas ...
#include "gemm.cu"

#include <cublas_v2.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "cublas_gemm.cuh"
#include "gemm_harness.cuh"

static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  if (argc < 7) return 2;
  const int64_t M = std::atoll(argv[1]), N = std::atoll(argv[2]), K = std::atoll(argv[3]);
  const double phase_s = std::atof(argv[4]), gap_s = std::atof(argv[5]);
  hx::Problem p = hx::gemm_problem(M, N, K);
  hx::KernelTypes t;
  std::string why;
  if (!hx::kernel_types(false, &t, &why)) { std::fprintf(stderr, "%s\n", why.c_str()); return 2; }
  cudaDeviceProp prop;
  std::printf("# %s\n", hx::device_description(&prop).c_str());
  const int sets = hx::rotation_sets(p, t, prop);
  std::vector<hx::Matrix> A, B, C;
  for (int s = 0; s < sets; ++s) {
    A.push_back(hx::make_matrix(t.a, 1, M, K, t.align));
    B.push_back(hx::make_matrix(t.b, 1, K, N, t.align));
    C.push_back(hx::make_matrix(t.c, 1, M, N, t.align));
    hx::fill_random(A.back(), 11 + s, 0);
    hx::fill_random(B.back(), 101 + s, 0);
  }
  cudaStream_t st;
  HX_CUDA(cudaStreamCreate(&st));
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, st);
  std::printf("# sets %d, phase %.1f s, gap %.1f s\n", sets, phase_s, gap_s);
  for (int a = 6; a < argc; ++a) {
    const std::string who = argv[a];
    auto launch = [&](int i) -> int {
      const int s = i % sets;
      if (who == "cublas") return int(hx::cublas_call(h, p, C[s], A[s], B[s]));
      return hx::loom_mapping_call(p, std::atoi(who.c_str() + 1), C[s], A[s], B[s], st);
    };
    for (int i = 0; i < 3; ++i) launch(i);
    HX_CUDA(cudaStreamSynchronize(st));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const double w0 = now_ms();
    cudaEventRecord(e0, st);
    int n = 0, rc = 0;
    while (now_ms() - w0 < phase_s * 1e3) {
      for (int j = 0; j < 32; ++j) rc |= launch(n++);
      cudaEvent_t e;
      cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
      cudaEventRecord(e, st);
      // keep about 64 launches in flight
      static cudaEvent_t prev = nullptr;
      if (prev) { cudaEventSynchronize(prev); cudaEventDestroy(prev); }
      prev = e;
    }
    cudaEventRecord(e1, st);
    cudaEventSynchronize(e1);
    const double w1 = now_ms();
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("%s %lldx%lldx%lld window_ms %.0f %.0f launches %d us_per_launch %.2f TFLOPs %.1f rc %d\n", who.c_str(), (long long)M, (long long)N, (long long)K, w0, w1, n,
                1e3 * ms / n, 2.0 * M * N * K / (ms * 1e-3 / n) / 1e12, rc);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(int(gap_s * 1e3)));
  }
  return 0;
}

// Host cost of a call: how long loom_gemm() (argument checks, the launcher's pick over the program's
// mappings, tensor-map encoding, the launch) and cublasGemmEx take on the host per call, and what a
// stream of back-to-back calls of a small GEMM costs per call on the GPU without anything queued ahead
// (CUDA events around the whole stream): where the host is slower than the kernel, the second number
// is the host's. loom_gemm_pick (the launcher's choice alone, nothing launched) is timed too. bench/gemm_mappings.cu hides the host (a spin kernel keeps the queue full); a user
// calling small GEMMs in a loop does not.
//
// Build (GEN = loom compile examples/gemm/gemm.loom -o GEN):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -IGEN -DLOOM_HAVE_GEMM \
//        bench/host_overhead.cu GEN/gemm.cu -lcuda -lcublas -o host_overhead
// Usage: host_overhead [--calls N] [--shape MxNxK ...]; prints a markdown table.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cublas_gemm.cuh"
#include "gemm_harness.cuh"

namespace {

struct Cost {
  double host_us = 0, stream_us = 0;
};

// `calls` back-to-back calls of f (after a warm-up): host microseconds per call from a steady clock
// around the enqueue loop, and GPU microseconds per call from events around the same loop.
template <class F>
Cost measure(F&& f, int calls, cudaStream_t s) {
  for (int i = 0; i < 20; ++i) f();
  HX_CUDA(cudaStreamSynchronize(s));
  cudaEvent_t e0, e1;
  HX_CUDA(cudaEventCreate(&e0));
  HX_CUDA(cudaEventCreate(&e1));
  HX_CUDA(cudaEventRecord(e0, s));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  const auto t1 = std::chrono::steady_clock::now();
  HX_CUDA(cudaEventRecord(e1, s));
  HX_CUDA(cudaEventSynchronize(e1));
  float ms = 0;
  HX_CUDA(cudaEventElapsedTime(&ms, e0, e1));
  HX_CUDA(cudaEventDestroy(e0));
  HX_CUDA(cudaEventDestroy(e1));
  Cost c;
  c.host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
  c.stream_us = 1e3 * double(ms) / calls;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 2000;
  std::vector<std::string> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--calls" && i + 1 < argc) calls = std::atoi(argv[++i]);
    else if (a == "--shape" && i + 1 < argc) shapes.push_back(argv[++i]);
    else {
      std::fprintf(stderr, "usage: host_overhead [--calls N] [--shape MxNxK ...]\n");
      return 2;
    }
  }
  if (shapes.empty()) shapes = {"128x128x64", "200x361x144", "884x192x88", "1024x1024x1024", "4096x4096x4096"};
  cudaStream_t s;
  HX_CUDA(cudaStreamCreate(&s));
  void* workspace = nullptr;
  cublasHandle_t cublas = hx::cublas_on(s, &workspace);
  cudaDeviceProp prop{};
  HX_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# Host cost of a GEMM call, %s, %d back-to-back calls a measurement\n\n", prop.name, calls);
  std::printf("| shape | loom host µs/call | loom stream µs/call | of which the pick, host µs/call | cuBLAS host µs/call | cuBLAS stream µs/call |\n"
              "|---|---|---|---|---|---|\n");
  for (const std::string& sh : shapes) {
    long long M = 0, N = 0, K = 0;
    if (std::sscanf(sh.c_str(), "%lldx%lldx%lld", &M, &N, &K) != 3) {
      std::fprintf(stderr, "bad shape %s\n", sh.c_str());
      return 2;
    }
    const hx::Problem p = hx::gemm_problem(M, N, K);
    hx::Matrix A = hx::make_matrix(LOOM_BF16, 1, M, K, 16), B = hx::make_matrix(LOOM_BF16, 1, K, N, 16);
    hx::Matrix C = hx::make_matrix(LOOM_BF16, 1, M, N, 16);
    hx::fill_random(A, 1, s);
    hx::fill_random(B, 2, s);
    const loom_tensor tc = C.tensor(false), ta = A.tensor(false), tb = B.tensor(false);
    int rc = 0;
    const Cost l = measure([&] { rc |= loom_gemm(tc, ta, tb, s); }, calls, s);
    if (rc != 0) {
      std::fprintf(stderr, "loom_gemm failed: %d\n", rc);
      return 1;
    }
    int picked = 0;
    const Cost pk = measure([&] { picked = loom_gemm_pick(tc, ta, tb, s); }, calls, s);  // the pick alone: nothing launched
    const Cost c = measure([&] { HX_CUBLAS(hx::cublas_call(cublas, p, C, A, B)); }, calls, s);
    std::printf("| %s | %.2f | %.2f | %.2f (m%d) | %.2f | %.2f |\n", sh.c_str(), l.host_us, l.stream_us, pk.host_us, picked, c.host_us,
                c.stream_us);
    std::fflush(stdout);
    hx::free_matrix(A);
    hx::free_matrix(B);
    hx::free_matrix(C);
  }
  HX_CUBLAS(cublasDestroy(cublas));
  HX_CUDA(cudaFree(workspace));
  return 0;
}

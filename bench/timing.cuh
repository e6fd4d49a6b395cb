// Timing helpers shared by bench/gemm_bench.cu and bench/gemm_mappings.cu: per-launch CUDA events
// behind a spin kernel (so the events time back-to-back kernels, not launch gaps), medians.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gemm_harness.cuh"

namespace hx {

static __global__ void spin_kernel(uint64_t ns) {
  uint64_t t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

struct Samples {
  std::vector<float> ms;
  double round_median[2] = {0, 0};
  double host_us = 0;  // host time per call, averaged over the rounds
  int error = 0;       // first non-zero status of a call
};

inline double median(std::vector<float> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (double(v[n / 2 - 1]) + double(v[n / 2]));
}

// One timed round of `reps` launches, launch(i) using input copy i % sets; `settle` untimed launches
// of the same call run first (after the spin kernel), so that the timed ones find the GPU in the
// power state this call keeps it in, whatever ran before (bench/results/2026-12-03-h200-tune.md: a
// call timed right after a lighter one ran up to 15% faster than in steady state).
template <class Launch>
void time_round(Launch& launch, int sets, int reps, double spin_ms, cudaStream_t s, int round,
                Samples* out, int settle = 0) {
  std::vector<cudaEvent_t> ev(2 * size_t(reps));
  for (auto& e : ev) HX_CUDA(cudaEventCreate(&e));
  spin_kernel<<<1, 1, 0, s>>>(uint64_t(spin_ms * 1e6));
  HX_CUDA(cudaGetLastError());
  for (int i = 0; i < settle; ++i) (void)launch(i % sets);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) {
    HX_CUDA(cudaEventRecord(ev[2 * i], s));
    const int rc = launch(i % sets);
    if (rc && !out->error) out->error = rc;
    HX_CUDA(cudaEventRecord(ev[2 * i + 1], s));
  }
  const auto t1 = std::chrono::steady_clock::now();
  HX_CUDA(cudaStreamSynchronize(s));
  std::vector<float> round_ms(reps);
  for (int i = 0; i < reps; ++i) HX_CUDA(cudaEventElapsedTime(&round_ms[i], ev[2 * i], ev[2 * i + 1]));
  for (auto& e : ev) HX_CUDA(cudaEventDestroy(e));
  out->round_median[round] = median(round_ms);
  out->ms.insert(out->ms.end(), round_ms.begin(), round_ms.end());
  out->host_us += 0.5 * std::chrono::duration<double, std::micro>(t1 - t0).count() / reps;
}

// Warm-up; returns the per-launch device time (ms) and host time (us) of the last warm-up calls.
template <class Launch>
void warm_up(Launch& launch, int sets, cudaStream_t s, double* device_ms, double* host_us,
             int* error) {
  cudaEvent_t a, b;
  HX_CUDA(cudaEventCreate(&a));
  HX_CUDA(cudaEventCreate(&b));
  int rc = launch(0);  // first call: module load, attribute setting
  if (rc) *error = rc;
  HX_CUDA(cudaStreamSynchronize(s));
  int n = 3;
  for (int pass = 0; pass < 2; ++pass) {
    HX_CUDA(cudaEventRecord(a, s));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      if ((rc = launch(i % sets)) && !*error) *error = rc;
    const auto t1 = std::chrono::steady_clock::now();
    HX_CUDA(cudaEventRecord(b, s));
    HX_CUDA(cudaStreamSynchronize(s));
    float ms = 0;
    HX_CUDA(cudaEventElapsedTime(&ms, a, b));
    *device_ms = std::max(ms / n, 1e-4f);
    *host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
    n = int(std::clamp(30.0 / *device_ms, 3.0, 300.0));  // second pass: about 30 ms
  }
  HX_CUDA(cudaEventDestroy(a));
  HX_CUDA(cudaEventDestroy(b));
}

}  // namespace hx

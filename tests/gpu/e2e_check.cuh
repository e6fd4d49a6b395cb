// tests/gpu/e2e_check.cuh: what the end-to-end kernel tests (dual_gemm_correctness.cu,
// gemm_colmajor_b.cu) share: a CUDA call check, seeded bf16 inputs in [-1, 1), a NaN poison no
// kernel writes, the comparison of a bf16 output against a double reference (relative Frobenius
// error, non-finite values, stray writes into the row padding), and the run of every mapping by index.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace e2e {

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

__device__ uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Element i of the seeded inputs: uniform in [-1, 1), 24 random bits.
__device__ float uniform_pm1(uint64_t seed, int64_t i) {
  return float(mix(seed ^ uint64_t(i)) >> 40) / float(1 << 24) * 2.0f - 1.0f;
}

__global__ void fill(__nv_bfloat16* p, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16(uniform_pm1(seed, i));
}

__global__ void poison(uint16_t* p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = 0x7fc1;  // a NaN pattern no kernel writes
}

struct Result {
  double err2 = 0, ref2 = 0;
  unsigned long long nonfinite = 0, stray = 0;
};

__global__ void compare(const uint16_t* D, const double* ref, int64_t M, int64_t N, int64_t ldd, Result* r) {
  int64_t i = blockIdx.y;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < ldd; j += int64_t(gridDim.x) * blockDim.x) {
    uint16_t bits = D[i * ldd + j];
    if (j >= N) {
      if (bits != 0x7fc1) atomicAdd(&r->stray, 1ull);
      continue;
    }
    float v = __bfloat162float(__ushort_as_bfloat16(bits));
    if (!isfinite(v)) {
      atomicAdd(&r->nonfinite, 1ull);
      continue;
    }
    double d = double(v) - ref[i * N + j];
    atomicAdd(&r->err2, d * d);
    atomicAdd(&r->ref2, ref[i * N + j] * ref[i * N + j]);
  }
}

inline int64_t pad8(int64_t x) { return (x + 7) / 8 * 8; }

// Every mapping by index (the launcher's cost model picks one per call: the others must be right
// too): run(M, N, K, seed, mapping) for mappings 0 .. mappings - 1 at each shape, seeds counting up
// from `seed`. `shape` non-empty ("MxNxK", a harness's --by-index: its sanitizer runs) replaces the
// shapes by that one. Returns 1 if every run passed, 0 if one failed, -1 for a malformed `shape`.
template <class Run>
int every_mapping(int mappings, const char* shape, uint64_t& seed, Run run) {
  int64_t shapes[3][3] = {{129, 257, 65}, {1000, 1000, 1000}, {300, 200, 1000}};  // tiles cut in every mapping, and interior ones
  int count = 3;
  if (shape && *shape) {
    long long m = 0, n = 0, k = 0;
    if (std::sscanf(shape, "%lldx%lldx%lld", &m, &n, &k) != 3) return -1;
    shapes[0][0] = m, shapes[0][1] = n, shapes[0][2] = k;
    count = 1;
  }
  bool all = true;
  for (int s = 0; s < count; ++s)
    for (int i = 0; i < mappings; ++i) all = run(shapes[s][0], shapes[s][1], shapes[s][2], seed++, i) && all;
  return all ? 1 : 0;
}

// A harness's --by-index SHAPE: every mapping by index at that shape alone (the sanitizers' runs);
// prints "<name>: PASS" or "FAIL" and returns the process's exit status (2 for a malformed shape).
template <class Run>
int by_index_main(const char* name, int mappings, const char* shape, uint64_t& seed, Run run) {
  const int r = every_mapping(mappings, shape, seed, run);
  if (r < 0) std::printf("--by-index wants MxNxK\n");
  else std::printf("%s: %s\n", name, r ? "PASS" : "FAIL");
  return r < 0 ? 2 : r ? 0 : 1;
}

}  // namespace e2e

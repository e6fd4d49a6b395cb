// attention_correctness: loom's generated multi-head attention forward (examples/flash_attention_2 and
// examples/flash_attention_3, entry `mha`) against an fp32 reference computed on the GPU.
//
//   int loom_mha(loom_tensor O, loom_tensor Q, loom_tensor Kt, loom_tensor V, float scale, cudaStream_t);
//   O[b] = softmax_row(softmax_scale * Q[b] K[b]^T) V[b], b < BH; Q, O: BH x M x D, K, V: BH x N x D, bf16
//   (f16 with --f16: an artifact compiled with entry(E=f16)).
//   The kernel uses exp2: scale = softmax_scale * log2(e). Kt is K's ordinary row-major [BH, N, D] buffer
//   described as its transpose: shape {BH, D, N}, stride {N*D, 1, D}.
//
// Per shape (BH x M x N x D) and per softmax scale (1/sqrt(D), and 8/sqrt(D) for peaked rows that
// exercise the running-max rescaling): fresh random 16-bit inputs in [-1, 1) (seed printed), O poisoned
// (NaN) before every launch and placed inside a larger buffer whose guard regions before and after
// must stay poisoned, the kernel launched twice (the two outputs must be bitwise equal: a forward
// attention kernel has no reason to be nondeterministic, so a difference is a race), compared with
// the reference by relative Frobenius error < 1e-2, with no non-finite value. A launcher that answers
// LOOM_ERR_SHAPE for a valid shape (FA3 requires N % 128 == 0, say) is reported as SKIP (with
// --strict, as FAIL) and must have written nothing. A head dimension the kernel refuses (probed with
// 1x128x128xD) is skipped with a message; if it supports none of --d, the test fails.
// Then the error paths: NULL data, base + 1 byte, wrong dtype, wrong rank, D the kernel was not
// compiled for, Q/V head dimensions disagreeing, N of Kt != N of V, Kt passed with row-major strides:
// each must return nonzero, launch nothing (O stays poisoned) and raise no CUDA error.
//
// Build: nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Iruntime -Itests/gpu -I$GEN \
//          tests/gpu/attention_correctness.cu $GEN/mha.cu -lcuda -o attention_correctness
//        ($GEN = build-gpu/gen/flash_attention_2 or .../flash_attention_3; tests/gpu/e2e/attention.sh does this)
// Usage: attention_correctness [--d "64 128"] [--only BHxMxNxD] [--seed S] [--strict] [--skip-large]
//                              [--skip-errors] [--allow-nondeterminism] [--offset E] [--causal] [--f16]
//   --only runs exactly that shape (any shape, listed or not) and no error-path checks, for compute-sanitizer.
// Exit 0 only if everything run passes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_check.cuh"
#include "mha.h"

namespace {

using namespace e2e;

constexpr double kTolerance = 1e-2;
constexpr float kLog2e = 1.4426950408889634f;
constexpr uint16_t kPoison = 0x7fc1;  // e2e::poison's pattern
constexpr int64_t kGuard = 4096;      // elements of guard before and after O (8 KiB: keeps O 16-byte aligned)

// The element type of Q, K, V and O: bf16, or f16 with --f16 (an artifact compiled with
// entry(E=f16)). Buffers hold the 16-bit patterns; these convert them.
int g_dtype = LOOM_BF16;
__device__ __forceinline__ float to_f32(uint16_t bits, bool f16) {
  return f16 ? __half2float(__ushort_as_half(bits)) : __bfloat162float(__ushort_as_bfloat16(bits));
}

// e2e::fill's values in [-1, 1), rounded to the element type.
__global__ void fill16(uint16_t* p, int64_t n, uint64_t seed, bool f16) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float x = uniform_pm1(seed, i);
    p[i] = f16 ? __half_as_ushort(__float2half(x)) : __bfloat16_as_ushort(__float2bfloat16(x));
  }
}

// ---- fp32 reference -----------------------------------------------------------------------------
// One block of kRefThreads threads per (b, tile of kRefRows query rows); the loop walks kRefKeys-key
// tiles of K and V through shared memory with an online (numerically stable) softmax in the exp2
// domain, like the kernel, but entirely in fp32 (P is not rounded to bf16). Works for D <= kRefMaxD.
constexpr int kRefRows = 16, kRefKeys = 32, kRefThreads = 128, kRefMaxD = 256;
constexpr int kRefAcc = kRefRows * kRefMaxD / kRefThreads;  // accumulators per thread

__global__ void __launch_bounds__(kRefThreads)
reference(float* ref, const uint16_t* Q, const uint16_t* K, const uint16_t* V, int64_t M, int64_t N,
          int D, float scale_log2, int causal, bool f16) {
  extern __shared__ float sm[];
  float* Qs = sm;                       // [kRefRows][D]
  float* Ks = Qs + kRefRows * D;        // [kRefKeys][D + 1] (padded: conflict-free column reads)
  float* Vs = Ks + kRefKeys * (D + 1);  // [kRefKeys][D]
  float* Ps = Vs + kRefKeys * D;        // [kRefRows][kRefKeys]
  float* alpha = Ps + kRefRows * kRefKeys;  // [kRefRows]
  float* mrow = alpha + kRefRows;           // [kRefRows]
  float* lrow = mrow + kRefRows;            // [kRefRows]
  const int t = threadIdx.x;
  const int64_t b = blockIdx.y, r0 = int64_t(blockIdx.x) * kRefRows;
  const uint16_t* Qb = Q + b * M * D;
  const uint16_t* Kb = K + b * N * D;
  const uint16_t* Vb = V + b * N * D;
  for (int i = t; i < kRefRows * D; i += kRefThreads) {
    int64_t r = r0 + i / D;
    Qs[i] = r < M ? to_f32(Qb[r * D + i % D], f16) : 0.f;
  }
  if (t < kRefRows) {
    mrow[t] = -INFINITY;
    lrow[t] = 0.f;
  }
  float acc[kRefAcc];
#pragma unroll
  for (int k = 0; k < kRefAcc; ++k) acc[k] = 0.f;
  for (int64_t n0 = 0; n0 < N; n0 += kRefKeys) {
    __syncthreads();  // the previous tile's Ks, Vs, Ps, alpha are consumed
    for (int i = t; i < kRefKeys * D; i += kRefThreads) {
      int c = i / D, d = i % D;
      bool in = n0 + c < N;
      Ks[c * (D + 1) + d] = in ? to_f32(Kb[(n0 + c) * D + d], f16) : 0.f;
      Vs[c * D + d] = in ? to_f32(Vb[(n0 + c) * D + d], f16) : 0.f;
    }
    __syncthreads();
    for (int p = t; p < kRefRows * kRefKeys; p += kRefThreads) {
      int r = p / kRefKeys, c = p % kRefKeys;
      float s = 0.f;
      for (int d = 0; d < D; ++d) s = fmaf(Qs[r * D + d], Ks[c * (D + 1) + d], s);
      // Causal (--causal): query row r0 + r sees the keys up to itself only.
      const bool seen = n0 + c < N && (!causal || n0 + c <= r0 + r);
      Ps[p] = seen ? s * scale_log2 : -INFINITY;
    }
    __syncthreads();
    if (t < kRefRows) {
      float mx = mrow[t];
      for (int c = 0; c < kRefKeys; ++c) mx = fmaxf(mx, Ps[t * kRefKeys + c]);
      float a = exp2f(mrow[t] - mx);  // mrow = -inf on the first tile: a = 0 (mx is finite: key n0 exists)
      float sum = 0.f;
      for (int c = 0; c < kRefKeys; ++c) {
        float e = exp2f(Ps[t * kRefKeys + c] - mx);
        Ps[t * kRefKeys + c] = e;
        sum += e;
      }
      lrow[t] = lrow[t] * a + sum;
      mrow[t] = mx;
      alpha[t] = a;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kRefAcc; ++k) {
      int idx = t + k * kRefThreads;
      if (idx < kRefRows * D) {
        int r = idx / D, d = idx % D;
        float s = acc[k] * alpha[r];
        for (int c = 0; c < kRefKeys; ++c) s = fmaf(Ps[r * kRefKeys + c], Vs[c * D + d], s);
        acc[k] = s;
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kRefAcc; ++k) {
    int idx = t + k * kRefThreads;
    if (idx < kRefRows * D) {
      int64_t r = r0 + idx / D;
      if (r < M) ref[(b * M + r) * D + idx % D] = acc[k] / lrow[idx / D];
    }
  }
}

size_t reference_smem(int D) {
  return sizeof(float) * (kRefRows * D + kRefKeys * (D + 1) + kRefKeys * D + kRefRows * kRefKeys + 3 * kRefRows);
}

// ---- comparison ---------------------------------------------------------------------------------
struct Check {
  double err2, ref2;
  unsigned long long nonfinite, stray, differ;
};

// buf holds kGuard + n + kGuard elements, O at buf + kGuard; buf2 the same for the second launch.
__global__ void check(const uint16_t* buf, const uint16_t* buf2, const float* ref, int64_t n, Check* out, bool f16) {
  double e2 = 0, r2 = 0;
  unsigned long long nf = 0, st = 0, df = 0;
  const int64_t total = n + 2 * kGuard;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    uint16_t bits = buf[i];
    if (i < kGuard || i >= kGuard + n) {
      st += (bits != kPoison) + (buf2[i] != kPoison);
      continue;
    }
    df += bits != buf2[i];
    float v = to_f32(bits, f16);
    double r = ref[i - kGuard];
    if (!isfinite(v)) {
      ++nf;
      continue;
    }
    e2 += (double(v) - r) * (double(v) - r);
    r2 += r * r;
  }
  // Block reduction, then one atomic per block.
  __shared__ double se[32], sr[32];
  __shared__ unsigned long long sn[32], ss[32], sd[32];
  for (int o = 16; o > 0; o >>= 1) {
    e2 += __shfl_down_sync(0xffffffffu, e2, o);
    r2 += __shfl_down_sync(0xffffffffu, r2, o);
    nf += __shfl_down_sync(0xffffffffu, nf, o);
    st += __shfl_down_sync(0xffffffffu, st, o);
    df += __shfl_down_sync(0xffffffffu, df, o);
  }
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    se[w] = e2;
    sr[w] = r2;
    sn[w] = nf;
    ss[w] = st;
    sd[w] = df;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < int(blockDim.x / 32); ++i) {
      e2 += se[i];
      r2 += sr[i];
      nf += sn[i];
      st += ss[i];
      df += sd[i];
    }
    atomicAdd(&out->err2, e2);
    atomicAdd(&out->ref2, r2);
    atomicAdd(&out->nonfinite, nf);
    atomicAdd(&out->stray, st);
    atomicAdd(&out->differ, df);
  }
}

// Counts elements of p[0, n) that are not the poison pattern.
__global__ void count_written(const uint16_t* p, int64_t n, unsigned long long* out) {
  unsigned long long c = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    c += p[i] != kPoison;
  if (c) atomicAdd(out, c);
}

// ---- helpers ------------------------------------------------------------------------------------
struct Shape {
  int64_t BH, M, N, D;
  std::string name() const {
    return std::to_string(BH) + "x" + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(D);
  }
};

loom_tensor rowmajor(void* p, int64_t BH, int64_t R, int64_t C) {
  return loom_tensor_3d(p, g_dtype, BH, R, C, C, R * C);
}

// K's row-major [BH, N, D] buffer as the column-major Kt: shape {BH, D, N}, stride {N*D, 1, D}.
loom_tensor kt_colmajor(void* K, int64_t BH, int64_t N, int64_t D) {
  loom_tensor t = loom_tensor_3d(K, g_dtype, BH, D, N, 0, N * D);
  t.stride[1] = 1;
  t.stride[2] = D;
  return t;
}

unsigned grid_for(int64_t n) { return unsigned(std::min<int64_t>(4 * 132, std::max<int64_t>(1, (n + 255) / 256))); }

// Device buffers of one shape: Q, K, V, two guarded O buffers, the reference.
struct Buffers {
  int64_t nq = 0, nk = 0;
  uint16_t *Q = nullptr, *K = nullptr, *V = nullptr;  // 16-bit patterns of g_dtype
  uint16_t *Qbase = nullptr, *Kbase = nullptr, *Vbase = nullptr;
  uint16_t *Obuf = nullptr, *Obuf2 = nullptr;
  float* ref = nullptr;
  // offset: Q, K and V start that many elements past a 256-byte aligned allocation (1..7: bases
  // the TMA cannot address, so the launcher runs the async-copy variant).
  Buffers(const Shape& s, int64_t offset = 0) {
    nq = s.BH * s.M * s.D;
    nk = s.BH * s.N * s.D;
    CHECK(cudaMalloc(&Qbase, sizeof(*Q) * (std::max<int64_t>(1, nq) + 8)));
    CHECK(cudaMalloc(&Kbase, sizeof(*K) * (std::max<int64_t>(1, nk) + 8)));
    CHECK(cudaMalloc(&Vbase, sizeof(*V) * (std::max<int64_t>(1, nk) + 8)));
    Q = Qbase + offset;
    K = Kbase + offset;
    V = Vbase + offset;
    CHECK(cudaMalloc(&Obuf, sizeof(*Obuf) * (nq + 2 * kGuard)));
    CHECK(cudaMalloc(&Obuf2, sizeof(*Obuf2) * (nq + 2 * kGuard)));
    CHECK(cudaMalloc(&ref, sizeof(*ref) * std::max<int64_t>(1, nq)));
  }
  ~Buffers() {
    cudaFree(Qbase);
    cudaFree(Kbase);
    cudaFree(Vbase);
    cudaFree(Obuf);
    cudaFree(Obuf2);
    cudaFree(ref);
  }
  uint16_t* O() const { return Obuf + kGuard; }
  uint16_t* O2() const { return Obuf2 + kGuard; }
  void poison_all() const {
    poison<<<grid_for(nq + 2 * kGuard), 256>>>(Obuf, nq + 2 * kGuard);
    poison<<<grid_for(nq + 2 * kGuard), 256>>>(Obuf2, nq + 2 * kGuard);
    CHECK(cudaGetLastError());
  }
  unsigned long long written() const {  // non-poison elements anywhere in the first O buffer
    unsigned long long* c;
    CHECK(cudaMallocManaged(&c, sizeof(*c)));
    *c = 0;
    count_written<<<grid_for(nq + 2 * kGuard), 256>>>(Obuf, nq + 2 * kGuard, c);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long v = *c;
    cudaFree(c);
    return v;
  }
};

enum class Outcome { Pass, Fail, Skip };

struct Options {
  std::vector<int64_t> dims{64, 128};
  std::string only;
  uint64_t seed = 0;
  bool strict = false, skip_large = false, skip_errors = false, allow_nondet = false;
  bool causal = false;  // the kernel is causal (examples/flash_attention_3_causal): so is the reference
  int64_t offset = 0;   // --offset E: Q, K, V bases E elements past 16-byte alignment (async-copy variant)
};

// Runs one shape at one softmax scale multiplier. Prints one table row.
Outcome run(const Shape& s, float scale_mult, uint64_t seed, const Options& opt) {
  Buffers b(s, opt.offset);
  const float softmax_scale = scale_mult / std::sqrt(float(s.D));
  const float scale = softmax_scale * kLog2e;
  fill16<<<grid_for(b.nq), 256>>>(b.Q, b.nq, seed, g_dtype == LOOM_F16);
  fill16<<<grid_for(b.nk), 256>>>(b.K, b.nk, seed * 3 + 1, g_dtype == LOOM_F16);
  fill16<<<grid_for(b.nk), 256>>>(b.V, b.nk, seed * 5 + 2, g_dtype == LOOM_F16);
  CHECK(cudaGetLastError());
  const size_t smem = reference_smem(int(s.D));
  CHECK(cudaFuncSetAttribute(reference, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreate(&e2));
  CHECK(cudaEventRecord(e0));
  reference<<<dim3(unsigned((s.M + kRefRows - 1) / kRefRows), unsigned(s.BH)), kRefThreads, smem>>>(
      b.ref, b.Q, b.K, b.V, s.M, s.N, int(s.D), scale, opt.causal ? 1 : 0, g_dtype == LOOM_F16);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ref_ms = 0;
  CHECK(cudaEventElapsedTime(&ref_ms, e0, e1));
  b.poison_all();

  const loom_tensor tQ = rowmajor(b.Q, s.BH, s.M, s.D), tKt = kt_colmajor(b.K, s.BH, s.N, s.D),
                    tV = rowmajor(b.V, s.BH, s.N, s.D);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0));
  int rc = loom_mha(rowmajor(b.O(), s.BH, s.M, s.D), tQ, tKt, tV, scale, 0);
  CHECK(cudaEventRecord(e1));
  int rc2 = rc == LOOM_OK ? loom_mha(rowmajor(b.O2(), s.BH, s.M, s.D), tQ, tKt, tV, scale, 0) : rc;
  CHECK(cudaEventRecord(e2));
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaEventDestroy(e2);

  char head[96];
  std::snprintf(head, sizeof head, "| %-20s | x%-2g | seed %-20llu |", s.name().c_str(), double(scale_mult),
                (unsigned long long)seed);
  if (rc == LOOM_ERR_SHAPE) {
    unsigned long long w = b.written();
    bool clean = w == 0;
    std::printf("%s %s | rc %d (%s): kernel refuses this shape%s\n", head, clean && !opt.strict ? "SKIP" : "FAIL",
                rc, loom_error_string(rc), clean ? "" : ", yet wrote to O");
    return clean && !opt.strict ? Outcome::Skip : Outcome::Fail;
  }
  Check* res;
  CHECK(cudaMallocManaged(&res, sizeof(Check)));
  *res = Check{};
  if (rc == LOOM_OK) {
    check<<<grid_for(b.nq + 2 * kGuard), 256>>>(b.Obuf, b.Obuf2, b.ref, b.nq, res, g_dtype == LOOM_F16);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  double rel = res->ref2 > 0 ? std::sqrt(res->err2 / res->ref2) : std::sqrt(res->err2);
  bool ok = rc == LOOM_OK && rc2 == LOOM_OK && res->nonfinite == 0 && res->stray == 0 && rel < kTolerance &&
            (res->differ == 0 || opt.allow_nondet);
  double tflops = ms > 0 ? 4.0 * s.BH * s.M * s.N * s.D / (ms * 1e-3) / 1e12 : 0;
  std::printf("%s %s | rc %d/%d, rel err %.3e, non-finite %llu, guard writes %llu, run-to-run diffs %llu | loom %.3f ms "
              "(%.1f TFLOP/s, 1st launch), ref %.1f ms\n",
              head, ok ? "ok  " : "FAIL", rc, rc2, rel, res->nonfinite, res->stray, res->differ, ms, tflops, ref_ms);
  if (rc != LOOM_OK) std::printf("    loom_mha: %s\n", loom_error_string(rc));
  cudaFree(res);
  return ok ? Outcome::Pass : Outcome::Fail;
}

// Does the kernel accept head dimension D? (A 1x128x128xD launch; LOOM_ERR_SHAPE means no.)
bool supports(int64_t D, uint64_t seed) {
  Shape s{1, 128, 128, D};
  Buffers b(s);
  fill16<<<grid_for(b.nq), 256>>>(b.Q, b.nq, seed, g_dtype == LOOM_F16);
  fill16<<<grid_for(b.nk), 256>>>(b.K, b.nk, seed + 1, g_dtype == LOOM_F16);
  fill16<<<grid_for(b.nk), 256>>>(b.V, b.nk, seed + 2, g_dtype == LOOM_F16);
  b.poison_all();
  CHECK(cudaDeviceSynchronize());
  int rc = loom_mha(rowmajor(b.O(), 1, 128, D), rowmajor(b.Q, 1, 128, D), kt_colmajor(b.K, 1, 128, D),
                    rowmajor(b.V, 1, 128, D), 1.f, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  if (rc != LOOM_OK)
    std::printf("D = %lld: loom_mha returns %d (%s) for 1x128x128x%lld: %s\n", (long long)D, rc, loom_error_string(rc),
                (long long)D, rc == LOOM_ERR_SHAPE ? "not supported, skipping this D" : "unexpected, skipping this D");
  return rc == LOOM_OK;
}

// The error paths: every case must return nonzero, launch nothing and leave no CUDA error.
bool error_paths(int64_t D, const std::vector<int64_t>& supported, uint64_t seed) {
  const int64_t BH = 2, M = 256, N = 256;
  Shape s{BH, M, N, std::max<int64_t>(D, 256)};  // room for the wrong-D cases
  Buffers b(s);
  fill16<<<grid_for(b.nq), 256>>>(b.Q, b.nq, seed, g_dtype == LOOM_F16);
  fill16<<<grid_for(b.nk), 256>>>(b.K, b.nk, seed + 1, g_dtype == LOOM_F16);
  fill16<<<grid_for(b.nk), 256>>>(b.V, b.nk, seed + 2, g_dtype == LOOM_F16);
  CHECK(cudaGetLastError());
  const loom_tensor O = rowmajor(b.O(), BH, M, D), Q = rowmajor(b.Q, BH, M, D), Kt = kt_colmajor(b.K, BH, N, D),
                    V = rowmajor(b.V, BH, N, D);
  struct Case {
    std::string what;
    loom_tensor O, Q, Kt, V;
    int expect;  // the code the ABI suggests; any nonzero code passes
  };
  std::vector<Case> cases;
  auto with = [](loom_tensor t, void (*f)(loom_tensor&)) {
    f(t);
    return t;
  };
  cases.push_back({"null O", with(O, [](loom_tensor& t) { t.data = nullptr; }), Q, Kt, V, LOOM_ERR_NULL});
  cases.push_back({"null Q", O, with(Q, [](loom_tensor& t) { t.data = nullptr; }), Kt, V, LOOM_ERR_NULL});
  cases.push_back({"null Kt", O, Q, with(Kt, [](loom_tensor& t) { t.data = nullptr; }), V, LOOM_ERR_NULL});
  cases.push_back({"null V", O, Q, Kt, with(V, [](loom_tensor& t) { t.data = nullptr; }), LOOM_ERR_NULL});
  // A base one element past 16-byte alignment is legal (the async-copy variant runs it: --offset);
  // one byte past is not element-aligned.
  auto plus1 = [](loom_tensor& t) { t.data = static_cast<char*>(t.data) + 1; };
  cases.push_back({"O base + 1 byte", with(O, plus1), Q, Kt, V, LOOM_ERR_ALIGN});
  cases.push_back({"Q base + 1 byte", O, with(Q, plus1), Kt, V, LOOM_ERR_ALIGN});
  cases.push_back({"Kt base + 1 byte", O, Q, with(Kt, plus1), V, LOOM_ERR_ALIGN});
  cases.push_back({"V base + 1 byte", O, Q, Kt, with(V, plus1), LOOM_ERR_ALIGN});
  // The other 16-bit type than the artifact's.
  auto other = [](loom_tensor& t) { t.dtype = g_dtype == LOOM_F16 ? LOOM_BF16 : LOOM_F16; };
  const std::string other_name = g_dtype == LOOM_F16 ? "bf16" : "f16";
  cases.push_back({"dtype of Q " + other_name, O, with(Q, other), Kt, V, LOOM_ERR_DTYPE});
  cases.push_back({"dtype of all " + other_name, with(O, other), with(Q, other), with(Kt, other), with(V, other), LOOM_ERR_DTYPE});
  cases.push_back({"dtype of O f32", with(O, [](loom_tensor& t) { t.dtype = LOOM_F32; }), Q, Kt, V, LOOM_ERR_DTYPE});
  cases.push_back({"dtype 0 (invalid) of V", O, Q, Kt, with(V, [](loom_tensor& t) { t.dtype = 0; }), LOOM_ERR_DTYPE});
  cases.push_back({"rank of Q 2", O, with(Q, [](loom_tensor& t) { t.rank = 2; }), Kt, V, LOOM_ERR_RANK});
  // A head dimension the kernel does not support, everywhere consistent (72: a multiple of 8, so
  // alignment alone does not refuse it; 256: larger than any mapping's tile).
  // A D below the largest compiled head dimension is a legal input (the tile's columns past D are
  // TMA's zero fill and never stored): run it as a shape with --d to check it. Larger ones must be
  // refused (the kernel would leave O's columns past its tile unwritten).
  const int64_t largest = *std::max_element(supported.begin(), supported.end());
  for (int64_t bad : {int64_t(72), int64_t(256), int64_t(32)}) {
    if (std::find(supported.begin(), supported.end(), bad) != supported.end() || bad < largest) continue;
    cases.push_back({"D = " + std::to_string(bad) + " (not compiled)", rowmajor(b.O(), BH, M, bad),
                     rowmajor(b.Q, BH, M, bad), kt_colmajor(b.K, BH, N, bad), rowmajor(b.V, BH, N, bad), LOOM_ERR_SHAPE});
  }
  cases.push_back({"D of V != D of Q", O, Q, Kt, rowmajor(b.V, BH, N, D == 64 ? 128 : 64), LOOM_ERR_SHAPE});
  cases.push_back({"N of V != N of Kt", O, Q, Kt, rowmajor(b.V, BH, N - 128, D), LOOM_ERR_SHAPE});
  cases.push_back({"M of O != M of Q", rowmajor(b.O(), BH, M - 128, D), Q, Kt, V, LOOM_ERR_SHAPE});
  cases.push_back({"BH of Q 1", O, rowmajor(b.Q, 1, M, D), Kt, V, LOOM_ERR_SHAPE});
  cases.push_back({"Kt with row-major strides", O, Q, loom_tensor_3d(b.K, g_dtype, BH, D, N, N, N * D), V,
                   LOOM_ERR_STRIDE});
  bool all = true;
  std::printf("error paths, D = %lld:\n", (long long)D);
  for (const Case& c : cases) {
    b.poison_all();
    CHECK(cudaDeviceSynchronize());
    int rc = loom_mha(c.O, c.Q, c.Kt, c.V, 1.f, 0);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    unsigned long long w = (launch == cudaSuccess && sync == cudaSuccess) ? b.written() : 0;
    bool ok = rc != LOOM_OK && launch == cudaSuccess && sync == cudaSuccess && w == 0;
    all = all && ok;
    std::printf("|   %-34s | %s | rc %d (%s)%s%s%s\n", c.what.c_str(), ok ? "ok  " : "FAIL", rc, loom_error_string(rc),
                rc != LOOM_OK && rc != c.expect
                    ? (std::string(", expected ") + std::to_string(c.expect) + " (any nonzero passes)").c_str()
                    : "",
                launch != cudaSuccess || sync != cudaSuccess
                    ? (std::string(", CUDA error: ") + cudaGetErrorString(launch != cudaSuccess ? launch : sync)).c_str()
                    : "",
                w ? (", wrote " + std::to_string(w) + " elements of O").c_str() : "");
    if (sync != cudaSuccess) std::exit(2);  // a sticky error: nothing further can run
  }
  return all;
}

bool parse_shape(const std::string& s, Shape* out) {
  long long a, b, c, d;
  char tail;
  if (std::sscanf(s.c_str(), "%lldx%lldx%lldx%lld%c", &a, &b, &c, &d, &tail) != 4) return false;
  if (a < 1 || b < 1 || c < 1 || d < 1) return false;
  *out = Shape{a, b, c, d};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  opt.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) opt.only = argv[++i];
    else if (a == "--seed" && i + 1 < argc) opt.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--offset" && i + 1 < argc) opt.offset = std::strtoll(argv[++i], nullptr, 10);
    else if (a == "--d" && i + 1 < argc) {
      opt.dims.clear();
      std::istringstream in(argv[++i]);
      for (int64_t d; in >> d;) opt.dims.push_back(d);
    } else if (a == "--strict") opt.strict = true;
    else if (a == "--skip-large") opt.skip_large = true;
    else if (a == "--skip-errors") opt.skip_errors = true;
    else if (a == "--allow-nondeterminism") opt.allow_nondet = true;
    else if (a == "--causal") opt.causal = true;
    else if (a == "--f16") g_dtype = LOOM_F16;
    else {
      std::fprintf(stderr,
                   "usage: %s [--d \"64 128\"] [--only BHxMxNxD] [--seed S] [--strict] [--skip-large] [--skip-errors] "
                   "[--allow-nondeterminism] [--causal] [--f16]\n",
                   argv[0]);
      return 2;
    }
  }
  int dev = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&prop, dev));
  const loom_kernel_info* info = loom_mha_info();
  std::printf("attention_correctness: %s (%d SMs); kernel %s%s%s, %d threads/block, %lld B dynamic smem; seed %llu\n",
              prop.name, prop.multiProcessorCount, info && info->name ? info->name : "?",
              opt.causal ? " (causal: so is the reference)" : "", g_dtype == LOOM_F16 ? " (f16)" : " (bf16)", info ? info->threads_per_block : 0, info ? (long long)info->smem_bytes : 0LL,
              (unsigned long long)opt.seed);
  uint64_t seed = opt.seed;

  if (!opt.only.empty()) {
    Shape s;
    if (!parse_shape(opt.only, &s)) {
      std::fprintf(stderr, "--only wants BHxMxNxD, e.g. 1x77x77x128\n");
      return 2;
    }
    Outcome o = run(s, 1.f, seed, opt);
    std::printf("attention_correctness: %s\n", o == Outcome::Fail ? "FAIL" : o == Outcome::Skip ? "SKIP" : "PASS");
    return o == Outcome::Fail ? 1 : 0;
  }

  const int64_t shapes[][3] = {{1, 1, 1},       {3, 77, 77},       {2, 1000, 1000}, {4, 4096, 4096},
                               {1, 16384, 16384}, {1, 128, 1000}, {1, 1000, 64}};
  bool all = true;
  int passed = 0, failed = 0, skipped = 0;
  std::vector<int64_t> supported;
  for (int64_t D : opt.dims)
    if (supports(D, seed + 1000 + D)) supported.push_back(D);
  if (supported.empty()) {
    std::printf("attention_correctness: FAIL (the kernel supports none of the head dimensions asked for)\n");
    return 1;
  }
  for (int64_t D : supported) {
    std::printf("D = %lld\n", (long long)D);
    for (auto& sh : shapes) {
      if (opt.skip_large && sh[1] * sh[2] > int64_t(4096) * 4096) continue;
      for (float mult : {1.f, 8.f}) {
        Outcome o = run(Shape{sh[0], sh[1], sh[2], D}, mult, seed++, opt);
        (o == Outcome::Pass ? passed : o == Outcome::Fail ? failed : skipped)++;
        all = all && o != Outcome::Fail;
      }
    }
  }
  if (!opt.skip_errors)
    for (int64_t D : supported) all = error_paths(D, supported, seed++) && all;
  std::printf("attention_correctness: %s (%d passed, %d failed, %d skipped; D tested:", all ? "PASS" : "FAIL", passed,
              failed, skipped);
  for (int64_t D : supported) std::printf(" %lld", (long long)D);
  std::printf(")\n");
  return all ? 0 : 1;
}

// GPU harness shared by tests/gpu/gemm_correctness.cu and bench/gemm_bench.cu.
//
// Device matrices with leading dimensions padded to the kernel's alignment, a seeded random fill
// (padding gets NaN, so a kernel that reads it poisons its result), output poisoning (0xFF bytes:
// NaN in bf16, f16 and f32), a reference GEMM that accumulates in double on the GPU (8192^3 is too
// slow on the CPU), and a comparison kernel: relative Frobenius error, count of NaN/Inf left in the
// output, count of padding or guard elements the kernel wrote.
//
// The generated kernels are compiled in with -DLOOM_HAVE_GEMM (gemm.h, loom_gemm) and/or
// -DLOOM_HAVE_BATCHED_GEMM (batched_gemm.h, loom_batched_gemm); their element types come from the
// metadata (loom_<entry>_info), so bf16 and f16 kernels both work.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "loom/abi.h"

#if defined(LOOM_HAVE_GEMM)
#include "gemm.h"
#endif
#if defined(LOOM_HAVE_BATCHED_GEMM)
#include "batched_gemm.h"
#endif

#define HX_CUDA(call)                                                                         \
  do {                                                                                        \
    cudaError_t hx_err_ = (call);                                                             \
    if (hx_err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(hx_err_));                                              \
      std::fflush(stdout);                                                                    \
      std::exit(3);                                                                           \
    }                                                                                         \
  } while (0)

namespace hx {

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// ---------------------------------------------------------------------------------------------
// Problems

struct Problem {
  const char* group;  // "GEMM" or "batched GEMM"
  bool batched;       // calls loom_batched_gemm with rank-3 tensors
  int64_t batch, M, N, K;

  std::string name() const {
    char buf[96];
    if (batched)
      std::snprintf(buf, sizeof buf, "%lldx%lldx%lldx%lld", (long long)batch, (long long)M,
                    (long long)N, (long long)K);
    else
      std::snprintf(buf, sizeof buf, "%lldx%lldx%lld", (long long)M, (long long)N, (long long)K);
    return buf;
  }
  double flops() const { return 2.0 * double(batch) * double(M) * double(N) * double(K); }
};

inline Problem gemm_problem(int64_t M, int64_t N, int64_t K) { return {"GEMM", false, 1, M, N, K}; }
inline Problem batched_problem(int64_t b, int64_t M, int64_t N, int64_t K) {
  return {"batched GEMM", true, b, M, N, K};
}

// The benchmark's shapes: the fixed table, and --sweep N seeded random shapes per kernel ("GEMM sweep":
// M, N, K in [64, 8192]; "batched GEMM sweep": batch in [2, 16], M, N, K in [64, 4096]; every fourth
// dimension not a multiple of 8; log-uniform, so small and large extents are both common).

// A seeded random extent in [lo, hi], log-uniform; not a multiple of 8 when `odd`.
inline int64_t sweep_extent(uint64_t& state, int64_t lo, int64_t hi, bool odd) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  const double u = double(state >> 11) / double(1ull << 53);
  int64_t x = int64_t(std::exp(std::log(double(lo)) + u * (std::log(double(hi)) - std::log(double(lo)))));
  x = std::min(hi, std::max(lo, x));
  if (odd) return x % 8 ? x : x + (x < hi ? 1 : -1);
  return std::max(lo, x / 8 * 8);
}

inline std::vector<Problem> sweep_problems(int n, uint64_t seed) {
  std::vector<Problem> v;
  uint64_t state = seed;
  int dim = 0;
  auto next = [&](int64_t lo, int64_t hi) { return sweep_extent(state, lo, hi, ++dim % 4 == 0); };
#if defined(LOOM_HAVE_GEMM)
  for (int i = 0; i < n; ++i) {
    Problem p = gemm_problem(next(64, 8192), next(64, 8192), next(64, 8192));
    p.group = "GEMM sweep";
    v.push_back(p);
  }
#endif
#if defined(LOOM_HAVE_BATCHED_GEMM)
  for (int i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t b = 2 + int64_t((state >> 33) % 15);
    Problem p = batched_problem(b, next(64, 4096), next(64, 4096), next(64, 4096));
    p.group = "batched GEMM sweep";
    v.push_back(p);
  }
#endif
  return v;
}

inline std::vector<Problem> bench_problems() {
  std::vector<Problem> v;
#if defined(LOOM_HAVE_GEMM)
  for (int64_t s : {1024, 2048, 4096, 8192, 16384}) v.push_back(gemm_problem(s, s, s));
  v.push_back(gemm_problem(4096, 14336, 4096));
  v.push_back(gemm_problem(8192, 8192, 1024));
  v.push_back(gemm_problem(16384, 4096, 4096));
#endif
#if defined(LOOM_HAVE_BATCHED_GEMM)
  v.push_back(batched_problem(8, 4096, 4096, 4096));
  v.push_back(batched_problem(64, 1024, 1024, 1024));
#endif
  return v;
}


// ---------------------------------------------------------------------------------------------
// The kernels under test, by metadata

inline const loom_kernel_info* loom_info(bool batched) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (batched) return loom_batched_gemm_info();
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!batched) return loom_gemm_info();
#endif
  (void)batched;
  return nullptr;
}

// Element types of C, A, B and the alignment the kernel asks for. `why` says what is off.
struct KernelTypes {
  int c = 0, a = 0, b = 0;
  int64_t align = 16;
};

inline bool kernel_types(bool batched, KernelTypes* t, std::string* why) {
  const loom_kernel_info* info = loom_info(batched);
  if (!info) {
    *why = batched ? "batched_gemm not compiled in" : "gemm not compiled in";
    return false;
  }
  const int rank = batched ? 3 : 2;
  const char* names[3] = {"C", "A", "B"};
  if (info->num_args != 3 || !info->args) {
    *why = "metadata: expected 3 arguments, got " + std::to_string(info->num_args);
    return false;
  }
  int dtypes[3];
  for (int i = 0; i < 3; ++i) {
    const loom_arg_info& a = info->args[i];
    if (a.kind != LOOM_ARG_TENSOR || a.rank != rank) {
      *why = std::string("metadata: argument ") + std::to_string(i) + " is not a rank-" +
             std::to_string(rank) + " tensor";
      return false;
    }
    if (!a.name || std::strcmp(a.name, names[i]) != 0) {
      *why = std::string("metadata: argument ") + std::to_string(i) + " is '" +
             (a.name ? a.name : "(null)") + "', expected '" + names[i] + "'";
      return false;
    }
    dtypes[i] = a.dtype;
    t->align = std::max<int64_t>(t->align, a.align_bytes);
  }
  t->c = dtypes[0];
  t->a = dtypes[1];
  t->b = dtypes[2];
  for (int d : dtypes) {
    if (d != LOOM_BF16 && d != LOOM_F16 && d != LOOM_F32) {
      *why = std::string("metadata: unsupported dtype ") + loom_dtype_name(d);
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Device matrices: `batch` matrices of rows x cols, row-major, rows padded to `ld` elements,
// matrices packed (batch_stride = rows * ld), followed by a guard region.

struct Matrix {
  int dtype = LOOM_BF16;
  int64_t batch = 1, rows = 0, cols = 0, ld = 0, batch_stride = 0;
  void* data = nullptr;
  size_t bytes = 0;  // batch * batch_stride elements
  static constexpr size_t kGuardBytes = 256;

  int64_t elems() const { return batch * batch_stride; }
  loom_tensor tensor(bool batched) const {
    return batched ? loom_tensor_3d(data, dtype, batch, rows, cols, ld, batch_stride)
                   : loom_tensor_2d(data, dtype, rows, cols, ld);
  }
};

inline Matrix make_matrix(int dtype, int64_t batch, int64_t rows, int64_t cols, int64_t align) {
  Matrix m;
  m.dtype = dtype;
  m.batch = batch;
  m.rows = rows;
  m.cols = cols;
  const int64_t es = loom_dtype_size(dtype);
  // HX_LD_ALIGN=BYTES pads every leading dimension to a multiple of BYTES as well (a diagnostic:
  // how much a row stride that is an odd multiple of 16 bytes costs; both loom and the peer get it).
  if (const char* e = std::getenv("HX_LD_ALIGN")) align = std::max<int64_t>(align, std::atoll(e));
  m.ld = round_up(std::max<int64_t>(cols, 1), std::max<int64_t>(align / es, 1));
  m.batch_stride = rows * m.ld;
  m.bytes = size_t(m.elems() * es);
  HX_CUDA(cudaMalloc(&m.data, m.bytes + Matrix::kGuardBytes));
  return m;
}

inline void free_matrix(Matrix& m) {
  if (m.data) HX_CUDA(cudaFree(m.data));
  m.data = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Element access by run-time dtype

__device__ __forceinline__ double hx_load(const void* p, int dtype, int64_t i) {
  switch (dtype) {
    case LOOM_BF16: return double(__bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]));
    case LOOM_F16: return double(__half2float(static_cast<const __half*>(p)[i]));
    case LOOM_F32: return double(static_cast<const float*>(p)[i]);
    case LOOM_F64: return static_cast<const double*>(p)[i];
    default: return NAN;
  }
}

__device__ __forceinline__ void hx_store(void* p, int dtype, int64_t i, float v) {
  switch (dtype) {
    case LOOM_BF16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v); break;
    case LOOM_F16: static_cast<__half*>(p)[i] = __float2half_rn(v); break;
    case LOOM_F32: static_cast<float*>(p)[i] = v; break;
    default: break;
  }
}

// True when the element still holds the poison pattern (all bits set).
__device__ __forceinline__ bool hx_is_poison(const void* p, int dtype, int64_t i) {
  switch (dtype) {
    case LOOM_BF16:
    case LOOM_F16: return static_cast<const uint16_t*>(p)[i] == 0xFFFFu;
    case LOOM_F32: return static_cast<const uint32_t*>(p)[i] == 0xFFFFFFFFu;
    default: return false;
  }
}

__device__ __forceinline__ uint64_t hx_mix(uint64_t x) {  // splitmix64 finalizer
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Logical elements get uniform values in [-1, 1); padding gets NaN.
__global__ void hx_fill_random(void* p, int dtype, int64_t total, int64_t ld, int64_t rows,
                               int64_t cols, int64_t batch_stride, uint64_t seed) {
  const uint64_t key = hx_mix(seed);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t in_matrix = i % batch_stride;
    const int64_t r = in_matrix / ld, c = in_matrix % ld;
    float v = NAN;
    if (r < rows && c < cols) {
      const uint64_t h = hx_mix(key ^ uint64_t(i));
      v = float(double(h >> 40) * (2.0 / 16777216.0) - 1.0);
    }
    hx_store(p, dtype, i, v);
  }
}

inline int grid_for(int64_t n, int threads) {
  return int(std::min<int64_t>((n + threads - 1) / threads, 132 * 16));
}

inline void fill_random(const Matrix& m, uint64_t seed, cudaStream_t s) {
  hx_fill_random<<<grid_for(m.elems(), 256), 256, 0, s>>>(m.data, m.dtype, m.elems(), m.ld,
                                                          m.rows, m.cols, m.batch_stride, seed);
  HX_CUDA(cudaGetLastError());
}

// All bytes, guard included, to 0xFF.
inline void poison(const Matrix& m, cudaStream_t s) {
  HX_CUDA(cudaMemsetAsync(m.data, 0xFF, m.bytes + Matrix::kGuardBytes, s));
}

// ---------------------------------------------------------------------------------------------
// Reference: R[b] = A[b] * B[b] in double, R dense (ld = N). 64 x 64 outputs per block of 256
// threads, 4 x 4 per thread, K in steps of 16 through shared memory.

constexpr int kRefTile = 64, kRefK = 16;

__global__ void __launch_bounds__(256)
    hx_reference_gemm(double* R, const void* A, int adt, int64_t lda, int64_t a_bstride,
                      const void* B, int bdt, int64_t ldb, int64_t b_bstride, int64_t M,
                      int64_t N, int64_t K) {
  __shared__ double As[kRefK][kRefTile];
  __shared__ double Bs[kRefK][kRefTile];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int64_t m0 = int64_t(blockIdx.y) * kRefTile, n0 = int64_t(blockIdx.x) * kRefTile;
  const int64_t b = blockIdx.z;
  const int64_t a_base = b * a_bstride, b_base = b * b_bstride;
  double acc[4][4] = {};
  for (int64_t k0 = 0; k0 < K; k0 += kRefK) {
    for (int i = tid; i < kRefTile * kRefK; i += 256) {
      const int mm = i / kRefK, kk = i % kRefK;  // A tile: 64 rows x 16
      const int64_t gm = m0 + mm, gk = k0 + kk;
      As[kk][mm] = (gm < M && gk < K) ? hx_load(A, adt, a_base + gm * lda + gk) : 0.0;
      const int kb = i / kRefTile, nn = i % kRefTile;  // B tile: 16 rows x 64
      const int64_t gkb = k0 + kb, gn = n0 + nn;
      Bs[kb][nn] = (gkb < K && gn < N) ? hx_load(B, bdt, b_base + gkb * ldb + gn) : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRefK; ++kk) {
      double a[4], bv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fma(a[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t gm = m0 + ty + 16 * i, gn = n0 + tx + 16 * j;
      if (gm < M && gn < N) R[(b * M + gm) * N + gn] = acc[i][j];
    }
}

// The caller owns R (batch * M * N doubles).
inline void reference_gemm(double* R, const Problem& p, const Matrix& A, const Matrix& B,
                           cudaStream_t s) {
  const dim3 grid(unsigned((p.N + kRefTile - 1) / kRefTile), unsigned((p.M + kRefTile - 1) / kRefTile),
                  unsigned(p.batch));
  hx_reference_gemm<<<grid, 256, 0, s>>>(R, A.data, A.dtype, A.ld, A.batch_stride, B.data, B.dtype,
                                         B.ld, B.batch_stride, p.M, p.N, p.K);
  HX_CUDA(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// Comparison of an output matrix with a reference (any dtype, dense or padded).

struct Comparison {
  double diff2 = 0, ref2 = 0;       // sums of squares over the logical elements
  unsigned long long nonfinite = 0; // output elements that are NaN or Inf (unwritten: NaN poison)
  unsigned long long stray = 0;     // padding or guard elements that no longer hold the poison
  double rel() const { return ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0.0); }
  bool ok(double tol) const { return nonfinite == 0 && stray == 0 && rel() < tol; }
};

struct CompareAcc {
  double diff2, ref2;
  unsigned long long nonfinite, stray;
};

// Walks every element of `out` (padding included). `check_padding`: padding must be poison.
__global__ void hx_compare(const void* out, int odt, int64_t total, int64_t ld, int64_t rows,
                           int64_t cols, int64_t batch_stride, const void* ref, int rdt,
                           int64_t ref_ld, int64_t ref_bstride, int check_padding,
                           CompareAcc* acc) {
  double d2 = 0, r2 = 0;
  unsigned long long bad = 0, stray = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / batch_stride, in_matrix = i % batch_stride;
    const int64_t r = in_matrix / ld, c = in_matrix % ld;
    if (r < rows && c < cols) {
      const double o = hx_load(out, odt, i);
      const double x = hx_load(ref, rdt, b * ref_bstride + r * ref_ld + c);
      if (!isfinite(o)) {
        ++bad;
      } else {
        d2 += (o - x) * (o - x);
        r2 += x * x;
      }
    } else if (check_padding && !hx_is_poison(out, odt, i)) {
      ++stray;
    }
  }
  // Warp reduction, then one atomic per warp.
  for (int off = 16; off > 0; off >>= 1) {
    d2 += __shfl_down_sync(0xffffffffu, d2, off);
    r2 += __shfl_down_sync(0xffffffffu, r2, off);
    bad += __shfl_down_sync(0xffffffffu, bad, off);
    stray += __shfl_down_sync(0xffffffffu, stray, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&acc->diff2, d2);
    atomicAdd(&acc->ref2, r2);
    atomicAdd(&acc->nonfinite, bad);
    atomicAdd(&acc->stray, stray);
  }
}

// `ref` is either a dense double array (ref_dtype LOOM_F64, ld = cols) or another Matrix's data.
inline Comparison compare(const Matrix& out, const void* ref, int ref_dtype, int64_t ref_ld,
                          int64_t ref_bstride, bool check_padding, cudaStream_t s) {
  CompareAcc* d_acc;
  HX_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&d_acc), sizeof(CompareAcc), s));
  HX_CUDA(cudaMemsetAsync(d_acc, 0, sizeof(CompareAcc), s));
  hx_compare<<<grid_for(out.elems(), 256), 256, 0, s>>>(
      out.data, out.dtype, out.elems(), out.ld, out.rows, out.cols, out.batch_stride, ref,
      ref_dtype, ref_ld, ref_bstride, check_padding ? 1 : 0, d_acc);
  HX_CUDA(cudaGetLastError());
  CompareAcc h{};
  HX_CUDA(cudaMemcpyAsync(&h, d_acc, sizeof h, cudaMemcpyDeviceToHost, s));
  unsigned char guard[Matrix::kGuardBytes];
  HX_CUDA(cudaMemcpyAsync(guard, static_cast<char*>(out.data) + out.bytes, sizeof guard,
                          cudaMemcpyDeviceToHost, s));
  HX_CUDA(cudaFreeAsync(d_acc, s));
  HX_CUDA(cudaStreamSynchronize(s));
  Comparison c;
  c.diff2 = h.diff2;
  c.ref2 = h.ref2;
  c.nonfinite = h.nonfinite;
  c.stray = h.stray;
  if (check_padding)
    for (unsigned char g : guard) c.stray += g != 0xFF;
  return c;
}

// Output vs the double reference R (dense batch x M x N).
inline Comparison compare_with_reference(const Matrix& out, const double* R, cudaStream_t s) {
  return compare(out, R, LOOM_F64, out.cols, out.rows * out.cols, true, s);
}

// How many copies of a problem's operands (A, B and two outputs) to rotate among so that one pass
// over them does not fit in L2 (3x its size), at most 64 and within 40% of the free memory.
inline int rotation_sets(const Problem& p, const KernelTypes& t, const cudaDeviceProp& prop) {
  const double set_bytes = double(p.batch) * (double(p.M * p.K) * loom_dtype_size(t.a) +
                                              double(p.K * p.N) * loom_dtype_size(t.b) +
                                              2.0 * double(p.M * p.N) * loom_dtype_size(t.c));
  size_t free_bytes = 0, total_bytes = 0;
  HX_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const int sets = int(std::ceil(3.0 * prop.l2CacheSize / set_bytes));
  return std::max(1, std::min({sets, 64, int(0.4 * double(free_bytes) / set_bytes)}));
}

// ---------------------------------------------------------------------------------------------
// The call under test

inline int loom_call(const Problem& p, const Matrix& C, const Matrix& A, const Matrix& B,
                     cudaStream_t s) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (p.batched) return loom_batched_gemm(C.tensor(true), A.tensor(true), B.tensor(true), s);
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!p.batched) return loom_gemm(C.tensor(false), A.tensor(false), B.tensor(false), s);
#endif
  (void)p, (void)C, (void)A, (void)B, (void)s;
  return -1;
}

// The program's mappings by index (loom_<entry>_mapping, _pick, _mappings): the same call on mapping
// i whatever the extents, which one the plain call runs, and how many there are.
inline int loom_mapping_call(const Problem& p, int mapping, const Matrix& C, const Matrix& A, const Matrix& B,
                             cudaStream_t s) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (p.batched) return loom_batched_gemm_mapping(mapping, C.tensor(true), A.tensor(true), B.tensor(true), s);
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!p.batched) return loom_gemm_mapping(mapping, C.tensor(false), A.tensor(false), B.tensor(false), s);
#endif
  (void)p, (void)mapping, (void)C, (void)A, (void)B, (void)s;
  return -1;
}

inline int loom_pick(const Problem& p, const Matrix& C, const Matrix& A, const Matrix& B, cudaStream_t s) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (p.batched) return loom_batched_gemm_pick(C.tensor(true), A.tensor(true), B.tensor(true), s);
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!p.batched) return loom_gemm_pick(C.tensor(false), A.tensor(false), B.tensor(false), s);
#endif
  (void)p, (void)C, (void)A, (void)B, (void)s;
  return -1;
}

// loom_<entry>_tune: times the mappings near the model's pick on these arguments (scratch outputs)
// and remembers the fastest for calls like it (docs/artifact.md, "Tuning").
inline int loom_tune(const Problem& p, const Matrix& C, const Matrix& A, const Matrix& B, cudaStream_t s) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (p.batched) return loom_batched_gemm_tune(C.tensor(true), A.tensor(true), B.tensor(true), s);
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!p.batched) return loom_gemm_tune(C.tensor(false), A.tensor(false), B.tensor(false), s);
#endif
  (void)p, (void)C, (void)A, (void)B, (void)s;
  return -1;
}

inline int loom_mapping_count(bool batched) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (batched) return loom_batched_gemm_mappings();
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!batched) return loom_gemm_mappings();
#endif
  (void)batched;
  return 0;
}

// Same call with explicit descriptors (for the error-path checks).
inline int loom_call_tensors(bool batched, loom_tensor C, loom_tensor A, loom_tensor B,
                             cudaStream_t s) {
#if defined(LOOM_HAVE_BATCHED_GEMM)
  if (batched) return loom_batched_gemm(C, A, B, s);
#endif
#if defined(LOOM_HAVE_GEMM)
  if (!batched) return loom_gemm(C, A, B, s);
#endif
  (void)batched, (void)C, (void)A, (void)B, (void)s;
  return -1;
}

// Device name, SM count, L2 size, clocks; for result headers.
inline std::string device_description(cudaDeviceProp* out_prop = nullptr) {
  int dev = 0;
  HX_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  HX_CUDA(cudaGetDeviceProperties(&prop, dev));
  if (out_prop) *out_prop = prop;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char buf[384];
  std::snprintf(buf, sizeof buf,
                "%s (%d SMs, compute capability %d.%d, L2 %d MB, %zu MiB memory); CUDA driver %d, "
                "runtime %d",
                prop.name, prop.multiProcessorCount, prop.major, prop.minor,
                prop.l2CacheSize >> 20, prop.totalGlobalMem >> 20, driver, runtime);
  return buf;
}

// A number for a report table ("-" for NaN), and the current UTC time for its header.
inline std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

inline std::string now_utc(const char* format) {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, format, std::gmtime(&t));
  return buf;
}

}  // namespace hx

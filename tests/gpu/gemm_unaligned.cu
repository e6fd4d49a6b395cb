// GPU test and benchmark of the async-copy variant (docs/codegen.md, "The async-copy variant"):
// loom's generated gemm / batched_gemm called with tensors the TMA cannot address — rows packed
// tightly (ld = the row length, so a row stride of K = 700 bf16 is 1400 bytes, not a multiple of
// 16) or a base address 2, 4 or 8 bytes past a 16-byte boundary — must run (through the variant)
// and be right; the same shapes with rows padded to 16 bytes take the TMA kernel and must be right.
//
// Correctness (default): per case, fresh random inputs (seed printed), the output poisoned (NaN)
// with its padding and a guard region, loom vs a double-precision reference on the GPU: relative
// Frobenius error < 1e-2, no NaN left, nothing written outside C. Then the calls that no variant can
// run: a base address that is not a multiple of the element size (LOOM_ERR_ALIGN) and an element
// stride != 1 (LOOM_ERR_STRIDE), which must launch nothing. `--only NAME` runs one case (and fails
// when no case has that name, so a sanitizer step cannot pass on nothing).
// --bench: times loom and cuBLAS (cublasGemmEx, bf16 in, fp32 compute, the same tight buffers) with
// CUDA events, median of --reps launches after warm-up, and prints a markdown table.
//
// Build (tests/gpu/e2e/gemm_unaligned.sh does this):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -I<gen>/gemm
//        -I<gen>/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_unaligned.cu
//        <gen>/gemm/gemm.cu <gen>/batched_gemm/batched_gemm.cu -lcuda -lcublas -o gemm_unaligned
// Usage: gemm_unaligned [--seed S] [--only NAME] | --bench [--reps N]
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gemm_harness.cuh"

namespace {

constexpr double kTolerance = 1e-2;
int failures = 0;

// A case: the problem, the row padding in elements (1: tight) and how many elements past a
// 256-byte boundary each matrix starts (0: aligned).
struct Case {
  hx::Problem p;
  int64_t pad = 1;
  int64_t shift = 0;
  std::string name() const {
    return p.name() + (pad == 1 ? " tight" : " pad" + std::to_string(pad)) +
           (shift ? " +" + std::to_string(shift) : std::string());
  }
};

// A matrix whose data starts `shift` elements after a 256-byte aligned allocation.
struct Buffer {
  hx::Matrix m;
  void* raw = nullptr;
};

Buffer make(int dtype, int64_t batch, int64_t rows, int64_t cols, int64_t pad, int64_t shift) {
  Buffer b;
  b.m.dtype = dtype;
  b.m.batch = batch;
  b.m.rows = rows;
  b.m.cols = cols;
  const int64_t es = loom_dtype_size(dtype);
  b.m.ld = hx::round_up(std::max<int64_t>(cols, 1), pad);
  b.m.batch_stride = rows * b.m.ld;
  b.m.bytes = size_t(b.m.elems() * es);
  HX_CUDA(cudaMalloc(&b.raw, b.m.bytes + hx::Matrix::kGuardBytes + 64));
  b.m.data = static_cast<char*>(b.raw) + shift * es;
  return b;
}

void release(Buffer& b) { HX_CUDA(cudaFree(b.raw)); }

// Whether the TMA kernel can take this call (else the launcher runs the async-copy variant).
bool tma_addressable(const Case& c, int64_t es) {
  const int64_t lda = hx::round_up(c.p.K, c.pad), ldb = hx::round_up(c.p.N, c.pad);
  bool ok = c.shift * es % 16 == 0 && lda * es % 16 == 0 && ldb * es % 16 == 0;
  if (c.p.batched) ok = ok && c.p.M * lda * es % 16 == 0 && c.p.K * ldb * es % 16 == 0 && c.p.M * ldb * es % 16 == 0;
  return ok;
}

void check(const Case& k, uint64_t seed, cudaStream_t s) {
  hx::KernelTypes t;
  std::string why;
  if (!hx::kernel_types(k.p.batched, &t, &why)) {
    ++failures;
    std::printf("| %-32s | FAIL | %s\n", k.name().c_str(), why.c_str());
    return;
  }
  Buffer A = make(t.a, k.p.batch, k.p.M, k.p.K, k.pad, k.shift);
  Buffer B = make(t.b, k.p.batch, k.p.K, k.p.N, k.pad, k.shift);
  Buffer C = make(t.c, k.p.batch, k.p.M, k.p.N, k.pad, k.shift);
  double* R = nullptr;
  HX_CUDA(cudaMalloc(&R, size_t(k.p.batch * k.p.M * k.p.N) * sizeof(double)));
  hx::fill_random(A.m, 2 * seed, s);
  hx::fill_random(B.m, 2 * seed + 1, s);
  HX_CUDA(cudaMemsetAsync(C.raw, 0xFF, C.m.bytes + hx::Matrix::kGuardBytes + 64, s));  // poison, guard too
  hx::reference_gemm(R, k.p, A.m, B.m, s);
  HX_CUDA(cudaStreamSynchronize(s));
  const int rc = hx::loom_call(k.p, C.m, A.m, B.m, s);
  const cudaError_t e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) {
    std::printf("| %-32s | FAIL | CUDA error %s (context lost: stopping)\n", k.name().c_str(), cudaGetErrorString(e));
    std::exit(1);
  }
  if (rc != LOOM_OK) {
    ++failures;
    std::printf("| %-32s | FAIL | returned %d (%s)\n", k.name().c_str(), rc, loom_error_string(rc));
  } else {
    const hx::Comparison c = hx::compare_with_reference(C.m, R, s);
    // Nothing written before the base either (a shifted C).
    std::vector<unsigned char> pre(size_t(k.shift * loom_dtype_size(t.c)));
    if (!pre.empty()) HX_CUDA(cudaMemcpy(pre.data(), C.raw, pre.size(), cudaMemcpyDeviceToHost));
    unsigned long long before = 0;
    for (unsigned char b : pre) before += b != 0xFF;
    const bool ok = c.ok(kTolerance) && before == 0;
    failures += !ok;
    std::printf("| %-32s | %-4s | %s kernel, seed %llu, rel err %.3e, non-finite %llu, stray writes %llu (+%llu before the base), "
                "ld %lld/%lld/%lld\n",
                k.name().c_str(), ok ? "ok" : "FAIL", tma_addressable(k, loom_dtype_size(t.a)) ? "TMA" : "async-copy",
                (unsigned long long)seed, c.rel(), c.nonfinite, c.stray, before, (long long)C.m.ld, (long long)A.m.ld,
                (long long)B.m.ld);
  }
  std::fflush(stdout);
  HX_CUDA(cudaFree(R));
  release(A);
  release(B);
  release(C);
}

// Calls no variant can run: refused with their code, nothing written.
void check_refusals(cudaStream_t s) {
  hx::KernelTypes t;
  std::string why;
  if (!hx::kernel_types(false, &t, &why)) {
    ++failures;
    std::printf("| %-32s | FAIL | %s\n", "refusals", why.c_str());
    return;
  }
  Buffer A = make(t.a, 1, 128, 64, 1, 0), B = make(t.b, 1, 64, 256, 1, 0), C = make(t.c, 1, 128, 256, 1, 0);
  HX_CUDA(cudaMemset(C.raw, 0xFF, C.m.bytes));
  struct Refusal {
    const char* name;
    loom_tensor c, a, b;
    int expect;
  };
  loom_tensor odd = A.m.tensor(false);
  odd.data = static_cast<char*>(A.m.data) + 1;  // not a multiple of the element size
  loom_tensor strided = A.m.tensor(false);
  strided.stride[1] = 2;
  strided.shape[1] = 32;
  loom_tensor b32 = B.m.tensor(false);
  b32.shape[0] = 32;
  const Refusal cases[] = {{"A base + 1 byte", C.m.tensor(false), odd, B.m.tensor(false), LOOM_ERR_ALIGN},
                           {"A element stride 2", C.m.tensor(false), strided, b32, LOOM_ERR_STRIDE}};
  for (const Refusal& r : cases) {
    const int rc = hx::loom_call_tensors(false, r.c, r.a, r.b, s);
    const bool ok = rc == r.expect;
    failures += !ok;
    std::printf("| %-32s | %-4s | returned %d (%s), expected %d\n", r.name, ok ? "ok" : "FAIL", rc, loom_error_string(rc),
                r.expect);
  }
  HX_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned char> bytes(C.m.bytes);
  HX_CUDA(cudaMemcpy(bytes.data(), C.m.data, bytes.size(), cudaMemcpyDeviceToHost));
  size_t touched = 0;
  for (unsigned char b : bytes) touched += b != 0xFF;
  failures += touched != 0;
  std::printf("| %-32s | %-4s | %zu bytes of C changed by refused calls\n", "refused calls", touched ? "FAIL" : "ok", touched);
  release(A);
  release(B);
  release(C);
}

cudaDataType cuda_type(int dtype) { return dtype == LOOM_BF16 ? CUDA_R_16BF : dtype == LOOM_F16 ? CUDA_R_16F : CUDA_R_32F; }

// Median milliseconds of `reps` launches of f, each timed with events, after 5 warm-up launches.
double median_ms(const std::function<void()>& f, int reps, cudaStream_t s) {
  for (int i = 0; i < 5; ++i) f();
  std::vector<cudaEvent_t> ev(size_t(reps) + 1);
  for (auto& e : ev) HX_CUDA(cudaEventCreate(&e));
  HX_CUDA(cudaEventRecord(ev[0], s));
  for (int i = 0; i < reps; ++i) {
    f();
    HX_CUDA(cudaEventRecord(ev[size_t(i) + 1], s));
  }
  HX_CUDA(cudaStreamSynchronize(s));
  std::vector<float> times(static_cast<size_t>(reps));
  for (int i = 0; i < reps; ++i) HX_CUDA(cudaEventElapsedTime(&times[size_t(i)], ev[size_t(i)], ev[size_t(i) + 1]));
  for (auto& e : ev) HX_CUDA(cudaEventDestroy(e));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void bench(int reps, cudaStream_t s) {
  hx::KernelTypes t;
  std::string why;
  if (!hx::kernel_types(false, &t, &why)) {
    std::printf("bench: %s\n", why.c_str());
    ++failures;
    return;
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::printf("bench: cublasCreate failed\n");
    ++failures;
    return;
  }
  cublasSetStream(h, s);
  std::printf("\n| shape MxNxK | rows | loom path | loom TFLOP/s | cuBLAS TFLOP/s | loom / cuBLAS | loom vs cuBLAS rel diff |\n"
              "|---|---|---|---|---|---|---|\n");
  // {M, N, K, row padding in elements}
  const int64_t shapes[][4] = {{4096, 4096, 4000, 8}, {4096, 4096, 4004, 1}, {4096, 4096, 4002, 1}, {4096, 4096, 4001, 1},
                               {4096, 4100, 4096, 1}, {2048, 2048, 700, 1},  {2048, 2048, 704, 8}, {5000, 3000, 2002, 1},
                               {8192, 8192, 8196, 1}};
  for (const auto& sh : shapes) {
    const hx::Problem p = hx::gemm_problem(sh[0], sh[1], sh[2]);
    Buffer A = make(t.a, 1, p.M, p.K, sh[3], 0), B = make(t.b, 1, p.K, p.N, sh[3], 0);
    Buffer CL = make(t.c, 1, p.M, p.N, sh[3], 0), CB = make(t.c, 1, p.M, p.N, sh[3], 0);
    hx::fill_random(A.m, 1, s);
    hx::fill_random(B.m, 2, s);
    int rc = LOOM_OK;
    const double loom = median_ms([&] { rc = rc == LOOM_OK ? hx::loom_call(p, CL.m, A.m, B.m, s) : rc; }, reps, s);
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    const double cub = median_ms(
        [&] {
          st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(p.N), int(p.M), int(p.K), &alpha, B.m.data, cuda_type(B.m.dtype),
                            int(B.m.ld), A.m.data, cuda_type(A.m.dtype), int(A.m.ld), &beta, CB.m.data, cuda_type(CB.m.dtype),
                            int(CB.m.ld), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        },
        reps, s);
    const hx::Comparison agree = hx::compare(CL.m, CB.m.data, CB.m.dtype, CB.m.ld, CB.m.batch_stride, false, s);
    const int64_t es = loom_dtype_size(t.a);
    int64_t g = (A.m.ld * es) | (B.m.ld * es) | 16;
    g &= -g;
    const bool tma = g == 16 && (CL.m.ld * es) % 16 == 0;
    const std::string path = tma ? "TMA" : "async copy, " + std::to_string(std::max<int64_t>(es, g)) + "-byte chunks";
    const double tf = p.flops() / 1e9;
    const bool ok = rc == LOOM_OK && st == CUBLAS_STATUS_SUCCESS && agree.ok(kTolerance);
    failures += !ok;
    std::printf("| %lldx%lldx%lld | %s | %s | %.1f | %.1f | %.3f | %.2e |%s\n", (long long)p.M, (long long)p.N, (long long)p.K,
                sh[3] == 1 ? "tight" : "padded", path.c_str(), tf / loom, tf / cub, cub / loom, agree.rel(),
                ok ? "" : " FAILED (an error code or a disagreement)");
    std::fflush(stdout);
    release(A);
    release(B);
    release(CL);
    release(CB);
  }
  cublasDestroy(h);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull;
  std::string only;
  bool do_bench = false;
  int reps = 50;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--bench") do_bench = true;
    else if (a == "--reps" && i + 1 < argc) reps = std::max(10, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: gemm_unaligned [--seed S] [--only NAME] | --bench [--reps N]\n");
      return 2;
    }
  }
  std::printf("gemm_unaligned: %s\n", hx::device_description().c_str());
  cudaStream_t s;
  HX_CUDA(cudaStreamCreate(&s));
  if (do_bench) {
    bench(reps, s);
  } else {
    std::vector<Case> cases;
    for (auto [M, N, K] : std::vector<std::array<int64_t, 3>>{{333, 1001, 700}, {1000, 1000, 700}, {4096, 4096, 700},
                                                               {129, 257, 65}, {1153, 2049, 65}, {2048, 2048, 4001},
                                                               {300, 520, 200}, {64, 8, 16}, {130, 300, 90}})
      cases.push_back({hx::gemm_problem(M, N, K), 1, 0});
    cases.push_back({hx::gemm_problem(1153, 2049, 700), 8, 0});  // padded rows: the TMA kernel at non-tile extents
    cases.push_back({hx::gemm_problem(1000, 1000, 1000), 8, 0});
    cases.push_back({hx::gemm_problem(1000, 1000, 1000), 8, 1});  // base 2 bytes past 16: async copy, 2-byte chunks
    cases.push_back({hx::gemm_problem(1000, 1000, 1000), 8, 2});  // 4-byte chunks
    cases.push_back({hx::gemm_problem(1000, 1000, 1000), 8, 4});  // 8-byte chunks
    cases.push_back({hx::gemm_problem(200, 264, 72), 8, 1});      // small, 2-byte chunks (a sanitizer case)
    cases.push_back({hx::batched_problem(3, 333, 1001, 700), 1, 0});
    cases.push_back({hx::batched_problem(2, 65, 130, 70), 1, 0});
    cases.push_back({hx::batched_problem(4, 129, 257, 65), 8, 0});
    std::printf("gemm_unaligned: base seed %llu, tolerance %.0e\n\n| %-32s | ok   | detail\n|---|---|---\n",
                (unsigned long long)seed, kTolerance, "case");
    int ran = 0;
    for (size_t i = 0; i < cases.size(); ++i)
      if (only.empty() || cases[i].name() == only) {
        check(cases[i], seed + 7919 * i, s);
        ++ran;
      }
    if (only.empty()) check_refusals(s);
    if (ran == 0) {
      std::printf("gemm_unaligned: no case named '%s'\n", only.c_str());
      ++failures;
    }
  }
  std::printf("\ngemm_unaligned: %s (%d failure%s)\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}

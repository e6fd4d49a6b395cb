// GPU correctness of the generated GEMM kernels (examples/gemm, examples/batched_gemm).
//
// For every shape: fresh random inputs per run (seed printed), the whole output buffer poisoned
// (0xFF bytes, NaN) before every launch, loom's result compared with a reference that accumulates
// in double on the GPU: relative Frobenius error < 1e-2, no NaN/Inf left, no padding or guard
// element written. Then every mapping of the program on its own (loom_<entry>_mapping) on a few
// shapes, the same way, and the launcher's pick (loom_<entry>_pick) in range; then loom_<entry>_tune
// on those shapes (the caller's output untouched, the tuned pick right). Then the ABI's error
// paths: each malformed call (a mapping index out of range too) must return its LOOM_ERR_* code and
// launch nothing. Prints a table; exit 0 when everything passed, 1 otherwise.
//
// Built by bench/run.sh (see docs/artifact.md):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Ibench -Iruntime -I<gen>/gemm
//        -I<gen>/batched_gemm -DLOOM_HAVE_GEMM -DLOOM_HAVE_BATCHED_GEMM tests/gpu/gemm_correctness.cu
//        <the generated kernels> -o gemm_correctness
// Usage: gemm_correctness [--seed S] [--runs R] [--only NAME [--mapping M]] [--skip-large]
// (--mapping M: the shape named by --only on mapping M alone, for the sanitizers)
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gemm_harness.cuh"

namespace {

constexpr double kTolerance = 1e-2;

struct Options {
  uint64_t seed = 0;
  int runs = 2;
  std::string only;
  int mapping = -1;  // with --only: that mapping instead of the launcher's pick
  bool skip_large = false;
};

int failures = 0;

void row(const char* what, const std::string& shape, int run, unsigned long long seed,
         const char* result, const std::string& detail) {
  std::printf("| %-13s | %-20s | %3d | %20llu | %-4s | %s\n", what, shape.c_str(), run, seed, result,
              detail.c_str());
  std::fflush(stdout);
}

// One problem, `runs` times with fresh inputs; on mapping `mapping` when it is >= 0, else on the
// mapping the launcher picks.
void check_problem(const hx::Problem& p, const Options& opt, int index, cudaStream_t s, int mapping = -1) {
  const std::string what = mapping < 0 ? p.name() : p.name() + " m" + std::to_string(mapping);
  hx::KernelTypes types;
  std::string why;
  if (!hx::kernel_types(p.batched, &types, &why)) {
    ++failures;
    row(p.group, what, 0, 0, "FAIL", why);
    return;
  }
  hx::Matrix A = hx::make_matrix(types.a, p.batch, p.M, p.K, types.align);
  hx::Matrix B = hx::make_matrix(types.b, p.batch, p.K, p.N, types.align);
  hx::Matrix C = hx::make_matrix(types.c, p.batch, p.M, p.N, types.align);
  double* R = nullptr;
  HX_CUDA(cudaMalloc(&R, size_t(p.batch * p.M * p.N) * sizeof(double)));

  for (int run = 0; run < opt.runs; ++run) {
    const uint64_t seed = opt.seed + 1000003ull * uint64_t(index) + uint64_t(run);
    hx::fill_random(A, 2 * seed, s);
    hx::fill_random(B, 2 * seed + 1, s);
    hx::poison(C, s);
    hx::reference_gemm(R, p, A, B, s);
    HX_CUDA(cudaStreamSynchronize(s));

    const auto t0 = std::chrono::steady_clock::now();
    const int rc = mapping < 0 ? hx::loom_call(p, C, A, B, s) : hx::loom_mapping_call(p, mapping, C, A, B, s);
    cudaError_t launch = cudaGetLastError();
    cudaError_t done = cudaStreamSynchronize(s);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (launch != cudaSuccess || done != cudaSuccess) {
      // A fault in the kernel leaves the context unusable: report and stop.
      ++failures;
      row(p.group, what, run, seed, "FAIL",
          std::string("CUDA error after launch: ") +
              cudaGetErrorString(launch != cudaSuccess ? launch : done));
      std::printf("\ngemm_correctness: FAIL (stopped after a CUDA error; the context is lost)\n");
      std::exit(1);
    }
    if (rc != LOOM_OK) {
      ++failures;
      row(p.group, what, run, seed, "FAIL",
          "returned " + std::to_string(rc) + " (" + loom_error_string(rc) + ")");
      continue;
    }
    const hx::Comparison c = hx::compare_with_reference(C, R, s);
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  "rel err %.3e, non-finite %llu, stray writes %llu, %s->%s, ld %lld/%lld/%lld, "
                  "%.2f ms incl. sync",
                  c.rel(), c.nonfinite, c.stray, loom_dtype_name(types.a),
                  loom_dtype_name(types.c), (long long)C.ld, (long long)A.ld, (long long)B.ld, ms);
    const bool ok = c.ok(kTolerance);
    failures += !ok;
    row(p.group, what, run, seed, ok ? "ok" : "FAIL", detail);
  }
  HX_CUDA(cudaFree(R));
  hx::free_matrix(A);
  hx::free_matrix(B);
  hx::free_matrix(C);
}

// After everything on the device has run: how many bytes of C (padding and guard included) are no
// longer the poison (0xFF) it was filled with.
size_t bytes_off_poison(const hx::Matrix& C) {
  HX_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned char> bytes(C.bytes + hx::Matrix::kGuardBytes);
  HX_CUDA(cudaMemcpy(bytes.data(), C.data, bytes.size(), cudaMemcpyDeviceToHost));
  size_t touched = 0;
  for (unsigned char b : bytes) touched += b != 0xFF;
  return touched;
}

// loom_<entry>_tune on a problem: LOOM_OK, every byte of the caller's (poisoned) output as it was,
// the pick in range; then the problem through the tuned pick, checked as any other call. A tune
// call with a NULL input must report LOOM_ERR_NULL, as the call itself would, where there is a
// choice to measure; a program of one mapping has none, and its tune returns LOOM_OK without
// looking at the arguments (docs/artifact.md, Tuning).
void check_tuning(const hx::Problem& p, const Options& opt, int index, cudaStream_t s) {
  hx::KernelTypes types;
  std::string why;
  if (!hx::kernel_types(p.batched, &types, &why)) return;
  hx::Matrix A = hx::make_matrix(types.a, p.batch, p.M, p.K, types.align);
  hx::Matrix B = hx::make_matrix(types.b, p.batch, p.K, p.N, types.align);
  hx::Matrix C = hx::make_matrix(types.c, p.batch, p.M, p.N, types.align);
  hx::fill_random(A, 11, s);
  hx::fill_random(B, 12, s);
  hx::poison(C, s);
  HX_CUDA(cudaStreamSynchronize(s));
  const int rc = hx::loom_tune(p, C, A, B, s);
  const size_t touched = bytes_off_poison(C);
  const int n = hx::loom_mapping_count(p.batched);
  const int pick = hx::loom_pick(p, C, A, B, s);
  const bool ok = rc == LOOM_OK && touched == 0 && pick >= 0 && pick < n;
  failures += !ok;
  row(p.group, p.name() + " tune", 0, 0, ok ? "ok" : "FAIL",
      "returned " + std::to_string(rc) + ", " + std::to_string(touched) + " bytes of C changed, tuned pick " +
          std::to_string(pick) + " of " + std::to_string(n));
  {
    hx::Matrix A0 = A;
    A0.data = nullptr;
    const int null_rc = hx::loom_tune(p, C, A0, B, s);
    const int expected = n > 1 ? LOOM_ERR_NULL : LOOM_OK;
    failures += null_rc != expected;
    row(p.group, p.name() + " tune null A", 0, 0, null_rc == expected ? "ok" : "FAIL",
        "returned " + std::to_string(null_rc) + ", expected " + std::to_string(expected) +
            (n > 1 ? "" : " (one mapping: nothing to tune)"));
  }
  hx::free_matrix(A);
  hx::free_matrix(B);
  hx::free_matrix(C);
  check_problem(p, opt, index, s);  // through the tuned pick
}

// Each malformed call must be refused with its code before anything is launched.
[[maybe_unused]] void check_error_paths(bool batched, cudaStream_t s) {
  hx::KernelTypes types;
  std::string why;
  const char* group = batched ? "batched ABI" : "GEMM ABI";
  if (!hx::kernel_types(batched, &types, &why)) {
    ++failures;
    row(group, "-", 0, 0, "FAIL", why);
    return;
  }
  const hx::Problem p = batched ? hx::batched_problem(2, 128, 256, 64) : hx::gemm_problem(128, 256, 64);
  hx::Matrix A = hx::make_matrix(types.a, p.batch, p.M, p.K, types.align);
  hx::Matrix B = hx::make_matrix(types.b, p.batch, p.K, p.N, types.align);
  hx::Matrix C = hx::make_matrix(types.c, p.batch, p.M, p.N, types.align);
  hx::fill_random(A, 1, s);
  hx::fill_random(B, 2, s);
  hx::poison(C, s);
  HX_CUDA(cudaStreamSynchronize(s));
  const loom_tensor tC = C.tensor(batched), tA = A.tensor(batched), tB = B.tensor(batched);
  const int last = tA.rank - 1;
  const int wrong_dtype = types.a == LOOM_BF16 ? LOOM_F16 : LOOM_BF16;

  struct Case {
    const char* name;
    loom_tensor c, a, b;
    int expect;
  };
  std::vector<Case> cases;
  {
    loom_tensor a = tA;
    a.data = nullptr;
    cases.push_back({"null A", tC, a, tB, LOOM_ERR_NULL});
  }
  {
    loom_tensor a = tA;
    a.rank = tA.rank + 1;
    a.shape[tA.rank] = 1;
    a.stride[tA.rank] = 1;
    cases.push_back({"rank of A + 1", tC, a, tB, LOOM_ERR_RANK});
  }
  {
    loom_tensor a = tA;
    a.dtype = wrong_dtype;
    cases.push_back({"dtype of A", tC, a, tB, LOOM_ERR_DTYPE});
  }
  {
    loom_tensor b = tB;
    b.shape[last - 1] = p.K - 8;  // B's K disagrees with A's
    cases.push_back({"K of B != K of A", tC, tA, b, LOOM_ERR_SHAPE});
  }
  {
    loom_tensor c = tC;
    c.shape[last - 1] = p.M - 8;  // C's M disagrees with A's
    cases.push_back({"M of C != M of A", c, tA, tB, LOOM_ERR_SHAPE});
  }
  {
    // A base or row stride that is not a multiple of 16 bytes runs (the async-copy variant:
    // tests/gpu/gemm_unaligned.cu); one that is not a multiple of the element size cannot.
    loom_tensor a = tA;
    a.data = static_cast<char*>(A.data) + 1;
    cases.push_back({"A base + 1 byte", tC, a, tB, LOOM_ERR_ALIGN});
  }
  {
    loom_tensor a = tA;
    a.stride[last] = 2;
    a.shape[last] = p.K / 2;
    loom_tensor b = tB;
    b.shape[last - 1] = p.K / 2;
    cases.push_back({"A inner stride 2", tC, a, b, LOOM_ERR_STRIDE});
  }
  for (const Case& k : cases) {
    const int rc = hx::loom_call_tensors(batched, k.c, k.a, k.b, s);
    const bool ok = rc == k.expect;
    failures += !ok;
    row(group, k.name, 0, 0, ok ? "ok" : "FAIL",
        "returned " + std::to_string(rc) + " (" + loom_error_string(rc) + "), expected " +
            std::to_string(k.expect) + " (" + loom_error_string(k.expect) + ")");
  }
  for (int m : {-1, hx::loom_mapping_count(batched)}) {  // mapping indices out of range
    const int rc = hx::loom_mapping_call(p, m, C, A, B, s);
    const bool ok = rc == LOOM_ERR_MAPPING;
    failures += !ok;
    row(group, "mapping " + std::to_string(m), 0, 0, ok ? "ok" : "FAIL",
        "returned " + std::to_string(rc) + " (" + loom_error_string(rc) + "), expected " +
            std::to_string(LOOM_ERR_MAPPING) + " (" + loom_error_string(LOOM_ERR_MAPPING) + ")");
  }
  // Nothing may have been launched: C is still all poison (padding and guard included).
  const size_t touched = bytes_off_poison(C);
  failures += touched != 0;
  row(group, "refused calls", 0, 0, touched ? "FAIL" : "ok",
      std::to_string(touched) + " bytes of C changed by refused calls");
  hx::free_matrix(A);
  hx::free_matrix(B);
  hx::free_matrix(C);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  opt.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gemm_correctness: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") opt.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--runs") opt.runs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--only") opt.only = value();
    else if (a == "--mapping") opt.mapping = std::atoi(value().c_str());
    else if (a == "--skip-large") opt.skip_large = true;
    else {
      std::fprintf(stderr,
                   "usage: gemm_correctness [--seed S] [--runs R] [--only SHAPE [--mapping M]] [--skip-large]\n");
      return 2;
    }
  }

  std::vector<hx::Problem> problems;
#if defined(LOOM_HAVE_GEMM)
  for (auto [M, N, K] : std::vector<std::array<int64_t, 3>>{{4000, 4000, 4000},
                                                            {1, 4096, 4096},
                                                            {4096, 1, 4096},
                                                            {129, 257, 65},
                                                            {8192, 8192, 8192},
                                                            {256, 256, 64},
                                                            // examples/gemm has three mappings, picked per call
                                                            // by the launcher's cost model (when(fastest)): on
                                                            // 132 SMs 1x4096, 4096x1, 129x257 and 1000^3 take the
                                                            // 128 x 64 tiles, 256^2, 505x2856 and 700x1500 the
                                                            // 128 x 128 ones, the others 128 x 256; with partial
                                                            // tiles in each.
                                                            {505, 2856, 1048},
                                                            {700, 1500, 300},
                                                            {1153, 2049, 65},
                                                            {1000, 1000, 1000},
                                                            // splitk(S) mappings (split-K over a cluster):
                                                            // few tiles with a long K; K not a multiple of
                                                            // S * W; K < S * W (blocks with no K work)
                                                            {272, 96, 2804},
                                                            {96, 384, 2808},
                                                            {300, 200, 1000},
                                                            {200, 100, 100},
                                                            {130, 70, 16},
                                                            {2960, 1464, 3064},
                                                            // 64 x 64 tiles split 4 ways (the last candidate)
                                                            {274, 176, 6136},
                                                            // many tiles per cluster (with --mapping: a
                                                            // split mapping's hand-over, tile after tile)
                                                            {1537, 1500, 700},
                                                            // streamk mappings (iterations shared across
                                                            // tiles): a last wave of 24 tiles; fewer tiles
                                                            // than SMs with a long, uneven K; 7 tiles
                                                            {4959, 800, 776},
                                                            {600, 1248, 4736},
                                                            {77, 1696, 1128}})
    problems.push_back(hx::gemm_problem(M, N, K));
#endif
#if defined(LOOM_HAVE_BATCHED_GEMM)
  problems.push_back(hx::batched_problem(4, 129, 257, 65));
  problems.push_back(hx::batched_problem(8, 1024, 1024, 1024));
  problems.push_back(hx::batched_problem(3, 113, 280, 3400));  // splitk: few tiles, long K
  problems.push_back(hx::batched_problem(2, 200, 100, 100));   // splitk: K < S * W
#endif
  if (problems.empty()) {
    std::printf("gemm_correctness: no kernel compiled in (define LOOM_HAVE_GEMM and/or "
                "LOOM_HAVE_BATCHED_GEMM)\n");
    return 2;
  }

  std::printf("gemm_correctness: %s\n", hx::device_description().c_str());
  std::printf("gemm_correctness: base seed %llu, %d run(s) per shape, tolerance %.0e\n\n",
              (unsigned long long)opt.seed, opt.runs, kTolerance);
  std::printf("| %-13s | %-20s | %3s | %20s | %-4s | %s\n", "group", "shape / case", "run", "seed",
              "ok", "detail");
  std::printf("|---------------|----------------------|-----|----------------------|------|-------\n");
  cudaStream_t s;
  HX_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (size_t i = 0; i < problems.size(); ++i) {
    const hx::Problem& p = problems[i];
    if (!opt.only.empty() && p.name() != opt.only) continue;
    if (opt.skip_large && p.flops() > 2.0 * 4096.0 * 4096.0 * 4096.0) continue;
    check_problem(p, opt, int(i), s, opt.only.empty() ? -1 : opt.mapping);
  }
  // Every mapping on its own, and the pick in range, on shapes that cut tiles in every mapping.
  std::vector<hx::Problem> every;
#if defined(LOOM_HAVE_GEMM)
  every.push_back(hx::gemm_problem(129, 257, 65));
  every.push_back(hx::gemm_problem(300, 200, 1000));
  every.push_back(hx::gemm_problem(1000, 1000, 1000));
  every.push_back(hx::gemm_problem(1537, 1500, 700));  // many tiles per persistent block or cluster
#endif
#if defined(LOOM_HAVE_BATCHED_GEMM)
  every.push_back(hx::batched_problem(3, 113, 280, 3400));
#endif
  for (size_t i = 0; i < every.size() && opt.only.empty(); ++i) {
    const hx::Problem& p = every[i];
    const int n = hx::loom_mapping_count(p.batched);
    for (int m = 0; m < n; ++m) check_problem(p, opt, int(problems.size() + i), s, m);
    hx::KernelTypes types;
    std::string why;
    if (!hx::kernel_types(p.batched, &types, &why)) continue;
    hx::Matrix A = hx::make_matrix(types.a, p.batch, p.M, p.K, types.align);
    hx::Matrix B = hx::make_matrix(types.b, p.batch, p.K, p.N, types.align);
    hx::Matrix C = hx::make_matrix(types.c, p.batch, p.M, p.N, types.align);
    const int pick = hx::loom_pick(p, C, A, B, s);
    const bool ok = n >= 1 && pick >= 0 && pick < n;
    failures += !ok;
    row(p.group, p.name() + " pick", 0, 0, ok ? "ok" : "FAIL",
        "loom_*_pick = " + std::to_string(pick) + " of " + std::to_string(n) + " mappings");
    hx::free_matrix(A);
    hx::free_matrix(B);
    hx::free_matrix(C);
  }
  // Tuning (loom_<entry>_tune): it must leave the caller's output untouched (it times scratch
  // copies), return LOOM_OK, and the call through the tuned pick must still be right.
  for (size_t i = 0; i < every.size() && opt.only.empty(); ++i) check_tuning(every[i], opt, int(problems.size() + every.size() + i), s);
  if (opt.only.empty()) {
#if defined(LOOM_HAVE_GEMM)
    check_error_paths(false, s);
#endif
#if defined(LOOM_HAVE_BATCHED_GEMM)
    check_error_paths(true, s);
#endif
  }
  HX_CUDA(cudaStreamDestroy(s));
  if (failures) {
    std::printf("\ngemm_correctness: FAIL (%d check(s) failed)\n", failures);
    return 1;
  }
  std::printf("\ngemm_correctness: PASS\n");
  return 0;
}

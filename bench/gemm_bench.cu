// loom's generated GEMM / batched GEMM against cuBLAS, in one process, on the same random inputs.
//
// Per shape: check that loom and cuBLAS agree (relative Frobenius error < 1e-2, no NaN, nothing
// written outside C), then time each with CUDA events: warm-up, then two alternating rounds
// (loom, cuBLAS, loom, cuBLAS) of >= 20 launches each; the reported time is the median over both
// rounds, and the spread column is the difference of the two rounds' medians (noise). Before each
// round a spin kernel keeps the GPU busy while the host enqueues all launches, so the events time
// back-to-back kernels, not launch gaps; the host's own cost per call is reported separately.
// Inputs rotate among enough copies that A, B and C together exceed 3x the L2 cache.
//
// Writes a markdown report (bench/results/<date>-<device>-gemm.md format) to --out.
// Usage: gemm_bench --out FILE.md [--reps N] [--seed S] [--only SHAPE] [--command "how it ran"]
//          [--sweep N [--sweep-seed S]]
//        gemm_bench --profile SHAPE [--sweep N --sweep-seed S]  (one loom call between cudaProfilerStart/Stop, for
//                                     ncu; SHAPE from the fixed table or the sweep)
// --sweep N replaces the fixed table by N seeded random shapes per kernel ("GEMM sweep": M, N, K in
// [64, 8192]; "batched GEMM sweep": batch in [2, 16], M, N, K in [64, 4096]; every fourth dimension
// not a multiple of 8; log-uniform, so small and large extents are both common), judged by the
// sweep's acceptance (geomean >= 0.97, min >= 0.90). The harness pads each row to the kernel's
// alignment (the `ld` column), so a dimension that is not a multiple of 8 is still TMA-addressable.
// Exit status: 0 all shapes measured and acceptance PASS; 4 measured but acceptance FAIL;
// 1 a shape failed (error code, CUDA error, disagreement with cuBLAS); 2 bad usage.
#include <cublas_v2.h>
#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cublas_gemm.cuh"
#include "gemm_harness.cuh"
#include "timing.cuh"

namespace {

using hx::fmt;
using hx::now_utc;

constexpr double kTolerance = 1e-2;
constexpr double kAcceptGeomean = 0.95, kAcceptMin = 0.85;
constexpr double kSweepAcceptGeomean = 0.97, kSweepAcceptMin = 0.90;

const char* const kGroups[] = {"GEMM", "batched GEMM", "GEMM sweep", "batched GEMM sweep"};


struct Result {
  hx::Problem p;
  std::string status = "ok";  // or what went wrong
  double loom_ms = NAN, cublas_ms = NAN, loom_spread = NAN, cublas_spread = NAN;
  double loom_host_us = NAN, cublas_host_us = NAN, rel = NAN;
  int sets = 0, reps = 0;
  double loom_tflops() const { return p.flops() / (loom_ms * 1e-3) / 1e12; }
  double cublas_tflops() const { return p.flops() / (cublas_ms * 1e-3) / 1e12; }
  double ratio() const { return status == "ok" ? cublas_ms / loom_ms : 0.0; }
};

struct Bench {
  cublasHandle_t cublas;
  cudaStream_t s;
  cudaDeviceProp prop;
  uint64_t seed;
  int reps_override = 0;
};

Result run_problem(Bench& bench, const hx::Problem& p, int index) {
  Result r;
  r.p = p;
  hx::KernelTypes t;
  std::string why;
  if (!hx::kernel_types(p.batched, &t, &why)) {
    r.status = why;
    return r;
  }
  // Enough copies that one pass over them does not fit in L2 (3x), within 40% of free memory.
  const int sets = hx::rotation_sets(p, t, bench.prop);
  r.sets = sets;

  std::vector<hx::Matrix> A, B, CL, CB;
  for (int i = 0; i < sets; ++i) {
    A.push_back(hx::make_matrix(t.a, p.batch, p.M, p.K, t.align));
    B.push_back(hx::make_matrix(t.b, p.batch, p.K, p.N, t.align));
    CL.push_back(hx::make_matrix(t.c, p.batch, p.M, p.N, t.align));
    CB.push_back(hx::make_matrix(t.c, p.batch, p.M, p.N, t.align));
    const uint64_t seed = bench.seed + 1000003ull * uint64_t(index) + 2 * uint64_t(i);
    hx::fill_random(A[i], seed, bench.s);
    hx::fill_random(B[i], seed + 1, bench.s);
    hx::poison(CL[i], bench.s);
    hx::poison(CB[i], bench.s);
  }
  auto free_all = [&] {
    for (int i = 0; i < sets; ++i) {
      hx::free_matrix(A[i]);
      hx::free_matrix(B[i]);
      hx::free_matrix(CL[i]);
      hx::free_matrix(CB[i]);
    }
  };
  auto loom = [&](int i) { return hx::loom_call(p, CL[i], A[i], B[i], bench.s); };
  auto cublas = [&](int i) { return int(hx::cublas_call(bench.cublas, p, CB[i], A[i], B[i])); };

  // Agreement on copy 0, from poisoned outputs.
  const int rc = loom(0);
  const int cb = cublas(0);
  const cudaError_t e = cudaStreamSynchronize(bench.s);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gemm_bench: %s: CUDA error %s; the context is lost\n", p.name().c_str(),
                 cudaGetErrorString(e));
    std::exit(1);
  }
  if (rc != LOOM_OK || cb != 0) {
    r.status = rc != LOOM_OK ? "loom returned " + std::to_string(rc) + " (" + loom_error_string(rc) + ")"
                             : "cuBLAS status " + std::to_string(cb);
    free_all();
    return r;
  }
  const hx::Comparison c = hx::compare(CL[0], CB[0].data, CB[0].dtype, CB[0].ld,
                                       CB[0].batch_stride, true, bench.s);
  r.rel = c.rel();
  if (!c.ok(kTolerance)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "disagrees with cuBLAS: rel err %.3e, non-finite %llu, stray %llu",
                  c.rel(), c.nonfinite, c.stray);
    r.status = buf;
    free_all();
    return r;
  }

  // Timing.
  double loom_dev_ms, loom_host_us, cublas_dev_ms, cublas_host_us;
  int loom_err = 0, cublas_err = 0;
  hx::warm_up(loom, sets, bench.s, &loom_dev_ms, &loom_host_us, &loom_err);
  hx::warm_up(cublas, sets, bench.s, &cublas_dev_ms, &cublas_host_us, &cublas_err);
  const double per_launch = std::min(loom_dev_ms, cublas_dev_ms);
  int reps = bench.reps_override ? bench.reps_override
                                 : int(std::clamp(100.0 / per_launch, 20.0, 300.0));
  r.reps = reps;
  // The spin must outlast the host's enqueueing of one round.
  const double host_ms = std::max(loom_host_us, cublas_host_us) * 1e-3 * reps;
  const double spin_ms = std::min(500.0, 2.0 * host_ms + 1.0);
  hx::Samples ls, cs;
  for (int round = 0; round < 2; ++round) {
    hx::time_round(loom, sets, reps, spin_ms, bench.s, round, &ls);
    hx::time_round(cublas, sets, reps, spin_ms, bench.s, round, &cs);
  }
  if (loom_err || ls.error) {
    r.status = "loom returned an error while timing";
  }
  r.loom_ms = hx::median(ls.ms);
  r.cublas_ms = hx::median(cs.ms);
  r.loom_spread = std::fabs(ls.round_median[0] - ls.round_median[1]) / r.loom_ms;
  r.cublas_spread = std::fabs(cs.round_median[0] - cs.round_median[1]) / r.cublas_ms;
  r.loom_host_us = ls.host_us;
  r.cublas_host_us = cs.host_us;
  free_all();
  return r;
}

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string table(const std::vector<Result>& results) {
  std::ostringstream o;
  o << "| group | shape (M×N×K, batch×M×N×K) | loom TFLOP/s | cuBLAS TFLOP/s | loom/cuBLAS | loom ms "
       "| cuBLAS ms | round spread loom / cuBLAS | host µs/call loom / cuBLAS | rel err vs cuBLAS "
       "| copies × reps | status |\n";
  o << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Result& r : results) {
    const bool timed = !std::isnan(r.loom_ms);
    o << "| " << r.p.group << " | " << r.p.name() << " | "
      << (timed ? fmt("%.1f", r.loom_tflops()) : "-") << " | "
      << (timed ? fmt("%.1f", r.cublas_tflops()) : "-") << " | " << fmt("%.3f", r.ratio())
      << " | " << fmt("%.4f", r.loom_ms) << " | " << fmt("%.4f", r.cublas_ms) << " | "
      << fmt("%.1f%%", 100 * r.loom_spread) << " / " << fmt("%.1f%%", 100 * r.cublas_spread)
      << " | " << fmt("%.1f", r.loom_host_us) << " / " << fmt("%.1f", r.cublas_host_us) << " | "
      << fmt("%.2e", r.rel) << " | " << r.sets << " × 2×" << r.reps << " | " << r.status << " |\n";
  }
  return o.str();
}

struct Verdict {
  std::string text;
  bool pass = false;
};

Verdict summarize(const std::vector<Result>& results, const std::vector<hx::Problem>& wanted) {
  std::ostringstream o;
  bool pass = true;
  double min_ratio = INFINITY;
  std::string min_shape;
  const bool sweep = !wanted.empty() && std::string(wanted[0].group).find("sweep") != std::string::npos;
  const double accept_geomean = sweep ? kSweepAcceptGeomean : kAcceptGeomean;
  const double accept_min = sweep ? kSweepAcceptMin : kAcceptMin;
  for (const char* g : kGroups) {
    if ((std::string(g).find("sweep") != std::string::npos) != sweep) continue;
    int n = 0, expected = 0;
    double log_sum = 0;
    for (const hx::Problem& p : wanted) expected += std::string(p.group) == g;
    for (const Result& r : results) {
      if (std::string(r.p.group) != g) continue;
      ++n;
      log_sum += std::log(std::max(r.ratio(), 1e-9));
      if (r.ratio() < min_ratio) {
        min_ratio = r.ratio();
        min_shape = r.p.name();
      }
    }
    if (!expected) {
      o << "- " << g << ": not built (kernel missing)\n";
      pass = false;
      continue;
    }
    const double geo = n ? std::exp(log_sum / n) : 0.0;
    o << "- " << g << ": geomean loom/cuBLAS " << fmt("%.3f", geo) << " over " << n << " shape(s)"
      << (n < expected ? " (some shapes missing)" : "") << "\n";
    pass = pass && n == expected && geo >= accept_geomean;
  }
  o << "- minimum loom/cuBLAS: " << fmt("%.3f", min_ratio) << " (" << min_shape << ")\n";
  pass = pass && min_ratio >= accept_min;
  o << "\nacceptance: geomean ≥ " << accept_geomean << ", min ≥ " << accept_min << ": "
    << (pass ? "PASS" : "FAIL") << "\n";
  return {o.str(), pass};
}

int profile(Bench& bench, const std::string& shape, const std::vector<hx::Problem>& sweep) {
  std::vector<hx::Problem> all = hx::bench_problems();
  all.insert(all.end(), sweep.begin(), sweep.end());
  for (const hx::Problem& p : all) {
    if (p.name() != shape) continue;
    hx::KernelTypes t;
    std::string why;
    if (!hx::kernel_types(p.batched, &t, &why)) {
      std::fprintf(stderr, "gemm_bench: %s\n", why.c_str());
      return 1;
    }
    hx::Matrix A = hx::make_matrix(t.a, p.batch, p.M, p.K, t.align);
    hx::Matrix B = hx::make_matrix(t.b, p.batch, p.K, p.N, t.align);
    hx::Matrix C = hx::make_matrix(t.c, p.batch, p.M, p.N, t.align);
    hx::fill_random(A, bench.seed, bench.s);
    hx::fill_random(B, bench.seed + 1, bench.s);
    int rc = hx::loom_call(p, C, A, B, bench.s);  // warm-up outside the profiled range
    HX_CUDA(cudaStreamSynchronize(bench.s));
    HX_CUDA(cudaProfilerStart());
    rc |= hx::loom_call(p, C, A, B, bench.s);
    HX_CUDA(cudaStreamSynchronize(bench.s));
    HX_CUDA(cudaProfilerStop());
    std::printf("gemm_bench: profiled one loom call on %s (status %d)\n", shape.c_str(), rc);
    return rc ? 1 : 0;
  }
  std::fprintf(stderr, "gemm_bench: no bench shape named %s\n", shape.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, only, profile_shape, command;
  int sweep = 0;
  uint64_t sweep_seed = 20261125;
  Bench bench;
  bench.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gemm_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") out_path = value();
    else if (a == "--only") only = value();
    else if (a == "--profile") profile_shape = value();
    else if (a == "--reps") bench.reps_override = std::max(20, std::atoi(value().c_str()));
    else if (a == "--seed") bench.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--command") command = value();
    else if (a == "--sweep") sweep = std::atoi(value().c_str());
    else if (a == "--sweep-seed") sweep_seed = std::strtoull(value().c_str(), nullptr, 10);
    else {
      std::fprintf(stderr,
                   "usage: gemm_bench --out FILE.md [--reps N] [--seed S] [--only SHAPE] "
                   "[--command TEXT] [--sweep N [--sweep-seed S]]\n       gemm_bench --profile SHAPE [--sweep N --sweep-seed S]\n");
      return 2;
    }
  }
  const std::vector<hx::Problem> wanted = sweep > 0 ? hx::sweep_problems(sweep, sweep_seed) : hx::bench_problems();
  if (wanted.empty()) {
    std::fprintf(stderr, "gemm_bench: no kernel compiled in (LOOM_HAVE_GEMM, LOOM_HAVE_BATCHED_GEMM)\n");
    return 2;
  }
  const std::string device = hx::device_description(&bench.prop);
  HX_CUDA(cudaStreamCreateWithFlags(&bench.s, cudaStreamNonBlocking));
  if (!profile_shape.empty()) return profile(bench, profile_shape, sweep > 0 ? wanted : std::vector<hx::Problem>{});
  if (out_path.empty()) {
    std::fprintf(stderr, "gemm_bench: --out FILE.md is required\n");
    return 2;
  }

  HX_CUBLAS(cublasCreate(&bench.cublas));
  HX_CUBLAS(cublasSetStream(bench.cublas, bench.s));
  void* workspace = nullptr;
  const size_t workspace_bytes = size_t(32) << 20;
  HX_CUDA(cudaMalloc(&workspace, workspace_bytes));
  HX_CUBLAS(cublasSetWorkspace(bench.cublas, workspace, workspace_bytes));

  std::string argv_line;
  for (int i = 0; i < argc; ++i) argv_line += std::string(i ? " " : "") + argv[i];
  std::printf("gemm_bench: %s\ngemm_bench: seed %llu\n", device.c_str(),
              (unsigned long long)bench.seed);

  std::vector<Result> results;
  bool any_failed = false;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (!only.empty() && wanted[i].name() != only) continue;
    Result r = run_problem(bench, wanted[i], int(i));
    any_failed |= r.status != "ok";
    std::printf("gemm_bench: %-13s %-22s loom %8.1f TFLOP/s  cuBLAS %8.1f TFLOP/s  ratio %.3f  %s\n",
                r.p.group, r.p.name().c_str(), r.loom_tflops(), r.cublas_tflops(), r.ratio(),
                r.status.c_str());
    std::fflush(stdout);
    results.push_back(r);
  }
  Verdict verdict = summarize(results, wanted);
  if (!only.empty()) verdict = {"\nacceptance: not evaluated (--only " + only + ")\n", true};

  std::ostringstream md;
  md << "# loom GEMM vs cuBLAS, " << bench.prop.name << ", " << now_utc("%Y-%m-%d") << "\n\n";
  md << "- device: " << device << "\n";
  md << "- date: " << now_utc("%Y-%m-%d %H:%M UTC") << "\n";
  md << "- cuBLAS " << cublas_version() << " (`cublasGemmEx` / `cublasGemmStridedBatchedEx`, "
     << "fp32 compute, 32 MiB workspace)\n";
  md << "- command: `" << (command.empty() ? argv_line : command) << "`\n";
  if (!command.empty()) md << "- binary: `" << argv_line << "`\n";
  if (sweep > 0)
    md << "- shapes: " << sweep << " seeded random shapes per kernel (--sweep-seed " << sweep_seed
       << "; gemm_harness.cuh's sweep_problems)\n";
  md << "- data: row-major, inputs uniform in [-1, 1) (base seed " << bench.seed << "), "
     << "output element type from the kernel's metadata; fp32 accumulation\n";
  md << "- method: per-launch CUDA events after warm-up; two alternating rounds (loom, cuBLAS, "
        "loom, cuBLAS) behind a spin kernel so launches run back to back; time = median over "
        "both rounds; spread = difference of the rounds' medians; inputs rotated among `copies` "
        "sets (> 3× L2); TFLOP/s = 2·batch·M·N·K / time; host µs/call is the CPU cost of one "
        "call (descriptor checks, TMA encoding, launch)\n";
  md << "- agreement: loom's output vs cuBLAS's on the same inputs, relative Frobenius error < "
     << kTolerance << ", no NaN, nothing written outside C\n\n";
  md << table(results) << "\n" << verdict.text;
  std::ofstream f(out_path);
  f << md.str();
  if (!f) {
    std::fprintf(stderr, "gemm_bench: cannot write %s\n", out_path.c_str());
    return 1;
  }
  std::printf("\n%s\n%s", table(results).c_str(), verdict.text.c_str());
  std::printf("gemm_bench: wrote %s\n", out_path.c_str());

  HX_CUBLAS(cublasDestroy(bench.cublas));
  HX_CUDA(cudaFree(workspace));
  HX_CUDA(cudaStreamDestroy(bench.s));
  if (any_failed) return 1;
  return verdict.pass ? 0 : 4;
}

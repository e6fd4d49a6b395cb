// Every mapping of a generated GEMM (or batched GEMM) timed on its own, per shape, beside cuBLAS and
// the mapping the launcher's cost model picks: how far the pick is from the best compiled mapping
// (the cost model's error), and how far the best mapping is from cuBLAS (what no pick can fix).
//
// The generated .cu is compiled into this file, because its mappings live in an anonymous
// namespace (mapping0 ... mappingN-1, each with launch_<entry> and, for the default and the
// when(fastest) candidates, estimate_cycles). Every mapping must be one of those two kinds (true of
// examples/gemm and examples/batched_gemm). Build (bench/gemm_mappings.sh does this):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibench -IGEN/gemm
//        -DLOOM_HAVE_GEMM -DLOOM_MAPPINGS=6 bench/gemm_mappings.cu -lcuda -lcublas
// (or -IGEN/batched_gemm -DLOOM_HAVE_BATCHED_GEMM).
// Usage: gemm_mappings --out FILE.md [--sweep N] [--sweep-seed S] [--seed S] [--only SHAPE]
//        [--shape MxNxK | BxMxNxK] [--maps I,J,...] [--check-only] [--settle-ms MS] [--command TEXT]
// --maps: check and time only these mappings (and skip loom_<entry>_tune): a quicker round for a few
// mappings of interest; the pick is timed only when it is among them.
// --settle-ms: before each timed batch, MS ms of the same call untimed (the GPU's power state then is
// the call's own, not the previous method's).
// --shape adds a shape of one's own (without --sweep: only the --shape ones run); --check-only checks every
// mapping's output and skips the timing (for compute-sanitizer).
// Without --sweep the fixed table of gemm_bench runs. Per shape: each mapping's output is checked
// against cuBLAS's (relative Frobenius error < 1e-2, poisoned output, nothing written outside C),
// then loom_<entry>_tune measures its choice on copy 0 (the tuned pick; its wall time is reported),
// then cuBLAS, every mapping and the dispatcher (now through the tuned pick) are timed in two
// rounds (the second in reverse order) of per-launch CUDA events behind a spin kernel (median over both rounds), inputs
// rotated over > 3x L2.
#if defined(LOOM_HAVE_GEMM)
#include "gemm.cu"
#define LOOM_LAUNCH launch_gemm
#define LOOM_PICK loom_gemm_pick
#define LOOM_TUNE_CALL loom_gemm_tune
#define LOOM_COUNT loom_gemm_mappings
#elif defined(LOOM_HAVE_BATCHED_GEMM)
#include "batched_gemm.cu"
#define LOOM_LAUNCH launch_batched_gemm
#define LOOM_PICK loom_batched_gemm_pick
#define LOOM_TUNE_CALL loom_batched_gemm_tune
#define LOOM_COUNT loom_batched_gemm_mappings
#else
#error "compile with -DLOOM_HAVE_GEMM or -DLOOM_HAVE_BATCHED_GEMM and the generated kernel's directory"
#endif
#if !defined(LOOM_MAPPINGS) || LOOM_MAPPINGS < 1 || LOOM_MAPPINGS > 48
#error "-DLOOM_MAPPINGS=N: the generated file's mapping count (its 'Kernels: one per mapping (N)' line), 1..48"
#endif

#include <cublas_v2.h>

#include <cstdio>
#include <ctime>
#include <functional>
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

using Launch = int (*)(const loom_tensor&, const loom_tensor&, const loom_tensor&, cudaStream_t);
using Estimate = double (*)(const loom_tensor&, const loom_tensor&, const loom_tensor&, cudaStream_t, int64_t);
struct Mapping {
  Launch launch;
  Estimate estimate;
};

#define LOOM_M(i) Mapping{&mapping##i::LOOM_LAUNCH, &mapping##i::estimate_cycles},
const Mapping kMappings[] = {
    LOOM_M(0)
#if LOOM_MAPPINGS > 1
    LOOM_M(1)
#endif
#if LOOM_MAPPINGS > 2
    LOOM_M(2)
#endif
#if LOOM_MAPPINGS > 3
    LOOM_M(3)
#endif
#if LOOM_MAPPINGS > 4
    LOOM_M(4)
#endif
#if LOOM_MAPPINGS > 5
    LOOM_M(5)
#endif
#if LOOM_MAPPINGS > 6
    LOOM_M(6)
#endif
#if LOOM_MAPPINGS > 7
    LOOM_M(7)
#endif
#if LOOM_MAPPINGS > 8
    LOOM_M(8)
#endif
#if LOOM_MAPPINGS > 9
    LOOM_M(9)
#endif
#if LOOM_MAPPINGS > 10
    LOOM_M(10)
#endif
#if LOOM_MAPPINGS > 11
    LOOM_M(11)
#endif
#if LOOM_MAPPINGS > 12
    LOOM_M(12)
#endif
#if LOOM_MAPPINGS > 13
    LOOM_M(13)
#endif
#if LOOM_MAPPINGS > 14
    LOOM_M(14)
#endif
#if LOOM_MAPPINGS > 15
    LOOM_M(15)
#endif
#if LOOM_MAPPINGS > 16
    LOOM_M(16)
#endif
#if LOOM_MAPPINGS > 17
    LOOM_M(17)
#endif
#if LOOM_MAPPINGS > 18
    LOOM_M(18)
#endif
#if LOOM_MAPPINGS > 19
    LOOM_M(19)
#endif
#if LOOM_MAPPINGS > 20
    LOOM_M(20)
#endif
#if LOOM_MAPPINGS > 21
    LOOM_M(21)
#endif
#if LOOM_MAPPINGS > 22
    LOOM_M(22)
#endif
#if LOOM_MAPPINGS > 23
    LOOM_M(23)
#endif
#if LOOM_MAPPINGS > 24
    LOOM_M(24)
#endif
#if LOOM_MAPPINGS > 25
    LOOM_M(25)
#endif
#if LOOM_MAPPINGS > 26
    LOOM_M(26)
#endif
#if LOOM_MAPPINGS > 27
    LOOM_M(27)
#endif
#if LOOM_MAPPINGS > 28
    LOOM_M(28)
#endif
#if LOOM_MAPPINGS > 29
    LOOM_M(29)
#endif
#if LOOM_MAPPINGS > 30
    LOOM_M(30)
#endif
#if LOOM_MAPPINGS > 31
    LOOM_M(31)
#endif
#if LOOM_MAPPINGS > 32
    LOOM_M(32)
#endif
#if LOOM_MAPPINGS > 33
    LOOM_M(33)
#endif
#if LOOM_MAPPINGS > 34
    LOOM_M(34)
#endif
#if LOOM_MAPPINGS > 35
    LOOM_M(35)
#endif
#if LOOM_MAPPINGS > 36
    LOOM_M(36)
#endif
#if LOOM_MAPPINGS > 37
    LOOM_M(37)
#endif
#if LOOM_MAPPINGS > 38
    LOOM_M(38)
#endif
#if LOOM_MAPPINGS > 39
    LOOM_M(39)
#endif
#if LOOM_MAPPINGS > 40
    LOOM_M(40)
#endif
#if LOOM_MAPPINGS > 41
    LOOM_M(41)
#endif
#if LOOM_MAPPINGS > 42
    LOOM_M(42)
#endif
#if LOOM_MAPPINGS > 43
    LOOM_M(43)
#endif
#if LOOM_MAPPINGS > 44
    LOOM_M(44)
#endif
#if LOOM_MAPPINGS > 45
    LOOM_M(45)
#endif
#if LOOM_MAPPINGS > 46
    LOOM_M(46)
#endif
#if LOOM_MAPPINGS > 47
    LOOM_M(47)
#endif
};
#undef LOOM_M
constexpr int kCount = LOOM_MAPPINGS;
static_assert(sizeof(kMappings) / sizeof(kMappings[0]) == kCount, "one kMappings entry per mapping");

constexpr double kTolerance = 1e-2;

struct Row {
  hx::Problem p;
  std::string status = "ok";
  double cublas_us = NAN, dispatch_us = NAN;
  double us[kCount], estimate_us[kCount], rel[kCount];
  int pick = -1, best = -1, tuned = -1;
  double tune_ms = NAN;  // the wall time of loom_<entry>_tune on this shape
};

Row run_shape(cublasHandle_t cublas, cudaStream_t s, const cudaDeviceProp& prop, double clock_ghz,
              const hx::Problem& p, uint64_t seed, bool check_only, double settle_ms, const std::vector<bool>& maps) {
  Row r;
  r.p = p;
  for (int i = 0; i < kCount; ++i) r.us[i] = r.estimate_us[i] = r.rel[i] = NAN;
  hx::KernelTypes t;
  std::string why;
  if (!hx::kernel_types(p.batched, &t, &why)) {
    r.status = why;
    return r;
  }
  const int sets = hx::rotation_sets(p, t, prop);
  std::vector<hx::Matrix> A, B, CL, CB;
  for (int i = 0; i < sets; ++i) {
    A.push_back(hx::make_matrix(t.a, p.batch, p.M, p.K, t.align));
    B.push_back(hx::make_matrix(t.b, p.batch, p.K, p.N, t.align));
    CL.push_back(hx::make_matrix(t.c, p.batch, p.M, p.N, t.align));
    CB.push_back(hx::make_matrix(t.c, p.batch, p.M, p.N, t.align));
    hx::fill_random(A[i], seed + 2 * uint64_t(i), s);
    hx::fill_random(B[i], seed + 2 * uint64_t(i) + 1, s);
  }
  auto tensors = [&](int i) {
    struct T { loom_tensor c, a, b; };
    return T{CL[i].tensor(p.batched), A[i].tensor(p.batched), B[i].tensor(p.batched)};
  };
  int sms = 0;
  HX_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  // The cost model's estimates, and the mapping the launcher picks (loom_<entry>_pick).
  {
    auto x = tensors(0);
    for (int i = 0; i < kCount; ++i) r.estimate_us[i] = kMappings[i].estimate(x.c, x.a, x.b, s, sms) / (clock_ghz * 1e3);
    r.pick = LOOM_PICK(x.c, x.a, x.b, s);
  }
  // Agreement of every mapping with cuBLAS on copy 0, each from a poisoned output.
  for (int i = 0; i < sets; ++i) hx::poison(CB[i], s);
  if (int cb = int(hx::cublas_call(cublas, p, CB[0], A[0], B[0]))) {
    r.status = "cuBLAS status " + std::to_string(cb);
  }
  std::vector<bool> ok(kCount, false);
  for (int i = 0; i < kCount && r.status == "ok"; ++i) {
    if (!maps[size_t(i)]) continue;
    hx::poison(CL[0], s);
    auto x = tensors(0);
    const int rc = kMappings[i].launch(x.c, x.a, x.b, s);
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      std::fprintf(stderr, "gemm_mappings: %s mapping %d: CUDA error %s; the context is lost\n",
                   p.name().c_str(), i, cudaGetErrorString(e));
      std::exit(1);
    }
    if (rc != LOOM_OK) continue;  // this mapping refuses the call (r.rel stays NaN)
    const hx::Comparison c = hx::compare(CL[0], CB[0].data, CB[0].dtype, CB[0].ld, CB[0].batch_stride, true, s);
    r.rel[i] = c.rel();
    ok[i] = c.ok(kTolerance);
    if (!ok[i]) r.status = "mapping " + std::to_string(i) + " disagrees with cuBLAS (rel " + fmt("%.2e", c.rel()) + ")";
  }
  // The measured choice: loom_<entry>_tune on copy 0 (scratch outputs), then the pick it leaves.
  const bool all_maps = std::find(maps.begin(), maps.end(), false) == maps.end();
  if (r.status == "ok" && !check_only && all_maps) {
    auto x = tensors(0);
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = LOOM_TUNE_CALL(x.c, x.a, x.b, s);
    r.tune_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != LOOM_OK) r.status = "loom_*_tune returned " + std::to_string(rc);
    r.tuned = LOOM_PICK(x.c, x.a, x.b, s);
  }
  if (r.status != "ok" || check_only) {
    for (int i = 0; i < sets; ++i) hx::free_matrix(A[i]), hx::free_matrix(B[i]), hx::free_matrix(CL[i]), hx::free_matrix(CB[i]);
    return r;
  }

  // Timing: cuBLAS, every mapping that ran, and the dispatcher, alternating over two rounds.
  struct Timed {
    std::function<int(int)> launch;
    double* out;
    hx::Samples samples;
    double dev_ms = 0, host_us = 0;
    int error = 0;
  };
  std::vector<Timed> timed;
  timed.push_back({[&](int i) { return int(hx::cublas_call(cublas, p, CB[i], A[i], B[i])); }, &r.cublas_us});
  for (int m = 0; m < kCount; ++m)
    if (ok[m])
      timed.push_back({[&, m](int i) { auto x = tensors(i); return kMappings[m].launch(x.c, x.a, x.b, s); }, &r.us[m]});
  timed.push_back({[&](int i) { return hx::loom_call(p, CL[i], A[i], B[i], s); }, &r.dispatch_us});
  double per_launch = 1e9, host_us = 0;
  for (Timed& x : timed) {
    hx::warm_up(x.launch, sets, s, &x.dev_ms, &x.host_us, &x.error);
    per_launch = std::min(per_launch, x.dev_ms);
    host_us = std::max(host_us, x.host_us);
  }
  const int reps = int(std::clamp(30.0 / per_launch, 10.0, 200.0));
  // --settle-ms: each method's timed launches follow that much of its own untimed work
  auto settle_of = [&](const Timed& x) { return settle_ms > 0 ? int(std::ceil(settle_ms / std::max(x.dev_ms, 1e-3))) : 0; };
  int most_settle = 0;
  for (const Timed& x : timed) most_settle = std::max(most_settle, settle_of(x));
  const double spin_ms = std::min(500.0, 2.0 * host_us * 1e-3 * (reps + most_settle) + 1.0);
  for (int round = 0; round < 2; ++round)
    for (size_t k = 0; k < timed.size(); ++k) {
      Timed& x = timed[round % 2 ? timed.size() - 1 - k : k];  // the second round in reverse order
      hx::time_round(x.launch, sets, reps, spin_ms, s, round, &x.samples, settle_of(x));
    }
  for (Timed& x : timed) {
    *x.out = 1e3 * hx::median(x.samples.ms);
    if (x.error || x.samples.error) r.status = "a launch returned an error while timing";
  }
  for (int i = 0; i < kCount; ++i)
    if (!std::isnan(r.us[i]) && (r.best < 0 || r.us[i] < r.us[r.best])) r.best = i;
  for (int i = 0; i < sets; ++i) hx::free_matrix(A[i]), hx::free_matrix(B[i]), hx::free_matrix(CL[i]), hx::free_matrix(CB[i]);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, only, command;
  int sweep = 0;
  bool check_only = false;
  double settle_ms = 0;  // --settle-ms: untimed work of the same call before each timed batch
  std::vector<hx::Problem> own;
  std::vector<bool> maps(kCount, true);
  uint64_t sweep_seed = 20261125, seed = uint64_t(std::time(nullptr)) % 1000000007ull;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gemm_mappings: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") out_path = value();
    else if (a == "--only") only = value();
    else if (a == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--sweep") sweep = std::atoi(value().c_str());
    else if (a == "--sweep-seed") sweep_seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--command") command = value();
    else if (a == "--check-only") check_only = true;
    else if (a == "--maps") {
      std::fill(maps.begin(), maps.end(), false);
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');) {
        const int m = std::atoi(item.c_str());
        if (m < 0 || m >= kCount || item.empty()) {
          std::fprintf(stderr, "gemm_mappings: --maps %s: mapping indices 0..%d, comma-separated\n", item.c_str(), kCount - 1);
          return 2;
        }
        maps[size_t(m)] = true;
      }
    }
    else if (a == "--settle-ms") settle_ms = std::atof(value().c_str());
    else if (a == "--shape") {
      long long d[4] = {0, 0, 0, 0};
      const std::string v = value();
      const int n = std::sscanf(v.c_str(), "%lldx%lldx%lldx%lld", &d[0], &d[1], &d[2], &d[3]);
      if (n == 3 && d[0] > 0 && d[1] > 0 && d[2] > 0) own.push_back(hx::gemm_problem(d[0], d[1], d[2]));
      else if (n == 4 && d[0] > 0 && d[1] > 0 && d[2] > 0 && d[3] > 0) own.push_back(hx::batched_problem(d[0], d[1], d[2], d[3]));
      else {
        std::fprintf(stderr, "gemm_mappings: --shape %s: expected MxNxK or BxMxNxK with positive extents\n", v.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: gemm_mappings --out FILE.md [--sweep N] [--sweep-seed S] [--seed S] [--only SHAPE] [--shape MxNxK] [--maps I,J,...] [--check-only] [--settle-ms MS] [--command TEXT]\n");
      return 2;
    }
  }
  if (out_path.empty()) {
    std::fprintf(stderr, "gemm_mappings: --out FILE.md is required\n");
    return 2;
  }
  if (LOOM_COUNT() != kCount) {
    std::fprintf(stderr, "gemm_mappings: built with -DLOOM_MAPPINGS=%d, the kernel has %d mappings\n", kCount, LOOM_COUNT());
    return 2;
  }
  std::vector<hx::Problem> shapes = sweep > 0 ? hx::sweep_problems(sweep, sweep_seed) : hx::bench_problems();
#if defined(LOOM_HAVE_GEMM)
  const bool batched = false;
#else
  const bool batched = true;
#endif
  shapes.erase(std::remove_if(shapes.begin(), shapes.end(), [&](const hx::Problem& p) { return p.batched != batched; }), shapes.end());
  if (!own.empty() && sweep == 0) shapes.clear();  // --shape without --sweep: only those
  for (const hx::Problem& p : own)
    if (p.batched == batched) shapes.push_back(p);
  cudaDeviceProp prop;
  const std::string device = hx::device_description(&prop);
  int clock_khz = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess || clock_khz <= 0) {
    (void)cudaGetLastError();
    clock_khz = 1755000;
  }
  const double clock_ghz = clock_khz * 1e-6;
  cudaStream_t s;
  HX_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* workspace = nullptr;
  cublasHandle_t cublas = hx::cublas_on(s, &workspace);

  std::vector<Row> rows;
  bool failed = false;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!only.empty() && shapes[i].name() != only) continue;
    Row r = run_shape(cublas, s, prop, clock_ghz, shapes[i], seed + 1000003ull * i, check_only, settle_ms, maps);
    failed |= r.status != "ok";
    std::printf("gemm_mappings: %-22s cuBLAS %9.2f us  pick %d %9.2f us  tuned %d %9.2f us  best %d %9.2f us  %s\n",
                r.p.name().c_str(), r.cublas_us, r.pick, r.pick >= 0 ? r.us[r.pick] : NAN, r.tuned,
                r.tuned >= 0 && r.tuned < kCount ? r.us[r.tuned] : NAN, r.best, r.best >= 0 ? r.us[r.best] : NAN, r.status.c_str());
    if (check_only) {
      std::printf("gemm_mappings: %-22s rel. error vs cuBLAS per mapping:", r.p.name().c_str());
      for (int m = 0; m < kCount; ++m) std::printf(" m%d %s", m, fmt("%.2e", r.rel[m]).c_str());
      std::printf("\n");
    }
    std::fflush(stdout);
    rows.push_back(r);
  }

  std::ostringstream md;
  md << "# Every mapping of loom's " << (shapes.empty() || !shapes[0].batched ? "GEMM" : "batched GEMM")
     << " timed on its own, " << prop.name << ", " << now_utc("%Y-%m-%d %H:%M UTC") << "\n\n"
     << "- device: " << device << "; estimates converted at " << fmt("%.3f", clock_ghz) << " GHz\n"
     << "- command: `" << command << "`\n"
     << "- shapes: "
     << (sweep > 0  ? std::to_string(sweep) + " seeded random shapes (--sweep-seed " + std::to_string(sweep_seed) + ")" +
                         (own.empty() ? std::string() : " and " + std::to_string(own.size()) + " given with --shape")
         : own.empty() ? std::string("the fixed table")
                       : std::to_string(own.size()) + " given with --shape")
     << "; input seed " << seed << "\n"
     << "- columns: µs per call (median of per-launch CUDA events over two rounds, the second in reverse order"
     << (settle_ms > 0 ? ", each method's timed launches after " + fmt("%.0f", settle_ms) + " ms of its own untimed ones" : std::string())
     << "), the cost model's "
        "estimate in brackets; pick = the mapping the cost model picks (loom_<entry>_pick before tuning: the smallest "
        "estimate), tuned = the one loom_<entry>_tune measured fastest (on the shape's first copy, its wall time in ms), "
        "best = the fastest measured here; launcher = loom_<entry> after tuning (so through the tuned pick); every "
        "mapping's output agreed with cuBLAS (rel. Frobenius error < 1e-2) or the row says which did not\n\n";
  md << "| shape | cuBLAS µs |";
  for (int i = 0; i < kCount; ++i) md << " m" << i << " µs (est.) |";
  md << " launcher µs | pick | tuned (ms) | best | pick / cuBLAS | tuned / cuBLAS | best / cuBLAS | pick / best | status |\n|---|---|";
  for (int i = 0; i < kCount; ++i) md << "---|";
  md << "---|---|---|---|---|---|---|---|---|\n";
  double lp = 0, lb = 0, lpb = 0, lt = 0, minp = INFINITY, minb = INFINITY, mint = INFINITY;
  int n = 0, misses = 0, lowp = 0, lowt = 0, lowb = 0;
  std::string minp_shape, minb_shape, mint_shape;
  for (const Row& r : rows) {
    md << "| " << r.p.name() << " | " << fmt("%.2f", r.cublas_us) << " |";
    for (int i = 0; i < kCount; ++i) md << " " << fmt("%.2f", r.us[i]) << " (" << fmt("%.1f", r.estimate_us[i]) << ") |";
    const bool timed = r.status == "ok" && r.pick >= 0 && r.best >= 0 && !std::isnan(r.us[r.pick]);
    const double rp = timed ? r.cublas_us / r.us[r.pick] : NAN, rb = timed ? r.cublas_us / r.us[r.best] : NAN;
    const bool tuned = timed && r.tuned >= 0 && r.tuned < kCount && !std::isnan(r.us[r.tuned]);
    const double rt = tuned ? r.cublas_us / r.us[r.tuned] : NAN;
    md << " " << fmt("%.2f", r.dispatch_us) << " | m" << r.pick << " | m" << r.tuned << " (" << fmt("%.1f", r.tune_ms) << ") | m"
       << r.best << " | " << fmt("%.3f", rp) << " | " << fmt("%.3f", rt) << " | " << fmt("%.3f", rb) << " | "
       << fmt("%.3f", timed ? r.us[r.best] / r.us[r.pick] : NAN) << " | " << r.status << " |\n";
    if (!timed || std::isnan(rp)) continue;
    ++n;
    lp += std::log(rp), lb += std::log(rb), lt += tuned ? std::log(rt) : NAN, lpb += std::log(r.us[r.best] / r.us[r.pick]);
    misses += r.us[r.best] < 0.95 * r.us[r.pick];
    lowp += rp < 0.9, lowt += tuned && rt < 0.9, lowb += rb < 0.9;
    if (rp < minp) minp = rp, minp_shape = r.p.name();
    if (rb < minb) minb = rb, minb_shape = r.p.name();
    if (rt < mint) mint = rt, mint_shape = r.p.name();
  }
  if (n)
    md << "\n- pick / cuBLAS: geomean " << fmt("%.3f", std::exp(lp / n)) << ", min " << fmt("%.3f", minp) << " (" << minp_shape
       << "), " << lowp << " below 0.90\n- tuned / cuBLAS: geomean " << fmt("%.3f", std::exp(lt / n)) << ", min " << fmt("%.3f", mint)
       << " (" << mint_shape << "), " << lowt << " below 0.90"
       << "\n- best / cuBLAS: geomean " << fmt("%.3f", std::exp(lb / n)) << ", min " << fmt("%.3f", minb) << " (" << minb_shape
       << "), " << lowb << " below 0.90\n- pick / best: geomean " << fmt("%.3f", std::exp(lpb / n)) << "; the pick is more than 5% slower than the best on "
       << misses << " of " << n << " shapes\n";
  std::ofstream f(out_path);
  f << md.str();
  std::printf("\n%s", md.str().c_str());
  HX_CUBLAS(cublasDestroy(cublas));
  HX_CUDA(cudaFree(workspace));
  return failed ? 1 : 0;
}

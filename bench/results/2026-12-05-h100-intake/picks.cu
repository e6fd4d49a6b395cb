// picks.cu (bench/results/2026-12-05-h100-intake.md, section 4): where examples/gemm's cost model picks its 24th
// mapping (64 x 128 on 4 x 2), offline: the generated estimate functions called on the host with 132 SMs.
//   loom compile examples/gemm/gemm.loom -o G; nvcc -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a \
//     -Iruntime -Ibench -IG -DLOOM_HAVE_GEMM picks.cu -o picks && ./picks   (no GPU needed)
#include "gemm.cu"
#include "gemm_harness.cuh"
#include <cstdio>
static loom_tensor t2(int64_t r, int64_t c, void* p) { loom_tensor t{}; t.data = p; t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = c; t.stride[1] = 1; return t; }
typedef double (*Est)(const loom_tensor&, const loom_tensor&, const loom_tensor&, cudaStream_t, int64_t);
int main() {
  Est est[24] = {mapping0::estimate_cycles, mapping1::estimate_cycles, mapping2::estimate_cycles, mapping3::estimate_cycles, mapping4::estimate_cycles, mapping5::estimate_cycles, mapping6::estimate_cycles, mapping7::estimate_cycles, mapping8::estimate_cycles, mapping9::estimate_cycles, mapping10::estimate_cycles, mapping11::estimate_cycles, mapping12::estimate_cycles, mapping13::estimate_cycles, mapping14::estimate_cycles, mapping15::estimate_cycles, mapping16::estimate_cycles, mapping17::estimate_cycles, mapping18::estimate_cycles, mapping19::estimate_cycles, mapping20::estimate_cycles, mapping21::estimate_cycles, mapping22::estimate_cycles, mapping23::estimate_cycles};
  void* p = reinterpret_cast<void*>(uintptr_t{1} << 20);
  struct Set { const char* name; std::vector<hx::Problem> v; };
  std::vector<Set> sets = {{"table", hx::bench_problems()}, {"sweep 20261125", hx::sweep_problems(40, 20261125)}, {"sweep 20261127", hx::sweep_problems(40, 20261127)}, {"sweep 7 (80)", hx::sweep_problems(80, 7)}};
  for (auto& set : sets) {
    int n = 0, flips = 0;
    for (auto& pr : set.v) {
      if (pr.batched) continue;
      ++n;
      loom_tensor C = t2(pr.M, pr.N, p), A = t2(pr.M, pr.K, p), B = t2(pr.K, pr.N, p);
      int best = 0; double be = 1e300, e23 = 0;
      for (int m = 0; m < 24; ++m) { double e = est[m](C, A, B, nullptr, 132); if (m < 23 && e < be) be = e, best = m; if (m == 23) e23 = e; }
      if (e23 < be) { ++flips; std::printf("  %s: %lldx%lldx%lld pick m%d (%.1f us) -> m23 (%.1f us)\n", set.name, (long long)pr.M, (long long)pr.N, (long long)pr.K, best, be / 1980.0, e23 / 1980.0); }
    }
    std::printf("%s: %d shapes, m23 picked on %d\n", set.name, n, flips);
  }
}

#include "gemm_bias_act.cu"
#include <cstdio>
// Offline: every mapping's estimate_cycles() and load_bytes() at the shapes given on stdin (M N K per line),
// on 132 SMs, without a GPU (cluster_slots falls back to SMs / S).
static loom_tensor t2(int64_t r, int64_t c) { loom_tensor t{}; t.data = reinterpret_cast<void*>(uintptr_t(1) << 20); t.rank = 2; t.dtype = LOOM_BF16;
  t.shape[0] = r; t.shape[1] = c; t.stride[0] = c; t.stride[1] = 1; return t; }
static loom_tensor t1(int64_t n) { loom_tensor t{}; t.data = reinterpret_cast<void*>(uintptr_t(1) << 20); t.rank = 1; t.dtype = LOOM_BF16;
  t.shape[0] = n; t.stride[0] = 1; return t; }
int main() {
  long long M, N, K;
  while (std::scanf("%lld %lld %lld", &M, &N, &K) == 3) {
    loom_tensor C = t2(M, N), A = t2(M, K), B = t2(K, N), bias = t1(N);
    std::printf("%lldx%lldx%lld", M, N, K);
    std::printf(" %.1f/%.0f", mapping0::estimate_cycles(C, A, B, bias, nullptr, 132), mapping0::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping1::estimate_cycles(C, A, B, bias, nullptr, 132), mapping1::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping2::estimate_cycles(C, A, B, bias, nullptr, 132), mapping2::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping3::estimate_cycles(C, A, B, bias, nullptr, 132), mapping3::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping4::estimate_cycles(C, A, B, bias, nullptr, 132), mapping4::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping5::estimate_cycles(C, A, B, bias, nullptr, 132), mapping5::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping6::estimate_cycles(C, A, B, bias, nullptr, 132), mapping6::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping7::estimate_cycles(C, A, B, bias, nullptr, 132), mapping7::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping8::estimate_cycles(C, A, B, bias, nullptr, 132), mapping8::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping9::estimate_cycles(C, A, B, bias, nullptr, 132), mapping9::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping10::estimate_cycles(C, A, B, bias, nullptr, 132), mapping10::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping11::estimate_cycles(C, A, B, bias, nullptr, 132), mapping11::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping12::estimate_cycles(C, A, B, bias, nullptr, 132), mapping12::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping13::estimate_cycles(C, A, B, bias, nullptr, 132), mapping13::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping14::estimate_cycles(C, A, B, bias, nullptr, 132), mapping14::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping15::estimate_cycles(C, A, B, bias, nullptr, 132), mapping15::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping16::estimate_cycles(C, A, B, bias, nullptr, 132), mapping16::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping17::estimate_cycles(C, A, B, bias, nullptr, 132), mapping17::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping18::estimate_cycles(C, A, B, bias, nullptr, 132), mapping18::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping19::estimate_cycles(C, A, B, bias, nullptr, 132), mapping19::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping20::estimate_cycles(C, A, B, bias, nullptr, 132), mapping20::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping21::estimate_cycles(C, A, B, bias, nullptr, 132), mapping21::load_bytes(C, A, B, bias, nullptr));
    std::printf(" %.1f/%.0f", mapping22::estimate_cycles(C, A, B, bias, nullptr, 132), mapping22::load_bytes(C, A, B, bias, nullptr));
    std::printf("\n");
  }
}

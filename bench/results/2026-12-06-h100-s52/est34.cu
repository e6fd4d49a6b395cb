// Build: nvcc -std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -Iruntime -Ibuild-gpu/s52/sk est34.cu -L/usr/local/cuda/lib64/stubs -lcuda (prepare2.sh makes build-gpu/s52/sk); output est34.txt
#include "gemm.cu"
#include <cstdio>
// Offline (session 52): every mapping's estimate_cycles() at the shapes on stdin (M N K per line), 132 SMs, no GPU
// (cluster_slots falls back to SMs / S); prints the argmin over the first 28 and over all 34.
static loom_tensor t2(int64_t r, int64_t c) { loom_tensor t{}; t.data = reinterpret_cast<void*>(uintptr_t(1) << 20); t.rank = 2; t.dtype = LOOM_BF16;
  t.shape[0] = r; t.shape[1] = c; t.stride[0] = c; t.stride[1] = 1; return t; }
int main() {
  long long M, N, K;
  while (std::scanf("%lld %lld %lld", &M, &N, &K) == 3) {
    loom_tensor C = t2(M, N), A = t2(M, K), B = t2(K, N);
    double e[34];
    e[0] = mapping0::estimate_cycles(C, A, B, nullptr, 132);
    e[1] = mapping1::estimate_cycles(C, A, B, nullptr, 132);
    e[2] = mapping2::estimate_cycles(C, A, B, nullptr, 132);
    e[3] = mapping3::estimate_cycles(C, A, B, nullptr, 132);
    e[4] = mapping4::estimate_cycles(C, A, B, nullptr, 132);
    e[5] = mapping5::estimate_cycles(C, A, B, nullptr, 132);
    e[6] = mapping6::estimate_cycles(C, A, B, nullptr, 132);
    e[7] = mapping7::estimate_cycles(C, A, B, nullptr, 132);
    e[8] = mapping8::estimate_cycles(C, A, B, nullptr, 132);
    e[9] = mapping9::estimate_cycles(C, A, B, nullptr, 132);
    e[10] = mapping10::estimate_cycles(C, A, B, nullptr, 132);
    e[11] = mapping11::estimate_cycles(C, A, B, nullptr, 132);
    e[12] = mapping12::estimate_cycles(C, A, B, nullptr, 132);
    e[13] = mapping13::estimate_cycles(C, A, B, nullptr, 132);
    e[14] = mapping14::estimate_cycles(C, A, B, nullptr, 132);
    e[15] = mapping15::estimate_cycles(C, A, B, nullptr, 132);
    e[16] = mapping16::estimate_cycles(C, A, B, nullptr, 132);
    e[17] = mapping17::estimate_cycles(C, A, B, nullptr, 132);
    e[18] = mapping18::estimate_cycles(C, A, B, nullptr, 132);
    e[19] = mapping19::estimate_cycles(C, A, B, nullptr, 132);
    e[20] = mapping20::estimate_cycles(C, A, B, nullptr, 132);
    e[21] = mapping21::estimate_cycles(C, A, B, nullptr, 132);
    e[22] = mapping22::estimate_cycles(C, A, B, nullptr, 132);
    e[23] = mapping23::estimate_cycles(C, A, B, nullptr, 132);
    e[24] = mapping24::estimate_cycles(C, A, B, nullptr, 132);
    e[25] = mapping25::estimate_cycles(C, A, B, nullptr, 132);
    e[26] = mapping26::estimate_cycles(C, A, B, nullptr, 132);
    e[27] = mapping27::estimate_cycles(C, A, B, nullptr, 132);
    e[28] = mapping28::estimate_cycles(C, A, B, nullptr, 132);
    e[29] = mapping29::estimate_cycles(C, A, B, nullptr, 132);
    e[30] = mapping30::estimate_cycles(C, A, B, nullptr, 132);
    e[31] = mapping31::estimate_cycles(C, A, B, nullptr, 132);
    e[32] = mapping32::estimate_cycles(C, A, B, nullptr, 132);
    e[33] = mapping33::estimate_cycles(C, A, B, nullptr, 132);
    int b28 = 0, b34 = 0;
    for (int i = 0; i < 34; ++i) { if (i < 28 && e[i] < e[b28]) b28 = i; if (e[i] < e[b34]) b34 = i; }
    std::printf("%lldx%lldx%lld pick28 m%d %.0f  pick34 m%d %.0f  new:", M, N, K, b28, e[b28], b34, e[b34]);
    for (int i = 28; i < 34; ++i) std::printf(" m%d %.0f", i, e[i]);
    std::printf("\n");
  }
}

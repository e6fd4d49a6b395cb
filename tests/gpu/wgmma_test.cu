// wgmma_test: wgmma_m64nNk16 (SS) and wgmma_m64nNk16_rs (RS), the descriptor helpers, and the
// accumulator fragment helpers. One warpgroup computes D(64 x N) = A(64 x 64) * B(64 x N) in four
// k16 steps (the first with scale_d = 0 over NaN-filled accumulators, so it must overwrite; the
// K advance inside a swizzle atom is exercised), for
//   N in {8, 64, 128, 192, 256}, bf16 and f16, B K-major (tB = 0) and MN-major (tB = 1),
//   every swizzle (128B, 64B, 32B, none), smem filled by ordinary stores (k_major_offset /
//   mn_major_offset) or by TMA boxes (one per swizzle-wide slice),
// plus a sweep over every N = 8..256 for one SS and one RS configuration. D is compared with a
// double-precision CPU product (inputs are multiples of 1/64, so the exact answer is
// representable; the tolerance is relative to sum |a||b|).
#include <string>
#include <utility>

#include "gpu_test.cuh"
#include "loom/host.h"
#include "loom/runtime.cuh"

using namespace loom::rt;
using gputest::fail;
using loom::Swizzle;

namespace {

constexpr int kM = 64;
constexpr int kK = 64;  // four k16 steps; one 128-byte swizzle row of bf16

struct Args {
  const std::uint16_t* a;  // kM x kK, K contiguous
  const std::uint16_t* b;  // tB = 0: N x kK (K contiguous); tB = 1: kK x N (N contiguous)
  float* d;                // kM x N
  int swizzle;             // loom::Swizzle
  int use_tma;
};

template <int N, class T, int TB, bool RS>
__global__ void __launch_bounds__(128, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap tma_a,
                 const __grid_constant__ CUtensorMap tma_b, Args args) {
  extern __shared__ std::uint8_t raw[];
  __shared__ std::uint64_t bar;
  std::uint8_t* sa = raw + ((1024 - (smem_u32(raw) & 1023)) & 1023);
  std::uint8_t* sb = sa + kM * kK * 2;  // 8 KB: still 1024-aligned
  const Swizzle sw = static_cast<Swizzle>(args.swizzle);
  const int t = thread_in_warpgroup();

  if (args.use_tma) {
    if (t == 0) {
      mbarrier::init(&bar, 1);
      fence_barrier_init();
    }
    __syncthreads();
    if (warp_id() == 0 && elect_one_sync()) {
      const int span = static_cast<int>(loom::swizzle_span_bytes(sw));
      const int per = span / 2;  // elements per slice
      mbarrier::arrive_expect_tx(&bar, (kM + N) * kK * 2);
      for (int s = 0; s < kK / per; ++s) tma_load_2d(sa + s * kM * span, &tma_a, &bar, s * per, 0);
      if constexpr (TB == 0) {
        for (int s = 0; s < kK / per; ++s)
          tma_load_2d(sb + s * N * span, &tma_b, &bar, s * per, 0);
      } else {
        for (int s = 0; s < N / per; ++s)
          tma_load_2d(sb + s * kK * span, &tma_b, &bar, s * per, 0);
      }
    }
    mbarrier::wait(&bar, 0);
  } else {
    for (int e = t; e < kM * kK; e += 128) {
      *reinterpret_cast<std::uint16_t*>(sa + k_major_offset(sw, kM, e / kK, e % kK)) = args.a[e];
    }
    for (int e = t; e < N * kK; e += 128) {
      const std::uint32_t off = TB == 0 ? k_major_offset(sw, N, e / kK, e % kK)
                                        : mn_major_offset(sw, kK, e / N, e % N);
      *reinterpret_cast<std::uint16_t*>(sb + off) = args.b[e];
    }
    fence_proxy_async_shared();  // generic stores -> wgmma reads them through the async proxy
    __syncthreads();
  }

  std::uint32_t afrag[kK / 16][4];
  if constexpr (RS) {
#pragma unroll
    for (int ks = 0; ks < kK / 16; ++ks) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int row = acc_row(t, 2 * j);
        const int k = 16 * ks + acc_col(t, 2 * j);
        afrag[ks][j] = static_cast<std::uint32_t>(args.a[row * kK + k]) |
                       static_cast<std::uint32_t>(args.a[row * kK + k + 1]) << 16;
      }
    }
  }

  // Descriptors first: with the swizzle a run-time value here, computing them between the wgmmas
  // would put branches there, and ptxas would then serialize the wgmmas (C7519).
  std::uint64_t desc_a[kK / 16], desc_b[kK / 16];
#pragma unroll
  for (int ks = 0; ks < kK / 16; ++ks) {
    desc_a[ks] = desc_k_major(sa, sw, kM, 16 * ks);
    desc_b[ks] = TB == 1 ? desc_mn_major(sb, sw, kK, 16 * ks) : desc_k_major(sb, sw, N, 16 * ks);
  }

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = __int_as_float(0x7fc00000);  // NaN
  wgmma_fence_operand(d);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < kK / 16; ++ks) {
    if constexpr (RS) {
      wgmma_m64nNk16_rs<N, T, TB>(d, afrag[ks], desc_b[ks], ks > 0);
    } else {
      wgmma_m64nNk16<N, T, 0, TB>(d, desc_a[ks], desc_b[ks], ks > 0);
    }
  }
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(d);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) args.d[acc_row(t, i) * N + acc_col(t, i)] = d[i];
}

const char* sw_name(Swizzle sw) {
  switch (sw) {
    case Swizzle::B128: return "128B";
    case Swizzle::B64: return "64B";
    case Swizzle::B32: return "32B";
    case Swizzle::None: return "none";
  }
  return "?";
}

int g_runs = 0;

template <int N, class T, int TB, bool RS>
void run_config(const std::vector<Swizzle>& swizzles, bool with_tma) {
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  const char* dtype = kBf16 ? "bf16" : "f16";
  gputest::Rng rng(gputest::seed() ^ (static_cast<std::uint64_t>(N) << 8) ^ (TB << 4) ^
                   (RS ? 2 : 0) ^ (kBf16 ? 1 : 0));
  std::vector<float> a(kM * kK), b(N * kK);
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = rng.small_exact();
    a16[i] = kBf16 ? gputest::bf16_bits(a[i]) : gputest::f16_bits(a[i]);
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = rng.small_exact();
    b16[i] = kBf16 ? gputest::bf16_bits(b[i]) : gputest::f16_bits(b[i]);
  }
  // Reference, and the scale of each element's terms.
  std::vector<double> ref(kM * N), mag(kM * N);
  for (int m = 0; m < kM; ++m) {
    for (int n = 0; n < N; ++n) {
      double s = 0, s_abs = 0;
      for (int k = 0; k < kK; ++k) {
        const double bv = TB == 1 ? b[k * N + n] : b[n * kK + k];
        s += static_cast<double>(a[m * kK + k]) * bv;
        s_abs += std::fabs(static_cast<double>(a[m * kK + k]) * bv);
      }
      ref[m * N + n] = s;
      mag[m * N + n] = s_abs;
    }
  }
  gputest::DeviceBuffer<std::uint16_t> da(a16.size()), db(b16.size());
  gputest::DeviceBuffer<float> dd(kM * N);
  da.upload(a16);
  db.upload(b16);

  auto kernel = wgmma_kernel<N, T, TB, RS>;
  const int smem = (kM + N) * kK * 2 + 1024;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const loom::host::TmaDtype tdt = kBf16 ? loom::host::TmaDtype::BF16 : loom::host::TmaDtype::F16;

  for (Swizzle sw : swizzles) {
    const int span = static_cast<int>(loom::swizzle_span_bytes(sw));
    // MN-major B needs N to fill whole swizzle-wide slices.
    if (TB == 1 && (N * 2) % span != 0) continue;
    for (int use_tma = 0; use_tma <= (with_tma ? 1 : 0); ++use_tma) {
      alignas(64) CUtensorMap ma;
      alignas(64) CUtensorMap mb;
      std::memset(&ma, 0, sizeof ma);
      std::memset(&mb, 0, sizeof mb);
      if (use_tma) {
        const std::uint32_t per = static_cast<std::uint32_t>(span / 2);
        using loom::host::encode_tensor_map_2d;
        int r = encode_tensor_map_2d(&ma, tdt, da.ptr, kM, kK, kK * 2, kM, per, sw);
        if (r == loom::host::kTensorMapOk) {
          r = TB == 0 ? encode_tensor_map_2d(&mb, tdt, db.ptr, N, kK, kK * 2, N, per, sw)
                      : encode_tensor_map_2d(&mb, tdt, db.ptr, kK, N, N * 2, kK, per, sw);
        }
        if (r != loom::host::kTensorMapOk)
          fail("N=%d %s: encode_tensor_map_2d: %s", N, dtype,
               loom::host::describe_tensor_map_status(r));
      }
      dd.poison();
      Args args{da.ptr, db.ptr, dd.ptr, static_cast<int>(sw), use_tma};
      kernel<<<1, 128, smem>>>(ma, mb, args);
      LAUNCH_CHECK();
      const std::vector<float> got = dd.download();
      for (int m = 0; m < kM; ++m) {
        for (int n = 0; n < N; ++n) {
          const double want = ref[m * N + n];
          const double tol = 1e-3 * mag[m * N + n] + 1e-6;
          const double g = got[m * N + n];
          if (!(std::fabs(g - want) <= tol))
            fail("first bad element: m64n%dk16 %s %s, B %s, swizzle %s, smem filled by %s: "
                 "D[%d][%d] = %.6f, want %.6f (tolerance %.2g)",
                 N, dtype, RS ? "RS" : "SS", TB ? "MN-major (tB=1)" : "K-major (tB=0)",
                 sw_name(sw), use_tma ? "TMA" : "stores", m, n, g, want, tol);
        }
      }
      ++g_runs;
    }
  }
}

// Every form/dtype/tB for one N.
template <int N>
void run_n(const std::vector<Swizzle>& swizzles) {
  run_config<N, __nv_bfloat16, 0, false>(swizzles, true);
  run_config<N, __nv_bfloat16, 1, false>(swizzles, true);
  run_config<N, __half, 0, false>(swizzles, true);
  run_config<N, __half, 1, false>(swizzles, true);
  run_config<N, __nv_bfloat16, 0, true>(swizzles, true);
  run_config<N, __nv_bfloat16, 1, true>(swizzles, true);
  run_config<N, __half, 0, true>(swizzles, true);
  run_config<N, __half, 1, true>(swizzles, true);
  std::printf("  N=%3d: SS and RS, bf16 and f16, tB 0 and 1, %zu swizzles, stores and TMA: ok\n",
              N, swizzles.size());
}

// Every N = 8..256: SS bf16 K-major B with 128B swizzle, RS f16 MN-major B without swizzle.
template <int... I>
void sweep_all_n(std::integer_sequence<int, I...>) {
  (run_config<8 * (I + 1), __nv_bfloat16, 0, false>({Swizzle::B128}, false), ...);
  (run_config<8 * (I + 1), __half, 1, true>({Swizzle::None}, false), ...);
}

}  // namespace

int main() {
  gputest::begin("wgmma_test");
  const bool quick = gputest::quick_mode();  // under compute-sanitizer: fewer launches
  const std::vector<Swizzle> all =
      quick ? std::vector<Swizzle>{Swizzle::B128, Swizzle::None}
            : std::vector<Swizzle>{Swizzle::B128, Swizzle::B64, Swizzle::B32, Swizzle::None};
  run_n<8>(all);
  if (!quick) {
    run_n<64>(all);
    run_n<128>(all);
    run_n<192>(all);
  }
  run_n<256>(all);
  if (!quick) {
    sweep_all_n(std::make_integer_sequence<int, 32>{});
    std::printf("  every N = 8..256 (SS bf16 K-major 128B, RS f16 MN-major none): ok\n");
  }
  std::printf("  %d kernel runs compared\n", g_runs);
  return gputest::pass();
}

// The FP32-pipe exp2 timed in round 1 of 2026-11-28-h100-attention-whole-tiles.md (not adopted: moving
// 1/8, 1/4 or 3/8 of the softmax's exponentials off the MUFU made FlashAttention-2 slower). It was
// loom::rt::ex2_fma in runtime/loom/runtime.cuh for that round; kept here to reproduce it.
// 2^x on the FP32 pipe instead of the MUFU, for the share of a fragment's exponentials that the
// back end moves off the MUFU when a tile's exponentials outrun it (docs/codegen.md, "exp2 on two
// units"). Same accuracy class as ex2_approx: max relative error 1.6e-7 (2^-22.6) over the whole
// range; x is clamped to [-126, 128] with NaN kept (max.NaN / min.NaN), split as x = j + f with j
// an integer (the 1.5 * 2^23 rounding trick) and |f| <= 1/2; 2^f is a degree-5 polynomial fitted
// to the relative error with its constant term exact (coefficients doubled, so p(0) = 2 exactly)
// and 2^(j-1) is built in the exponent field. So 2^0 = 1, ex2(-inf) = 0, ex2(+inf) = +inf and
// NaN -> NaN as on the MUFU; results below 2^-125.5 flush to 0 (ex2_approx flushes below 2^-126).
// Twelve FP32/ALU instructions against one MUFU instruction, which serves 16 lanes a cycle per SM
// against the FP32 pipe's 128.
__device__ __forceinline__ float ex2_fma(float x) {
  float c;
  asm("max.NaN.f32 %0, %1, 0fC2FC0000;" : "=f"(c) : "f"(x));  // max(x, -126)
  asm("min.NaN.f32 %0, %0, 0f43000000;" : "+f"(c));           // min(x, 128)
  const float t = __fadd_rn(c, 12582912.0f);                   // 1.5 * 2^23 + rint(c)
  const float f = __fsub_rn(c, __fadd_rn(t, -12582912.0f));    // c - rint(c), in [-1/2, 1/2]
  float p = fmaf(2.652945462e-03f, f, 1.934302598e-02f);
  p = fmaf(p, f, 1.110146716e-01f);
  p = fmaf(p, f, 4.804448486e-01f);
  p = fmaf(p, f, 1.386294007e+00f);
  p = fmaf(p, f, 2.0f);                                         // 2 * 2^f
  // The low bits of t hold rint(c) = j (two's complement); (t << 23) + (126 << 23) = bits of 2^(j-1).
  return p * __uint_as_float((__float_as_uint(t) << 23) + 0x3f000000u);
}


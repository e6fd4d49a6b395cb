// Division by a divisor that stays fixed across a loop (a row kernel's `x / f32(N)`, `e / s[0]`),
// without a division per element: the reciprocal y = RN(1/c) is computed once (an IEEE division),
// and each element takes
//
//   q0 = RN(x * y)
//   q  = RN(q0 - RN(q0 * c - x) * y)       (fma; one Markstein correction)
//
// which is RN(x / c), the very value `x / c` gives, bit for bit, when 2^-60 <= c <= 2^60 and
// 2^-60 <= |x| <= 2^60 (quotients in [2^-120, 2^120], no overflow or underflow anywhere), or x = ±0
// (the negated-residual form above keeps the zero's sign when c > 0). Why: inside that range every
// step scales exactly by powers of two and changes sign with x, so the claim for all such x, c
// is the claim for the mantissas x, c in [1, 2), 2^46 pairs, and tests/gpu/invariant_div_test.cu
// checks every one of them against IEEE division on the GPU (`--full`; all 2^46 agreed on an H100,
// bench/results/2026-11-25-h100-tx-simt-layernorm.md). (Markstein's theorem alone would need q0
// faithful, and RN(x * RN(1/c)) is only known to be within 1.5 ulps; the exhaustive check closes
// that gap.) Everything else (c <= 0, tiny or huge values, infinities, NaN) reports `false` and
// the caller divides.
//
// The CUDA emitter prints the same operations (loom_divisor / loom_div in the SIMT prelude,
// src/tx/simt_cuda.cpp); this is the CPU copy the evaluator (src/tx/simt_eval.h) runs and the unit
// test (tests/unit/tx_invariant_div_test.cpp) checks against `/`: every dividend of a binade for a
// set of divisors, random pairs over the whole float range, and the special values.
#pragma once

namespace loom::tx {

struct InvariantDivisor {
  float c = 1.0f;   // the divisor
  float y = 1.0f;   // RN(1 / c)
  float hi = -1.0f; // the largest |x| of the fast path; -1 when c is outside [2^-60, 2^60] (never fast)
};

inline constexpr float kInvariantDivLo = 0x1p-60f;
inline constexpr float kInvariantDivHi = 0x1p60f;

InvariantDivisor invariant_divisor(float c);

// x / c through the reciprocal; sets `ok` to false (and returns an unspecified value) where the
// fast path is not proven, leaving it unchanged otherwise.
float invariant_div(float x, const InvariantDivisor& d, bool& ok);

}  // namespace loom::tx

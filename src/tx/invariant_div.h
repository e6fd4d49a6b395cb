// Division by a divisor that stays fixed across a loop (a row kernel's `x / f32(N)`, `e / s[0]`),
// without a division per element: the reciprocal y = RN(1/c) is computed once (an IEEE division),
// and each element takes
//
//   q0 = RN(x * y)
//   q1 = RN(q0 - RN(q0 * c - x) * y)      (fma: the residual q0 * c - x is exact)
//   q  = RN(q1 - RN(q1 * c - x) * y)
//
// q1 is within half an ulp (plus a negligible term) of x / c, so q1 is a faithful quotient, and by
// Markstein's theorem (y within half an ulp of 1/c, q1 faithful, exact residual) the second
// correction rounds to RN(x / c): the very value `x / c` gives, bit for bit. The theorem needs no
// overflow or underflow, so the fast path is taken only when 2^-60 <= c <= 2^60 and
// 2^-60 <= |x| <= 2^60 (quotients in [2^-120, 2^120], residuals normal or zero) or x = ±0 (the
// negated-residual form above keeps the zero's sign when c > 0); everything else (c <= 0, tiny or
// huge values, infinities, NaN) reports `false` and the caller divides.
//
// The CUDA emitter prints the same operations (loom_divisor / loom_div in the SIMT prelude,
// src/tx/simt_cuda.cpp); this is the CPU copy the evaluator (src/tx/simt_eval.h) runs and the unit
// test (tests/unit/tx_invariant_div_test.cpp) checks against `/`: exhaustively over every dividend
// of a binade (the steps scale exactly by powers of two inside the range) for a set of divisors,
// and on random pairs over the whole float range.
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

// Division by a loop-invariant divisor through its reciprocal. See invariant_div.h.
#include "tx/invariant_div.h"

#include <cmath>

namespace loom::tx {

InvariantDivisor invariant_divisor(float c) {
  InvariantDivisor d;
  d.c = c;
  d.y = 1.0f / c;
  d.hi = c >= kInvariantDivLo && c <= kInvariantDivHi ? kInvariantDivHi : -1.0f;
  return d;
}

float invariant_div(float x, const InvariantDivisor& d, bool& ok) {
  const float a = std::fabs(x);
  ok = ok && a <= d.hi && (a >= kInvariantDivLo || x == 0.0f);
  const float q = x * d.y;
  return std::fma(-std::fma(q, d.c, -x), d.y, q);
}

}  // namespace loom::tx

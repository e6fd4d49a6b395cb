// Division through a loop-invariant divisor's reciprocal (src/tx/invariant_div.h) against IEEE
// `/`, bit for bit, wherever the fast path says it is proven: exhaustively over every dividend of
// the binade [1, 2) for a set of divisors (inside the guarded range the steps scale exactly by
// powers of two and flip exactly with the dividend's sign, so one binade and one sign stand for
// all), on random pairs over every bit pattern, and on the special values; and the fast path
// refuses what it must (non-positive or out-of-range divisors, tiny, huge, infinite, NaN dividends).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "tx/invariant_div.h"

namespace loom::test {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Counts the dividends of `xs` whose fast quotient differs from x / c (and how many were fast).
struct Tally {
  int64_t fast = 0, wrong = 0;
  float first_x = 0, first_c = 0;
};
void check(float x, float c, Tally& t) {
  const tx::InvariantDivisor d = tx::invariant_divisor(c);
  bool ok = true;
  const float q = tx::invariant_div(x, d, ok);
  if (!ok) return;
  ++t.fast;
  const float want = x / c;
  if (bits(q) != bits(want) && !(std::isnan(q) && std::isnan(want))) {
    if (t.wrong++ == 0) t.first_x = x, t.first_c = c;
  }
}

TEST(TxInvariantDiv, EveryDividendOfABinadeForSeveralDivisors) {
  // f32(N) of the examples' shapes and of odd sizes, a mantissa of all ones, one just above 1, and
  // non-integers (the reciprocal rounds up or down).
  const float divisors[] = {3.0f, 1000.0f, 1024.0f, 1031.0f, 8191.0f, 0x1.fffffep0f, 0x1.000002p0f, 0.1f, 1.0f / 3.0f, 6.02e23f};
  Tally t;
  for (float c : divisors)
    for (uint32_t m = 0; m < (1u << 23); ++m) check(from_bits(0x3f800000u | m), c, t);
  EXPECT_EQ(t.fast, 9 * (int64_t{1} << 23));  // every dividend fast, but none for the divisor 6.02e23 > 2^60
  EXPECT_EQ(t.wrong, 0) << "first: " << t.first_x << " / " << t.first_c;
}

TEST(TxInvariantDiv, RandomPairsOverEveryBitPattern) {
  std::mt19937 rng(20261125);
  Tally t;
  for (int i = 0; i < 4000000; ++i) {
    float x = from_bits(rng()), c = from_bits(rng());
    if (i % 2) c = std::fabs(c);
    if (i % 4 == 1) c = std::ldexp(1.0f + static_cast<float>(rng() & 0x7fffff) * 0x1p-23f, static_cast<int>(rng() % 121) - 60);
    if (i % 4 == 3) x = std::ldexp(1.0f + static_cast<float>(rng() & 0x7fffff) * 0x1p-23f, static_cast<int>(rng() % 141) - 70) * (rng() & 1 ? 1 : -1);
    check(x, c, t);
  }
  EXPECT_GT(t.fast, 1000000);
  EXPECT_EQ(t.wrong, 0) << "first: " << t.first_x << " / " << t.first_c;
}

TEST(TxInvariantDiv, SpecialValuesAreExactOrRefused) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float xs[] = {0.0f, -0.0f, inf, -inf, nan, 0x1p-60f, -0x1p-60f, 0x1p60f, 0x1.fffffep-61f, 0x1p-149f, 0x1p-126f, 3.4e38f, 1.0f, -7.5f};
  const float cs[] = {1.0f, 3.0f, 8192.0f, 0x1p-60f, 0x1p60f, 0x1.fffffep-61f, 0x1p61f, -3.0f, 0.0f, -0.0f, inf, nan};
  Tally t;
  for (float c : cs)
    for (float x : xs) check(x, c, t);
  EXPECT_EQ(t.wrong, 0) << "first: " << t.first_x << " / " << t.first_c;
  auto fast = [](float x, float c) {
    bool ok = true;
    tx::invariant_div(x, tx::invariant_divisor(c), ok);
    return ok;
  };
  EXPECT_TRUE(fast(-0.0f, 3.0f));  // the zero keeps its sign
  EXPECT_TRUE(fast(0x1p60f, 0x1p-60f));
  for (float c : {-3.0f, 0.0f, -0.0f, inf, nan, 0x1p61f, 0x1p-61f}) EXPECT_FALSE(fast(1.0f, c)) << c;
  for (float x : {inf, -inf, nan, 0x1p61f, -0x1p61f, 0x1p-61f, 0x1p-149f}) EXPECT_FALSE(fast(x, 3.0f)) << x;
}

}  // namespace
}  // namespace loom::test

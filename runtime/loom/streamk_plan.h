// loom/streamk_plan.h: how a `streamk` kernel's persistent blocks share a call's work
// (src/codegen/streamk.cpp; the launcher and the cost estimate call it). No CUDA dependency: unit
// tests include it (tests/unit/streamk_test.cpp).
#pragma once

#include <cstdint>

namespace loom::host {

// How the persistent blocks share a call's work: the last `sk_tiles` tiles (in the kernel's tile
// order) are cut into equal shares of their K iterations, one per block (`workers` blocks); the
// rest run whole, one tile per block and turn. Data-parallel waves stay whole; what does not fill
// a wave, plus one wave, is shared (fewer, larger shares than sharing every tile: each cut costs a
// partial-sum hand-over). Below one wave every tile is shared, among at most one block per
// `min_share` iterations.
struct StreamKPlan {
  std::int64_t workers = 0;
  std::int64_t sk_tiles = 0;
};
inline StreamKPlan streamk_plan(std::int64_t tiles, std::int64_t iters, std::int64_t sms, std::int64_t min_share = 4) {
  StreamKPlan p;
  if (tiles <= 0 || sms <= 0) return p;
  if (iters <= 1 || tiles % sms == 0) {  // nothing to share
    p.workers = tiles < sms ? tiles : sms;
    return p;
  }
  if (tiles >= sms) {
    p.workers = sms;
    p.sk_tiles = tiles % sms + sms;
    return p;
  }
  std::int64_t w = tiles * iters / (min_share > 0 ? min_share : 1);
  if (w > sms) w = sms;
  if (w < tiles) w = tiles;
  p.workers = w;
  p.sk_tiles = w > tiles ? tiles : 0;
  return p;
}

}  // namespace loom::host

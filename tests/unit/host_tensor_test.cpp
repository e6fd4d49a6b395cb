// Host tensors (src/exec/host_tensor.h): rounding to bf16/f16/f32/i32, poisoned buffers, views and
// pieces (blocks with clipped edges, slices, mma distributions, clipped mma pieces of edge tiles),
// overlaps, and every built-in leaf op on small hand-checked inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "exec/host_tensor.h"

namespace loom::exec {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

View make(DType t, std::vector<int64_t> ext, std::vector<double> vals = {}, std::string name = "X") {
  View v(make_buffer(t, std::move(ext), std::move(name)));
  if (!vals.empty()) {
    EXPECT_EQ(vals.size(), v.buffer()->data.size());
    for (size_t i = 0; i < vals.size(); ++i) v.buffer()->data[i] = round_to(t, vals[i]);
  }
  return v;
}

// Every element of a view in row-major compact order.
std::vector<double> values(const View& v) {
  std::vector<double> out;
  std::vector<int64_t> c(static_cast<size_t>(v.rank()), 0);
  for (int64_t k = 0; k < v.size(); ++k) {
    out.push_back(v.load(c));
    for (int d = v.rank() - 1; d >= 0; --d) {
      if (++c[static_cast<size_t>(d)] < v.extents()[static_cast<size_t>(d)]) break;
      c[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

std::vector<int64_t> flats(const View& v) {
  std::vector<int64_t> out;
  std::vector<int64_t> c(static_cast<size_t>(v.rank()), 0);
  for (int64_t k = 0; k < v.size(); ++k) {
    out.push_back(v.flat(c));
    for (int d = v.rank() - 1; d >= 0; --d) {
      if (++c[static_cast<size_t>(d)] < v.extents()[static_cast<size_t>(d)]) break;
      c[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

void run(const char* op, std::vector<LeafArg> args) { run_leaf_op(*find_leaf_op(op), args); }
LeafArg T(const View& v) { return LeafArg{true, v, 0}; }
LeafArg S(double s) { return LeafArg{false, View(), s}; }

// The usual f32 -> bf16 rounding (round to nearest even on the float's bits), for exact floats.
float bf16_of_float(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  u &= 0xffff0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

// ---- rounding --------------------------------------------------------------------------------------

TEST(HostTensorRound, Bf16TiesToEven) {
  EXPECT_EQ(round_to(DType::BF16, 1.0), 1.0);
  EXPECT_EQ(round_to(DType::BF16, 1.0 + std::ldexp(1, -8)), 1.0);                           // tie, even down
  EXPECT_EQ(round_to(DType::BF16, 1.0 + 3 * std::ldexp(1, -8)), 1.0 + std::ldexp(1, -6));  // tie, even up
  EXPECT_EQ(round_to(DType::BF16, 1.0 + std::ldexp(1, -8) + std::ldexp(1, -40)), 1.0 + std::ldexp(1, -7));  // no double rounding
  EXPECT_EQ(round_to(DType::BF16, 257), 256);
  EXPECT_EQ(round_to(DType::BF16, 259), 260);
  EXPECT_EQ(round_to(DType::BF16, -259), -260);
  EXPECT_EQ(round_to(DType::BF16, 256), 256);
  const double bf16_max = std::ldexp(2 - std::ldexp(1, -7), 127);
  EXPECT_EQ(round_to(DType::BF16, bf16_max), bf16_max);
  EXPECT_EQ(round_to(DType::BF16, std::ldexp(2 - std::ldexp(1, -8), 127)), kInf);  // tie to even: 2^128
  EXPECT_EQ(round_to(DType::BF16, std::ldexp(1, -133)), std::ldexp(1, -133));      // smallest subnormal
  EXPECT_EQ(round_to(DType::BF16, 1e39), kInf);
  EXPECT_EQ(round_to(DType::BF16, -1e39), -kInf);
  EXPECT_TRUE(std::isnan(round_to(DType::BF16, kNaN)));
  EXPECT_EQ(round_to(DType::BF16, kInf), kInf);
  for (int v = -256; v <= 256; ++v) EXPECT_EQ(round_to(DType::BF16, v), v);
}

TEST(HostTensorRound, Bf16MatchesFloatBitTrick) {
  std::mt19937 rng(3);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f) || std::isinf(f)) continue;
    float want = bf16_of_float(f);
    if (std::isinf(want)) {
      EXPECT_TRUE(std::isinf(round_to(DType::BF16, f))) << f;
      continue;
    }
    ASSERT_EQ(round_to(DType::BF16, f), static_cast<double>(want)) << "bits " << std::hex << u;
  }
}

TEST(HostTensorRound, F16) {
  EXPECT_EQ(round_to(DType::F16, 2049), 2048);   // tie to even
  EXPECT_EQ(round_to(DType::F16, 2051), 2052);   // tie to even
  EXPECT_EQ(round_to(DType::F16, 2050), 2050);
  EXPECT_EQ(round_to(DType::F16, 65504), 65504);  // max finite
  EXPECT_EQ(round_to(DType::F16, 65519), 65504);
  EXPECT_EQ(round_to(DType::F16, 65520), kInf);  // rounds past the max
  EXPECT_EQ(round_to(DType::F16, std::ldexp(1, -24)), std::ldexp(1, -24));  // smallest subnormal
  EXPECT_EQ(round_to(DType::F16, std::ldexp(1, -25)), 0.0);                  // tie to even (0)
  EXPECT_EQ(round_to(DType::F16, std::ldexp(1.5, -25)), std::ldexp(1, -24));
  EXPECT_EQ(round_to(DType::F16, std::ldexp(3, -25)), std::ldexp(1, -23));   // subnormal tie, even up
  EXPECT_EQ(round_to(DType::F16, std::ldexp(1, -30)), 0.0);
  EXPECT_EQ(round_to(DType::F16, 0.1), 0.0999755859375);
  EXPECT_EQ(round_to(DType::F16, -0.1), -0.0999755859375);
}

TEST(HostTensorRound, F32AndI32) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int i = 0; i < 100000; ++i) {
    double v = dist(rng) * std::ldexp(1, static_cast<int>(rng() % 200) - 100);
    ASSERT_EQ(round_to(DType::F32, v), static_cast<double>(static_cast<float>(v))) << v;
  }
  EXPECT_EQ(round_to(DType::F32, 1e-46), 0.0);
  EXPECT_EQ(round_to(DType::F32, 1e39), kInf);
  EXPECT_EQ(round_to(DType::I32, 2.7), 2);
  EXPECT_EQ(round_to(DType::I32, -2.7), -2);
  EXPECT_EQ(round_to(DType::I32, 5), 5);
  EXPECT_TRUE(std::isnan(round_to(DType::I32, kNaN)));
}

// ---- buffers and views -------------------------------------------------------------------------------

TEST(HostTensorView, PoisonedBuffer) {
  auto b = make_buffer(DType::BF16, {3, 4}, "C");
  EXPECT_EQ(b->data.size(), 12u);
  for (double x : b->data) EXPECT_TRUE(std::isnan(x));
  View v(b);
  EXPECT_EQ(v.rank(), 2);
  EXPECT_EQ(v.size(), 12);
  EXPECT_EQ(v.dtype(), DType::BF16);
  v.store({1, 2}, 1.0 + std::ldexp(1, -8));  // store rounds
  EXPECT_EQ(v.load({1, 2}), 1.0);
  EXPECT_EQ(v.flat({1, 2}), 6);
  EXPECT_THROW(v.flat({3, 0}), std::out_of_range);
  EXPECT_THROW(make_buffer(DType::F32, {-1}, "bad"), std::runtime_error);
}

TEST(HostTensorView, BlocksWithClippedEdges) {
  View v = make(DType::F32, {5, 7});
  for (int64_t i = 0; i < 35; ++i) v.buffer()->data[static_cast<size_t>(i)] = static_cast<double>(i);
  // 5 x 7 in blocks of 2 x 3: 3 x 3 pieces; the last row and column of pieces are clipped.
  EXPECT_EQ(blocks_counts({5, 7}, {2, 3}), (std::vector<int64_t>{3, 3}));
  View p = blocks_of(v, {2, 3}, {1, 1});
  EXPECT_EQ(p.extents(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(p), (std::vector<double>{17, 18, 19, 24, 25, 26}));
  View edge = blocks_of(v, {2, 3}, {2, 2});
  EXPECT_EQ(edge.extents(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(values(edge), (std::vector<double>{34}));
  // `*` (0) keeps the whole dimension.
  View panel = blocks_of(v, {2, 0}, {2, 0});
  EXPECT_EQ(panel.extents(), (std::vector<int64_t>{1, 7}));
  EXPECT_EQ(values(panel), (std::vector<double>{28, 29, 30, 31, 32, 33, 34}));
  // An index past the last block is an empty piece (a static grid larger than a clipped edge tile).
  View none = blocks_of(v, {2, 3}, {3, 0});
  EXPECT_EQ(none.size(), 0);
  // Pieces of pieces: compact, origin-based coordinates.
  View pp = blocks_of(p, {1, 2}, {1, 1});
  EXPECT_EQ(pp.extents(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(values(pp), (std::vector<double>{26}));
  pp.store({0, 0}, -1);
  EXPECT_EQ(v.load({3, 5}), -1);
  // Every element is in exactly one piece.
  std::multiset<int64_t> seen;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t f : flats(blocks_of(v, {2, 3}, {i, j}))) seen.insert(f);
  EXPECT_EQ(seen.size(), 35u);
  for (int64_t f = 0; f < 35; ++f) EXPECT_EQ(seen.count(f), 1u);
}

TEST(HostTensorView, Slices) {
  View v = make(DType::F32, {2, 3, 4});
  for (int64_t i = 0; i < 24; ++i) v.buffer()->data[static_cast<size_t>(i)] = static_cast<double>(i);
  View s = slice_of(v, 0, 1);
  EXPECT_EQ(s.extents(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(s.load({2, 3}), 23);
  View s1 = slice_of(v, 1, 2);
  EXPECT_EQ(s1.extents(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(s1.load({1, 0}), 20);
  View row = slice_of(s, 0, 1);  // rank 1
  EXPECT_EQ(values(row), (std::vector<double>{16, 17, 18, 19}));
  View b = blocks_of(s, {2, 3}, {1, 1});  // blocks of a slice
  EXPECT_EQ(values(b), (std::vector<double>{23}));
  EXPECT_THROW(slice_of(v, 0, 2), std::out_of_range);
  EXPECT_THROW(slice_of(row, 0, 0), std::invalid_argument);
}

TEST(HostTensorView, Overlaps) {
  View v = make(DType::F32, {8, 8});
  View w = make(DType::F32, {8, 8});
  View a = blocks_of(v, {4, 4}, {0, 0}), b = blocks_of(v, {4, 4}, {0, 1});
  EXPECT_FALSE(a.overlaps(b));
  EXPECT_TRUE(a.overlaps(v));
  EXPECT_TRUE(a.overlaps(a));
  EXPECT_FALSE(v.overlaps(w));
  EXPECT_TRUE(blocks_of(v, {0, 4}, {0, 1}).overlaps(blocks_of(v, {4, 0}, {1, 0})));
  // Row pieces of one quad share entries; lanes of different quads do not.
  View r = make(DType::F32, {16});
  EXPECT_TRUE(mma_of(r, MmaRole::Acc, ProcKind::Warp, 4).overlaps(mma_of(r, MmaRole::Acc, ProcKind::Warp, 7)));
  EXPECT_FALSE(mma_of(r, MmaRole::Acc, ProcKind::Warp, 3).overlaps(mma_of(r, MmaRole::Acc, ProcKind::Warp, 4)));
  // Accumulator pieces are disjoint.
  View c = make(DType::F32, {16, 8});
  EXPECT_FALSE(mma_of(c, MmaRole::Acc, ProcKind::Warp, 0).overlaps(mma_of(c, MmaRole::Acc, ProcKind::Warp, 1)));
}

// Lane l of a warp holds rows l/4, l/4+8 and columns 2(l%4), 2(l%4)+1 of every 8; warp w of a
// warpgroup rows 16w..16w+15 of every 64.
TEST(HostTensorView, MmaPieces) {
  View c = make(DType::F32, {128, 16});
  for (int64_t i = 0; i < 128 * 16; ++i) c.buffer()->data[static_cast<size_t>(i)] = static_cast<double>(i);
  View w1 = mma_of(c, MmaRole::Acc, ProcKind::Warpgroup, 1);
  EXPECT_EQ(w1.extents(), (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(w1.load({0, 0}), 16 * 16);
  EXPECT_EQ(w1.load({16, 3}), 80 * 16 + 3);
  View l5 = mma_of(w1, MmaRole::Acc, ProcKind::Warp, 5);  // rows 1, 9 of each 16; cols 2, 3, 10, 11
  EXPECT_EQ(l5.extents(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(l5.load({0, 0}), (16 + 1) * 16 + 2);
  EXPECT_EQ(l5.load({1, 3}), (16 + 9) * 16 + 11);
  EXPECT_EQ(l5.load({2, 1}), (80 + 1) * 16 + 3);
  View a = make(DType::BF16, {64, 32});
  EXPECT_EQ(mma_of(a, MmaRole::Lhs, ProcKind::Warpgroup, 0).extents(), (std::vector<int64_t>{16, 32}));
  EXPECT_EQ(mma_of(mma_of(a, MmaRole::Lhs, ProcKind::Warpgroup, 0), MmaRole::Lhs, ProcKind::Warp, 0).extents(),
            (std::vector<int64_t>{2, 32}));
  View b = make(DType::BF16, {32, 16});
  EXPECT_EQ(mma_of(b, MmaRole::Rhs, ProcKind::Warpgroup, 3).extents(), (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(mma_of(b, MmaRole::Rhs, ProcKind::Warp, 3).extents(), (std::vector<int64_t>{32, 4}));
  // A row vector goes with the accumulator rows.
  View r = make(DType::F32, {128});
  for (int64_t i = 0; i < 128; ++i) r.buffer()->data[static_cast<size_t>(i)] = static_cast<double>(i);
  View r1 = mma_of(mma_of(r, MmaRole::Acc, ProcKind::Warpgroup, 1), MmaRole::Acc, ProcKind::Warp, 5);
  EXPECT_EQ(values(r1), (std::vector<double>{17, 25, 81, 89}));
  EXPECT_THROW(mma_of(c, MmaRole::Acc, ProcKind::Warp, 32), std::out_of_range);
  EXPECT_THROW(mma_of(c, MmaRole::Acc, ProcKind::Block, 0), std::invalid_argument);
}

// A clipped edge tile is partitioned as if padded to the distribution's granularity; every piece
// holds the existing elements of its padded piece, so the pieces still cover the tile exactly once.
TEST(HostTensorView, MmaPiecesOfClippedTiles) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {100, 20}, {64, 16}, {17, 9}, {0, 8}, {130, 3}}) {
    View c = make(DType::F32, {rows, cols});
    View r = make(DType::F32, {rows});
    std::multiset<int64_t> seen, seen_rows;
    for (int64_t w = 0; w < 4; ++w) {
      View cw = mma_of(c, MmaRole::Acc, ProcKind::Warpgroup, w);
      View rw = mma_of(r, MmaRole::Acc, ProcKind::Warpgroup, w);
      EXPECT_EQ(cw.extents()[0], rw.extents()[0]);
      for (int64_t l = 0; l < 32; ++l) {
        View cl = mma_of(cw, MmaRole::Acc, ProcKind::Warp, l);
        View rl = mma_of(rw, MmaRole::Acc, ProcKind::Warp, l);
        ASSERT_EQ(cl.extents()[0], rl.extents()[0]);
        // Row i of the lane's piece of C is entry i of its row piece.
        for (int64_t i = 0; i < cl.extents()[0]; ++i)
          for (int64_t j = 0; j < cl.extents()[1]; ++j) EXPECT_EQ(cl.flat({i, j}) / std::max<int64_t>(cols, 1), rl.flat({i}));
        for (int64_t f : flats(cl)) seen.insert(f);
        if (l % 4 == 0)
          for (int64_t f : flats(rl)) seen_rows.insert(f);
      }
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(rows * cols)) << rows << "x" << cols;
    for (int64_t f = 0; f < rows * cols; ++f) EXPECT_EQ(seen.count(f), 1u) << rows << "x" << cols << " element " << f;
    EXPECT_EQ(seen_rows.size(), static_cast<size_t>(rows));
  }
  // A 1-row edge tile: warp 0 holds the row, warps 1..3 nothing.
  View c = make(DType::F32, {1, 5});
  EXPECT_EQ(mma_of(c, MmaRole::Acc, ProcKind::Warpgroup, 0).extents(), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(mma_of(c, MmaRole::Acc, ProcKind::Warpgroup, 2).size(), 0);
  View c0 = mma_of(c, MmaRole::Acc, ProcKind::Warpgroup, 0);
  EXPECT_EQ(mma_of(c0, MmaRole::Acc, ProcKind::Warp, 2).extents(), (std::vector<int64_t>{1, 1}));  // column 4
  EXPECT_EQ(mma_of(c0, MmaRole::Acc, ProcKind::Warp, 1).extents(), (std::vector<int64_t>{1, 2}));  // columns 2, 3
  EXPECT_EQ(mma_of(c0, MmaRole::Acc, ProcKind::Warp, 4).extents(), (std::vector<int64_t>{0, 2}));  // row 1: absent
}

// Every lane's leaf mma on its pieces of a 64 x 16 tile computes the full product, and every element
// of C lies in exactly one lane's piece. `transposed`: the distributions of the transposed product
// (layout/partition.h: C^T's accumulator, A as the instruction's B operand, B as its A).
void check_distributed_mma(int64_t m, int64_t n, int64_t k, bool transposed = false) {
  std::mt19937_64 rng(11);
  auto rnd = [&] { return static_cast<double>(static_cast<int64_t>(rng() % 5) - 2); };
  View C = make(DType::F32, {m, n}), A = make(DType::BF16, {m, k}), B = make(DType::BF16, {k, n});
  for (double& x : A.buffer()->data) x = rnd();
  for (double& x : B.buffer()->data) x = rnd();
  for (double& x : C.buffer()->data) x = rnd();
  std::vector<double> want = C.buffer()->data;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t q = 0; q < k; ++q) want[static_cast<size_t>(i * n + j)] += A.load({i, q}) * B.load({q, j});
  const bool t = transposed;
  int64_t covered = 0;
  for (int64_t w = 0; w < 4; ++w) {
    View cw = mma_of(C, MmaRole::Acc, ProcKind::Warpgroup, w, t), aw = mma_of(A, MmaRole::Lhs, ProcKind::Warpgroup, w, t),
         bw = mma_of(B, MmaRole::Rhs, ProcKind::Warpgroup, w, t);
    for (int64_t l = 0; l < 32; ++l) {
      View cl = mma_of(cw, MmaRole::Acc, ProcKind::Warp, l, t);
      covered += cl.size();
      run("mma", {T(cl), T(mma_of(aw, MmaRole::Lhs, ProcKind::Warp, l, t)), T(mma_of(bw, MmaRole::Rhs, ProcKind::Warp, l, t))});
    }
  }
  EXPECT_EQ(covered, m * n) << m << "x" << n << "x" << k;
  EXPECT_EQ(C.buffer()->data, want) << m << "x" << n << "x" << k;
}

TEST(HostTensorLeaf, TransposedMmaPiecesReproduceTheProduct) {
  check_distributed_mma(16, 64, 16, true);
  check_distributed_mma(80, 64, 32, true);
  check_distributed_mma(48, 128, 16, true);
  check_distributed_mma(1, 1, 1, true);  // clipped edge tiles
  check_distributed_mma(37, 50, 20, true);
  check_distributed_mma(9, 65, 3, true);
  // A warp's lane 5 of the transposed accumulator: C's columns 1 and 9 of every 16, rows 2 and 3 of every 8.
  View C = make(DType::F32, {16, 64});
  View l5 = mma_of(mma_of(C, MmaRole::Acc, ProcKind::Warpgroup, 0, true), MmaRole::Acc, ProcKind::Warp, 5, true);
  EXPECT_EQ(l5.extents(), (std::vector<int64_t>{4, 2}));
  EXPECT_THROW(mma_of(make(DType::F32, {64}), MmaRole::Acc, ProcKind::Warpgroup, 0, true), std::invalid_argument);  // a row vector
}

// A column vector of the transposed product (mma(b, rhs, ..., transposed)): each lane's piece holds
// the entries of its transposed accumulator piece's columns, so a column broadcast add(C, C, b) on the
// lanes' pieces adds b[j] to every C[i][j] once.
TEST(HostTensorLeaf, TransposedColumnVectorFollowsTheAccumulatorColumns) {
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{16, 64}, {48, 128}, {37, 50}, {8, 1}}) {
    View C = make(DType::F32, {m, n}), b = make(DType::BF16, {n});
    for (double& x : C.buffer()->data) x = 0;
    for (int64_t j = 0; j < n; ++j) b.store({j}, static_cast<double>(j + 1));
    for (int64_t w = 0; w < 4; ++w) {
      View cw = mma_of(C, MmaRole::Acc, ProcKind::Warpgroup, w, true), bw = mma_of(b, MmaRole::Rhs, ProcKind::Warpgroup, w, true);
      for (int64_t l = 0; l < 32; ++l) {
        View cl = mma_of(cw, MmaRole::Acc, ProcKind::Warp, l, true), bl = mma_of(bw, MmaRole::Rhs, ProcKind::Warp, l, true);
        ASSERT_EQ(cl.extents().at(1), bl.extents().at(0)) << m << "x" << n << " lane " << l;
        run_leaf_op(*find_leaf_op("add"), {T(cl), T(cl), T(bl)}, 1);
      }
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) ASSERT_EQ(C.load({i, j}), static_cast<double>(j + 1)) << m << "x" << n << " at " << i << ", " << j;
  }
  EXPECT_THROW(mma_of(make(DType::F32, {64}), MmaRole::Lhs, ProcKind::Warpgroup, 0, true), std::invalid_argument);
}

TEST(HostTensorLeaf, MmaPiecesReproduceTheProduct) {
  check_distributed_mma(64, 16, 16);
  check_distributed_mma(64, 16, 48);
  check_distributed_mma(128, 32, 16);
  check_distributed_mma(1, 1, 1);     // clipped edge tiles
  check_distributed_mma(50, 13, 20);
  check_distributed_mma(65, 9, 3);
}

// ---- leaf ops ----------------------------------------------------------------------------------------

TEST(HostTensorLeaf, Mma) {
  View C = make(DType::F32, {2, 2}, {1, 1, 1, 1});
  View A = make(DType::BF16, {2, 3}, {1, 2, 3, 4, 5, 6});
  View B = make(DType::BF16, {3, 2}, {1, 0, 0, 1, 1, 1});
  run("mma", {T(C), T(A), T(B)});
  EXPECT_EQ(values(C), (std::vector<double>{5, 6, 11, 12}));
  // The sum is taken in double and rounded once when stored.
  View Ch = make(DType::BF16, {1, 1}, {0});
  View Ar = make(DType::BF16, {1, 3}, {256, 1, 1});
  View Br = make(DType::BF16, {3, 1}, {1, 1, 1});
  run("mma", {T(Ch), T(Ar), T(Br)});
  EXPECT_EQ(values(Ch), (std::vector<double>{258}));
  // A poisoned accumulator stays poisoned.
  View Cn = make(DType::F32, {2, 2});
  run("mma", {T(Cn), T(A), T(B)});
  for (double x : values(Cn)) EXPECT_TRUE(std::isnan(x));
}

TEST(HostTensorLeaf, MmaShapeMismatchNamesOpAndShapes) {
  View C = make(DType::F32, {64, 16}, {}, "Acc"), A = make(DType::BF16, {32, 8}, {}, "A"), B = make(DType::BF16, {8, 16}, {}, "B");
  try {
    run("mma", {T(C), T(A), T(B)});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'mma'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Acc [64, 16] f32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("A [32, 8] bf16"), std::string::npos) << msg;
  }
}

TEST(HostTensorLeaf, FillClearCopyConvert) {
  View X = make(DType::F32, {2, 3});
  run("fill", {T(X), S(-1e30)});
  for (double x : values(X)) EXPECT_EQ(x, static_cast<double>(-1e30f));
  run("clear", {T(X)});
  for (double x : values(X)) EXPECT_EQ(x, 0);
  View Y = make(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6.5});
  run("copy", {T(X), T(Y)});
  EXPECT_EQ(values(X), values(Y));
  View H = make(DType::BF16, {2, 3});
  EXPECT_THROW(run("copy", {T(H), T(Y)}), std::runtime_error);  // different element types
  View Z = make(DType::F32, {3, 2});
  EXPECT_THROW(run("copy", {T(Z), T(Y)}), std::runtime_error);  // different shapes
  View F = make(DType::F32, {2, 3}, {257, 259, 1.00390625, -3, 0.5, 1e39});
  run("convert", {T(H), T(F)});
  EXPECT_EQ(values(H), (std::vector<double>{256, 260, 1, -3, 0.5, kInf}));
  View I = make(DType::I32, {2, 3});
  View G = make(DType::F32, {2, 3}, {2.5, -2.5, 7, 0, 1.9, -0.1});
  run("convert", {T(I), T(G)});
  EXPECT_EQ(values(I), (std::vector<double>{2, -2, 7, 0, 1, 0}));
  run("fill", {T(H), S(1.00390625)});
  for (double x : values(H)) EXPECT_EQ(x, 1);
  // copy_view directly, through pieces.
  View big = make(DType::F32, {4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  View dst = make(DType::F32, {2, 2});
  copy_view(blocks_of(big, {2, 2}, {1, 1}), dst);
  EXPECT_EQ(values(dst), (std::vector<double>{10, 11, 14, 15}));
  EXPECT_THROW(copy_view(big, dst), std::runtime_error);
}

TEST(HostTensorLeaf, Unary) {
  View S1 = make(DType::F32, {1, 4}, {-2, -0.5, 0, 3});
  View D = make(DType::F32, {1, 4});
  auto f32 = [](double x) { return round_to(DType::F32, x); };
  run("exp", {T(D), T(S1)});
  EXPECT_EQ(values(D), (std::vector<double>{f32(std::exp(-2.0)), f32(std::exp(-0.5)), 1, f32(std::exp(3.0))}));
  run("exp2", {T(D), T(S1)});
  EXPECT_EQ(values(D), (std::vector<double>{0.25, f32(std::exp2(-0.5)), 1, 8}));
  run("relu", {T(D), T(S1)});
  EXPECT_EQ(values(D), (std::vector<double>{0, 0, 0, 3}));
  run("sigmoid", {T(D), T(S1)});
  EXPECT_EQ(values(D)[2], 0.5);
  EXPECT_EQ(values(D)[3], f32(1 / (1 + std::exp(-3.0))));
  run("tanh", {T(D), T(S1)});
  EXPECT_EQ(values(D), (std::vector<double>{f32(std::tanh(-2.0)), f32(std::tanh(-0.5)), 0, f32(std::tanh(3.0))}));
  // gelu and gelu_fast are the same function (the tanh form); only their GPU lowerings differ.
  run("gelu", {T(D), T(S1)});
  const std::vector<double> gelu = values(D);
  EXPECT_EQ(gelu[2], 0);
  EXPECT_EQ(gelu[3], f32(1.5 * (1 + std::tanh(0.7978845608028654 * (3 + 0.044715 * 27)))));
  run("gelu_fast", {T(D), T(S1)});
  EXPECT_EQ(values(D), gelu);
  run("silu", {T(D), T(S1)});
  EXPECT_EQ(values(D)[0], f32(-2 / (1 + std::exp(2.0))));
  EXPECT_EQ(values(D)[2], 0);
  EXPECT_EQ(values(D)[3], f32(3 / (1 + std::exp(-3.0))));
  // In place, and into a narrower type (converted when written).
  View B = make(DType::BF16, {1, 4});
  run("scale", {T(B), T(S1), S(3)});
  EXPECT_EQ(values(B), (std::vector<double>{-6, -1.5, 0, 9}));
  run("scale", {T(S1), T(S1), S(-2)});
  EXPECT_EQ(values(S1), (std::vector<double>{4, 1, 0, -6}));
  run("exp", {T(S1), T(S1)});
  EXPECT_EQ(values(S1)[2], 1);
  EXPECT_THROW(run("exp", {T(make(DType::F32, {4, 1})), T(S1)}), std::runtime_error);
}

// axpy(D, X, a, Y): D = a X + Y, rounded once into D's type; X, Y and D of one shape.
TEST(HostTensorLeaf, Axpy) {
  View X = make(DType::F32, {1, 4}, {-2, -0.5, 0, 3});
  View Y = make(DType::F32, {1, 4}, {1, 1, -1, 0.25});
  View D = make(DType::BF16, {1, 4});
  run("axpy", {T(D), T(X), S(3), T(Y)});
  EXPECT_EQ(values(D), (std::vector<double>{-5, -0.5, -1, 9.25}));
  run("axpy", {T(Y), T(X), S(-1), T(Y)});  // in place on Y
  EXPECT_EQ(values(Y), (std::vector<double>{3, 1.5, -1, -2.75}));
  EXPECT_THROW(run("axpy", {T(D), T(X), S(1), T(make(DType::F32, {4, 1}))}), std::runtime_error);
}

TEST(HostTensorLeaf, RowReductions) {
  View S1 = make(DType::F32, {2, 3}, {1, 5, -2, -7, -3, -9});
  View m = make(DType::F32, {2}, {0, -1e30});
  run("rowmax", {T(m), T(S1)});
  EXPECT_EQ(values(m), (std::vector<double>{5, -3}));
  View l = make(DType::F32, {2}, {10, 0});
  run("rowsum", {T(l), T(S1)});
  EXPECT_EQ(values(l), (std::vector<double>{14, -19}));
  // D keeps its old value when larger; NaN (poison) propagates.
  View m2 = make(DType::F32, {2}, {100, kNaN});
  run("rowmax", {T(m2), T(S1)});
  EXPECT_EQ(values(m2)[0], 100);
  EXPECT_TRUE(std::isnan(values(m2)[1]));
  EXPECT_THROW(run("rowsum", {T(make(DType::F32, {3})), T(S1)}), std::runtime_error);
  EXPECT_THROW(run("rowsum", {T(make(DType::F32, {2, 1})), T(S1)}), std::runtime_error);
  // Reducing a lane's columns into a shared row entry, lane after lane, gives the whole-row result.
  View acc = make(DType::F32, {16, 8});
  for (int64_t i = 0; i < 128; ++i) acc.buffer()->data[static_cast<size_t>(i)] = static_cast<double>(i % 8 + i / 8);
  View sums = make(DType::F32, {16}), maxs = make(DType::F32, {16});
  run("clear", {T(sums)});
  run("fill", {T(maxs), S(-1e30)});
  for (int64_t lane = 0; lane < 32; ++lane) {
    View a = mma_of(acc, MmaRole::Acc, ProcKind::Warp, lane);
    run("rowsum", {T(mma_of(sums, MmaRole::Acc, ProcKind::Warp, lane)), T(a)});
    run("rowmax", {T(mma_of(maxs, MmaRole::Acc, ProcKind::Warp, lane)), T(a)});
  }
  for (int64_t i = 0; i < 16; ++i) {
    EXPECT_EQ(sums.load({i}), 28 + 8 * i);
    EXPECT_EQ(maxs.load({i}), 7 + i);
  }
}

// mask_above(D, d): -inf where column - row > d, in the coordinates of the tensor D was cut from
// (here a 4 x 4 tile whose lower-right 2 x 2 block is the piece), also through a register
// conduit's buffer that holds that piece.
TEST(HostTensorLeaf, MaskAboveUsesTheRootsCoordinates) {
  const double inf = std::numeric_limits<double>::infinity();
  View St = make(DType::F32, {4, 4}, std::vector<double>(16, 1.0));
  View corner = blocks_of(St, {2, 2}, {1, 1});  // rows 2..3, columns 2..3
  run("mask_above", {T(corner), S(0)});
  EXPECT_EQ(values(St), (std::vector<double>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -inf, 1, 1, 1, 1}));
  View whole = make(DType::F32, {4, 4}, std::vector<double>(16, 1.0));
  run("mask_above", {T(whole), S(-1)});  // the diagonal too
  EXPECT_EQ(values(whole), (std::vector<double>{-inf, -inf, -inf, -inf, 1, -inf, -inf, -inf, 1, 1, -inf, -inf, 1, 1, 1, -inf}));
  // A conduit: a buffer of the piece's shape that holds the piece rows 2..3, columns 0..1 of T.
  View Tt = make(DType::F32, {4, 4});
  View piece = blocks_of(Tt, {2, 2}, {1, 0});
  View R = make(DType::F32, {2, 2}, {5, 5, 5, 5});
  R.buffer()->holds = std::make_shared<const View>(piece);
  run("mask_above", {T(R), S(-2)});  // masked where column - row > -2: (2, 1) only
  EXPECT_EQ(values(R), (std::vector<double>{5, -inf, 5, 5}));
  EXPECT_THROW(run("mask_above", {T(make(DType::F32, {4})), S(0)}), std::runtime_error);
}

TEST(HostTensorLeaf, BinaryAndRowBroadcast) {
  View A = make(DType::F32, {2, 2}, {1, 2, 3, 4});
  View B = make(DType::F32, {2, 2}, {10, 20, 30, 40});
  View r = make(DType::F32, {2}, {1, -1});
  View D = make(DType::F32, {2, 2});
  run("add", {T(D), T(A), T(B)});
  EXPECT_EQ(values(D), (std::vector<double>{11, 22, 33, 44}));
  run("sub", {T(D), T(A), T(B)});
  EXPECT_EQ(values(D), (std::vector<double>{-9, -18, -27, -36}));
  run("mul", {T(D), T(A), T(B)});
  EXPECT_EQ(values(D), (std::vector<double>{10, 40, 90, 160}));
  run("max", {T(D), T(A), T(make(DType::F32, {2, 2}, {0, 5, 0, 5}))});
  EXPECT_EQ(values(D), (std::vector<double>{1, 5, 3, 5}));
  // B of rank 1: one value per row.
  run("sub", {T(D), T(A), T(r)});
  EXPECT_EQ(values(D), (std::vector<double>{0, 1, 4, 5}));
  run("mul", {T(A), T(A), T(r)});  // in place
  EXPECT_EQ(values(A), (std::vector<double>{1, 2, -3, -4}));
  run("add", {T(D), T(A), T(r)});
  EXPECT_EQ(values(D), (std::vector<double>{2, 3, -4, -5}));
  run("max", {T(D), T(A), T(r)});
  EXPECT_EQ(values(D), (std::vector<double>{1, 2, -1, -1}));
  if (find_leaf_op("div")) {
    run("div", {T(D), T(make(DType::F32, {2, 2}, {1, 2, 3, 4})), T(make(DType::F32, {2}, {2, -4}))});
    EXPECT_EQ(values(D), (std::vector<double>{0.5, 1, -0.75, -1}));
  }
  // rank-1 elementwise (row vectors: a = mo - m; l = l * a).
  View a = make(DType::F32, {2});
  run("sub", {T(a), T(make(DType::F32, {2}, {3, 4})), T(r)});
  EXPECT_EQ(values(a), (std::vector<double>{2, 5}));
  // Written in D's type.
  View Dh = make(DType::BF16, {2, 2});
  run("mul", {T(Dh), T(make(DType::F32, {2, 2}, {257, 1, 1, 1})), T(make(DType::F32, {2, 2}, {1, 1, 1, 1}))});
  EXPECT_EQ(values(Dh)[0], 256);
  EXPECT_THROW(run("add", {T(D), T(A), T(make(DType::F32, {3}))}), std::runtime_error);
  EXPECT_THROW(run("add", {T(D), T(make(DType::F32, {2, 3})), T(B)}), std::runtime_error);
  try {
    run("sub", {T(D), T(A), T(make(DType::F32, {3}, {}, "m"))});
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'sub'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("m [3] f32"), std::string::npos) << e.what();
  }
}

TEST(HostTensorLeaf, EveryBuiltinOpRuns) {
  // Each op of the table has a CPU implementation (none falls through to "no CPU implementation").
  for (const LeafOp& op : leaf_ops()) {
    std::vector<LeafArg> args;
    for (size_t i = 0; i < op.args.size(); ++i) {
      if (op.args[i].kind == OpArgKind::Scalar) {
        args.push_back(S(2));
      } else if (op.family == OpFamily::RowReduce && i == 0) {
        args.push_back(T(make(DType::F32, {2}, {0, 0})));
      } else {
        args.push_back(T(make(DType::F32, {2, 2}, {1, 2, 3, 4})));
      }
    }
    EXPECT_NO_THROW(run_leaf_op(op, args)) << op.name;
  }
}

}  // namespace
}  // namespace loom::exec

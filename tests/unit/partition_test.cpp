// Partition operators as index maps (src/layout/partition.h): `blocks` counts and clipped edge
// pieces, and the `mma` distributions checked against the Cypress document's Fig. 4 and the PTX ISA
// fragment layout of wgmma m64nNk16 (accumulator D, f32): warp w of the warpgroup owns rows
// 16w..16w+15; lane l owns rows l/4 and l/4+8 and columns 2*(l%4), 2*(l%4)+1 of every 8-column group.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "layout/partition.h"

namespace loom {
namespace {

const MmaInstr& wgmma() { return *hopper_machine().find_mma("wgmma"); }
const MmaInstr& mma_sync() { return *ampere_machine().find_mma("mma_sync"); }

// Every parent coordinate (as a vector) of a piece, in compact order.
std::vector<std::vector<int64_t>> elements(const std::vector<DimMap>& piece) {
  std::vector<std::vector<int64_t>> out = {{}};
  for (const DimMap& d : piece) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : out)
      for (int64_t c = 0; c < d.extent(); ++c) {
        auto e = prefix;
        e.push_back(d.parent(c));
        next.push_back(e);
      }
    out = next;
  }
  return out;
}

std::set<int64_t> coords(const DimMap& d) {
  std::set<int64_t> out;
  for (int64_t c = 0; c < d.extent(); ++c) out.insert(d.parent(c));
  return out;
}

std::vector<int64_t> extents(const std::vector<DimMap>& piece) {
  std::vector<int64_t> out;
  for (const DimMap& d : piece) out.push_back(d.extent());
  return out;
}

// ---- blocks ----

TEST(Partition, BlocksCountsAreCeilDiv) {
  EXPECT_EQ(blocks_counts({128, 256}, {64, 128}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(blocks_counts({129, 256}, {64, 0}), (std::vector<int64_t>{3, 1}));  // 0 = `*`: the whole extent
  EXPECT_EQ(blocks_counts({1, 63, 65}, {64, 64, 64}), (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(blocks_counts({0}, {64}), (std::vector<int64_t>{0}));
  EXPECT_EQ(blocks_counts({0}, {0}), (std::vector<int64_t>{0}));
}

TEST(Partition, BlocksEdgePiecesAreClipped) {
  std::vector<DimMap> last = blocks_piece({129}, {64}, {2});
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].offset, 128);
  EXPECT_EQ(last[0].extent(), 1);
  EXPECT_EQ(last[0].parent(0), 128);
  std::vector<DimMap> first = blocks_piece({129}, {64}, {0});
  EXPECT_EQ(first[0].extent(), 64);
  EXPECT_EQ(first[0].parent(63), 63);
  std::vector<DimMap> mid = blocks_piece({129}, {64}, {1});
  EXPECT_EQ(mid[0].offset, 64);
  EXPECT_EQ(mid[0].parent(0), 64);  // origin-based: compact 0 is the piece's first element
  EXPECT_EQ(mid[0].extent(), 64);
  // Two dimensions, one of them `*`.
  std::vector<DimMap> p = blocks_piece({100, 37}, {0, 16}, {0, 2});
  EXPECT_EQ(extents(p), (std::vector<int64_t>{100, 5}));
  EXPECT_EQ(p[1].parent(0), 32);
  EXPECT_EQ(p[1].parent(4), 36);
}

TEST(Partition, BlocksPiecesTileTheParentExactlyOnce) {
  for (int64_t rows : {1, 7, 64, 129, 200})
    for (int64_t cols : {1, 16, 33})
      for (int64_t br : {0, 1, 16, 64})
        for (int64_t bc : {0, 8, 50}) {
          SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " / " + std::to_string(br) + "x" +
                       std::to_string(bc));
          std::vector<int64_t> n = blocks_counts({rows, cols}, {br, bc});
          std::map<std::pair<int64_t, int64_t>, int> owners;
          for (int64_t i = 0; i < n[0]; ++i)
            for (int64_t j = 0; j < n[1]; ++j) {
              std::vector<DimMap> piece = blocks_piece({rows, cols}, {br, bc}, {i, j});
              EXPECT_GT(piece[0].extent() * piece[1].extent(), 0);
              for (const auto& e : elements(piece)) ++owners[{e[0], e[1]}];
            }
          EXPECT_EQ(static_cast<int64_t>(owners.size()), rows * cols);
          for (const auto& [e, count] : owners) {
            EXPECT_EQ(count, 1);
            EXPECT_TRUE(e.first >= 0 && e.first < rows && e.second >= 0 && e.second < cols);
          }
        }
}

TEST(Partition, SlicesFixOneDimension) {
  std::vector<DimMap> s = slices_piece({4, 8}, 0, 2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(s[0].modes.empty());
  EXPECT_EQ(s[0].offset, 2);
  EXPECT_EQ(s[1].extent(), 8);
  EXPECT_EQ(s[1].parent(5), 5);
}

// ---- mma: the Fig. 4 / PTX accumulator layout ----

// Owner of accumulator element (r, c) of a 64 x N wgmma tile per the PTX ISA: warp r/16, lane
// 4 * (r % 8) + (c % 8) / 2.
std::pair<int64_t, int64_t> ptx_owner(int64_t r, int64_t c) { return {r / 16, 4 * (r % 8) + (c % 8) / 2}; }

// Parent coordinates of everything lane `lane` of warp `warp` holds of the `role` operand of a tile
// held by a warpgroup, following the two-level partition: warpgroup -> warp -> thread.
std::vector<std::vector<int64_t>> thread_elements(MmaRole role, const std::vector<int64_t>& tile, int64_t warp,
                                                  int64_t lane) {
  std::vector<DimMap> w = mma_piece(wgmma(), role, ProcKind::Warpgroup, tile, warp);
  std::vector<DimMap> t = mma_piece(wgmma(), role, ProcKind::Warp, extents(w), lane);
  std::vector<std::vector<int64_t>> out;
  for (const auto& e : elements(t)) out.push_back({w[0].parent(e[0]), w[1].parent(e[1])});
  return out;
}

TEST(Partition, WgmmaAccumulatorWarpOwnsSixteenRows) {
  for (int64_t n : {8, 24, 256}) {
    for (int64_t w = 0; w < 4; ++w) {
      std::vector<DimMap> piece = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {64, n}, w);
      std::set<int64_t> rows = coords(piece[0]);
      EXPECT_EQ(rows.size(), 16u);
      EXPECT_EQ(*rows.begin(), 16 * w);
      EXPECT_EQ(*rows.rbegin(), 16 * w + 15);
      EXPECT_EQ(coords(piece[1]).size(), static_cast<size_t>(n));
    }
  }
  // A 128-row tile: every 64-row group is split the same way.
  std::vector<DimMap> piece = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {128, 64}, 1);
  std::set<int64_t> rows = coords(piece[0]);
  std::set<int64_t> expected;
  for (int64_t r = 16; r < 32; ++r) expected.insert({r, r + 64});
  EXPECT_EQ(rows, expected);
}

TEST(Partition, WgmmaAccumulatorLaneLayoutMatchesFig4) {
  // N = 24: the Fig. 4 pattern is repeated for columns 8-15 and 16-23.
  for (int64_t lane = 0; lane < 32; ++lane) {
    std::vector<DimMap> t = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warp, {16, 24}, lane);
    EXPECT_EQ(coords(t[0]), (std::set<int64_t>{lane / 4, lane / 4 + 8})) << lane;
    int64_t c0 = 2 * (lane % 4);
    EXPECT_EQ(coords(t[1]), (std::set<int64_t>{c0, c0 + 1, c0 + 8, c0 + 9, c0 + 16, c0 + 17})) << lane;
  }
  // Fig. 4's first row: T0 holds (0,0),(0,1); T1 (0,2),(0,3); ...; T4 starts row 1.
  auto owns = [](int64_t lane, int64_t r, int64_t c) {
    for (const auto& e : thread_elements(MmaRole::Acc, {64, 8}, r / 16, lane))
      if (e[0] == r && e[1] == c) return true;
    return false;
  };
  EXPECT_TRUE(owns(0, 0, 0) && owns(0, 0, 1) && owns(0, 8, 0) && owns(0, 8, 1));
  EXPECT_TRUE(owns(1, 0, 2) && owns(3, 0, 7) && owns(4, 1, 0) && owns(31, 15, 7) && owns(31, 63, 6));
  EXPECT_FALSE(owns(1, 0, 0));
}

TEST(Partition, EveryAccumulatorElementHasExactlyOneOwnerForEveryLegalN) {
  for (int64_t n = 8; n <= 256; n += 8) {
    SCOPED_TRACE("N = " + std::to_string(n));
    MmaPartitionShape wg = mma_partition_shape(wgmma(), 64, n, 16, MmaRole::Acc, ProcKind::Warpgroup, {64, n});
    ASSERT_TRUE(wg.error.empty()) << wg.error;
    EXPECT_EQ(wg.pieces, 4);
    EXPECT_EQ(wg.piece_extents, (std::vector<int64_t>{16, n}));
    MmaPartitionShape warp = mma_partition_shape(wgmma(), 64, n, 16, MmaRole::Acc, ProcKind::Warp, {16, n});
    ASSERT_TRUE(warp.error.empty()) << warp.error;
    EXPECT_EQ(warp.pieces, 32);
    EXPECT_EQ(warp.piece_extents, (std::vector<int64_t>{2, n / 4}));

    std::vector<int> owners(static_cast<size_t>(64 * n), 0);
    bool layout_ok = true;
    for (int64_t w = 0; w < 4; ++w) {
      EXPECT_EQ(extents(mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {64, n}, w)), wg.piece_extents);
      for (int64_t l = 0; l < 32; ++l) {
        EXPECT_EQ(extents(mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warp, {16, n}, l)), warp.piece_extents);
        auto es = thread_elements(MmaRole::Acc, {64, n}, w, l);
        EXPECT_EQ(static_cast<int64_t>(es.size()), n / 2);  // 64 * N elements over 128 threads
        for (const auto& e : es) {
          ASSERT_TRUE(e[0] >= 0 && e[0] < 64 && e[1] >= 0 && e[1] < n);
          ++owners[static_cast<size_t>(e[0] * n + e[1])];
          if (ptx_owner(e[0], e[1]) != std::make_pair(w, l)) layout_ok = false;
        }
      }
    }
    for (size_t i = 0; i < owners.size(); ++i) ASSERT_EQ(owners[i], 1) << "element " << i / n << ", " << i % n;
    EXPECT_TRUE(layout_ok) << "some (warp, lane) holds an element the PTX layout gives to another thread";
  }
}

TEST(Partition, LhsAndRhsPiecesCoverWhatTheAccumulatorPiecesNeed) {
  const int64_t k = 32;
  for (int64_t n : {8, 64, 256}) {
    for (int64_t w = 0; w < 4; ++w) {
      auto acc_w = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {64, n}, w);
      auto lhs_w = mma_piece(wgmma(), MmaRole::Lhs, ProcKind::Warpgroup, {64, k}, w);
      auto rhs_w = mma_piece(wgmma(), MmaRole::Rhs, ProcKind::Warpgroup, {k, n}, w);
      EXPECT_EQ(coords(lhs_w[0]), coords(acc_w[0]));  // the warp's rows of A
      EXPECT_EQ(coords(lhs_w[1]).size(), static_cast<size_t>(k));
      EXPECT_EQ(coords(rhs_w[0]).size(), static_cast<size_t>(k));  // all of B: read from shared memory
      EXPECT_EQ(coords(rhs_w[1]).size(), static_cast<size_t>(n));
      for (int64_t l = 0; l < 32; ++l) {
        auto acc = thread_elements(MmaRole::Acc, {64, n}, w, l);
        auto lhs = thread_elements(MmaRole::Lhs, {64, k}, w, l);
        auto rhs = thread_elements(MmaRole::Rhs, {k, n}, w, l);
        std::set<int64_t> acc_rows, acc_cols, lhs_rows, lhs_ks, rhs_ks, rhs_cols;
        for (const auto& e : acc) acc_rows.insert(e[0]), acc_cols.insert(e[1]);
        for (const auto& e : lhs) lhs_rows.insert(e[0]), lhs_ks.insert(e[1]);
        for (const auto& e : rhs) rhs_ks.insert(e[0]), rhs_cols.insert(e[1]);
        EXPECT_EQ(lhs_rows, acc_rows);
        EXPECT_EQ(rhs_cols, acc_cols);
        EXPECT_EQ(lhs_ks.size(), static_cast<size_t>(k));
        EXPECT_EQ(rhs_ks.size(), static_cast<size_t>(k));
      }
    }
  }
}

// The leaf `mma(C, A, B)` on a thread's pieces is an ordinary matrix product in the pieces' compact
// coordinates; running it for all 128 threads computes the whole 64 x N x K product.
TEST(Partition, ThreadPiecesComputeTheFullProduct) {
  const int64_t n = 24, k = 32;
  auto a = [](int64_t r, int64_t kk) { return (r * 7 + kk * 3) % 11 - 5; };
  auto b = [](int64_t kk, int64_t c) { return (kk * 5 + c * 2) % 13 - 6; };
  std::vector<int64_t> c_tile(static_cast<size_t>(64 * n), 0);
  for (int64_t w = 0; w < 4; ++w) {
    auto acc_w = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {64, n}, w);
    auto lhs_w = mma_piece(wgmma(), MmaRole::Lhs, ProcKind::Warpgroup, {64, k}, w);
    auto rhs_w = mma_piece(wgmma(), MmaRole::Rhs, ProcKind::Warpgroup, {k, n}, w);
    for (int64_t l = 0; l < 32; ++l) {
      auto acc = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warp, extents(acc_w), l);
      auto lhs = mma_piece(wgmma(), MmaRole::Lhs, ProcKind::Warp, extents(lhs_w), l);
      auto rhs = mma_piece(wgmma(), MmaRole::Rhs, ProcKind::Warp, extents(rhs_w), l);
      ASSERT_EQ(acc[0].extent(), lhs[0].extent());
      ASSERT_EQ(acc[1].extent(), rhs[1].extent());
      ASSERT_EQ(lhs[1].extent(), rhs[0].extent());
      for (int64_t i = 0; i < acc[0].extent(); ++i)
        for (int64_t j = 0; j < acc[1].extent(); ++j) {
          int64_t sum = 0;
          for (int64_t q = 0; q < lhs[1].extent(); ++q)
            sum += a(lhs_w[0].parent(lhs[0].parent(i)), lhs_w[1].parent(lhs[1].parent(q))) *
                   b(rhs_w[0].parent(rhs[0].parent(q)), rhs_w[1].parent(rhs[1].parent(j)));
          int64_t r = acc_w[0].parent(acc[0].parent(i)), c = acc_w[1].parent(acc[1].parent(j));
          c_tile[static_cast<size_t>(r * n + c)] = sum;
        }
    }
  }
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < n; ++c) {
      int64_t want = 0;
      for (int64_t q = 0; q < k; ++q) want += a(r, q) * b(q, c);
      ASSERT_EQ(c_tile[static_cast<size_t>(r * n + c)], want) << r << ", " << c;
    }
}

TEST(Partition, AmpereMmaSyncAccumulatorLayout) {
  // mma.sync m16n8k16 on a warp: the same lane pattern as one wgmma warp slice.
  MmaPartitionShape s = mma_partition_shape(mma_sync(), 16, 8, 16, MmaRole::Acc, ProcKind::Warp, {32, 16});
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.pieces, 32);
  EXPECT_EQ(s.piece_extents, (std::vector<int64_t>{4, 4}));
  std::vector<int> owners(32 * 16, 0);
  for (int64_t l = 0; l < 32; ++l) {
    auto t = mma_piece(mma_sync(), MmaRole::Acc, ProcKind::Warp, {32, 16}, l);
    EXPECT_EQ(extents(t), s.piece_extents);
    EXPECT_EQ(coords(t[0]), (std::set<int64_t>{l / 4, l / 4 + 8, l / 4 + 16, l / 4 + 24}));
    for (const auto& e : elements(t)) ++owners[static_cast<size_t>(e[0] * 16 + e[1])];
  }
  for (int o : owners) EXPECT_EQ(o, 1);
  MmaPartitionShape wg = mma_partition_shape(mma_sync(), 16, 8, 16, MmaRole::Acc, ProcKind::Warpgroup, {64, 8});
  EXPECT_FALSE(wg.error.empty()) << "mma.sync is issued by a warp";
}

// A rank-1 tile (e.g. row sums next to a 64 x N accumulator) follows the accumulator's rows; the four
// lanes of a quad share their two rows.
TEST(Partition, RowVectorFollowsTheAccumulatorRows) {
  for (int64_t w = 0; w < 4; ++w) {
    std::vector<DimMap> piece = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {64}, w);
    ASSERT_EQ(piece.size(), 1u);
    EXPECT_EQ(coords(piece[0]), coords(mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warpgroup, {64, 8}, w)[0]));
    for (int64_t l = 0; l < 32; ++l) {
      std::vector<DimMap> lane = mma_piece(wgmma(), MmaRole::Acc, ProcKind::Warp, {16}, l);
      ASSERT_EQ(lane.size(), 1u);
      EXPECT_EQ(coords(lane[0]), (std::set<int64_t>{l / 4, l / 4 + 8}));
    }
  }
}

// ---- mma: shapes that cannot be partitioned ----

TEST(Partition, IllegalMmaShapesAreErrorsWithHints) {
  auto err = [](int64_t m, int64_t n, int64_t k, MmaRole role, ProcKind holder, std::vector<int64_t> tile) {
    MmaPartitionShape s = mma_partition_shape(wgmma(), m, n, k, role, holder, tile);
    EXPECT_EQ(s.pieces, 0);
    EXPECT_TRUE(s.piece_extents.empty());
    return s;
  };
  // Instruction shapes.
  MmaPartitionShape bad_n = err(64, 260, 16, MmaRole::Acc, ProcKind::Warpgroup, {64, 260});
  EXPECT_EQ(bad_n.error, "wgmma(64, 260, 16) is not a legal instruction shape");
  EXPECT_EQ(bad_n.hint, "wgmma takes m=64, n in 8..256 step 8, k=16");
  EXPECT_NE(err(64, 12, 16, MmaRole::Acc, ProcKind::Warpgroup, {64, 12}).error.find("not a legal"), std::string::npos);
  EXPECT_NE(err(32, 64, 16, MmaRole::Acc, ProcKind::Warpgroup, {32, 64}).error.find("not a legal"), std::string::npos);
  EXPECT_NE(err(64, 64, 8, MmaRole::Acc, ProcKind::Warpgroup, {64, 64}).error.find("not a legal"), std::string::npos);
  // Rows not a multiple of 64 on a warpgroup (16 on a warp).
  MmaPartitionShape rows = err(64, 64, 16, MmaRole::Acc, ProcKind::Warpgroup, {96, 64});
  EXPECT_EQ(rows.error, "accumulator tile has 96 rows; wgmma(64, 64, 16) on a WARPGROUP needs a multiple of 64");
  EXPECT_FALSE(rows.hint.empty());
  EXPECT_NE(err(64, 64, 16, MmaRole::Lhs, ProcKind::Warpgroup, {32, 16}).error.find("32 rows"), std::string::npos);
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Warp, {8, 64}).error.find("multiple of 16"), std::string::npos);
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Warpgroup, {0, 64}).error.find("0 rows"), std::string::npos);
  // N not a multiple of 8 (of n on a warpgroup).
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Warp, {16, 12}).error.find("12 columns"), std::string::npos);
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Warpgroup, {64, 96}).error.find("multiple of 64"), std::string::npos);
  EXPECT_NE(err(64, 64, 16, MmaRole::Rhs, ProcKind::Warp, {16, 20}).error.find("20 columns"), std::string::npos);
  // K not a multiple of 16.
  MmaPartitionShape kk = err(64, 64, 16, MmaRole::Lhs, ProcKind::Warpgroup, {64, 24});
  EXPECT_EQ(kk.error, "lhs (A) tile has K extent 24; wgmma(64, 64, 16) needs a multiple of 16");
  EXPECT_NE(err(64, 64, 16, MmaRole::Rhs, ProcKind::Warpgroup, {40, 64}).error.find("K extent 40"), std::string::npos);
  // Holders and ranks.
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Thread, {64, 64}).error.find("not by a THREAD"), std::string::npos);
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Block, {64, 64}).error.find("not by a BLOCK"), std::string::npos);
  EXPECT_NE(err(64, 64, 16, MmaRole::Acc, ProcKind::Warpgroup, {64, 64, 2}).error.find("rank-2"), std::string::npos);
}

TEST(Partition, LegalOperandShapes) {
  auto ok = [](MmaRole role, ProcKind holder, std::vector<int64_t> tile) {
    MmaPartitionShape s = mma_partition_shape(wgmma(), 64, 128, 16, role, holder, tile);
    EXPECT_TRUE(s.error.empty()) << s.error;
    return s.piece_extents;
  };
  EXPECT_EQ(ok(MmaRole::Acc, ProcKind::Warpgroup, {128, 256}), (std::vector<int64_t>{32, 256}));
  EXPECT_EQ(ok(MmaRole::Lhs, ProcKind::Warpgroup, {128, 64}), (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(ok(MmaRole::Rhs, ProcKind::Warpgroup, {64, 128}), (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(ok(MmaRole::Acc, ProcKind::Warp, {32, 128}), (std::vector<int64_t>{4, 32}));
  EXPECT_EQ(ok(MmaRole::Lhs, ProcKind::Warp, {32, 64}), (std::vector<int64_t>{4, 64}));
  EXPECT_EQ(ok(MmaRole::Rhs, ProcKind::Warp, {64, 128}), (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(parse_mma_role("acc"), MmaRole::Acc);
  EXPECT_EQ(parse_mma_role("rhs"), MmaRole::Rhs);
  EXPECT_EQ(parse_mma_role("C"), std::nullopt);
  EXPECT_STREQ(mma_role_name(MmaRole::Lhs), "lhs");
}

}  // namespace
}  // namespace loom

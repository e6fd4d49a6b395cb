// Partition operators as functions on index spaces (Cypress section 3.2, Fig. 4).
//
// Every piece of a `blocks`, `slices` or `mma` partition is a Cartesian product of one index set per
// dimension of the parent, so a piece is described by one DimMap per parent dimension (or none for a
// dimension `slices` fixes: a DimMap without modes). A DimMap maps a compact, origin-based coordinate of the piece to the
// parent coordinate: c is split mixed-radix over `modes` (first mode fastest) and
// parent = offset + sum(digit_i * stride_i). Pieces of blocks partitions are clipped at the parent's
// extent (partial edge tiles). Test: tests/unit/partition_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/machine.h"

namespace loom {

struct Mode {
  int64_t extent;
  int64_t stride;
};

struct DimMap {
  int64_t offset = 0;
  std::vector<Mode> modes;
  int64_t extent() const;             // product of the mode extents
  int64_t parent(int64_t c) const;    // parent coordinate of compact coordinate c (0 <= c < extent())
};

// ---- blocks ----
// Tile `parent` (extents) into blocks of `block` (0 = the whole dimension, written `*`).
// Number of blocks per dimension is ceil(extent / block).
std::vector<int64_t> blocks_counts(const std::vector<int64_t>& parent, const std::vector<int64_t>& block);
// The piece at `color`; its extents are clipped: min(block, extent - color*block).
std::vector<DimMap> blocks_piece(const std::vector<int64_t>& parent, const std::vector<int64_t>& block,
                                 const std::vector<int64_t>& color);

// ---- mma ----
enum class MmaRole { Acc, Lhs, Rhs };  // C (M x N), A (M x K), B (K x N)
std::optional<MmaRole> parse_mma_role(const std::string& s);
const char* mma_role_name(MmaRole r);

// Why a tile cannot take an mma partition, or the partition's shape.
struct MmaPartitionShape {
  std::string error;  // empty when legal
  std::string hint;
  bool bad_instruction = false;     // the instruction shape itself is illegal (not the tile)
  int pieces = 0;                   // 4 (warpgroup -> warps) or 32 (warp -> threads)
  std::vector<int64_t> piece_extents;
};

// Shape of the `role` operand distribution of `instr` with N = n, for a tile held by a processor of
// level `holder` (WARPGROUP: pieces go to its 4 warps; WARP: to its 32 threads).
//
// `transposed`: the instruction computes the transposed product C^T = B^T A^T of the leaf
// `mma(C, A, B)`, so its m rows run along the tile's columns (C's N) and its n columns along the
// tile's rows (C's M): the accumulator is distributed as the instruction's accumulator of C^T, A
// (role lhs, M x K) as its B operand A^T, B (role rhs, K x N) as its A operand B^T. A piece is the
// untransposed distribution of the transposed tile with its two dimensions swapped back; the leaf
// `mma` on pieces stays an ordinary matrix product. Rank-2 tiles, and column vectors (role rhs,
// rank 1: a bias along C's columns), which are then cut like the instruction's rows.
MmaPartitionShape mma_partition_shape(const MmaInstr& instr, int64_t m, int64_t n, int64_t k, MmaRole role,
                                      ProcKind holder, const std::vector<int64_t>& tile, bool transposed = false);

// The DimMaps of piece `p` (a warp index or a lane index) of a legal mma partition. A rank-1 `tile`
// is a row vector co-partitioned with the accumulator rows (role acc): its piece is the rows only,
// and at WARP level the four lanes of a quad share them; or (role rhs) a column vector co-partitioned
// with the accumulator's columns: a warp's piece is the whole vector, a lane's its N/4 columns
// (shared by the 8 lanes with the same lane % 4).
std::vector<DimMap> mma_piece(const MmaInstr& instr, MmaRole role, ProcKind holder,
                              const std::vector<int64_t>& tile, int64_t p, bool transposed = false);

// The role of the instruction operand an operand of role `role` plays in the transposed product:
// acc -> acc, lhs (A) -> rhs (A^T is the instruction's B), rhs (B) -> lhs.
MmaRole transposed_role(MmaRole role);

// ---- slices ----
// Piece `i` of slicing `parent` along dimension `dim`. The DimMap of `dim` has no modes (offset i):
// a dimension without modes is fixed and does not count in the piece's rank.
std::vector<DimMap> slices_piece(const std::vector<int64_t>& parent, int dim, int64_t i);

}  // namespace loom

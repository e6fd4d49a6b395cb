// Partition operators on index spaces. See partition.h.
//
// The mma distributions follow the PTX ISA fragment layouts (wgmma "Matrix fragments for
// wgmma.mma_async m64nNk16" and mma.sync "m16n8k16"), as in the Cypress document's Fig. 4:
//   warpgroup -> warp: warp w owns rows [16w, 16w+16) of every 64-row group of the accumulator and of
//     A; B is shared by all four warps (it is read from shared memory by the whole warpgroup).
//   warp -> thread: lane l owns rows {l/4, l/4 + 8} of every 16-row group and columns
//     {2*(l%4), 2*(l%4)+1} of every 8-column group of the accumulator.
// A thread's `lhs` piece is the rows of A its accumulator rows need (all of K) and its `rhs` piece is
// the columns of B its accumulator columns need, so the leaf `mma(C, A, B)` on pieces is an ordinary
// matrix product in the pieces' compact coordinates.
#include "layout/partition.h"

namespace loom {

int64_t DimMap::extent() const {
  int64_t e = 1;
  for (const Mode& m : modes) e *= m.extent;
  return e;
}

int64_t DimMap::parent(int64_t c) const {
  int64_t p = offset;
  for (const Mode& m : modes) {
    p += (c % m.extent) * m.stride;
    c /= m.extent;
  }
  return p;
}

std::vector<int64_t> blocks_counts(const std::vector<int64_t>& parent, const std::vector<int64_t>& block) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < parent.size(); ++d) {
    int64_t b = block[d] == 0 ? parent[d] : block[d];
    out.push_back(b == 0 ? 0 : (parent[d] + b - 1) / b);
  }
  return out;
}

std::vector<DimMap> blocks_piece(const std::vector<int64_t>& parent, const std::vector<int64_t>& block,
                                 const std::vector<int64_t>& color) {
  std::vector<DimMap> out;
  for (size_t d = 0; d < parent.size(); ++d) {
    int64_t b = block[d] == 0 ? parent[d] : block[d];
    int64_t start = color[d] * b;
    int64_t ext = std::max<int64_t>(0, std::min(b, parent[d] - start));
    out.push_back({start, {{ext, 1}}});
  }
  return out;
}

std::optional<MmaRole> parse_mma_role(const std::string& s) {
  if (s == "acc") return MmaRole::Acc;
  if (s == "lhs") return MmaRole::Lhs;
  if (s == "rhs") return MmaRole::Rhs;
  return std::nullopt;
}

const char* mma_role_name(MmaRole r) {
  switch (r) {
    case MmaRole::Acc: return "acc";
    case MmaRole::Lhs: return "lhs";
    case MmaRole::Rhs: return "rhs";
  }
  return "?";
}

namespace {
std::string str(int64_t v) { return std::to_string(v); }
}  // namespace

MmaRole transposed_role(MmaRole role) {
  return role == MmaRole::Lhs ? MmaRole::Rhs : role == MmaRole::Rhs ? MmaRole::Lhs : MmaRole::Acc;
}

MmaPartitionShape mma_partition_shape(const MmaInstr& instr, int64_t m, int64_t n, int64_t k, MmaRole role,
                                      ProcKind holder, const std::vector<int64_t>& tile, bool transposed) {
  if (transposed) {
    if (tile.size() != 2) {
      MmaPartitionShape r;
      r.error = "a transposed mma partition needs a rank-2 tile, this one has rank " + std::to_string(tile.size());
      return r;
    }
    MmaPartitionShape r = mma_partition_shape(instr, m, n, k, transposed_role(role), holder, {tile[1], tile[0]});
    if (!r.error.empty() && !r.bad_instruction) {
      // Said in the tile's own terms: its rows are the instruction's n, its columns its 64 rows.
      const bool wg = holder == ProcKind::Warpgroup;
      const char* what = role == MmaRole::Acc ? "accumulator" : role == MmaRole::Lhs ? "lhs (A)" : "rhs (B)";
      const std::string iname = instr.name + "(" + str(m) + ", " + str(n) + ", " + str(k) + ")";
      const int64_t row_step = wg ? n : 8, col_step = wg ? 64 : 16;
      if (role != MmaRole::Rhs && (tile[0] <= 0 || tile[0] % row_step)) {
        r.error = std::string("a transposed ") + what + " tile has " + str(tile[0]) + " rows; " + iname + " on a " +
                  proc_name(holder) + " needs a multiple of " + str(row_step) + " (the instruction's n runs along the rows)";
        r.hint = "make the tile's M extent a multiple of the instruction's n";
      } else if (role != MmaRole::Lhs && (tile[1] <= 0 || tile[1] % col_step)) {
        r.error = std::string("a transposed ") + what + " tile has " + str(tile[1]) + " columns; " + iname + " on a " +
                  proc_name(holder) + " needs a multiple of " + str(col_step) + " (the instruction's " + str(m) +
                  " rows run along the columns)";
        r.hint = "split the columns between warpgroups in multiples of 64, e.g. blocks(C, [*, 64 * cdiv(N, 64 * G)])";
      }
    }
    if (r.piece_extents.size() == 2) std::swap(r.piece_extents[0], r.piece_extents[1]);
    return r;
  }
  MmaPartitionShape r;
  std::string iname = instr.name + "(" + str(m) + ", " + str(n) + ", " + str(k) + ")";
  if (m != instr.m || k != instr.k || !instr.legal_n(n)) {
    r.error = iname + " is not a legal instruction shape";
    r.bad_instruction = true;
    r.hint = instr.name + " takes m=" + str(instr.m) + ", n in " + str(instr.n_min) + ".." + str(instr.n_max) +
             " step " + str(instr.n_step) + ", k=" + str(instr.k);
    return r;
  }
  if (tile.size() != 2) {
    r.error = "an mma partition needs a rank-2 tile, this one has rank " + str(static_cast<int64_t>(tile.size()));
    return r;
  }
  // The rows a holder covers: a warpgroup covers 64-row groups, a warp 16-row groups.
  bool wg = holder == ProcKind::Warpgroup;
  if (wg && instr.issued_by != ProcKind::Warpgroup) {
    r.error = instr.name + " is issued by a warp; a " + std::string(proc_name(holder)) + " cannot split it";
    r.hint = "split the block between warps with blocks(...) and partition with mma on WARP";
    return r;
  }
  if (!wg && holder != ProcKind::Warp) {
    r.error = "an mma partition splits a tile held by a WARPGROUP (into warps) or a WARP (into threads), not by a " +
              std::string(proc_name(holder));
    r.hint = "map this instance to WARPGROUP or WARP, or partition with blocks(...) first";
    return r;
  }
  int64_t row_group = wg ? 64 : 16;
  int64_t rows = role == MmaRole::Rhs ? tile[1] : tile[0];  // M for acc/lhs; for rhs the N extent
  int64_t kk = role == MmaRole::Lhs ? tile[1] : role == MmaRole::Rhs ? tile[0] : 0;
  const char* what = role == MmaRole::Acc ? "accumulator" : role == MmaRole::Lhs ? "lhs (A)" : "rhs (B)";
  if (role != MmaRole::Rhs && (rows <= 0 || rows % row_group != 0)) {
    r.error = std::string(what) + " tile has " + str(rows) + " rows; " + iname + " on a " + proc_name(holder) +
              " needs a multiple of " + str(row_group);
    r.hint = "choose tile sizes so each " + std::string(proc_name(holder)) + " holds a multiple of " +
             str(row_group) + " rows";
    return r;
  }
  if (role != MmaRole::Lhs) {
    int64_t cols = role == MmaRole::Acc ? tile[1] : tile[1];
    int64_t step = wg ? n : 8;
    if (cols <= 0 || cols % step != 0) {
      r.error = std::string(what) + " tile has " + str(cols) + " columns; " + iname + " needs a multiple of " + str(step);
      r.hint = "make the tile's N extent a multiple of the instruction's n";
      return r;
    }
  }
  if (role != MmaRole::Acc && (kk <= 0 || kk % k != 0)) {
    r.error = std::string(what) + " tile has K extent " + str(kk) + "; " + iname + " needs a multiple of " + str(k);
    r.hint = "make the K step (e.g. the srange block size) a multiple of " + str(k);
    return r;
  }
  r.pieces = wg ? 4 : 32;
  switch (role) {
    case MmaRole::Acc:
      r.piece_extents = wg ? std::vector<int64_t>{tile[0] / 4, tile[1]} : std::vector<int64_t>{tile[0] / 8, tile[1] / 4};
      break;
    case MmaRole::Lhs:
      r.piece_extents = wg ? std::vector<int64_t>{tile[0] / 4, tile[1]} : std::vector<int64_t>{tile[0] / 8, tile[1]};
      break;
    case MmaRole::Rhs:
      r.piece_extents = wg ? std::vector<int64_t>{tile[0], tile[1]} : std::vector<int64_t>{tile[0], tile[1] / 4};
      break;
  }
  return r;
}

std::vector<DimMap> mma_piece(const MmaInstr& instr, MmaRole role, ProcKind holder, const std::vector<int64_t>& tile,
                              int64_t p, bool transposed) {
  if (transposed && tile.size() == 1 && role == MmaRole::Rhs) {
    // A column vector of the transposed product: C's columns are the instruction's rows, so it is
    // cut like the rows of its lhs operand B^T (a warp's 16 of every 64, a lane's 2 of every 16).
    return {mma_piece(instr, MmaRole::Lhs, holder, {tile[0], 16}, p)[0]};
  }
  if (transposed && tile.size() == 2) {
    std::vector<DimMap> t = mma_piece(instr, transposed_role(role), holder, {tile[1], tile[0]}, p);
    std::swap(t[0], t[1]);
    return t;
  }
  bool wg = holder == ProcKind::Warpgroup;
  DimMap rows, cols;
  if (wg) {
    // Warp p: rows 16p..16p+15 of each 64-row group.
    rows = {16 * p, {{16, 1}, {tile[0] / 64, 64}}};
    if (tile.size() > 1) cols = {0, {{tile[1], 1}}};
  } else {
    // Lane p: rows p/4 and p/4+8 of each 16-row group; columns 2(p%4), 2(p%4)+1 of each 8-column group.
    rows = {p / 4, {{2, 8}, {tile[0] / 16, 16}}};
    if (tile.size() > 1) cols = {2 * (p % 4), {{2, 1}, {tile[1] / 8, 8}}};
  }
  if (tile.size() == 1 && role == MmaRole::Rhs) {
    // A column vector co-partitioned with the accumulator (and B) columns: a warp's piece is all of
    // them, a lane's its columns 2(p%4), 2(p%4)+1 of each 8-column group.
    return {wg ? DimMap{0, {{tile[0], 1}}} : DimMap{2 * (p % 4), {{2, 1}, {tile[0] / 8, 8}}}};
  }
  if (tile.size() == 1) return {rows};  // a row vector co-partitioned with the accumulator rows
  DimMap all_rows{0, {{tile[0], 1}}};
  DimMap all_cols{0, {{tile[1], 1}}};
  switch (role) {
    case MmaRole::Acc: return {rows, cols};
    case MmaRole::Lhs: return {rows, all_cols};
    case MmaRole::Rhs: return wg ? std::vector<DimMap>{all_rows, all_cols} : std::vector<DimMap>{all_rows, cols};
  }
  (void)instr;
  return {};
}

std::vector<DimMap> slices_piece(const std::vector<int64_t>& parent, int dim, int64_t i) {
  std::vector<DimMap> out;
  for (size_t d = 0; d < parent.size(); ++d)
    out.push_back(static_cast<int>(d) == dim ? DimMap{i, {}} : DimMap{0, {{parent[d], 1}}});
  return out;
}

}  // namespace loom

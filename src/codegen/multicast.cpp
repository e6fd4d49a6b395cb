// multicast(S) (MULTICAST in cuda_gen.h; docs/codegen.md, "Multicast"): the blocks of the kernel
// run in thread-block clusters of S, and the S blocks of a cluster take S neighbouring tiles along
// the next-to-innermost block loop (gemm's row tiles i: S p, S p + 1, ..., S p + S - 1 for the same
// column tile j). Their pipelined TMA loads that do not move with that index (gemm's B panel, the
// same for every row tile) are loaded once per cluster instead of S times:
//   - each block arms its own full barrier with the whole tile's bytes, as without multicast, and
//     issues only its share of the box (slices r, r + S, ... of a swizzled tile, or, when the
//     slices do not divide by S, a band of whole 8-row atoms of every slice: outer / S rows where
//     that is whole atoms, else ceil(atoms / S) atoms with the last bands moved up to end at the
//     tile's last row, so that the rows two bands overlap on land twice) with the multicast mask
//     of all S blocks: the bytes land at the same offset in every block and complete on the
//     barrier at the same offset in each (HOPPER-FACTS F4, F7);
//   - a ring slot such a copy fills is free only when the compute warps of every block are done
//     with it: the warps arrive on that slot's release barrier in every block of the cluster
//     (count S times the compute warps), lane r of a warp in block r. Where wgmmas are the slots'
//     only readers, one arrival per compute warpgroup and block suffices (a wgmma retired in one of
//     its warps has read its operands for all four; count S times the compute warpgroups), the
//     arrivals spread over the warpgroup's warps (mc_wgmma_heads_). The readers are done
//     once wgmma_wait returns (as without multicast), so a plain arrival on the peer's barrier
//     suffices, as CUTLASS's consumer_release does; a cluster-scope release there made every
//     kernel about 2x slower (H100, 2026-11-27). The lanes' arrivals, the warpgroup's count and
//     the row and column below made clusters of 4-8 blocks 8-16% faster than one lane arriving in
//     every block in turn (H200, bench/results/2026-12-05-h200-release.md).
//     Since every block contributes to every block's slot in each iteration, no block's consumers
//     can arrive for iteration k + R before every block's barrier completed iteration k: phases
//     never alias.
// multicast(S, T): clusters of S x T blocks on S x T tiles of the two innermost block loops (rank
// r at (r mod S, r / S)); a copy that does not move with the outer index is shared by the S blocks
// of one inner index, else one that does not move with the inner index by the T blocks of one outer
// index. Where both operands are shared (a copy along each dimension in every loop of the chain:
// mc_peer_heads_), the blocks that write into a block's slots are exactly the S + T - 1 of its row
// and column, and only they release them (count S + T - 1 times the compute warps, as CUTLASS's
// consumer_release): each of them contributes a share to every iteration of the block, so the
// phase argument above holds among them. Otherwise the release stays cluster-wide.
// The loads that move with the index (gemm's A rows) stay per block. Every block of a cluster runs
// the same number of tiles and iterations (the trip counts may not depend on the index; the
// cluster walks whole groups of S tiles); a block whose tile lies past the edge (an odd number of
// row tiles) runs it clipped to nothing, loading and computing zeros and storing none, so that its
// share of the shared loads still reaches its peer. Results are those of the same mapping without
// multicast: only where the bytes come from changes. The async-copy variant (cp.async) loads
// every tile per block and launches no clusters.
#include "codegen/cuda_gen.h"

#include <functional>
#include <sstream>

namespace loom::codegen::detail {

// Whether the offsets of view t in its root move with index value lv: some piece on the way from
// the root is taken at an index, or with a block size, that depends on lv (a `*` dimension's size
// is the clipped extent, which may; it only matters at an index other than 0).
bool CudaGen::view_moves(ValueId t, ValueId lv) const {
  auto d = def_.find(t);
  if (d == def_.end()) return false;  // a parameter: the root
  const Op* op = d->second;
  if (op->kind != OpKind::Piece) return true;
  auto zero = [&](ValueId v) {
    auto c = def_.find(v);
    return c != def_.end() && c->second->kind == OpKind::Const && c->second->ival == 0;
  };
  for (size_t i = 1; i < op->operands.size(); ++i)
    if (depends_on(op->operands[i], lv)) return true;
  if (op->part.kind == PartitionSpec::Kind::Mma) return true;  // not a TMA source
  if (op->part.kind == PartitionSpec::Kind::Blocks) {
    for (size_t dim = 0; dim < op->part.block.size(); ++dim) {
      const ValueId b = op->part.block[dim];
      const bool idx0 = dim + 1 < op->operands.size() && zero(op->operands[dim + 1]);
      if (b != kNone && depends_on(b, lv) && !idx0) return true;
      if (b == kNone && !idx0 && tensor_extent_depends(op->operands[0], static_cast<int>(dim), lv)) return true;
    }
  }
  return view_moves(op->operands[0], lv);
}

// How the S blocks share copy's box: by slices when the swizzle slices divide by S, else by bands
// of rows (whole 8-row swizzle atoms); nullopt when neither does (the copy stays per block).
std::optional<CudaGen::McSplit> CudaGen::multicast_split(const Op& copy, int64_t S) const {
  const ValueId root = root_of(copy.operands[1]);
  const Op* alloc = def_.at(root);
  const int rank = f_.info(root).rank;
  if (rank < 2) return std::nullopt;
  std::vector<int64_t> ext;
  for (auto& e : bounds_.extent_bounds(root)) {
    if (!e) return std::nullopt;
    ext.push_back(*e);
  }
  const int64_t rows = ext[static_cast<size_t>(rank - 2)], cols = ext[static_cast<size_t>(rank - 1)];
  const int64_t eb = dtype_bytes(f_.info(root).dtype);
  const bool cm = alloc->layout.col_major;
  const int64_t inner = cm ? rows : cols, outer = cm ? cols : rows;
  const int64_t span = alloc->layout.swizzle;
  const int64_t slices = span && inner * eb > span ? inner * eb / span : 1;
  if (slices % S == 0) return McSplit{false};
  // Bands of whole 8-row swizzle atoms (their shared-memory offsets stay 1024-byte aligned): outer / S
  // rows each where that is whole atoms, else ceil(atoms / S) atoms each, the last bands moved up to end
  // at the tile's last row (a 208-row tile on 4 blocks: rows 0, 56, 112 and 152, 56 each).
  if (outer % 8 != 0 || outer / 8 < S) return std::nullopt;
  McSplit sp;
  sp.by_rows = true;
  sp.band = 8 * ((outer / 8 + S - 1) / S);
  return sp;
}

void CudaGen::plan_multicast() {
  const Op* first = nullptr;
  std::function<void(const ir::Block&)> find = [&](const ir::Block& b) {
    for (const Op& op : b.ops) {
      if (op.kind == OpKind::For && op.multicast * op.multicast_n > 1) {
        if (first && (first->multicast != op.multicast || first->multicast_n != op.multicast_n))
          cannot(&op, "two multicast cluster shapes in one kernel (one cluster shape per launch)");
        if (!first) first = &op;
      }
      for (const ir::Block& r : op.regions) find(r);
    }
  };
  find(*kernel_);
  if (!first || async_copy_) return;  // the async-copy variant: plain persistent blocks, every load its own
  mc_rows_ = first->multicast;
  mc_cols_ = first->multicast_n;
  const std::string mc = mc_what();
  if (!ws_) cannot(first, mc + " without warp specialization", "map the loop's instance with `warpspecialize pipeline(2)` or deeper");
  if (split_loop_) cannot(first, mc + " together with " + split_what());
  multicast_ = mc_rows_ * mc_cols_;
  if (multicast_ <= 1) return;
  mc_index_ = grid_[mc_grid_dim()]->regions[0].args[0];
  if (mc_cols_ > 1) {
    if (grid_.size() < 2)
      cannot(first, mc + " in a kernel with one block loop", "multicast(S, T) takes S x T tiles of the two innermost block loops");
    mc_index_n_ = grid_.back()->regions[0].args[0];
  }
  // Every block of a cluster runs the same iterations: the shared loads come from all of them.
  std::function<void(const ir::Block&)> trips = [&](const ir::Block& b) {
    for (const Op& op : b.ops) {
      for (ValueId idx : {mc_index_, mc_index_n_})
        if (idx != kNone && op.kind == OpKind::For && depends_on(op.operands[0], idx))
          cannot(&op, mc + " where this loop's trip count depends on " + names_[static_cast<size_t>(idx)] +
                          ", a block index the cluster's tiles differ in",
                 "the blocks of a cluster must run the same iterations to share their loads");
      for (const ir::Block& r : op.regions) trips(r);
    }
  };
  trips(*kernel_);
  // The copies: per ring chain, only when every loop of the chain has one (each iteration of each
  // loop must take a share from every block; see the phase argument above).
  std::map<const Op*, std::vector<const Op*>> chain_loops;
  std::function<void(const ir::Block&)> loops = [&](const ir::Block& b) {
    for (const Op& op : b.ops) {
      if (op.kind == OpKind::For) chain_loops[ring_head(&op)].push_back(&op);
      for (const ir::Block& r : op.regions) loops(r);
    }
  };
  loops(*kernel_);
  for (auto& [head, ls] : chain_loops) {
    std::map<const Op*, McSplit> found;
    bool every = true, both = true, wgmma_only = true;
    for (const Op* L : ls) {
      wgmma_only = wgmma_only && wgmma_reads_only(*L);
      bool any = false, outer = false, inner = false;
      if (L->multicast * L->multicast_n > 1)
        for (const Op& c : L->regions[0].ops) {
          if (!is_tma_copy(c)) continue;
          // shared by the blocks of one inner index (gemm's B), else by those of one outer index (A)
          std::optional<McSplit> sp;
          if (mc_rows_ > 1 && !view_moves(c.operands[0], mc_index_)) sp = multicast_split(c, mc_rows_);
          if (!sp && mc_cols_ > 1 && !view_moves(c.operands[0], mc_index_n_))
            if ((sp = multicast_split(c, mc_cols_))) sp->along_inner = true;
          if (sp) {
            found[&c] = *sp;
            any = true;
            (sp->along_inner ? inner : outer) = true;
          }
        }
      every = every && any;
      both = both && outer && inner;
    }
    if (!every || found.empty()) continue;
    mc_copies_.insert(found.begin(), found.end());
    mc_heads_.insert(head);
    if (both) mc_peer_heads_.insert(head);  // (a 1-d cluster's row is all of it: every block, as without)
    if (wgmma_only) mc_wgmma_heads_.insert(head);
  }
  if (mc_copies_.empty())
    cannot(first, mc + " on a loop none of whose TMA loads is the same for neighbouring tiles along " +
                      names_[static_cast<size_t>(mc_index_)] +
                      (mc_index_n_ != kNone ? " or " + names_[static_cast<size_t>(mc_index_n_)] : std::string()),
           "multicast shares a load between the blocks of a cluster: it needs an operand that does not depend on that block index (gemm's B panel)");
}

std::string CudaGen::arrive_stmt(const Barrier& b, const std::string& slot) const {
  if (b.cluster)
    return "loom::rt::mbarrier::arrive_cluster(&" + b.name + "[" + slot + "], " + std::to_string(mc_rows_) + ", " +
           std::to_string(mc_cols_) + ", " + (b.peers ? "true" : "false") + ", " + (b.per_warpgroup ? "true" : "false") + ", mc_rank);";
  return "if (loom::rt::lane_id() == 0) loom::rt::mbarrier::arrive(&" + b.name + "[" + slot + "]);";
}

// Whether the compute role reads the slots that loop L's TMA copies fill with wgmmas only (gemm's
// K loop; not relu_gemm's, whose warps load A's fragments with ldmatrix, nor a register op's shared
// reads). A wgmma is one operation of its warpgroup: when wgmma_wait returns in any of its warps, it
// has read its operands for all four, so one arrival per warpgroup releases the slot (CUTLASS's
// consumer_release counts warpgroups the same way). Any other reader is a warp's own, in program
// order: then every warp arrives.
bool CudaGen::wgmma_reads_only(const Op& L) {
  std::vector<ValueId> roots;
  for (const Op& c : L.regions[0].ops)
    if (is_tma_copy(c)) roots.push_back(root_of(c.operands[1]));
  bool only = true;
  std::function<void(const ir::Block&)> readers = [&](const ir::Block& body) {
    for (const Op& x : body.ops) {
      for (const ir::Block& r : x.regions) readers(r);
      if (x.role == ir::Role::Dma || (x.kind != OpKind::Call && x.kind != OpKind::Copy) || is_wgmma(x)) continue;
      for (ValueId root : roots)
        if (touches(x, root)) only = false;
    }
  };
  readers(L.regions[0]);
  return only;
}

// This block's share among the blocks that share a copy, and their cluster mask. Rank r of a
// multicast(S, T) cluster runs the tile at (r mod S, r / S) of its S x T group: a copy shared by
// the S blocks of one inner index goes to ranks S (r / S) + 0 .. S - 1, one shared by the T blocks
// of one outer index to ranks r mod S + S k. multicast(S): every block of the cluster, rank r.
std::string CudaGen::mc_share_rank(const McSplit& sp) const {
  if (mc_cols_ == 1) return "mc_rank";
  return sp.along_inner ? "mc_rn" : "mc_rm";
}

std::string CudaGen::mc_share_mask(const McSplit& sp) const {
  char hex[24];
  if (!sp.along_inner) {
    std::snprintf(hex, sizeof hex, "0x%llx", (1ull << mc_rows_) - 1);
    return mc_cols_ == 1 ? std::string(hex) : "static_cast<uint16_t>(" + std::string(hex) + "u << (mc_rn * " + std::to_string(mc_rows_) + "u))";
  }
  unsigned long long m = 0;
  for (int64_t k = 0; k < mc_cols_; ++k) m |= 1ull << (k * mc_rows_);
  std::snprintf(hex, sizeof hex, "0x%llx", m);
  return "static_cast<uint16_t>(" + std::string(hex) + "u << mc_rm)";
}

std::string CudaGen::mc_what() const {
  return "multicast(" + std::to_string(mc_rows_) + (mc_cols_ > 1 ? ", " + std::to_string(mc_cols_) : "") + ")";
}

// The launch's clusters, from the grid's trip counts and `blocks` (their product): groups of S tiles
// of loop mc_grid_dim() (of S x T tiles of it and the innermost loop), a group cut by the edge whole.
std::string CudaGen::mc_clusters_expr() const {
  const std::string np = "grid_n" + std::to_string(mc_grid_dim());
  std::string e = "blocks / " + np;
  if (mc_cols_ > 1) e += " / grid_n" + std::to_string(grid_.size() - 1);
  e += " * loom_cdiv(" + np + ", " + std::to_string(mc_rows_) + ")";
  if (mc_cols_ > 1) e += " * loom_cdiv(grid_n" + std::to_string(grid_.size() - 1) + ", " + std::to_string(mc_cols_) + ")";
  return e;
}

// The persistent tile loop's head for a multicast kernel (assemble.cpp): the clusters walk groups
// of S tiles along mc_index_ in the grouped order, and rank r takes the group's tile S p + r;
// under multicast(S, T) groups of S x T tiles, rank r the tile (S p + r mod S, T q + r / S).
void CudaGen::mc_tile_decode(std::ostream& o, const std::string& ind) const {
  const size_t G = grid_.size();
  const size_t p = mc_grid_dim();
  const std::string S = std::to_string(mc_rows_), T = std::to_string(mc_cols_);
  const std::string what = "multicast(" + S + (mc_cols_ > 1 ? ", " + T : "") + ")";
  const std::string np = "grid_n" + std::to_string(p);
  if (uneven_)
    cannot(uneven_, what + " in a kernel whose loop trip counts differ between tiles",
           "multicast needs every tile of a cluster's group to run the same iterations");
  const bool two = mc_cols_ > 1;
  std::string total = two ? "mc_groups * mc_groups_n" : "mc_groups";
  for (size_t i = 0; i < G; ++i)
    if (i != p && !(two && i == G - 1)) total += " * grid_n" + std::to_string(i);
  if (two)
    o << ind << "// " << what << ": the cluster's " << multicast_ << " blocks run a " << S << " x " << T << " group of tiles of loops " << p << " and "
      << G - 1 << ", rank r the tile (" << S << " p + r % " << S << ", " << T << " q + r / " << S << ") (a tile past the edge runs clipped to nothing)\n";
  else
    o << ind << "// " << what << ": the cluster's " << S << " blocks run tiles " << S << " p, ..., " << S << " p + " << mc_rows_ - 1
      << " of loop " << p << " (a tile past the edge runs clipped to nothing)\n";
  o << ind << "const int64_t mc_groups = loom_cdiv(" << np << ", " << S << ");\n";
  if (two) o << ind << "const int64_t mc_groups_n = loom_cdiv(grid_n" << G - 1 << ", " << T << ");\n";
  o << ind << "for (int64_t tile = loom::rt::cluster_id_x(); tile < " << total << "; tile += loom::rt::cluster_count_x()) {\n";
  const std::string in = ind + "  ";
  o << in << "int64_t lin = tile;\n";
  const int64_t group = std::max<int64_t>(1, kGroupTiles / mc_rows_);
  if (two) {
    grouped_decode(o, in, "mc_groups", "mc_groups_n", group);  // groups of S x T tiles as its rows and columns
    o << in << "const int64_t " << var(mc_index_) << " = (first + within % gsize) * " << S << " + mc_rm;\n"
      << in << "const int64_t " << var(mc_index_n_) << " = (within / gsize) * " << T << " + mc_rn;\n";
  } else if (G >= 2) {
    const std::string b = "grid_n" + std::to_string(G - 1);
    grouped_decode(o, in, "mc_groups", b, group);  // groups of S tiles of loop G - 2 as its rows
    o << in << "const int64_t " << var(mc_index_) << " = (first + within % gsize) * " << S << " + mc_rank;\n"
      << in << "const int64_t " << var(grid_[G - 1]->regions[0].args[0]) << " = within / gsize;\n";
  } else {
    o << in << "const int64_t " << var(mc_index_) << " = lin * " << S << " + mc_rank;\n";
  }
}

}  // namespace loom::codegen::detail

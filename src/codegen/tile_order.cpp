// The order in which a persistent block walks its tiles, where the tiles' work differs.
//
// The kernel is persistent: block k of `grid` runs tiles k, k + grid, k + 2 grid, ... of the
// grouped tile order (assemble.cpp). When the trip count of a loop of the block depends on the
// innermost block index (causal attention: Q tile i sees the key tiles up to the diagonal, i + 1 of
// them), the blocks' shares can differ a lot: block k's tiles sit at a fixed stride in the order,
// and with 8 heads x 16 Q tiles per group and 132 blocks, block 0 gets mostly short tiles and block
// 64 mostly long ones (H100 causal D = 128, S = 2048: the longest share is 1.5x the mean).
//
// The remedy is a second order, folded: positions 0, 1, 2, 3, ... of the innermost index run
// tiles n - 1, 0, n - 2, 1, ..., so that any window of consecutive positions mixes long and short
// tiles (and, where the cost grows with the index, the longest start first). Neither order wins
// everywhere (the fold loses where its pairs line up with the stride), so the launcher decides per
// call: fold_tiles() evaluates the loop's trip count for every value of the innermost index (the
// outer indices at 0) on the host, adds each tile's iterations plus one for the tile itself to the
// block that runs it under either order, and folds when that lowers the largest share. Any order
// of a prange's iterations gives the same results.
#include "codegen/cuda_gen.h"

#include <sstream>

namespace loom::codegen::detail {

// The first loop of the block whose trip count is computed from launch index `index`, or null when
// every tile runs the same trip counts (depends_on: a blocks piece's extent along d depends on its
// index along d only).
const Op* CudaGen::uneven_loop(ValueId index) const {
  for (const Op& L : grid_.back()->regions[0].ops)
    if (L.kind == OpKind::For && depends_on(L.operands[0], index)) return &L;
  return nullptr;
}

// The kernel's decoding of the innermost block index from position `pos` of n, under the order
// the launcher chose (kernel argument `fold`).
void CudaGen::fold_lines(std::ostream& o, const std::string& in, const std::string& pos, const std::string& n) const {
  const ValueId index = grid_.back()->regions[0].args[0];
  o << in << "// the trip count of the loop at line " << uneven_->loc.line << " depends on " << var(index)
    << ": folded order (n - 1, 0, n - 2, 1, ...) when the launcher found it balances the blocks better\n"
    << in << "const int64_t " << var(index) << " = fold ? loom::rt::fold_index(" << pos << ", " << n << ") : " << pos << ";\n";
}

// The decoding of the persistent loop's tile number `lin` (int64_t) into the grouped order: `group`
// rows of tiles (of the `rows` the next-to-innermost block loop runs) walk the innermost loop's
// `cols` together, so their operands stay in L2. Declares l32 (lin within its plane of rows x cols
// tiles) and, in a grid of more than two block loops, the outer loops' indices (from the plane's
// index); then first (the group's first row), gsize (its rows) and within (the position in the
// group): the caller decodes row first + within % gsize and column within / gsize. In 32 bits: the
// launcher keeps the tile count below 2^31 (so every product here fits), and a division of 64-bit
// values is a long software sequence on the GPU, on the producer's way to its first TMA copy
// (bench/results/2026-11-28-h200-gemm-latency.md).
void CudaGen::grouped_decode(std::ostream& o, const std::string& in, const std::string& rows, const std::string& cols,
                             int64_t group) const {
  const std::string g = std::to_string(group);
  const size_t G = grid_.size();
  o << in << (G > 2 ? "" : "const ") << "uint32_t l32 = static_cast<uint32_t>(lin);  // decoded in 32 bits (the launcher keeps the tile count below 2^31)\n";
  if (G > 2) {
    o << in << "uint32_t outer = l32 / static_cast<uint32_t>(" << rows << " * " << cols << ");\n"
      << in << "l32 -= outer * static_cast<uint32_t>(" << rows << " * " << cols << ");\n";
    for (size_t i = G - 2; i-- > 0;)
      o << in << "const int64_t " << var(grid_[i]->regions[0].args[0]) << " = outer % static_cast<uint32_t>(grid_n" << i << ");\n"
        << in << "outer /= static_cast<uint32_t>(grid_n" << i << ");\n";
  }
  o << in << "// " << g << " rows of tiles walk the columns together (their operands stay in L2)\n"
    << in << "const uint32_t band = static_cast<uint32_t>(loom_min(" << rows << ", " << g << ") * " << cols
    << "), group = l32 / band, first = group * " << g << ";\n"
    << in << "const uint32_t gsize = static_cast<uint32_t>(loom_min(" << rows << " - first, " << g
    << ")), within = l32 - group * band;\n";
}

// The host function fold_tiles(arguments, grid): 1 when the folded order gives the busiest block
// less work than the plain one. O(tiles) with no division per tile; calls of more than 2^20 tiles
// keep the plain order without evaluating.
std::string CudaGen::tile_order_function() {
  const size_t G = grid_.size();
  const ValueId inner = grid_.back()->regions[0].args[0];
  std::ostringstream o;
  o << "// Which tile order balances the persistent blocks' work better (tile_order.cpp): the loop at line "
    << uneven_->loc.line << " runs a number of\n// iterations that depends on " << var(inner)
    << "; 1 = the folded order (n - 1, 0, n - 2, 1, ...), 0 = the plain one.\n"
    << "int fold_tiles(" << launch_params() << ", int64_t grid) {\n"
    << "  (void)stream;\n";
  for (ValueId p : f_.params) o << "  (void)" << (f_.info(p).type == ir::Type::Tensor ? pname(p) : var(p)) << ";\n";
  std::set<ValueId> have(f_.params.begin(), f_.params.end());
  for (const std::string& l : grid_lines(have)) o << "  " << l << "\n";
  const std::string n = "grid_n" + std::to_string(G - 1);
  o << "  if (blocks <= grid || grid <= 0 || blocks > (int64_t{1} << 20)) return 0;  // one tile per block, or too many to weigh\n"
    << "  // each value of the innermost index: the loop's iterations plus one for the tile itself\n"
    << "  std::vector<double> cost(static_cast<size_t>(" << n << "));\n"
    << "  for (int64_t at = 0; at < " << n << "; ++at) {\n"
    << "    const int64_t " << var(inner) << " = at;\n";
  std::set<ValueId> local = have;
  local.insert(inner);
  for (const std::string& l : slice_lines(uneven_->operands[0], local, *uneven_)) o << "    " << l << "\n";
  o << "    cost[static_cast<size_t>(at)] = static_cast<double>(" << var(uneven_->operands[0]) << ") + 1.0;\n"
    << "  }\n"
    << "  // walk the tiles in the kernel's grouped order; tile lin runs on block lin % grid\n"
    << "  std::vector<double> plain(static_cast<size_t>(grid)), folded(static_cast<size_t>(grid));\n"
    << "  const int64_t outer = blocks / " << (G >= 2 ? "(grid_n" + std::to_string(G - 2) + " * " + n + ")" : n) << ";\n"
    << "  const int64_t across = " << (G >= 2 ? "grid_n" + std::to_string(G - 2) : std::string("1")) << ";\n"
    << "  int64_t block = 0;\n"
    << "  for (int64_t r = 0; r < outer; ++r)\n"
    << "    for (int64_t first = 0; first < across; first += " << kGroupTiles << ") {\n"
    << "      const int64_t gsize = across - first < " << kGroupTiles << " ? across - first : " << kGroupTiles << ";\n"
    << "      for (int64_t pos = 0; pos < " << n << "; ++pos) {\n"
    << "        const double c = cost[static_cast<size_t>(pos)];\n"
    << "        const double f = cost[static_cast<size_t>(loom::rt::fold_index(pos, " << n << "))];\n"
    << "        for (int64_t g = 0; g < gsize; ++g) {\n"
    << "          plain[static_cast<size_t>(block)] += c;\n"
    << "          folded[static_cast<size_t>(block)] += f;\n"
    << "          if (++block == grid) block = 0;\n"
    << "        }\n"
    << "      }\n"
    << "    }\n"
    << "  double most_plain = 0.0, most_folded = 0.0;\n"
    << "  for (int64_t k = 0; k < grid; ++k) {\n"
    << "    most_plain = most_plain > plain[static_cast<size_t>(k)] ? most_plain : plain[static_cast<size_t>(k)];\n"
    << "    most_folded = most_folded > folded[static_cast<size_t>(k)] ? most_folded : folded[static_cast<size_t>(k)];\n"
    << "  }\n"
    << "  return most_folded < most_plain ? 1 : 0;\n"
    << "}\n\n";
  return o.str();
}

}  // namespace loom::codegen::detail

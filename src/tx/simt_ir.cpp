// The SIMT kernel IR's printer. See simt_ir.h.
#include "tx/simt_ir.h"

#include <sstream>

namespace loom::tx {

std::string print_simt(const Model& m, const SimtKernel& k) {
  std::ostringstream o;
  auto var = [&](int l) { return m.loop_var(l); };
  auto extent = [&](int l) { return print_expr(m.loops[static_cast<size_t>(l)].stmt->extent); };
  o << "simt " << k.name << "(";
  for (size_t p = 0; p < k.params.size(); ++p) {
    const TensorInfo& t = m.tensors[static_cast<size_t>(k.params[p].tensor)];
    o << (p ? ", " : "") << t.name << ": " << (k.params[p].written ? "w " : "r ") << dtype_name(t.dtype) << "[";
    for (size_t d = 0; d < t.decl->extents.size(); ++d) o << (d ? ", " : "") << print_expr(t.decl->extents[d]);
    o << "]";
  }
  o << ") {\n";
  auto stmt = [&](const SimtStmt& s, const std::string& indent) {
    o << indent;
    if (s.kind == SimtStmt::Kind::Reduce)
      o << print_expr(s.src->lhs) << " = " << combine_name(s.op) << "(" << print_expr(s.src->lhs) << ", " << print_expr(*s.value) << ")";
    else
      o << print_expr(s.src->lhs) << (s.src->accumulate ? " += " : " = ") << print_expr(*s.value);
    o << ";  // line " << s.src->loc.line << "\n";
  };
  if (k.shape == SimtKernel::Shape::Map) {
    for (int l : k.nest) {
      o << "  par " << extent(l) << " " << var(l) << " -> ";
      if (l == k.lane_loop) o << "block tile " << SimtKernel::kTile << ", lane" << (k.staged ? " (read phase), warp (write phase)" : "");
      else if (l == k.row_loop) o << "block tile " << SimtKernel::kTile << ", warp + " << SimtKernel::kWarps << " * s" << (k.staged ? " (read phase), lane (write phase)" : "");
      else o << "block";
      o << "\n";
    }
    if (k.staged) o << "  shared tile f32[32][" << (k.layout == SmemLayout::Padded ? 33 : 32) << "], " << smem_layout_name(k.layout) << " layout\n";
    for (const SimtStmt& s : k.stmts) stmt(s, "    ");
  } else {
    o << "  par " << extent(k.rows_loop) << " " << var(k.rows_loop) << " -> "
      << (k.rows_by_lanes ? "warp (row length <= " + std::to_string(k.warp_max_len) + ") or block of " + std::to_string(k.block_threads) +
                                " threads (longer rows), chosen at run time from " + print_expr(*k.row_length)
                          : std::string("thread"))
      << "\n";
    for (const Expr* c : k.cached)
      o << "    register row cache " << print_expr(*c) << " (vector path, rows up to " << k.cache_chunks * k.vector_elems << " x the row's threads)\n";
    for (int t : k.scalars) o << "    register " << m.tensors[static_cast<size_t>(t)].name << ": " << dtype_name(m.tensors[static_cast<size_t>(t)].dtype) << "\n";
    for (const SimtStmt& s : k.stmts) {
      if (s.loop < 0) {
        stmt(s, "    ");
        continue;
      }
      o << "    " << (m.loops[static_cast<size_t>(s.loop)].stmt->par ? "par " : "seq ") << extent(s.loop) << " " << var(s.loop) << " -> "
        << (k.rows_by_lanes ? "row threads, stride row threads" : "sequential") << (k.rows_by_lanes && k.vector_elems > 1 ? " (vectors of " + std::to_string(k.vector_elems) + " when aligned)" : "")
        << (s.kind == SimtStmt::Kind::Reduce && k.rows_by_lanes ? ", partials combined across the row" : "") << "\n";
      for (const Expr* x : s.invariants) o << "      once per row: " << print_expr(*x) << "\n";
      for (const Expr* x : s.divisions) o << "      divide through the reciprocal, prepared once per row: " << print_expr(*x) << "\n";
      stmt(s, "      ");
    }
  }
  o << "}\n";
  return o.str();
}

}  // namespace loom::tx

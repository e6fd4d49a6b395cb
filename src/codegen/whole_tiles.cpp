// Loop versioning on whole tiles. A loop `for %k in [0, n)` over the tiles of a dimension clips
// only its last tile: the extent `loom_clip(E, k * B, B)` of the piece `blocks(X, [.., B])[k]` is
// B for every k with (k + 1) * B <= E. When the body, with no loop inside it, holds a row
// reduction that branches on such an extent (emit_by_columns: the masked and unmasked forms, a
// uniform branch per op), the compute stream's body is emitted twice: once for whole tiles, with
// every such extent replaced by B (so the C++ compiler folds the branches away and the body is one
// straight line the scheduler can interleave: the row sum's adds among the exponentials, the pack
// among both), and once as it was, for the clipped tile:
//
//   const bool k_whole = (k + 1) * B <= E && ...;  // every clipped extent of this iteration is B
//   if (k_whole) { body, extents = B } else { body }
//
// The replacement is an equality under the guard, so both copies compute the same thing; the
// stream's bookkeeping (wgmma groups, waits, definitions) was done once, for the one emission both
// copies share. Occurrences under a deferred mma's index (pingpong.cpp: `k` redefined as
// `k_deferred = k - 1`) are replaced too: tile k - 1 is whole when tile k is. A body that
// redefines k any other way, or clips with an E or B declared in the body, is left as it was.
// Not for an A-fragment pack's branch alone (relu_gemm's K loop: 2-4% slower copied, H100,
// bench/results/2026-11-28-h100-attention-whole-tiles.md), nor around a nested loop.
#include <functional>
#include <regex>

#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

void CudaGen::version_whole_tiles(Stream& s, const Op& loop, size_t body_begin, size_t branches_before) {
  if (extent_branches_.size() == branches_before || body_begin >= s.lines.size()) return;
  // A body holding a loop is no straight line either way, and copying a K loop costs its kernel
  // instruction-cache room (gemm_reduce_shared's column loop).
  std::function<bool(const ir::Block&)> has_loop = [&](const ir::Block& b) {
    for (const Op& o : b.ops) {
      if (o.kind == OpKind::For) return true;
      for (const ir::Block& r : o.regions)
        if (has_loop(r)) return true;
    }
    return false;
  };
  if (has_loop(loop.regions[0])) return;
  const std::string k = var(loop.regions[0].args[0]);
  std::vector<std::string> body(s.lines.begin() + static_cast<long>(body_begin), s.lines.end());
  // Names declared in the body: a clip whose E or B is one of them cannot be tested before it.
  static const std::regex decl(R"(^\s*(?:const\s+)?(?:int64_t|int|bool|float|auto)\s+(\w+)\s*(?:=|\[))");
  std::set<std::string> declared;
  for (const std::string& l : body) {
    std::smatch m;
    if (!std::regex_search(l, m, decl)) continue;
    const std::string name = m[1];
    if (name == k) {  // only the deferred mma's `k = k_deferred` (= k - 1) may redefine k
      if (l.find("const int64_t " + k + " = " + k + "_deferred;") == std::string::npos) return;
    } else if (name == k + "_deferred") {
      if (l.find("const int64_t " + k + "_deferred = " + k + " - 1;") == std::string::npos) return;
    }
    declared.insert(name);
  }
  // loom_clip(E, (k * B), B): E a name or a tensor's shape entry, B a name or a number.
  const std::regex clip(R"(loom_clip\(([A-Za-z_]\w*(?:\.shape\[\d+\])?), \()" + k + R"( \* ([A-Za-z_]\w*|\d+)\), \2\))");
  std::set<std::pair<std::string, std::string>> extents;  // (E, B)
  for (const std::string& l : body)
    for (auto it = std::sregex_iterator(l.begin(), l.end(), clip); it != std::sregex_iterator(); ++it) {
      const std::string e = (*it)[1], b = (*it)[2];
      const std::string e_root = e.substr(0, e.find('.'));
      if (declared.count(e_root) || declared.count(b) || e_root == k || b == k) return;
      extents.insert({e, b});
    }
  if (extents.empty()) return;
  // Worth it only if some branch of the body tests one of these extents: follow each branch's
  // extent through the body's `const int64_t x = y;` copies to a clip of k.
  std::map<std::string, std::string> defs;  // name -> its initializer, for names declared in the body
  static const std::regex init(R"(^\s*const int64_t (\w+) = (.*);)");
  for (const std::string& l : body) {
    std::smatch m;
    if (std::regex_search(l, m, init)) defs.emplace(m[1], m[2]);
  }
  bool tested = false;
  for (size_t i = branches_before; i < extent_branches_.size() && !tested; ++i) {
    std::string x = extent_branches_[i];
    for (int hops = 0; hops < 8 && defs.count(x); ++hops) {
      x = defs.at(x);
      if (std::regex_match(x, clip)) tested = true;
    }
  }
  if (!tested) return;
  std::string guard;
  for (const auto& [e, b] : extents) guard += std::string(guard.empty() ? "" : " && ") + "(" + k + " + 1) * " + b + " <= " + e;
  const std::string ind(static_cast<size_t>(s.indent), ' ');
  std::vector<std::string> out;
  out.push_back(ind + "// whole_tiles.cpp: the body twice, for whole tiles (every clipped extent below is its block) and");
  out.push_back(ind + "// for the clipped last tile, so that the whole tiles' row operations need no branch on the extent");
  out.push_back(ind + "const bool " + k + "_whole = " + guard + ";");
  out.push_back(ind + "if (" + k + "_whole) {");
  for (const std::string& l : body) out.push_back("  " + std::regex_replace(l, clip, "$2"));
  out.push_back(ind + "} else {");
  for (const std::string& l : body) out.push_back("  " + l);
  out.push_back(ind + "}");
  s.lines.resize(body_begin);
  s.lines.insert(s.lines.end(), out.begin(), out.end());
}

}  // namespace loom::codegen::detail

// Copy elimination, rewrite 1 (copy_elimination.h): canonicalize — fold `dim` of an alloc, merge
// identical immediate ops in a scope (CSE), hoist a loop body's immediate ops that use nothing
// defined in it (LICM), so that pieces cut alike are the same SSA value for the rewrites that follow.
#include "passes/copy_elimination_internal.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace loom::copy_elimination_detail {

// 1. canonicalize: fold dim-of-alloc, CSE immediate ops per scope, hoist loop invariants.
bool CopyEliminator::canonicalize() {
  bool changed = false;
  std::unordered_map<ValueId, std::vector<ValueId>> extents;  // alloc -> extents
  std::unordered_set<ValueId> none_allocs;
  // Blocks pieces: a whole (`*`) dimension of the piece is the parent's (parent, whole dims).
  std::unordered_map<ValueId, std::pair<ValueId, std::vector<bool>>> blocks_pieces;
  struct BlocksPiece {
    ValueId src = kNone;
    std::vector<ValueId> block, index;
  };
  std::unordered_map<ValueId, BlocksPiece> blocks_ops;  // (copies: the walk below edits the blocks)
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc) extents[op.result] = op.operands;
    if (op.kind == OpKind::Alloc && op.mem == MemKind::None) none_allocs.insert(op.result);
    if (op.kind == OpKind::Piece && op.part.kind == ir::PartitionSpec::Kind::Blocks && op.result != kNone) {
      std::vector<bool> whole;
      for (ValueId b : op.part.block) whole.push_back(b == kNone);
      blocks_pieces[op.result] = {op.operands[0], whole};
      blocks_ops[op.result] = {op.operands[0], op.part.block, {op.operands.begin() + 1, op.operands.end()}};
    }
  });
  // Entry parameters' dimensions by name: the entry signature says two parameters' dimensions
  // named alike are the same extent (the launcher and the executor check it), so `dim %R, 0` and
  // `dim %C, 0` of gemm_reduce's R: f32[M] and C: T[M, N] are one value.
  std::map<std::pair<ValueId, int64_t>, std::string> param_dims;
  if (f_.entry)
    for (size_t p = 0; p < f_.params.size() && p < f_.entry->params.size(); ++p)
      for (size_t d = 0; d < f_.entry->params[p].dims.size(); ++d)
        param_dims[{f_.params[p], static_cast<int64_t>(d)}] = f_.entry->params[p].dims[d];
  auto whole_parent = [&](ValueId v, int64_t d) -> ValueId {
    auto it = blocks_pieces.find(v);
    if (it == blocks_pieces.end() || d < 0 || static_cast<size_t>(d) >= it->second.second.size() ||
        !it->second.second[static_cast<size_t>(d)])
      return kNone;
    return it->second.first;
  };
  std::unordered_map<ValueId, ValueId> repl;
  auto get = [&](ValueId v) {
    for (auto it = repl.find(v); it != repl.end(); it = repl.find(v)) v = it->second;
    return v;
  };
  // The structural key of extent d of tensor value t: a named entry dimension, or a blocks piece's
  // extent from its parent's, its block size and its index (a piece of extent min(b, n - i * b)),
  // so that pieces cut alike from tensors of equal extents have equal extents:
  //   %Cp = piece %C blocks[%U, *] [%i, %c0]      dim %Cp, 0  ->  blk(M, %U, %i)
  //   %Rp = piece %R blocks[%U] [%i]              dim %Rp, 0  ->  blk(M, %U, %i)
  std::function<std::string(ValueId, int64_t)> dim_key = [&](ValueId t, int64_t d) -> std::string {
    t = get(t);
    auto pd = param_dims.find({t, d});
    if (pd != param_dims.end()) return "dim(" + pd->second + ")";
    auto bp = blocks_ops.find(t);
    if (bp != blocks_ops.end() && d >= 0 && static_cast<size_t>(d) < bp->second.block.size() &&
        static_cast<size_t>(d) < bp->second.index.size()) {
      const BlocksPiece piece = bp->second;
      const ValueId b = piece.block[static_cast<size_t>(d)];
      if (b == kNone) return dim_key(piece.src, d);
      return "blk(" + dim_key(piece.src, d) + "," + std::to_string(get(b)) + "," +
             std::to_string(get(piece.index[static_cast<size_t>(d)])) + ")";
    }
    return "v" + std::to_string(t) + "#" + std::to_string(d);
  };
  std::function<void(Block&, std::map<std::string, ValueId>)> walk = [&](Block& b, std::map<std::string, ValueId> scope) {
    for (size_t i = 0; i < b.ops.size();) {
      Op& op = b.ops[i];
      for_each_operand(op, [&](ValueId& v) { v = get(v); });
      if (op.kind == OpKind::Dim) {
        auto ext = extents.find(op.operands[0]);
        if (ext != extents.end() && op.ival >= 0 && static_cast<size_t>(op.ival) < ext->second.size()) {
          repl[op.result] = get(ext->second[static_cast<size_t>(op.ival)]);
          b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
          changed = true;
          continue;
        }
      }
      if (immediate(op.kind) && op.result != kNone) {
        // dim(piece P blocks[.., *, ..], d) is dim(P, d): such dims are keyed by P (the op stays
        // as it is unless an equal one is in scope).
        Op keyed;
        if (op.kind == OpKind::Dim) {
          keyed = op;
          for (ValueId p = whole_parent(keyed.operands[0], keyed.ival); p != kNone; p = whole_parent(p, keyed.ival))
            keyed.operands[0] = p = get(p);
          // ... and when P is a NONE allocation, its extent operand (as a dim of P itself folds):
          // a leading piece blocks(P, [*, n])[0, 0] and P are then partitioned alike along the
          // whole dimensions (FA3: the clipped score tile and the whole one, cut between the
          // warpgroups by rows).
          auto ext = extents.find(keyed.operands[0]);
          if (keyed.operands[0] != op.operands[0] && ext != extents.end() && none_allocs.count(keyed.operands[0]) &&
              static_cast<size_t>(op.ival) < ext->second.size()) {
            repl[op.result] = get(ext->second[static_cast<size_t>(op.ival)]);
            b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
            changed = true;
            continue;
          }
        }
        std::string key = op.kind == OpKind::Dim ? "dim|" + dim_key(keyed.operands[0], keyed.ival) : cse_key(op);
        auto it = scope.find(key);
        if (it != scope.end() && same_type(it->second, op.result)) {
          repl[op.result] = it->second;
          b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
          changed = true;
          continue;
        }
        scope[key] = op.result;
      }
      if (op.kind == OpKind::For && op.regions.size() == 1) {
        std::vector<Op> hoisted = loop_invariants(op.regions[0], get);
        if (!hoisted.empty()) {
          b.ops.insert(b.ops.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(hoisted.begin()),
                       std::make_move_iterator(hoisted.end()));
          changed = true;
          continue;  // visit the hoisted ops first (they may merge with ops already in scope)
        }
      }
      for (Block& r : b.ops[i].regions) walk(r, scope);
      ++i;
    }
    for (ValueId& y : b.yield.indices)
      if (y != kNone) y = get(y);
  };
  walk(f_.body, {});
  for (ValueId& y : f_.result.indices)
    if (y != kNone) y = get(y);
  if (!repl.empty()) replace_values(repl);  // uses in yields of enclosing blocks, etc.
  // A piece lives in its tensor's memory (which changes when a rewrite gives the tensor another
  // allocation: a NONE local placed in a SHARED buffer).
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind != OpKind::Piece || op.result == kNone) return;
    MemKind m = f_.info(op.operands[0]).mem;
    if (f_.info(op.result).mem != m) {
      f_.values.at(static_cast<size_t>(op.result)).mem = m;
      changed = true;
    }
  });
  return changed;
}

std::string CopyEliminator::cse_key(const Op& op) {
  std::ostringstream k;
  k << static_cast<int>(op.kind) << '|' << op.ival << '|';
  uint64_t bits = 0;
  std::memcpy(&bits, &op.fval, sizeof bits);
  k << bits << '|' << op.name << '|' << static_cast<int>(op.proc) << '|';
  for (ValueId v : op.operands) k << v << ',';
  if (op.kind == OpKind::Piece) {
    const ir::PartitionSpec& p = op.part;
    k << "|p" << static_cast<int>(p.kind) << ',' << p.dim << ',' << static_cast<int>(p.role) << ',' << p.instr << ','
      << p.m << ',' << p.n << ',' << p.k << ',' << static_cast<int>(p.holder) << ':';
    for (ValueId v : p.block) k << v << ',';
  }
  return k.str();
}

// Removes from `body` the immediate ops that use nothing defined in it (transitively) and returns
// them in order, operands already renamed.
template <typename Get>
std::vector<Op> CopyEliminator::loop_invariants(Block& body, Get&& get) {
  std::unordered_set<ValueId> inner(body.args.begin(), body.args.end());
  std::vector<Op> out;
  std::vector<Op> keep;
  for (Op& op : body.ops) {
    bool inv = immediate(op.kind) && op.result != kNone;
    if (inv) {
      for_each_operand(op, [&](ValueId& v) {
        v = get(v);
        if (inner.count(v)) inv = false;
      });
    }
    if (inv) {
      out.push_back(std::move(op));
    } else {
      if (op.result != kNone) inner.insert(op.result);
      keep.push_back(std::move(op));
    }
  }
  body.ops = std::move(keep);
  return out;
}

}  // namespace loom::copy_elimination_detail

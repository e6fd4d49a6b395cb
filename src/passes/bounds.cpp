// Static bounds of index values and tensor extents. See bounds.h.
#include "passes/bounds.h"

#include <algorithm>
#include <functional>

#include "layout/partition.h"

namespace loom {

namespace {

using ir::Op;
using ir::OpKind;
using ir::PartitionSpec;
using ir::Type;
using ir::ValueId;
using Opt = std::optional<int64_t>;

Opt add(Opt a, Opt b) {
  int64_t r;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}
Opt sub(Opt a, Opt b) {
  int64_t r;
  if (!a || !b || __builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}
Opt mul(Opt a, Opt b) {
  int64_t r;
  if (!a || !b || __builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}
// The smaller of the known values (one known value is a bound on a minimum).
Opt min_known(Opt a, Opt b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

const MmaInstr* find_instr(const std::string& name) {
  if (const MmaInstr* i = hopper_machine().find_mma(name)) return i;
  return ampere_machine().find_mma(name);
}

}  // namespace

StaticBounds::StaticBounds(const ir::Function& f) : f_(f), names_(ir::value_names(f)) {
  std::function<void(const ir::Block&)> scan = [&](const ir::Block& b) {
    for (const Op& op : b.ops) {
      if (op.result != ir::kNone) defs_[op.result].op = &op;
      for (const ir::Block& r : op.regions) {
        for (ValueId a : r.args) defs_[a].loop = &op;
        scan(r);
      }
    }
  };
  scan(f.body);
}

StaticBounds::Interval StaticBounds::range(ValueId v) const {
  if (v < 0 || static_cast<size_t>(v) >= f_.values.size() || f_.info(v).type != Type::Index) return {};
  if (auto it = ranges_.find(v); it != ranges_.end()) return it->second;
  Interval r;
  auto d = defs_.find(v);
  if (d != defs_.end() && d->second.loop) {
    // A loop's induction variable in [0, n).
    const Op& loop = *d->second.loop;
    Opt n = loop.operands.empty() ? std::nullopt : range(loop.operands[0]).hi;
    r = {0, n ? std::optional<int64_t>(std::max<int64_t>(*n - 1, 0)) : std::nullopt};
  } else if (d != defs_.end() && d->second.op) {
    const Op& op = *d->second.op;
    switch (op.kind) {
      case OpKind::Const: r = {op.ival, op.ival}; break;
      case OpKind::ProcIndex: {
        auto e = f_.proc_extents.find(op.proc);
        r = {0, e == f_.proc_extents.end() ? std::nullopt : std::optional<int64_t>(std::max<int64_t>(e->second - 1, 0))};
        break;
      }
      case OpKind::Dim: {
        std::vector<Opt> ext = extent_bounds(op.operands.at(0));
        r = {0, op.ival >= 0 && static_cast<size_t>(op.ival) < ext.size() ? ext[static_cast<size_t>(op.ival)] : std::nullopt};
        break;
      }
      case OpKind::Arith: {
        Interval a = range(op.operands.at(0)), b = range(op.operands.at(1));
        const std::string& n = op.name;
        if (n == "add") {
          r = {add(a.lo, b.lo), add(a.hi, b.hi)};
        } else if (n == "sub") {
          r = {sub(a.lo, b.hi), sub(a.hi, b.lo)};
        } else if (n == "mul") {
          if (a.lo && *a.lo >= 0 && b.lo && *b.lo >= 0) {
            r = {mul(a.lo, b.lo), mul(a.hi, b.hi)};
          } else if (a.lo && a.hi && b.lo && b.hi) {
            Opt c[4] = {mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)};
            if (c[0] && c[1] && c[2] && c[3]) r = {std::min({*c[0], *c[1], *c[2], *c[3]}), std::max({*c[0], *c[1], *c[2], *c[3]})};
          }
        } else if (n == "div" || n == "cdiv") {
          // Non-negative dividend, positive divisor: monotone in both.
          if (a.lo && *a.lo >= 0 && b.lo && *b.lo > 0) {
            auto q = [&](int64_t x, int64_t y) { return n == "div" ? x / y : x / y + (x % y != 0); };
            r.lo = b.hi ? std::optional<int64_t>(q(*a.lo, *b.hi)) : std::optional<int64_t>(0);
            if (a.hi) r.hi = q(*a.hi, *b.lo);
          }
        } else if (n == "mod") {
          // C++ %: the sign of the dividend, |a % b| < b and <= |a|.
          if (b.lo && *b.lo > 0) {
            r.lo = a.lo && *a.lo >= 0 ? std::optional<int64_t>(0) : a.lo;
            r.hi = min_known(b.hi ? std::optional<int64_t>(*b.hi - 1) : std::nullopt,
                             a.hi ? std::optional<int64_t>(std::max<int64_t>(*a.hi, 0)) : std::nullopt);
          }
        } else if (n == "min") {
          r = {a.lo && b.lo ? std::optional<int64_t>(std::min(*a.lo, *b.lo)) : std::nullopt, min_known(a.hi, b.hi)};
        } else if (n == "max") {
          r.hi = a.hi && b.hi ? std::optional<int64_t>(std::max(*a.hi, *b.hi)) : std::nullopt;
          r.lo = a.lo && b.lo ? std::optional<int64_t>(std::max(*a.lo, *b.lo)) : (a.lo ? a.lo : b.lo);
        }
        break;
      }
      default: break;
    }
  }
  // (A function parameter, or anything else: unknown.)
  return ranges_[v] = r;
}

std::vector<Opt> StaticBounds::extent_bounds(ValueId t) const {
  if (t < 0 || static_cast<size_t>(t) >= f_.values.size() || f_.info(t).type != Type::Tensor) return {};
  if (auto it = extents_.find(t); it != extents_.end()) return it->second;
  const size_t rank = static_cast<size_t>(std::max(f_.info(t).rank, 0));
  std::vector<Opt> out(rank);
  auto d = defs_.find(t);
  const Op* op = d == defs_.end() ? nullptr : d->second.op;
  if (op && op->kind == OpKind::Alloc) {
    for (size_t i = 0; i < rank && i < op->operands.size(); ++i) {
      Opt hi = range(op->operands[i]).hi;
      out[i] = hi ? std::optional<int64_t>(std::max<int64_t>(*hi, 0)) : std::nullopt;
    }
  } else if (op && op->kind == OpKind::Piece && !op->operands.empty()) {
    std::vector<Opt> src = extent_bounds(op->operands[0]);
    const PartitionSpec& p = op->part;
    switch (p.kind) {
      case PartitionSpec::Kind::Blocks:
        for (size_t i = 0; i < rank && i < src.size(); ++i) {
          Opt blk = i < p.block.size() && p.block[i] != ir::kNone ? range(p.block[i]).hi : std::nullopt;
          out[i] = min_known(blk, src[i]);
        }
        break;
      case PartitionSpec::Kind::Slices:
        for (size_t i = 0; i < rank; ++i) {
          size_t s = i < static_cast<size_t>(p.dim) ? i : i + 1;
          if (s < src.size()) out[i] = src[s];
        }
        break;
      case PartitionSpec::Kind::Mma: {
        const MmaInstr* instr = find_instr(p.instr);
        bool known = instr && !src.empty() && src.size() <= 2 &&
                     std::all_of(src.begin(), src.end(), [](const Opt& x) { return x.has_value(); });
        if (!known) break;
        std::vector<int64_t> tile;
        for (const Opt& x : src) tile.push_back(*x);
        // Every piece of an mma partition has the same shape: piece 0's.
        std::vector<DimMap> maps = mma_piece(*instr, p.role, p.holder, tile, 0, p.transposed);
        for (size_t i = 0, j = 0; i < maps.size() && j < rank; ++i)
          if (!maps[i].modes.empty()) out[j++] = std::max<int64_t>(maps[i].extent(), 0);
        break;
      }
    }
  }
  return extents_[t] = out;
}

std::optional<int64_t> StaticBounds::tensor_bytes_bound(ValueId t) const {
  if (t < 0 || static_cast<size_t>(t) >= f_.values.size() || f_.info(t).type != Type::Tensor) return std::nullopt;
  Opt bytes = dtype_bytes(f_.info(t).dtype);
  for (const Opt& e : extent_bounds(t)) bytes = mul(bytes, e);
  return bytes;
}

std::string StaticBounds::why_unbounded(ValueId t) const {
  if (t < 0 || static_cast<size_t>(t) >= f_.values.size() || f_.info(t).type != Type::Tensor) return "it is not a tensor";
  std::vector<Opt> ext = extent_bounds(t);
  auto d = defs_.find(t);
  const Op* op = d == defs_.end() ? nullptr : d->second.op;
  for (size_t i = 0; i < ext.size(); ++i) {
    if (ext[i]) continue;
    std::string which = "extent " + std::to_string(i);
    if (op && op->kind == OpKind::Alloc && i < op->operands.size())
      return which + " (" + names_.at(static_cast<size_t>(op->operands[i])) + ") depends on " + why_value(op->operands[i], 0);
    return which + " depends on " + why_tensor_dim(t, static_cast<int>(i), 0);
  }
  if (!tensor_bytes_bound(t)) return "its size overflows 64 bits";
  return "";
}

// The source of index value `v`'s missing bound, as a noun phrase: follows the first unbounded
// operand down to a parameter, a tensor dimension or a loop with a run-time trip count.
std::string StaticBounds::why_value(ValueId v, int depth) const {
  const std::string& name = names_.at(static_cast<size_t>(v));
  auto d = defs_.find(v);
  if (d == defs_.end()) return name + ", a run-time argument";
  if (d->second.loop) {
    const Op& loop = *d->second.loop;
    if (depth < 64 && !loop.operands.empty()) return "loop variable " + name + ", whose trip count depends on " + why_value(loop.operands[0], depth + 1);
    return "loop variable " + name;
  }
  const Op& op = *d->second.op;
  if (depth < 64) {
    if (op.kind == OpKind::Dim) return why_tensor_dim(op.operands.at(0), static_cast<int>(op.ival), depth + 1);
    if (op.kind == OpKind::Arith) {
      for (ValueId u : op.operands)
        if (!range(u).hi) return why_value(u, depth + 1);
      for (ValueId u : op.operands)
        if (!range(u).lo) return why_value(u, depth + 1);
    }
  }
  if (op.kind == OpKind::ProcIndex) return name + ", a " + std::string(proc_name(op.proc)) + " index with no processor count";
  return name;
}

// The same for dimension `d` of tensor `t`.
std::string StaticBounds::why_tensor_dim(ValueId t, int d, int depth) const {
  const std::string& name = names_.at(static_cast<size_t>(t));
  auto def = defs_.find(t);
  const Op* op = def == defs_.end() ? nullptr : def->second.op;
  std::string self = "dimension " + std::to_string(d) + " of " + name;
  if (!op) return self + ", a run-time size";
  if (depth >= 64) return self;
  if (op->kind == OpKind::Alloc && static_cast<size_t>(d) < op->operands.size())
    return why_value(op->operands[static_cast<size_t>(d)], depth + 1);
  if (op->kind == OpKind::Piece && !op->operands.empty()) {
    const PartitionSpec& p = op->part;
    ValueId src = op->operands[0];
    switch (p.kind) {
      case PartitionSpec::Kind::Blocks: return why_tensor_dim(src, d, depth + 1);
      case PartitionSpec::Kind::Slices: return why_tensor_dim(src, d < p.dim ? d : d + 1, depth + 1);
      case PartitionSpec::Kind::Mma: {
        std::vector<Opt> se = extent_bounds(src);
        for (size_t i = 0; i < se.size(); ++i)
          if (!se[i]) return why_tensor_dim(src, static_cast<int>(i), depth + 1);
        return self + " (an mma partition this compiler cannot size)";
      }
    }
  }
  return self;
}

}  // namespace loom

// Printer for the event IR: stable text for goldens and --print-after-all. See ir.h.
#include <cstdio>
#include <functional>
#include <map>

#include "ir/ir.h"

namespace loom::ir {

ValueId Function::add_value(ValueInfo v) {
  values.push_back(std::move(v));
  return static_cast<ValueId>(values.size() - 1);
}

int64_t carried_distance(const Op& for_op, size_t j) { return j < for_op.distances.size() ? for_op.distances[j] : 1; }

const char* role_name(Role r) {
  switch (r) {
    case Role::Any: return "any";
    case Role::Dma: return "dma";
    case Role::Compute: return "compute";
  }
  return "?";
}

const char* privilege_name(ParamPrivilege p) {
  switch (p) {
    case ParamPrivilege::Read: return "r";
    case ParamPrivilege::Write: return "w";
    case ParamPrivilege::ReadWrite: return "rw";
    case ParamPrivilege::ReduceSum: return "red(sum)";
    case ParamPrivilege::ReduceMax: return "red(max)";
  }
  return "?";
}

std::string layout_text(const TileLayout& l) {
  std::string s = l.col_major ? "col_major" : "row_major";
  if (l.swizzle) s += " swizzle" + std::to_string(l.swizzle);
  return s;
}

namespace {

class Printer {
 public:
  explicit Printer(const Function& f) : f_(f), names_(value_names(f)) {}

  std::string run() {
    std::string out = "func @" + f_.name + "(";
    for (size_t i = 0; i < f_.params.size(); ++i) {
      out += (i ? ", " : "") + typed(f_.params[i]);
      auto pl = f_.param_layouts.find(f_.params[i]);
      if (pl != f_.param_layouts.end()) out += " layout(" + layout_text(pl->second) + ")";
    }
    out += ")";
    if (!f_.proc_extents.empty()) {  // after vectorization: processors per parent
      out += " processors(";
      bool first = true;
      for (const auto& [k, n] : f_.proc_extents) {
        out += (first ? "" : ", ") + std::string(proc_name(k)) + "=" + std::to_string(n);
        first = false;
      }
      out += ")";
    }
    if (!f_.smem_slots.empty()) out += " smem(" + std::to_string(f_.smem.bytes) + ")";  // after resource allocation
    if (f_.warp_roles) {  // after warp specialization
      const WarpRoles& w = *f_.warp_roles;
      out += " warp_roles(dma: " + std::to_string(w.dma_warpgroups) + " x " + std::to_string(w.dma_regs) + " regs, compute: " +
             std::to_string(w.compute_warpgroups) + " x " + std::to_string(w.compute_regs) + " regs" +
             (w.teams > 1 ? ", " + std::to_string(w.teams) + (w.k_split ? " K teams" : " teams") : std::string()) + ")";
    }
    out += " {\n";
    block(f_.body, 1, out);
    out += "  return " + ref(f_.result) + "\n}\n";
    return out;
  }

 private:
  std::string val(ValueId v) const {
    if (v == kNone) return "*";
    if (v < 0 || static_cast<size_t>(v) >= names_.size() || names_[static_cast<size_t>(v)].empty())
      return "%?" + std::to_string(v);
    return names_[static_cast<size_t>(v)];
  }

  std::string typed(ValueId v) const {
    const ValueInfo& i = f_.info(v);
    switch (i.type) {
      case Type::Index: return val(v) + ": index";
      case Type::Float: return val(v) + ": float";
      case Type::Event: return val(v) + ": event";
      case Type::Events: {
        std::string s = val(v) + ": events[";
        for (size_t d = 0; d < i.event_dims.size(); ++d) s += (d ? ", " : "") + std::string(proc_name(i.event_dims[d]));
        return s + "]";
      }
      case Type::Tensor:
        return val(v) + ": " + dtype_name(i.dtype) + "<" + std::to_string(i.rank) + ">@" + mem_name(i.mem);
    }
    return val(v);
  }

  std::string ref(const EventRef& r) const {
    if (r.value == kNone) return "none";
    std::string s = val(r.value);
    if (!r.indices.empty()) {
      s += "[";
      for (size_t i = 0; i < r.indices.size(); ++i) s += (i ? ", " : "") + (r.indices[i] == kNone ? ":" : val(r.indices[i]));
      s += "]";
    }
    return r.cross ? "cross(" + s + ")" : s;
  }

  std::string after(const Op& op) const {
    std::string s = " after [";
    for (size_t i = 0; i < op.after.size(); ++i) s += (i ? ", " : "") + ref(op.after[i]);
    return s + "]";
  }

  std::string partition(const Op& op) const {
    const PartitionSpec& p = op.part;
    switch (p.kind) {
      case PartitionSpec::Kind::Blocks: {
        std::string s = "blocks[";
        for (size_t i = 0; i < p.block.size(); ++i) s += (i ? ", " : "") + val(p.block[i]);
        return s + "]";
      }
      case PartitionSpec::Kind::Slices: return "slices(" + std::to_string(p.dim) + ")";
      case PartitionSpec::Kind::Mma:
        return std::string("mma(") + mma_role_name(p.role) + ", " + p.instr + "(" + std::to_string(p.m) + ", " +
               std::to_string(p.n) + ", " + std::to_string(p.k) + "), " + (p.transposed ? "transposed, " : "") + proc_name(p.holder) + ")";
    }
    return "?";
  }

  void block(const Block& b, int depth, std::string& out) const {
    std::string ind(static_cast<size_t>(depth) * 2, ' ');
    for (const Op& op : b.ops) {
      if (!op.origin.empty()) out += ind + "// " + op.origin + "\n";
      out += ind;
      if (op.result != kNone) out += val(op.result) + " = ";
      switch (op.kind) {
        case OpKind::Const: out += "const " + std::to_string(op.ival); break;
        case OpKind::FConst: {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.17g", op.fval);
          out += std::string("fconst ") + buf;
          break;
        }
        case OpKind::Join: out += "join" + after(op); break;
        case OpKind::Arith: out += op.name + " " + val(op.operands[0]) + ", " + val(op.operands[1]); break;
        case OpKind::Dim: out += "dim " + val(op.operands[0]) + ", " + std::to_string(op.ival); break;
        case OpKind::ProcIndex: out += std::string("proc_index ") + proc_name(op.proc); break;
        case OpKind::Alloc: {
          out += std::string("alloc ") + mem_name(op.mem) + " " + dtype_name(op.dtype) + " [";
          for (size_t i = 0; i < op.operands.size(); ++i) out += (i ? ", " : "") + val(op.operands[i]);
          out += "]";
          if (op.layout.given) out += " layout(" + layout_text(op.layout) + ")";
          if (op.holds != kNone) out += " holds(" + val(op.holds) + ")";
          if (auto s = f_.smem_slots.find(op.result); s != f_.smem_slots.end() && s->second.registers) {
            out += " @registers";  // resource allocation: the back end keeps it in registers
          } else if (s != f_.smem_slots.end()) {  // resource allocation
            out += " @smem[" + std::to_string(s->second.offset) + ", " + std::to_string(s->second.offset + s->second.bytes) + ")";
            if (s->second.copies > 1) out += " x" + std::to_string(s->second.copies);
          }
          break;
        }
        case OpKind::Piece: {
          out += "piece " + val(op.operands[0]) + " " + partition(op) + " [";
          for (size_t i = 1; i < op.operands.size(); ++i) out += (i > 1 ? ", " : "") + val(op.operands[i]);
          out += "]";
          break;
        }
        case OpKind::Copy:
          out += (op.name.empty() ? "copy " : "copy." + op.name + " ") + val(op.operands[0]) + " -> " +
                 val(op.operands[1]) + after(op);
          break;
        case OpKind::Call: {
          out += "call " + op.name + "(";
          for (size_t i = 0; i < op.operands.size(); ++i) out += (i ? ", " : "") + val(op.operands[i]);
          out += std::string(")") + (op.broadcast_dim == 1 ? " broadcast(cols)" : "") + after(op);
          break;
        }
        case OpKind::For:
        case OpKind::PFor: {
          const Block& body = op.regions.at(0);
          if (op.kind == OpKind::For) {
            out += "for " + val(body.args.at(0)) + " in [0, " + val(op.operands.at(0)) + ") iter(";
            for (size_t j = 1; j < body.args.size(); ++j) {
              out += (j > 1 ? ", " : "") + val(body.args[j]);
              if (int64_t d = carried_distance(op, j - 1); d != 1) out += " distance " + std::to_string(d);
            }
            out += ")";
            if (op.pipeline_depth != 1) out += " pipeline(" + std::to_string(op.pipeline_depth) + ")";
            if (op.warp_specialize) out += " warpspecialize";
            if (op.pingpong) out += op.pingpong_double_buffer ? " pingpong(double_buffer)" : " pingpong";
            if (op.split_k != 1) out += " splitk(" + std::to_string(op.split_k) + ")";
            if (op.stream_k) out += " streamk";
            if (op.multicast != 1 || op.multicast_n != 1)
              out += " multicast(" + std::to_string(op.multicast) + (op.multicast_n != 1 ? ", " + std::to_string(op.multicast_n) : "") + ")";
            if (op.alternate != 1) out += " alternate(" + std::to_string(op.alternate) + ")";
            if (op.k_teams != 1) out += " kteams(" + std::to_string(op.k_teams) + ")";
            if (op.dma_regs || op.compute_regs)
              out += " regs(" + std::to_string(op.dma_regs) + ", " + std::to_string(op.compute_regs) + ")";
            out += after(op) + " {\n";
          } else {
            out += std::string("pfor ") + proc_name(op.proc) + " " + val(body.args.at(0)) + " in [0, " +
                   val(op.operands.at(0)) + ")" + after(op) + " {\n";
          }
          block(body, depth + 1, out);
          out += ind + "  yield " + ref(body.yield) + "\n" + ind + "}";
          break;
        }
      }
      // A vectorized op (run once per processor) shows its event array type.
      if (op.kind != OpKind::PFor && op.result != kNone && f_.info(op.result).type == Type::Events) {
        std::string t = typed(op.result);
        out += " :" + t.substr(t.find(':') + 1);
      }
      if (op.role != Role::Any) out += std::string(" role(") + role_name(op.role) + ")";
      out += "\n";
    }
  }

  const Function& f_;
  std::vector<std::string> names_;
};

}  // namespace

std::vector<std::string> value_names(const Function& f) {
  std::vector<std::string> names(f.values.size());
  std::map<std::string, int> uses;
  int unnamed = 0;
  auto name = [&](ValueId v) {
    if (v < 0 || static_cast<size_t>(v) >= names.size() || !names[static_cast<size_t>(v)].empty()) return;
    const std::string& base = f.info(v).name;
    std::string& out = names[static_cast<size_t>(v)];
    if (base.empty()) {
      out = "%" + std::to_string(unnamed++);
      return;
    }
    int& n = uses[base];
    out = n == 0 ? "%" + base : "%" + base + "." + std::to_string(n);
    ++n;
  };
  std::function<void(const Block&)> block = [&](const Block& b) {
    for (ValueId v : b.args) name(v);
    for (const Op& op : b.ops) {
      name(op.result);
      for (const Block& r : op.regions) block(r);
    }
  };
  for (ValueId v : f.params) name(v);
  block(f.body);
  return names;
}

std::string print(const Function& f) { return Printer(f).run(); }

}  // namespace loom::ir

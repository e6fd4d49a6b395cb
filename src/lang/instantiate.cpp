// Stage 3 of checking: instantiate the task tree from the entry instance. Each node gets concrete
// element types (task type parameters unified at every launch), static extents (tunables and tile
// sizes evaluated; run-time extents stay unknown), and memories from its instance. Checks what only
// the instantiated tree shows: element types, processor-level transitions (launches go down one
// level at a time, inside a prange over the sub-processors), mma tile sizes, register budgets of
// thread leaves, index ranges, and cycles in the instance tree. See include/loom/check.h.
#include <algorithm>
#include <functional>

#include "layout/partition.h"
#include "lang/check_internal.h"
#include "loom/frontend.h"

namespace loom::check_detail {
namespace {

using Ext = std::optional<int64_t>;

std::string ext_str(const std::vector<Ext>& e) {
  std::string s = "[";
  for (size_t i = 0; i < e.size(); ++i) s += (i ? ", " : "") + (e[i] ? std::to_string(*e[i]) : std::string("?"));
  return s + "]";
}

struct TVal {
  DType dtype = DType::F32;
  std::vector<Ext> ext;
  MemKind mem = MemKind::None;
  bool overlapping = false;  // a piece of a partition whose pieces overlap (rows shared by a quad)
};

struct PVal {
  TVal piece;               // element type and static extents of one piece
  std::vector<Ext> counts;  // pieces per index coordinate
};

struct Env {
  std::map<std::string, Ext> scalars;
  std::map<std::string, TVal> tensors;
  std::map<std::string, PVal> parts;
  std::map<std::string, DType> types;
  std::set<std::string> failed;  // partitions whose error was reported; uses of them stay quiet
};

struct LoopCtx {
  bool parallel;
  std::vector<std::string> vars;
  std::vector<Ext> extents;
  SourceLoc loc;
};

class Instantiator {
 public:
  Instantiator(const Program& p, const Machine& m, Reporter& r, const std::map<std::string, VariantInfo>& v)
      : p_(p), m_(m), r_(r), variants_(v) {
    for (const Instance& in : p.mapping->instances) instances_.emplace(in.name.name, &in);
  }

  std::optional<TaskTree> run() {
    const Instance* entry = nullptr;
    for (const Instance& in : p_.mapping->instances)
      if (in.entry) entry = &in;
    if (!entry) return std::nullopt;
    const VariantInfo& vi = variants_.at(entry->variant.name);
    Env env;
    for (const TypeBinding& b : entry->entry_types) env.types[b.name.name] = *parse_dtype(b.type.name);
    std::vector<TVal> args;
    size_t ti = 0;
    for (const Param& prm : vi.task->params) {
      TVal t;
      if (prm.is_tensor) {
        t.dtype = resolve_type(prm.elem.name, env.types);
        t.ext.assign(prm.dims.size(), std::nullopt);  // run-time extents at the entry
        t.mem = ti < entry->mems.size() ? *parse_mem(entry->mems[ti].name) : MemKind::Global;
        ++ti;
      } else {
        t.dtype = prm.elem.name == "f32" ? DType::F32 : DType::I32;
      }
      args.push_back(t);
    }
    tree_.machine = &m_;
    visit(*entry, args, env.types, "entry", entry->name.loc);
    if (r_.diag.has_errors()) return std::nullopt;
    return std::move(tree_);
  }

 private:
  static DType resolve_type(const std::string& name, const std::map<std::string, DType>& types) {
    if (auto d = parse_dtype(name)) return *d;
    auto it = types.find(name);
    return it == types.end() ? DType::F32 : it->second;
  }

  int visit(const Instance& in, const std::vector<TVal>& args, const std::map<std::string, DType>& types,
            const std::string& launch, SourceLoc launch_loc) {
    const VariantInfo& vi = variants_.at(in.variant.name);
    const VariantDecl& v = *vi.decl;
    const TaskDecl& t = *vi.task;
    ProcKind proc = *parse_proc(in.processor.name);

    int id = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    {
      TreeNode& n = tree_.nodes.back();
      n.instance = in.name.name;
      n.variant = v.name.name;
      n.task = t.name.name;
      n.proc = proc;
      n.leaf = v.kind == VariantKind::Leaf;
      n.launch = launch;
      n.launch_loc = launch_loc;
    }
    if (tree_.nodes.size() > kMaxNodes) {
      if (!too_big_) r_.error(in.name.loc, "the instantiated task tree has more than " + std::to_string(kMaxNodes) + " nodes");
      too_big_ = true;
      return id;
    }

    Env env;
    env.types = types;
    std::vector<TreeArg> targs;
    size_t ti = 0;
    for (size_t i = 0; i < t.params.size(); ++i) {
      const Param& prm = t.params[i];
      const std::string& name = v.params[i].name.name;
      TreeArg ta;
      ta.name = name;
      ta.is_tensor = prm.is_tensor;
      ta.dtype = args[i].dtype;
      if (prm.is_tensor) {
        TVal tv = args[i];
        tv.mem = ti < in.mems.size() ? parse_mem(in.mems[ti].name).value_or(MemKind::None) : MemKind::None;
        ++ti;
        env.tensors[name] = tv;
        ta.mem = tv.mem;
        ta.extents = tv.ext;
        for (size_t d = 0; d < prm.dims.size() && d < tv.ext.size(); ++d) {
          auto it = env.scalars.find(prm.dims[d].name);
          if (it == env.scalars.end()) env.scalars[prm.dims[d].name] = tv.ext[d];
        }
      } else {
        env.scalars[name] = std::nullopt;
      }
      targs.push_back(ta);
    }
    for (const TuneValue& tv : in.tunes) {
      Ext val = eval(tv.value, env);
      env.scalars[tv.name.name] = val;
      tree_.nodes[id].tunables.push_back({tv.name.name, val.value_or(0)});
    }
    tree_.nodes[id].args = targs;

    if (v.kind == VariantKind::Leaf) {
      check_registers(in, proc, env);
      if (!v.is_extern) run_leaf(t, v.body, env);
      return id;
    }
    path_.push_back(&in);
    run_inner(in, v, proc, v.body, env, {}, id);
    path_.pop_back();
    return id;
  }

  // ---- scalar evaluation ----
  Ext eval(const Expr& e, const Env& env) {
    switch (e.kind) {
      case ExprKind::Int: return e.ival;
      case ExprKind::Name: {
        auto it = env.scalars.find(e.name);
        return it == env.scalars.end() ? std::nullopt : it->second;
      }
      case ExprKind::Unary: {
        Ext a = eval(e.args[0], env);
        if (!a || *a == INT64_MIN) return std::nullopt;
        return -*a;
      }
      case ExprKind::Binary: {
        Ext a = eval(e.args[0], env), b = eval(e.args[1], env);
        if (!a || !b) return std::nullopt;
        int64_t out = 0;
        switch (e.op) {
          case '+': return __builtin_add_overflow(*a, *b, &out) ? Ext{} : Ext{out};
          case '-': return __builtin_sub_overflow(*a, *b, &out) ? Ext{} : Ext{out};
          case '*': return __builtin_mul_overflow(*a, *b, &out) ? Ext{} : Ext{out};
          case '/': return (*b == 0 || (*a == INT64_MIN && *b == -1)) ? Ext{} : Ext{*a / *b};
          case '%': return (*b == 0 || (*a == INT64_MIN && *b == -1)) ? Ext{} : Ext{*a % *b};
        }
        return std::nullopt;
      }
      case ExprKind::Call: {
        if (e.name == "cdiv" || e.name == "min" || e.name == "max") {
          Ext a = eval(e.args[0], env), b = eval(e.args[1], env);
          if (!a || !b) return std::nullopt;
          if (e.name == "min") return std::min(*a, *b);
          if (e.name == "max") return std::max(*a, *b);
          if (*b <= 0 || *a < 0) return std::nullopt;
          return *a / *b + (*a % *b != 0);
        }
        if (e.name == "rows" || e.name == "cols" || e.name == "dim") {
          const TVal* t = tensor(e.args[0], env);
          size_t d = e.name == "rows" ? 0 : e.name == "cols" ? 1 : static_cast<size_t>(e.args[1].ival);
          return t && d < t->ext.size() ? t->ext[d] : std::nullopt;
        }
        if (e.name == "pieces") {
          auto it = env.parts.find(e.args[0].name);
          if (it == env.parts.end()) return std::nullopt;
          if (e.args.size() == 2) {
            size_t d = static_cast<size_t>(e.args[1].ival);
            return d < it->second.counts.size() ? it->second.counts[d] : std::nullopt;
          }
          int64_t n = 1;
          for (const Ext& c : it->second.counts) {
            if (!c || __builtin_mul_overflow(n, *c, &n)) return std::nullopt;
          }
          return n;
        }
        return std::nullopt;
      }
      default: return std::nullopt;
    }
  }

  // The tensor an expression denotes (a name or a partition piece), with index range checks.
  const TVal* tensor(const Expr& e, const Env& env) {
    if (e.kind == ExprKind::Name) {
      auto it = env.tensors.find(e.name);
      return it == env.tensors.end() ? nullptr : &it->second;
    }
    if (e.kind == ExprKind::Index && e.args[0].kind == ExprKind::Name) {
      auto it = env.parts.find(e.args[0].name);
      if (it == env.parts.end()) return nullptr;
      for (size_t i = 1; i < e.args.size() && i - 1 < it->second.counts.size(); ++i) {
        Ext idx = eval(e.args[i], env);
        Ext cnt = it->second.counts[i - 1];
        if (idx && ((cnt && *idx >= *cnt) || *idx < 0)) {
          r_.error(e.args[i].loc, "index " + std::to_string(*idx) + " is out of range: partition '" + e.args[0].name +
                                      "' has " + (cnt ? std::to_string(*cnt) : std::string("?")) +
                                      " piece(s) along coordinate " + std::to_string(i - 1));
        }
      }
      return &it->second.piece;
    }
    return nullptr;
  }

  // ---- bindings (shared by inner and leaf bodies) ----
  void bind(const Stmt& s, Env& env, ProcKind proc) {
    const Expr& v = s.value;
    const std::string& name = s.target.name;
    if (v.kind == ExprKind::Call && v.name == "tensor") {
      TVal t;
      t.dtype = resolve_type(v.args[0].name, env.types);
      for (const Expr& x : v.args[1].args) t.ext.push_back(eval(x, env));
      t.mem = MemKind::None;
      env.tensors[name] = t;
      return;
    }
    if (v.kind == ExprKind::Call && (v.name == "blocks" || v.name == "slices" || v.name == "mma")) {
      const TVal* src = tensor(v.args[0], env);
      if (!src) return;
      PVal part;
      part.piece.dtype = src->dtype;
      part.piece.mem = src->mem;
      if (v.name == "blocks") {
        const Expr& sizes = v.args[1];
        for (size_t d = 0; d < sizes.args.size() && d < src->ext.size(); ++d) {
          const Expr& sz = sizes.args[d];
          if (sz.kind == ExprKind::Star) {
            part.piece.ext.push_back(src->ext[d]);
            part.counts.push_back(1);
            continue;
          }
          Ext b = eval(sz, env);
          if (b && *b <= 0) {
            r_.error(sz.loc, "block size must be positive, found " + std::to_string(*b));
            return;
          }
          Ext piece = b;
          if (b && src->ext[d]) piece = std::min(*b, *src->ext[d]);
          part.piece.ext.push_back(piece);
          part.counts.push_back(b && src->ext[d] ? Ext{*src->ext[d] / *b + (*src->ext[d] % *b != 0)} : Ext{});
        }
      } else if (v.name == "slices") {
        size_t dim = static_cast<size_t>(v.args[1].ival);
        for (size_t d = 0; d < src->ext.size(); ++d)
          if (d != dim) part.piece.ext.push_back(src->ext[d]);
        part.counts.push_back(dim < src->ext.size() ? src->ext[dim] : Ext{});
      } else {
        if (!mma_partition(s, *src, env, proc, part)) {
          env.failed.insert(name);
          return;
        }
      }
      env.parts[name] = part;
      return;
    }
    if (v.kind == ExprKind::Index || (v.kind == ExprKind::Name && env.tensors.count(v.name))) {
      if (const TVal* t = tensor(v, env)) env.tensors[name] = *t;
      return;
    }
    env.scalars[name] = eval(v, env);
  }

  bool mma_partition(const Stmt& s, const TVal& src, const Env& env, ProcKind proc, PVal& part) {
    const Expr& v = s.value;
    const Expr& ins = v.args[2];
    const MmaInstr* instr = m_.find_mma(ins.name);
    if (!instr) {
      auto& d = r_.error(ins.loc, "target " + m_.target + " has no '" + ins.name + "' tensor-core instruction");
      std::string have;
      for (const MmaInstr& i : m_.mma) have += (have.empty() ? "" : ", ") + i.name;
      d.hint = m_.target + " has " + have;
      return false;
    }
    int64_t shape[3];
    for (int i = 0; i < 3; ++i) {
      Ext x = eval(ins.args[i], env);
      if (!x) {
        r_.error(ins.args[i].loc, "the instruction shape '" + format_expr(ins.args[i]) + "' must be a compile-time value");
        return false;
      }
      shape[i] = *x;
    }
    std::vector<int64_t> tile;
    for (size_t d = 0; d < src.ext.size(); ++d) {
      if (!src.ext[d]) {
        auto& dg = r_.error(v.args[0].loc, "mma partition of '" + format_expr(v.args[0]) +
                                               "' needs static tile sizes, but its extent " + std::to_string(d) +
                                               " is only known at run time");
        dg.hint = "split the tensor with blocks(...) using tunables before the mma partition";
        return false;
      }
      tile.push_back(*src.ext[d]);
    }
    MmaRole role = *parse_mma_role(v.args[1].name);
    // A rank-1 row vector (acc) is co-partitioned with the rows of an accumulator tile of N
    // columns; a column vector (rhs) with the columns of a K x N tile of B.
    const bool col_vector = tile.size() == 1 && role == MmaRole::Rhs;
    bool row_vector = tile.size() == 1 && !col_vector;
    if (row_vector) tile.push_back(shape[1]);
    if (col_vector) tile.insert(tile.begin(), shape[2]);
    MmaPartitionShape sh = mma_partition_shape(*instr, shape[0], shape[1], shape[2], role, proc, tile, v.args.size() == 4);
    if (!sh.error.empty()) {
      auto& d = r_.error(v.loc, sh.bad_instruction ? sh.error
                                                   : "tile " + ext_str(src.ext) + " cannot take this mma partition: " + sh.error);
      d.hint = sh.hint;
      return false;
    }
    if (col_vector) {
      part.piece.ext.push_back(sh.piece_extents[1]);  // overlapping pieces, but read-only (check_decls)
    } else if (row_vector) {
      part.piece.ext.push_back(sh.piece_extents[0]);
      part.piece.overlapping = proc == ProcKind::Warp;  // the 4 lanes of a quad share their rows
    } else {
      for (int64_t x : sh.piece_extents) part.piece.ext.push_back(x);
    }
    part.counts.push_back(sh.pieces);
    return true;
  }

  // ---- leaf bodies: element types and static shapes of built-in ops ----
  void run_leaf(const TaskDecl& task, const std::vector<Stmt>& body, Env& env) {
    for (const Stmt& s : body) {
      if (s.kind == StmtKind::Bind) {
        bind(s, env, ProcKind::Thread);
        continue;
      }
      if (s.kind != StmtKind::Call) continue;
      const LeafOp* op = find_leaf_op(s.target.name);
      if (!op || s.args.size() != op->args.size()) continue;
      std::vector<const TVal*> ts;
      for (size_t i = 0; i < s.args.size(); ++i)
        ts.push_back(op->args[i].kind == OpArgKind::Tensor ? tensor(s.args[i], env) : nullptr);
      check_op_types(s, *op, ts, leaf_broadcast_dim(task, s));
    }
  }

  void type_error(const Stmt& s, size_t i, const std::string& msg, const std::string& hint = "") {
    auto& d = r_.error(s.args[i].loc, "'" + s.target.name + "': " + msg);
    d.hint = hint;
  }

  static bool same_ext(const Ext& a, const Ext& b) { return !a || !b || *a == *b; }

  void check_op_types(const Stmt& s, const LeafOp& op, const std::vector<const TVal*>& ts, int broadcast_dim) {
    for (size_t i = 0; i < ts.size(); ++i)
      if (op.args[i].kind == OpArgKind::Tensor && !ts[i]) return;
    auto dt = [&](size_t i) { return std::string(dtype_name(ts[i]->dtype)); };
    auto shape_mismatch = [&](size_t i, size_t j, size_t di, size_t dj, const char* what) {
      if (di < ts[i]->ext.size() && dj < ts[j]->ext.size() && !same_ext(ts[i]->ext[di], ts[j]->ext[dj]))
        type_error(s, j, std::string("shape mismatch: ") + what + " (" + ext_str(ts[i]->ext) + " and " +
                             ext_str(ts[j]->ext) + ")");
    };
    switch (op.family) {
      case OpFamily::Mma: {
        const MmaInstr* ref = m_.mma.empty() ? nullptr : &m_.mma.front();
        if (ts[1]->dtype != ts[2]->dtype)
          type_error(s, 2, "element type mismatch: A is " + dt(1) + " but B is " + dt(2),
                     "the tensor core multiplies operands of one element type");
        else if (ref && std::find(ref->input_types.begin(), ref->input_types.end(), ts[1]->dtype) == ref->input_types.end())
          type_error(s, 1, "the tensor core takes f16 or bf16 operands, found " + dt(1), "convert the operands first");
        if (ref && std::find(ref->accumulator_types.begin(), ref->accumulator_types.end(), ts[0]->dtype) ==
                       ref->accumulator_types.end())
          type_error(s, 0, "the accumulator must be f32 or f16, found " + dt(0));
        shape_mismatch(0, 1, 0, 0, "C and A need the same number of rows");
        shape_mismatch(1, 2, 1, 0, "A's columns and B's rows (K) differ");
        shape_mismatch(0, 2, 1, 1, "C and B need the same number of columns");
        break;
      }
      case OpFamily::Copy:
        if (ts[0]->dtype != ts[1]->dtype)
          type_error(s, 1, "element type mismatch: copy from " + dt(1) + " to " + dt(0),
                     "use convert(D, S) to change the element type");
        for (size_t d = 0; d < ts[0]->ext.size(); ++d) shape_mismatch(0, 1, d, d, "the tensors differ in shape");
        break;
      case OpFamily::Convert:
        for (size_t d = 0; d < ts[0]->ext.size(); ++d) shape_mismatch(0, 1, d, d, "the tensors differ in shape");
        break;
      case OpFamily::Unary:
      case OpFamily::Scale:
        for (size_t i : {size_t(0), size_t(1)})
          if (!is_float(ts[i]->dtype)) type_error(s, i, "needs a floating-point tensor, found " + dt(i));
        for (size_t d = 0; d < ts[0]->ext.size(); ++d) shape_mismatch(0, 1, d, d, "the tensors differ in shape");
        break;
      case OpFamily::Axpy:
        for (size_t i : {size_t(0), size_t(1), size_t(3)})
          if (!is_float(ts[i]->dtype)) type_error(s, i, "needs a floating-point tensor, found " + dt(i));
        for (size_t d = 0; d < ts[0]->ext.size(); ++d) {
          shape_mismatch(0, 1, d, d, "the tensors differ in shape");
          shape_mismatch(0, 3, d, d, "the tensors differ in shape");
        }
        break;
      case OpFamily::Mask:
        if (!is_float(ts[0]->dtype)) type_error(s, 0, "needs a floating-point tensor, found " + dt(0));
        break;
      case OpFamily::RowReduce:
        if (!is_float(ts[1]->dtype)) type_error(s, 1, "needs a floating-point tensor, found " + dt(1));
        if (ts[0]->dtype != DType::F32 && ts[0]->dtype != ts[1]->dtype)
          type_error(s, 0, "the reduction result must be f32 or the input's type, found " + dt(0));
        shape_mismatch(0, 1, 0, 0, "one result per row is needed");
        break;
      case OpFamily::Binary:
        for (size_t i : {size_t(0), size_t(1), size_t(2)})
          if (!is_float(ts[i]->dtype)) type_error(s, i, "needs a floating-point tensor, found " + dt(i));
        for (size_t d = 0; d < ts[0]->ext.size(); ++d) shape_mismatch(0, 1, d, d, "the tensors differ in shape");
        if (ts[2]->ext.size() == ts[0]->ext.size()) {
          for (size_t d = 0; d < ts[0]->ext.size(); ++d) shape_mismatch(0, 2, d, d, "the tensors differ in shape");
        } else if (broadcast_dim == 1) {
          shape_mismatch(0, 2, 1, 0, "the broadcast operand is named like the output's second dimension and needs one value per column");
        } else {
          shape_mismatch(0, 2, 0, 0, "the broadcast operand needs one value per row");
        }
        break;
      case OpFamily::Fill: break;
    }
  }

  // A thread's REGISTER tensors must fit in its registers.
  void check_registers(const Instance& in, ProcKind proc, const Env& env) {
    if (proc != ProcKind::Thread) return;
    int64_t bytes = 0;
    std::string parts;
    for (const auto& [name, t] : env.tensors) {
      if (t.mem != MemKind::Register) continue;
      int64_t n = dtype_bytes(t.dtype);
      for (const Ext& e : t.ext) {
        if (!e) {
          auto& d = r_.error(in.name.loc, "instance '" + in.name.name + "' places '" + name +
                                              "' in REGISTER, but its extents are only known at run time");
          d.hint = "registers need static sizes: partition the tensor with tunable tile sizes first";
          return;
        }
        if (__builtin_mul_overflow(n, *e, &n)) n = INT64_MAX / 2;
      }
      bytes = std::min<int64_t>(bytes + n, INT64_MAX / 2);
      parts += (parts.empty() ? "" : ", ") + name + " " + ext_str(t.ext) + " " + dtype_name(t.dtype);
    }
    int64_t regs = bytes / 4;
    if (regs > m_.limits.regs_per_thread) {
      auto& d = r_.error(in.name.loc, "instance '" + in.name.name + "' needs " + std::to_string(regs) +
                                          " registers per thread for its REGISTER tensors (" + parts + "), more than the " +
                                          std::to_string(m_.limits.regs_per_thread) + " a thread has");
      d.hint = "use smaller tiles or split the tile among more warpgroups";
    }
  }

  // ---- inner bodies: launches ----
  void run_inner(const Instance& in, const VariantDecl& v, ProcKind proc, const std::vector<Stmt>& body, Env& env,
                 std::vector<LoopCtx> loops, int node) {
    for (const Stmt& s : body) {
      switch (s.kind) {
        case StmtKind::Bind: bind(s, env, proc); break;
        case StmtKind::Loop: {
          LoopCtx ctx{s.parallel, {}, {}, s.loc};
          Env inner = env;
          for (size_t i = 0; i < s.vars.size(); ++i) {
            ctx.vars.push_back(s.vars[i].name);
            ctx.extents.push_back(i < s.extents.size() ? eval(s.extents[i], env) : Ext{});
            inner.scalars[s.vars[i].name] = std::nullopt;
          }
          loops.push_back(ctx);
          run_inner(in, v, proc, s.body, inner, loops, node);
          loops.pop_back();
          break;
        }
        case StmtKind::Call: launch(in, proc, s, env, loops, node); break;
      }
    }
  }

  const Instance* dispatch(const Instance& in, const Stmt& s) {
    for (const Dispatch& d : in.calls)
      if (!s.label.name.empty() && d.key.name == s.label.name) return instances_.at(d.instance.name);
    for (const Dispatch& d : in.calls)
      if (d.key.name == s.target.name) return instances_.at(d.instance.name);
    return nullptr;
  }

  void launch(const Instance& in, ProcKind proc, const Stmt& s, const Env& env, const std::vector<LoopCtx>& loops,
              int node) {
    const Instance* child = dispatch(in, s);
    if (!child) return;  // reported by the mapping stage
    const VariantInfo& cv = variants_.at(child->variant.name);
    const TaskDecl& ct = *cv.task;
    ProcKind cproc = *parse_proc(child->processor.name);

    // Cycle in the instance tree.
    for (size_t i = 0; i < path_.size(); ++i) {
      if (path_[i] != child) continue;
      std::string cyc;
      for (size_t j = i; j < path_.size(); ++j) cyc += path_[j]->name.name + " -> ";
      cyc += child->name.name;
      auto& d = r_.error(s.target.loc, "cycle in the instance tree: " + cyc);
      d.hint = "dispatch to an instance further down the machine, e.g. a variant on the next processor level";
      for (size_t j = i; j < path_.size(); ++j)
        DiagnosticEngine::note(d, path_[j]->name.loc, "instance '" + path_[j]->name.name + "' is declared here");
      return;
    }
    if (path_.size() >= kMaxDepth) {
      r_.error(s.target.loc, "the task tree is deeper than " + std::to_string(kMaxDepth) + " levels");
      return;
    }

    // Processor transition.
    std::string how = "inline";
    const LoopCtx* loop = loops.empty() ? nullptr : &loops.back();
    if (loop) {
      how = std::string(loop->parallel ? "prange " : "srange ");
      for (size_t i = 0; i < loop->vars.size(); ++i)
        how += (i ? ", " : "") + loop->vars[i] + " < " + (loop->extents[i] ? std::to_string(*loop->extents[i]) : "?");
    }
    int pd = m_.depth(proc), cd = m_.depth(cproc);
    if (cd < pd) {
      auto& d = r_.error(s.target.loc, "instance '" + child->name.name + "' runs on " + proc_name(cproc) +
                                           ", above the launching instance '" + in.name.name + "' on " + proc_name(proc));
      d.hint = "launches go down the processor hierarchy (HOST, BLOCK, WARPGROUP, WARP, THREAD)";
      DiagnosticEngine::note(d, child->processor.loc, "'" + child->name.name + "' is mapped here");
      return;
    }
    if (cd > pd) {
      auto next = m_.child_level(proc);
      if (!next || *next != cproc) {
        auto& d = r_.error(s.target.loc, "launch from " + std::string(proc_name(proc)) + " to " + proc_name(cproc) +
                                             " skips a processor level");
        d.hint = std::string("the level below ") + proc_name(proc) + " is " + (next ? proc_name(*next) : "none");
        DiagnosticEngine::note(d, child->processor.loc, "'" + child->name.name + "' is mapped here");
        return;
      }
      const ProcLevel& lvl = *m_.level(cproc);
      if (!loop || !loop->parallel) {
        auto& d = r_.error(s.target.loc, "a launch onto " + std::string(proc_name(cproc)) + " from " + proc_name(proc) +
                                             " must be a prange over the " + proc_name(cproc) + "s");
        d.hint = lvl.fixed_count ? "write prange over " + std::to_string(lvl.per_parent) + " iterations around the launch"
                                 : "write a prange around the launch";
        return;
      }
      int64_t count = 1;
      bool known = true;
      for (const Ext& e : loop->extents) {
        if (!e) known = false;
        else if (__builtin_mul_overflow(count, *e, &count)) known = false;
      }
      if (lvl.per_parent > 0) {
        if (!known && !env.failed.empty()) {
          return;  // the extent depends on a partition whose error was already reported
        } else if (!known) {
          auto& d = r_.error(loop->loc, std::string("the prange launching onto ") + proc_name(cproc) +
                                            " needs a compile-time extent");
          d.hint = "use tunables or pieces(P) for the extent";
        } else if (lvl.fixed_count && count != lvl.per_parent) {
          auto& d = r_.error(loop->loc, "this prange launches " + std::to_string(count) + " " + proc_name(cproc) +
                                            " task(s), but a " + proc_name(proc) + " has exactly " +
                                            std::to_string(lvl.per_parent) + " " + proc_name(cproc) + "s");
          d.hint = "iterate over pieces(P) of an mma partition, or over " + std::to_string(lvl.per_parent);
        } else if (!lvl.fixed_count && (count < 1 || count > lvl.per_parent)) {
          auto& d = r_.error(loop->loc, "this prange launches " + std::to_string(count) + " " + proc_name(cproc) +
                                            " task(s); a " + proc_name(proc) + " holds 1 to " +
                                            std::to_string(lvl.per_parent) + " on " + m_.target);
          d.hint = "use fewer, larger tiles per " + std::string(proc_name(cproc));
        }
      }
    }

    // Arguments: unify element types, carry static extents.
    std::map<std::string, DType> ctypes;
    std::vector<TVal> cargs;
    for (size_t i = 0; i < ct.params.size() && i < s.args.size(); ++i) {
      const Param& prm = ct.params[i];
      TVal a;
      if (prm.is_tensor) {
        const TVal* t = tensor(s.args[i], env);
        if (!t) return;
        a = *t;
        if (a.overlapping && writes(prm.priv) && !is_reduce(prm.priv) && loop && loop->parallel) {
          // The threads of a quad hold replicas of the same rows. They may write them only when each
          // computes the same values: every tensor the launch reads is such a replicated row piece.
          const Expr* private_arg = nullptr;
          for (size_t j = 0; j < ct.params.size() && j < s.args.size(); ++j) {
            if (!ct.params[j].is_tensor) continue;
            const TVal* o = tensor(s.args[j], env);
            if (o && !o->overlapping) private_arg = &s.args[j];
          }
          if (private_arg) {
            auto& d = r_.error(s.args[i].loc, "aliasing writes in prange: the row pieces of '" + format_expr(s.args[i]) +
                                                  "' are shared by the 4 threads of a quad, and '" + ct.name.name +
                                                  "' writes '" + prm.name.name + "' from data each thread holds alone ('" +
                                                  format_expr(*private_arg) + "')");
            d.hint = "give '" + prm.name.name + "' the red(sum) or red(max) privilege if the task only reduces into it (rowsum, rowmax)";
            DiagnosticEngine::note(d, prm.name.loc, "'" + prm.name.name + "' is declared here");
            return;
          }
        }
        a.overlapping = false;
        if (auto conc = parse_dtype(prm.elem.name)) {
          if (*conc != a.dtype) {
            auto& d = r_.error(s.args[i].loc, "element type mismatch: argument '" + format_expr(s.args[i]) + "' is " +
                                                  dtype_name(a.dtype) + " but parameter '" + prm.name.name + "' of task '" +
                                                  ct.name.name + "' is " + dtype_name(*conc));
            DiagnosticEngine::note(d, prm.elem.loc, "the parameter's type is declared here");
            return;
          }
        } else {
          auto [it, fresh] = ctypes.emplace(prm.elem.name, a.dtype);
          if (!fresh && it->second != a.dtype) {
            auto& d = r_.error(s.args[i].loc, "element type mismatch: argument '" + format_expr(s.args[i]) + "' is " +
                                                  dtype_name(a.dtype) + " but type parameter '" + prm.elem.name +
                                                  "' of task '" + ct.name.name + "' is already " + dtype_name(it->second) +
                                                  " from an earlier argument");
            DiagnosticEngine::note(d, prm.elem.loc, "'" + prm.name.name + "' has type '" + prm.elem.name + "' here");
            return;
          }
        }
        // Dimensions that share a name must agree where both are known.
        for (size_t d = 0; d < prm.dims.size() && d < a.ext.size(); ++d) {
          for (size_t j = 0; j < i; ++j) {
            const Param& q = ct.params[j];
            if (!q.is_tensor) continue;
            for (size_t e = 0; e < q.dims.size() && e < cargs[j].ext.size(); ++e)
              if (q.dims[e].name == prm.dims[d].name && !same_ext(cargs[j].ext[e], a.ext[d])) {
                auto& dg = r_.error(s.args[i].loc, "extent mismatch: dimension '" + prm.dims[d].name + "' of task '" +
                                                       ct.name.name + "' is " + std::to_string(*cargs[j].ext[e]) +
                                                       " for '" + q.name.name + "' but " + std::to_string(*a.ext[d]) +
                                                       " for '" + prm.name.name + "'");
                DiagnosticEngine::note(dg, prm.dims[d].loc, "the dimension is named here");
                return;
              }
          }
        }
      } else {
        a.dtype = prm.elem.name == "f32" ? DType::F32 : DType::I32;
      }
      cargs.push_back(a);
    }
    for (const Ident& tp : ct.type_params)
      if (!ctypes.count(tp.name)) ctypes[tp.name] = DType::F32;  // unused type parameter

    int child_id = visit(*child, cargs, ctypes, how, s.target.loc);
    tree_.nodes[node].children.push_back(child_id);
  }

  static constexpr size_t kMaxNodes = 10000;
  static constexpr size_t kMaxDepth = 64;

  const Program& p_;
  const Machine& m_;
  Reporter& r_;
  const std::map<std::string, VariantInfo>& variants_;
  std::map<std::string, const Instance*> instances_;
  std::vector<const Instance*> path_;
  TaskTree tree_;
  bool too_big_ = false;
};

}  // namespace

std::optional<TaskTree> instantiate(const Program& p, const Machine& m, Reporter& r,
                                    const std::map<std::string, VariantInfo>& variants) {
  return Instantiator(p, m, r, variants).run();
}

}  // namespace loom::check_detail

namespace loom {

namespace {

std::optional<TaskTree> check_one(const Program& p, check_detail::Reporter& r) {
  using namespace check_detail;
  std::map<std::string, VariantInfo> variants;
  check_declarations(p, r, variants);
  if (!p.mapping) return std::nullopt;
  const Machine* m = check_mapping(p, r, variants);
  if (!m || r.diag.has_errors()) return std::nullopt;
  return instantiate(p, *m, r, variants);
}

// A specialization's `when(...)`: integers, the entry task's dimension names, SMS, + - * / %,
// unary minus, cdiv/min/max of two arguments.
void check_condition_expr(const Expr& e, const std::vector<std::string>& dims, check_detail::Reporter& r) {
  switch (e.kind) {
    case ExprKind::Int: return;
    case ExprKind::Name:
      if (e.name == "SMS" || std::find(dims.begin(), dims.end(), e.name) != dims.end()) return;
      {
        std::vector<std::string> known = dims;
        known.push_back("SMS");
        auto& d = r.error(e.loc, "`" + e.name + "` in a mapping's when(...) is not a dimension of the entry task or SMS");
        d.hint = "a condition may use the entry task's dimension names and SMS (the device's multiprocessor count)" +
                 std::string(check_detail::did_you_mean(e.name, known).empty() ? "" : "; " + check_detail::did_you_mean(e.name, known));
      }
      return;
    case ExprKind::Unary:
    case ExprKind::Binary:
      for (const Expr& a : e.args) check_condition_expr(a, dims, r);
      return;
    case ExprKind::Call:
      if ((e.name == "cdiv" || e.name == "min" || e.name == "max") && e.args.size() == 2) {
        for (const Expr& a : e.args) check_condition_expr(a, dims, r);
        return;
      }
      r.error(e.loc, "a mapping's when(...) may call cdiv, min and max of two arguments, not `" + e.name + "`");
      return;
    default:
      r.error(e.loc, "a mapping's when(...) compares integer expressions of the entry task's dimensions and SMS");
      return;
  }
}

}  // namespace

std::optional<TaskTree> check_program(const Program& p, DiagnosticEngine& diag) {
  check_detail::Reporter r(diag);
  std::optional<TaskTree> tree = check_one(p, r);
  if (!tree || p.specializations.empty()) return tree;
  // Each specialization: its condition, then the program under the merged mapping; it must run the
  // same entry task on the same argument types (one C ABI for all).
  const TaskDecl* entry = p.find_task(tree->nodes.at(0).task);
  std::vector<std::string> dims;
  if (entry)
    for (const Param& prm : entry->params)
      for (const Ident& d : prm.dims)
        if (std::find(dims.begin(), dims.end(), d.name) == dims.end()) dims.push_back(d.name);
  for (size_t i = 0; i < p.specializations.size(); ++i) {
    const Mapping& sm = p.specializations[i];
    if (!sm.when->fastest) {
      check_condition_expr(sm.when->lhs, dims, r);
      check_condition_expr(sm.when->rhs, dims, r);
    }
    Program q = specialized(p, i);
    std::optional<TaskTree> t = check_one(q, r);
    if (!t) continue;
    const TreeNode &a = tree->nodes.at(0), &b = t->nodes.at(0);
    bool same = a.task == b.task && a.args.size() == b.args.size();
    for (size_t k = 0; same && k < a.args.size(); ++k) same = a.args[k].dtype == b.args[k].dtype;
    if (!same) {
      auto& d = r.error(sm.loc, "a specialized mapping must run the default's entry task `" + a.task +
                                    "` with the same argument types (both share one C ABI)");
      DiagnosticEngine::note(d, p.mapping->loc, "the default mapping block is here");
    }
  }
  if (diag.has_errors()) return std::nullopt;
  return tree;
}

std::vector<MappingUnit> mapping_units(const Program& p, const TaskTree& default_tree) {
  std::vector<MappingUnit> units;
  units.push_back({p, default_tree, nullptr});
  units.back().program.specializations.clear();
  for (size_t i = 0; i < p.specializations.size(); ++i) {
    Program q = specialized(p, i);
    SourceManager sm;
    DiagnosticEngine quiet(sm);
    std::optional<TaskTree> t = check_program(q, quiet);
    if (!t) LOOM_INTERNAL("specialized mapping " << i + 1 << " fails the checker after check_program accepted the program");
    units.push_back({std::move(q), std::move(*t), &*p.specializations[i].when});
  }
  return units;
}

std::string format_task_tree(const TaskTree& t) {
  std::string out;
  std::function<void(int, int)> rec = [&](int id, int depth) {
    const TreeNode& n = t.nodes[static_cast<size_t>(id)];
    std::string ind(static_cast<size_t>(depth) * 2, ' ');
    out += ind + n.launch + ": " + n.instance + " = " + n.variant + " of " + n.task + " on " + proc_name(n.proc) +
           (n.leaf ? " (leaf)" : "") + "\n";
    for (const TreeArg& a : n.args) {
      out += ind + "    " + a.name + ": " + dtype_name(a.dtype);
      if (a.is_tensor) {
        std::string e = "[";
        for (size_t i = 0; i < a.extents.size(); ++i)
          e += (i ? ", " : "") + (a.extents[i] ? std::to_string(*a.extents[i]) : std::string("?"));
        out += e + "] in " + mem_name(a.mem);
      } else {
        out += " scalar";
      }
      out += "\n";
    }
    if (!n.tunables.empty()) {
      out += ind + "    tunables:";
      for (const auto& [k, v] : n.tunables) out += " " + k + "=" + std::to_string(v);
      out += "\n";
    }
    for (int c : n.children) rec(c, depth + 1);
  };
  if (!t.nodes.empty()) rec(0, 0);
  return out;
}

}  // namespace loom

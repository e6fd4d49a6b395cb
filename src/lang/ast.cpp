// Constructors and lookups for the syntax tree. See include/loom/ast.h.
#include <algorithm>
#include "loom/ast.h"

#include "ir/leaf_ops.h"

namespace loom {

Expr Expr::integer(int64_t v, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Int;
  e.ival = v;
  e.loc = loc;
  return e;
}
Expr Expr::floating(std::string spelling, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Float;
  e.name = std::move(spelling);
  e.loc = loc;
  return e;
}
Expr Expr::ident(std::string n, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Name;
  e.name = std::move(n);
  e.loc = loc;
  return e;
}
Expr Expr::star(SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Star;
  e.loc = loc;
  return e;
}
Expr Expr::unary(char op, Expr a, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Unary;
  e.op = op;
  e.loc = loc;
  e.args.push_back(std::move(a));
  return e;
}
Expr Expr::binary(char op, Expr a, Expr b, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Binary;
  e.op = op;
  e.loc = loc;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}
Expr Expr::call(std::string callee, std::vector<Expr> args, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Call;
  e.name = std::move(callee);
  e.args = std::move(args);
  e.loc = loc;
  return e;
}
Expr Expr::index(Expr base, std::vector<Expr> indices, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::Index;
  e.loc = loc;
  e.args.push_back(std::move(base));
  for (Expr& i : indices) e.args.push_back(std::move(i));
  return e;
}
Expr Expr::list(std::vector<Expr> items, SourceLoc loc) {
  Expr e;
  e.kind = ExprKind::List;
  e.args = std::move(items);
  e.loc = loc;
  return e;
}

const char* privilege_spelling(Privilege p) {
  switch (p) {
    case Privilege::Read: return "r";
    case Privilege::Write: return "w";
    case Privilege::ReadWrite: return "rw";
    case Privilege::ReduceSum: return "red(sum)";
    case Privilege::ReduceMax: return "red(max)";
  }
  return "r";
}

void Program::add(TaskDecl t) {
  order.push_back({ItemKind::Task, tasks.size()});
  tasks.push_back(std::move(t));
}

void Program::add(VariantDecl v) {
  order.push_back({ItemKind::Variant, variants.size()});
  variants.push_back(std::move(v));
}

const TaskDecl* Program::find_task(const std::string& name) const {
  for (const TaskDecl& t : tasks)
    if (t.name.name == name) return &t;
  return nullptr;
}

static void reduced_roots(const Program& p, const std::vector<Stmt>& body, std::map<std::string, std::string>& alias,
                   std::map<std::string, Privilege>& out) {
  auto root_of = [&](const Expr& e) -> std::string {
    const Expr* b = e.kind == ExprKind::Index && !e.args.empty() ? &e.args[0] : &e;
    if (b->kind != ExprKind::Name) return "";
    std::string n = b->name;
    for (int guard = 0; guard < 64; ++guard) {
      auto it = alias.find(n);
      if (it == alias.end()) break;
      n = it->second;
    }
    return n;
  };
  for (const Stmt& s : body) {
    if (s.kind == StmtKind::Bind) {
      if (s.value.kind == ExprKind::Name) alias[s.target.name] = s.value.name;
      else if (s.value.kind == ExprKind::Call && !s.value.args.empty() && s.value.args[0].kind == ExprKind::Name &&
               s.value.name != "tensor")
        alias[s.target.name] = s.value.args[0].name;
      else if (s.value.kind == ExprKind::Index) alias[s.target.name] = root_of(s.value);
    } else if (s.kind == StmtKind::Loop) {
      reduced_roots(p, s.body, alias, out);
    } else if (const TaskDecl* t = p.find_task(s.target.name)) {
      for (size_t i = 0; i < t->params.size() && i < s.args.size(); ++i)
        if (t->params[i].is_tensor && is_reduce(t->params[i].priv)) out.emplace(root_of(s.args[i]), t->params[i].priv);
    }
  }
}

std::map<std::string, Privilege> reduced_tensors(const Program& p, const VariantDecl& v) {
  std::map<std::string, std::string> alias;
  std::map<std::string, Privilege> out;
  reduced_roots(p, v.body, alias, out);
  return out;
}

int leaf_broadcast_dim(const TaskDecl& t, const Stmt& s) {
  const LeafOp* op = s.kind == StmtKind::Call ? find_leaf_op(s.target.name) : nullptr;
  if (!op || op->family != OpFamily::Binary || s.args.size() != 3) return 0;
  auto param = [&](const Expr& e) -> const Param* {
    if (e.kind != ExprKind::Name) return nullptr;
    for (const Param& p : t.params)
      if (p.is_tensor && p.name.name == e.name) return &p;
    return nullptr;
  };
  const Param* d = param(s.args[0]);
  const Param* b = param(s.args[2]);
  if (!d || !b || d->dims.size() != 2 || b->dims.size() != 1) return 0;
  return b->dims[0].name == d->dims[1].name && b->dims[0].name != d->dims[0].name ? 1 : 0;
}

const VariantDecl* Program::find_variant(const std::string& name) const {
  for (const VariantDecl& v : variants)
    if (v.name.name == name) return &v;
  return nullptr;
}

Program specialized(const Program& p, size_t i) {
  Program q = p;
  q.specializations.clear();
  const Mapping& s = p.specializations.at(i);
  if (!p.mapping) return q;
  Mapping m = *p.mapping;
  m.loc = s.loc;
  m.when = s.when;
  m.comments = s.comments;
  for (const Instance& in : s.instances) {
    auto it = std::find_if(m.instances.begin(), m.instances.end(),
                           [&](const Instance& d) { return d.name.name == in.name.name; });
    if (it != m.instances.end())
      *it = in;
    else
      m.instances.push_back(in);
  }
  q.mapping = std::move(m);
  return q;
}

}  // namespace loom

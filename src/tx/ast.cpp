// Printer, structural equality and the function table of the tensor-expression syntax tree
// (src/tx/ast.h).
#include "tx/ast.h"

#include <charconv>
#include <map>

namespace loom::tx {

const char* role_name(Role r) {
  switch (r) {
    case Role::In: return "in";
    case Role::Out: return "out";
    case Role::New: return "new";
  }
  return "?";
}

int function_arity(const std::string& name) {
  static const std::map<std::string, int> table = {
      {"relu", 1}, {"gelu", 1}, {"silu", 1}, {"sigmoid", 1}, {"exp", 1},  {"log", 1},
      {"sqrt", 1}, {"rsqrt", 1}, {"tanh", 1}, {"abs", 1},    {"max", 2},  {"min", 2},
      {"bf16", 1}, {"f16", 1},  {"f32", 1}};
  auto it = table.find(name);
  return it == table.end() ? 0 : it->second;
}

bool is_cast(const std::string& name) { return name == "bf16" || name == "f16" || name == "f32"; }

namespace {

int precedence(const Expr& e) {
  if (e.kind == Expr::Kind::Binary) return (e.op == '+' || e.op == '-') ? 1 : 2;
  if (e.kind == Expr::Kind::Neg) return 3;
  return 4;
}

std::string float_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string list(const std::vector<Expr>& args) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + print_expr(args[i]);
  return s;
}

void print_stmt(const Stmt& s, int indent, std::string& out) {
  std::string pad(indent * 2, ' ');
  switch (s.kind) {
    case Stmt::Kind::Decl:
      out += pad + role_name(s.role) + " " + s.name + ": " + dtype_name(s.dtype) + "[" + list(s.extents) + "];\n";
      return;
    case Stmt::Kind::Loop:
      out += pad + (s.par ? "par " : "seq ") + print_expr(s.extent) + " " + s.var + " {\n";
      for (const Stmt& b : s.body) print_stmt(b, indent + 1, out);
      out += pad + "}\n";
      return;
    case Stmt::Kind::Assign:
      out += pad + print_expr(s.lhs) + (s.accumulate ? " += " : " = ") + print_expr(s.rhs) + ";\n";
      return;
  }
}

}  // namespace

std::string print_expr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Int: return std::to_string(e.ival);
    case Expr::Kind::Float: return float_text(e.fval);
    case Expr::Kind::Inf: return "inf";
    case Expr::Kind::Name: return e.name;
    case Expr::Kind::Access: return e.name + "[" + list(e.args) + "]";
    case Expr::Kind::Call: return e.name + "(" + list(e.args) + ")";
    case Expr::Kind::Neg: {
      std::string inner = print_expr(e.args[0]);
      return precedence(e.args[0]) < 3 ? "-(" + inner + ")" : "-" + inner;
    }
    case Expr::Kind::Binary: {
      const int p = precedence(e);
      std::string l = print_expr(e.args[0]), r = print_expr(e.args[1]);
      if (precedence(e.args[0]) < p) l = "(" + l + ")";
      if (precedence(e.args[1]) <= p) r = "(" + r + ")";
      return l + " " + std::string(1, e.op) + " " + r;
    }
  }
  return "?";
}

std::string print_tx(const TxProgram& p) {
  std::string out;
  for (const std::string& c : p.header) out += c == "\n" ? "\n" : "//" + c + "\n";
  for (const Stmt& s : p.items) print_stmt(s, 0, out);
  return out;
}

bool same(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.ival != b.ival || a.name != b.name || a.op != b.op || a.args.size() != b.args.size())
    return false;
  if (a.kind == Expr::Kind::Float && !(a.fval == b.fval)) return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same(a.args[i], b.args[i])) return false;
  return true;
}

namespace {
bool same_list(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}
bool same_stmts(const std::vector<Stmt>& a, const std::vector<Stmt>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}
}  // namespace

bool same(const Stmt& a, const Stmt& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Stmt::Kind::Decl:
      return a.role == b.role && a.name == b.name && a.dtype == b.dtype && same_list(a.extents, b.extents);
    case Stmt::Kind::Loop:
      return a.par == b.par && a.var == b.var && same(a.extent, b.extent) && same_stmts(a.body, b.body);
    case Stmt::Kind::Assign:
      return a.accumulate == b.accumulate && same(a.lhs, b.lhs) && same(a.rhs, b.rhs);
  }
  return false;
}

bool same(const TxProgram& a, const TxProgram& b) { return same_stmts(a.items, b.items); }

}  // namespace loom::tx

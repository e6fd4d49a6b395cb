// The C++ builder API. See include/loom/builder.h. Every public call validates its inputs before it
// changes the program, so a call that throws leaves the program as it was.
#include "loom/builder.h"

#include <cctype>
#include <stdexcept>

namespace loom::build {
namespace {

[[noreturn]] void misuse(const std::string& call, const std::string& problem) {
  throw std::invalid_argument("loom::build: " + call + ": " + problem);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

Ident ident(const std::string& call, const std::string& what, const std::string& s) {
  if (!is_identifier(s)) misuse(call, what + " '" + s + "' is not an identifier (letters, digits, '_'; not starting with a digit)");
  return {s, {}};
}

std::vector<Ident> idents(const std::string& call, const std::string& what, const std::vector<std::string>& ss) {
  std::vector<Ident> out;
  for (const std::string& s : ss) out.push_back(ident(call, what, s));
  return out;
}

Privilege privilege(const std::string& call, const std::string& s) {
  if (s == "r") return Privilege::Read;
  if (s == "w") return Privilege::Write;
  if (s == "rw") return Privilege::ReadWrite;
  if (s == "red(sum)") return Privilege::ReduceSum;
  if (s == "red(max)") return Privilege::ReduceMax;
  misuse(call, "unknown privilege '" + s + "' (privileges are r, w, rw, red(sum) and red(max))");
}

std::vector<Expr> exprs(std::vector<Ex> xs) {
  std::vector<Expr> out;
  out.reserve(xs.size());
  for (Ex& x : xs) out.push_back(std::move(x).expr());
  return out;
}

// The lexer's number syntax: digits ['.' digits] [('e'|'E') ['+'|'-'] digits], with '.' or an exponent.
bool is_float_spelling(const std::string& s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > start;
  };
  if (!digits()) return false;
  bool fraction = false, exponent = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
    fraction = true;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
    exponent = true;
  }
  return i == s.size() && (fraction || exponent);
}

std::string strip_trailing_space(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  return s;
}

constexpr int64_t kMaxSmem = int64_t(1) << 40;  // the parser's bound on an smem(...) number

}  // namespace

// ---- expressions ----

Ex::Ex(const char* n) : e_(name(n ? std::string(n) : std::string()).expr()) {}
Ex::Ex(const std::string& n) : e_(name(n).expr()) {}

Expr Ex::literal(int64_t v) { return lit(v).expr(); }
void Ex::too_large() { misuse("lit", "integer does not fit in 64 bits"); }

Ex Ex::operator[](Ex index) const { return idx(*this, {std::move(index)}); }

Ex lit(int64_t v) {
  if (v >= 0) return Expr::integer(v);
  if (v == INT64_MIN) misuse("lit", "-9223372036854775808 has no literal spelling (its magnitude does not fit in 64 bits)");
  return Expr::unary('-', Expr::integer(-v));
}

Ex real(const std::string& spelling) {
  if (!is_float_spelling(spelling))
    misuse("real", "'" + spelling + "' is not a number spelling such as 0.5 or 1e-3 (use lit() for integers)");
  return Expr::floating(spelling);
}

Ex name(const std::string& n) { return Expr::ident(ident("name", "name", n).name); }
Ex star() { return Expr::star(); }

Ex call(const std::string& callee, std::vector<Ex> args) {
  ident("call", "callee", callee);
  return Expr::call(callee, exprs(std::move(args)));
}

Ex idx(Ex base, std::vector<Ex> indices) {
  if (indices.empty()) misuse("idx", "an index needs at least one coordinate");
  return Expr::index(std::move(base).expr(), exprs(std::move(indices)));
}

Ex list(std::vector<Ex> items) { return Expr::list(exprs(std::move(items))); }

Ex operator+(Ex a, Ex b) { return Expr::binary('+', std::move(a).expr(), std::move(b).expr()); }
Ex operator-(Ex a, Ex b) { return Expr::binary('-', std::move(a).expr(), std::move(b).expr()); }
Ex operator*(Ex a, Ex b) { return Expr::binary('*', std::move(a).expr(), std::move(b).expr()); }
Ex operator/(Ex a, Ex b) { return Expr::binary('/', std::move(a).expr(), std::move(b).expr()); }
Ex operator%(Ex a, Ex b) { return Expr::binary('%', std::move(a).expr(), std::move(b).expr()); }
Ex operator-(Ex a) { return Expr::unary('-', std::move(a).expr()); }

VarParam::VarParam(std::string n, const std::string& p) : name(std::move(n)), priv(privilege("variant", p)) {}

// ---- tasks ----

TaskDecl& TaskRef::decl() { return b_->p_.tasks.at(i_); }

TaskRef& TaskRef::tensor(const std::string& name, Privilege priv, const std::string& elem,
                         const std::vector<std::string>& dims) {
  const std::string call = "task(" + decl().name.name + ").tensor";
  Param p;
  p.name = ident(call, "parameter name", name);
  p.is_tensor = true;
  p.priv = priv;
  p.elem = ident(call, "element type", elem);
  if (dims.empty()) misuse(call, "tensor parameter '" + name + "' needs at least one dimension name");
  p.dims = idents(call, "dimension name", dims);
  decl().params.push_back(std::move(p));
  return *this;
}

TaskRef& TaskRef::tensor(const std::string& name, const std::string& priv, const std::string& elem,
                         const std::vector<std::string>& dims) {
  return tensor(name, privilege("task(" + decl().name.name + ").tensor", priv), elem, dims);
}

TaskRef& TaskRef::scalar(const std::string& name, const std::string& type) {
  const std::string call = "task(" + decl().name.name + ").scalar";
  Param p;
  p.name = ident(call, "parameter name", name);
  p.is_tensor = false;
  p.elem = ident(call, "scalar type", type);
  decl().params.push_back(std::move(p));
  return *this;
}

// ---- variants ----

VariantDecl& VariantRef::decl() { return b_->p_.variants.at(i_); }

VariantRef& VariantRef::inner() {
  decl().kind = VariantKind::Inner;
  return *this;
}

VariantRef& VariantRef::leaf() {
  decl().kind = VariantKind::Leaf;
  return *this;
}

VariantRef& VariantRef::tunables(const std::vector<std::string>& names) {
  std::vector<Ident> ids = idents("variant(" + decl().name.name + ").tunables", "tunable", names);
  decl().tunables.insert(decl().tunables.end(), ids.begin(), ids.end());
  return *this;
}

VariantRef& VariantRef::on(const std::vector<std::string>& processors) {
  std::vector<Ident> ids = idents("variant(" + decl().name.name + ").on", "processor level", processors);
  decl().processors.insert(decl().processors.end(), ids.begin(), ids.end());
  return *this;
}

VariantRef& VariantRef::extern_code(const std::string& code) {
  VariantDecl& v = decl();
  const std::string call = "variant(" + v.name.name + ").extern_code";
  if (!v.body.empty()) misuse(call, "the variant already has statements; a variant has a body or extern code, not both");
  if (code.find("%}") != std::string::npos) misuse(call, "the code contains '%}', which would end the code block early");
  v.is_extern = true;
  v.extern_code = code;
  return *this;
}

// ---- instances ----

Instance& InstanceRef::decl() { return b_->open_mapping().instances.at(i_); }

InstanceRef& InstanceRef::mem(const std::vector<std::string>& memories) {
  std::vector<Ident> ids = idents("instance(" + decl().name.name + ").mem", "memory", memories);
  decl().mems.insert(decl().mems.end(), ids.begin(), ids.end());
  return *this;
}

InstanceRef& InstanceRef::tune(const std::string& tunable, Ex value) {
  TuneValue tv{ident("instance(" + decl().name.name + ").tune", "tunable", tunable), std::move(value).expr()};
  decl().tunes.push_back(std::move(tv));
  return *this;
}

InstanceRef& InstanceRef::tune(const std::vector<std::pair<std::string, Ex>>& values) {
  std::vector<TuneValue> tvs;
  for (const auto& [n, v] : values) tvs.push_back({ident("instance(" + decl().name.name + ").tune", "tunable", n), v.expr()});
  decl().tunes.insert(decl().tunes.end(), tvs.begin(), tvs.end());
  return *this;
}

InstanceRef& InstanceRef::call(const std::string& task_or_label, const std::string& instance) {
  return call({{task_or_label, instance}});
}

InstanceRef& InstanceRef::call(const std::vector<std::pair<std::string, std::string>>& dispatches) {
  const std::string c = "instance(" + decl().name.name + ").call";
  std::vector<Dispatch> ds;
  for (const auto& [key, inst] : dispatches) ds.push_back({ident(c, "task or launch label", key), ident(c, "instance", inst)});
  decl().calls.insert(decl().calls.end(), ds.begin(), ds.end());
  return *this;
}

InstanceRef& InstanceRef::entry(const std::vector<std::pair<std::string, std::string>>& types) {
  const std::string c = "instance(" + decl().name.name + ").entry";
  std::vector<TypeBinding> bs;
  for (const auto& [param, type] : types) bs.push_back({ident(c, "type parameter", param), ident(c, "element type", type)});
  decl().entry = true;
  decl().entry_types.insert(decl().entry_types.end(), bs.begin(), bs.end());
  return *this;
}

InstanceRef& InstanceRef::warpspecialize(bool on) {
  decl().warp_specialize = on;
  return *this;
}

InstanceRef& InstanceRef::pipeline(int64_t depth) {
  if (depth < 0) misuse("instance(" + decl().name.name + ").pipeline", "depth " + std::to_string(depth) + " is negative");
  decl().pipeline = depth;
  return *this;
}

InstanceRef& InstanceRef::splitk(int64_t blocks) {
  if (blocks < 1) misuse("instance(" + decl().name.name + ").splitk", std::to_string(blocks) + " blocks is not positive");
  decl().splitk = blocks;
  return *this;
}

InstanceRef& InstanceRef::alternate(int64_t teams) {
  if (teams < 1) misuse("instance(" + decl().name.name + ").alternate", std::to_string(teams) + " teams is not positive");
  decl().alternate = teams;
  return *this;
}

InstanceRef& InstanceRef::kteams(int64_t teams) {
  if (teams < 1) misuse("instance(" + decl().name.name + ").kteams", std::to_string(teams) + " teams is not positive");
  decl().kteams = teams;
  return *this;
}

InstanceRef& InstanceRef::multicast(int64_t blocks, int64_t inner) {
  if (blocks < 1) misuse("instance(" + decl().name.name + ").multicast", std::to_string(blocks) + " blocks is not positive");
  if (inner < 0) misuse("instance(" + decl().name.name + ").multicast", std::to_string(inner) + " inner blocks is negative");
  decl().multicast = blocks;
  if (inner) decl().multicast_n = inner;
  return *this;
}

InstanceRef& InstanceRef::streamk() {
  decl().streamk = true;
  return *this;
}

InstanceRef& InstanceRef::schedule_optimal() {
  decl().schedule_optimal = true;
  return *this;
}

InstanceRef& InstanceRef::schedule_optimal(int64_t budget) {
  if (budget < 1 || budget > Instance::kMaxScheduleBudget)
    misuse("instance(" + decl().name.name + ").schedule_optimal", std::to_string(budget) + " is not a budget from 1 to " +
                                                                     std::to_string(Instance::kMaxScheduleBudget) + " million solver units");
  decl().schedule_optimal = true;
  decl().schedule_budget = budget;
  return *this;
}

InstanceRef& InstanceRef::regs(int64_t dma, int64_t compute) {
  if (dma < 1 || compute < 1)
    misuse("instance(" + decl().name.name + ").regs", std::to_string(dma) + ", " + std::to_string(compute) + " is not a register split");
  decl().regs = std::make_pair(dma, compute);
  return *this;
}

InstanceRef& InstanceRef::smem(const std::string& spelling) {
  const std::string c = "instance(" + decl().name.name + ").smem";
  size_t i = 0;
  int64_t n = 0;
  while (i < spelling.size() && std::isdigit(static_cast<unsigned char>(spelling[i]))) {
    if (n > kMaxSmem) misuse(c, "budget '" + spelling + "' is absurdly large");
    n = n * 10 + (spelling[i++] - '0');
  }
  if (i == 0) misuse(c, "'" + spelling + "' does not start with a number (write e.g. \"227KB\" or \"232448\")");
  std::string unit = spelling.substr(i);
  int64_t mult = 1;
  if (unit == "KB" || unit == "KiB") mult = 1024;
  else if (!unit.empty() && unit != "B") misuse(c, "unknown size unit '" + unit + "' (units are B, KB and KiB)");
  if (n > kMaxSmem) misuse(c, "budget '" + spelling + "' is absurdly large");
  decl().smem_bytes = n * mult;
  decl().smem_spelling = spelling;
  return *this;
}

InstanceRef& InstanceRef::smem(int64_t bytes) {
  const std::string c = "instance(" + decl().name.name + ").smem";
  if (bytes < 0) misuse(c, "budget " + std::to_string(bytes) + " is negative");
  if (bytes > kMaxSmem) misuse(c, "budget " + std::to_string(bytes) + " is absurdly large");
  decl().smem_bytes = bytes;
  decl().smem_spelling = std::to_string(bytes);
  return *this;
}

InstanceRef& InstanceRef::layout(const std::string& arg, const std::vector<std::string>& attrs) {
  const std::string c = "instance(" + decl().name.name + ").layout";
  LayoutSpec ls{ident(c, "tensor argument", arg), idents(c, "layout attribute", attrs)};
  if (ls.attrs.empty()) misuse(c, "layout of '" + arg + "' needs at least one attribute (e.g. row_major swizzle128)");
  decl().layouts.push_back(std::move(ls));
  return *this;
}

// ---- the builder ----

ProgramBuilder& ProgramBuilder::comment(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    std::string line = strip_trailing_space(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    lines.push_back(line.empty() ? line : " " + line);
    if (nl == std::string::npos || nl + 1 == text.size()) break;
    start = nl + 1;
  }
  pending_.insert(pending_.end(), lines.begin(), lines.end());
  return *this;
}

ProgramBuilder& ProgramBuilder::raw_comment(const std::string& body) {
  if (body.find('\n') != std::string::npos)
    misuse("raw_comment", "a comment is one line; use blank_line() for an empty line between comments");
  pending_.push_back(strip_trailing_space(body));
  return *this;
}

ProgramBuilder& ProgramBuilder::blank_line() {
  if (pending_.empty())
    misuse("blank_line", "a blank line is kept only after a comment (declarations are separated by the printer)");
  if (pending_.back() != "\n") pending_.push_back("\n");
  return *this;
}

std::vector<std::string> ProgramBuilder::take_comments() {
  std::vector<std::string> c = std::move(pending_);
  pending_.clear();
  return c;
}

void ProgramBuilder::require_top_level(const char* what) const {
  if (!loop_path_.empty()) misuse(what, "declarations cannot appear inside a loop body");
}

TaskRef ProgramBuilder::task(const std::string& name, const std::vector<std::string>& type_params) {
  require_top_level("task");
  TaskDecl t;
  t.name = ident("task", "task name", name);
  t.type_params = idents("task(" + name + ")", "type parameter", type_params);
  t.comments = take_comments();
  p_.add(std::move(t));
  variant_.reset();
  return TaskRef(this, p_.tasks.size() - 1);
}

VariantRef ProgramBuilder::variant(const std::string& name, const std::string& task,
                                   const std::vector<VarParam>& params) {
  require_top_level("variant");
  VariantDecl v;
  v.name = ident("variant", "variant name", name);
  v.task = ident("variant(" + name + ")", "task name", task);
  for (const VarParam& vp : params)
    v.params.push_back({ident("variant(" + name + ")", "parameter name", vp.name), vp.priv, {}});
  v.comments = take_comments();
  p_.add(std::move(v));
  variant_ = p_.variants.size() - 1;
  return VariantRef(this, *variant_);
}

ProgramBuilder& ProgramBuilder::mapping(const std::string& target) {
  require_top_level("mapping");
  if (p_.mapping) misuse("mapping", "a program has at most one mapping block");
  Mapping m;
  m.target = ident("mapping", "target", target);
  m.comments = take_comments();
  p_.mapping = std::move(m);
  variant_.reset();
  return *this;
}

ProgramBuilder& ProgramBuilder::specialize_fastest(const std::string& target) {
  require_top_level("specialize_fastest");
  if (!p_.mapping) misuse("specialize_fastest", "the default mapping comes first; call mapping(\"" + target + "\") before");
  Mapping m;
  m.target = ident("specialize_fastest", "target", target);
  m.comments = take_comments();
  MappingCondition c;
  c.fastest = true;
  m.when = std::move(c);
  p_.specializations.push_back(std::move(m));
  variant_.reset();
  return *this;
}

ProgramBuilder& ProgramBuilder::specialize(const std::string& target, Ex lhs, const std::string& cmp, Ex rhs) {
  require_top_level("specialize");
  if (!p_.mapping) misuse("specialize", "the default mapping comes first; call mapping(\"" + target + "\") before");
  if (cmp != "<" && cmp != "<=" && cmp != ">" && cmp != ">=") misuse("specialize", "the comparison is <, <=, > or >=, not `" + cmp + "`");
  Mapping m;
  m.target = ident("specialize", "target", target);
  m.comments = take_comments();
  m.when = MappingCondition{{}, false, std::move(lhs).expr(), cmp, std::move(rhs).expr()};
  p_.specializations.push_back(std::move(m));
  variant_.reset();
  return *this;
}

Mapping& ProgramBuilder::open_mapping() { return p_.specializations.empty() ? *p_.mapping : p_.specializations.back(); }

InstanceRef ProgramBuilder::instance(const std::string& name, const std::string& variant, const std::string& processor) {
  require_top_level("instance");
  if (!p_.mapping) misuse("instance", "no mapping block yet; call mapping(\"sm_90a\") before adding instances");
  Instance in;
  in.name = ident("instance", "instance name", name);
  in.variant = ident("instance(" + name + ")", "variant name", variant);
  in.processor = ident("instance(" + name + ")", "processor level", processor);
  in.comments = take_comments();
  open_mapping().instances.push_back(std::move(in));
  variant_.reset();
  return InstanceRef(this, open_mapping().instances.size() - 1);
}

std::vector<Stmt>& ProgramBuilder::open_body(const char* what) {
  if (!variant_)
    misuse(what, "no variant is open; statements go into the variant opened by the latest variant(...) call, "
                 "and a task(...), mapping(...) or instance(...) since then closes it");
  VariantDecl& v = p_.variants.at(*variant_);
  if (v.is_extern)
    misuse(what, "variant '" + v.name.name + "' has extern code; a variant has a body or extern code, not both");
  std::vector<Stmt>* body = &v.body;
  for (size_t i : loop_path_) body = &body->at(i).body;
  return *body;
}

void ProgramBuilder::add_stmt(Stmt s, const char* what) {
  std::vector<Stmt>& body = open_body(what);
  s.comments = take_comments();
  body.push_back(std::move(s));
}

ProgramBuilder& ProgramBuilder::bind(const std::string& target, Ex value) {
  Stmt s;
  s.kind = StmtKind::Bind;
  s.target = ident("bind", "bound name", target);
  s.value = std::move(value).expr();
  add_stmt(std::move(s), "bind");
  return *this;
}

ProgramBuilder& ProgramBuilder::launch(const std::string& task, std::vector<Ex> args, const std::string& label) {
  Stmt s;
  s.kind = StmtKind::Call;
  s.target = ident("launch", "task name", task);
  if (!label.empty()) s.label = ident("launch", "launch label", label);
  s.args = exprs(std::move(args));
  add_stmt(std::move(s), "launch");
  return *this;
}

ProgramBuilder& ProgramBuilder::op(const std::string& leaf_op, std::vector<Ex> args) {
  Stmt s;
  s.kind = StmtKind::Call;
  s.target = ident("op", "leaf op name", leaf_op);
  s.args = exprs(std::move(args));
  add_stmt(std::move(s), "op");
  return *this;
}

ProgramBuilder& ProgramBuilder::prange(const std::vector<std::string>& vars, std::vector<Ex> extents,
                                       const std::function<void()>& body) {
  return loop(true, vars, std::move(extents), body);
}

ProgramBuilder& ProgramBuilder::srange(const std::vector<std::string>& vars, std::vector<Ex> extents,
                                       const std::function<void()>& body) {
  return loop(false, vars, std::move(extents), body);
}

ProgramBuilder& ProgramBuilder::loop(bool parallel, const std::vector<std::string>& vars, std::vector<Ex> extents,
                                     const std::function<void()>& body) {
  const char* what = parallel ? "prange" : "srange";
  if (vars.empty()) misuse(what, "a loop needs at least one variable");
  if (vars.size() != extents.size())
    misuse(what, "loop has " + std::to_string(vars.size()) + " variable(s) but " + std::to_string(extents.size()) +
                     " extent(s); give one extent per variable");
  Stmt s;
  s.kind = StmtKind::Loop;
  s.parallel = parallel;
  s.vars = idents(what, "loop variable", vars);
  s.extents = exprs(std::move(extents));
  std::vector<std::string> saved_comments = pending_;
  add_stmt(std::move(s), what);
  loop_path_.push_back(open_body(what).size() - 1);
  try {
    if (body) body();
  } catch (...) {
    loop_path_.pop_back();
    open_body(what).pop_back();  // the program is as it was before this call
    pending_ = std::move(saved_comments);
    throw;
  }
  loop_path_.pop_back();
  return *this;
}

Program ProgramBuilder::build() const {
  if (!loop_path_.empty()) misuse("build", "called inside a loop body; build the program after the loop is complete");
  Program p = p_;
  p.trailing_comments = pending_;
  return p;
}

}  // namespace loom::build

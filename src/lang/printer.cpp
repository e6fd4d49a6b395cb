// The canonical printer (`loom fmt`) and the structural dump (`--emit=ast`). The canonical form:
// two-space indentation, one statement per line, one blank line between declarations (consecutive
// tasks stay together), instance clauses in a fixed order (mem, tune, call, warpspecialize, pipeline,
// smem, layout, entry), filled up to 100 columns with continuation lines indented by six spaces.
// Test: tests/unit/roundtrip_test.cpp.
#include <sstream>

#include "loom/frontend.h"

namespace loom {
namespace {

int precedence(const Expr& e) {
  if (e.kind == ExprKind::Binary) return (e.op == '+' || e.op == '-') ? 1 : 2;
  if (e.kind == ExprKind::Unary) return 3;
  return 4;
}

void print_expr(const Expr& e, std::string& out) {
  auto list = [&](size_t from) {
    for (size_t i = from; i < e.args.size(); ++i) {
      if (i > from) out += ", ";
      print_expr(e.args[i], out);
    }
  };
  switch (e.kind) {
    case ExprKind::Int: out += std::to_string(e.ival); break;
    case ExprKind::Float: out += e.name; break;
    case ExprKind::Name: out += e.name; break;
    case ExprKind::Star: out += "*"; break;
    case ExprKind::Unary: {
      out += e.op;
      bool paren = precedence(e.args[0]) < 3;
      if (paren) out += "(";
      print_expr(e.args[0], out);
      if (paren) out += ")";
      break;
    }
    case ExprKind::Binary: {
      int p = precedence(e);
      bool lp = precedence(e.args[0]) < p;
      bool rp = precedence(e.args[1]) <= p;  // left-associative operators
      if (lp) out += "(";
      print_expr(e.args[0], out);
      if (lp) out += ")";
      out += std::string(" ") + e.op + " ";
      if (rp) out += "(";
      print_expr(e.args[1], out);
      if (rp) out += ")";
      break;
    }
    case ExprKind::Call:
      out += e.name + "(";
      list(0);
      out += ")";
      break;
    case ExprKind::Index: {
      bool paren = precedence(e.args[0]) < 4;
      if (paren) out += "(";
      print_expr(e.args[0], out);
      if (paren) out += ")";
      out += "[";
      list(1);
      out += "]";
      break;
    }
    case ExprKind::List:
      out += "[";
      list(0);
      out += "]";
      break;
  }
}

// "  // text" for a same-line comment, or "".
std::string trailing(const std::string& c) { return c.empty() ? "" : "  //" + c; }

void comments(const std::vector<std::string>& cs, const std::string& indent, std::string& out) {
  for (const std::string& c : cs) out += c == "\n" ? std::string("\n") : indent + "//" + c + "\n";
}

template <typename T, typename F>
std::string join(const std::vector<T>& xs, F f, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i) s += sep;
    s += f(xs[i]);
  }
  return s;
}

void print_stmts(const std::vector<Stmt>& body, int depth, std::string& out) {
  std::string ind(static_cast<size_t>(depth) * 2, ' ');
  for (const Stmt& s : body) {
    comments(s.comments, ind, out);
    out += ind;
    switch (s.kind) {
      case StmtKind::Bind:
        out += s.target.name + " = " + format_expr(s.value) + ";" + trailing(s.trailing_comment) + "\n";
        break;
      case StmtKind::Call:
        if (!s.label.name.empty()) out += s.label.name + ": ";
        out += s.target.name + "(" + join(s.args, format_expr) + ");" + trailing(s.trailing_comment) + "\n";
        break;
      case StmtKind::Loop:
        out += std::string(s.parallel ? "prange " : "srange ") +
               join(s.vars, [](const Ident& i) { return i.name; }) + " in " + join(s.extents, format_expr) + " {" +
               trailing(s.trailing_comment) + "\n";
        print_stmts(s.body, depth + 1, out);
        comments(s.closing_comments, ind + "  ", out);
        out += ind + "}\n";
        break;
    }
  }
}

std::string task_text(const TaskDecl& t) {
  std::string out = "task " + t.name.name;
  if (!t.type_params.empty()) out += "<" + join(t.type_params, [](const Ident& i) { return i.name; }) + ">";
  out += "(" + join(t.params, [](const Param& p) {
           if (!p.is_tensor) return p.name.name + ": " + p.elem.name;
           return p.name.name + ": " + privilege_spelling(p.priv) + " " + p.elem.name + "[" +
                  join(p.dims, [](const Ident& i) { return i.name; }) + "]";
         }) +
         ");" + trailing(t.trailing_comment) + "\n";
  return out;
}

std::string variant_text(const VariantDecl& v) {
  std::string out = "variant " + v.name.name + " of " + v.task.name + "(" +
                    join(v.params, [](const VariantParam& p) {
                      return p.priv ? p.name.name + ": " + privilege_spelling(*p.priv) : p.name.name;
                    }) +
                    "): " + (v.kind == VariantKind::Inner ? "inner" : "leaf");
  auto names = [](const Ident& i) { return i.name; };
  if (!v.tunables.empty()) out += " tunables(" + join(v.tunables, names) + ")";
  if (!v.processors.empty()) out += " on(" + join(v.processors, names) + ")";
  if (v.is_extern) {
    out += " extern %{" + v.extern_code + "%}\n";
    return out;
  }
  out += " {" + trailing(v.trailing_comment) + "\n";
  print_stmts(v.body, 1, out);
  comments(v.closing_comments, "  ", out);
  out += "}\n";
  return out;
}

std::vector<std::string> instance_clauses(const Instance& in) {
  auto names = [](const Ident& i) { return i.name; };
  std::vector<std::string> cs;
  if (!in.mems.empty() || in.mem_loc.valid()) cs.push_back("mem(" + join(in.mems, names) + ")");
  if (!in.tunes.empty())
    cs.push_back("tune(" + join(in.tunes, [](const TuneValue& t) { return t.name.name + "=" + format_expr(t.value); }) + ")");
  if (!in.calls.empty())
    cs.push_back("call(" + join(in.calls, [](const Dispatch& d) { return d.key.name + ": " + d.instance.name; }) + ")");
  if (in.warp_specialize) cs.push_back(*in.warp_specialize ? "warpspecialize" : "nowarpspecialize");
  if (in.pipeline) cs.push_back("pipeline(" + std::to_string(*in.pipeline) + ")");
  if (in.pingpong) cs.push_back(in.pingpong_double_buffer ? "pingpong(double_buffer)" : "pingpong");
  if (in.splitk) cs.push_back("splitk(" + std::to_string(*in.splitk) + ")");
  if (in.streamk) cs.push_back("streamk");
  if (in.multicast)
    cs.push_back("multicast(" + std::to_string(*in.multicast) + (in.multicast_n ? ", " + std::to_string(*in.multicast_n) : "") + ")");
  if (in.alternate) cs.push_back("alternate(" + std::to_string(*in.alternate) + ")");
  if (in.kteams) cs.push_back("kteams(" + std::to_string(*in.kteams) + ")");
  if (in.schedule_optimal)
    cs.push_back("schedule(optimal" + (in.schedule_budget ? ", budget=" + std::to_string(*in.schedule_budget) : std::string()) + ")");
  if (in.regs) cs.push_back("regs(" + std::to_string(in.regs->first) + ", " + std::to_string(in.regs->second) + ")");
  if (in.smem_bytes) cs.push_back("smem(" + (in.smem_spelling.empty() ? std::to_string(*in.smem_bytes) : in.smem_spelling) + ")");
  if (!in.layouts.empty())
    cs.push_back("layout(" + join(in.layouts, [&](const LayoutSpec& l) { return l.arg.name + ": " + join(l.attrs, names, " "); }) + ")");
  if (in.entry) {
    std::string e = "entry";
    if (!in.entry_types.empty())
      e += "(" + join(in.entry_types, [](const TypeBinding& b) { return b.name.name + "=" + b.type.name; }) + ")";
    cs.push_back(e);
  }
  return cs;
}

std::string mapping_text(const Mapping& m) {
  std::string out = "mapping " + m.target.name;
  if (m.when) {
    out += " " + format_condition(*m.when);
  }
  out += " {\n";
  for (const Instance& in : m.instances) {
    comments(in.comments, "  ", out);
    std::string head = "  instance " + in.name.name + " = " + in.variant.name + " on " + in.processor.name;
    std::vector<std::string> cs = instance_clauses(in);
    // Fill lines up to 100 columns; continuation lines are indented by six spaces.
    std::string line = head;
    for (const std::string& c : cs) {
      if (line.size() + 1 + c.size() + 1 > 100 && line != head) {
        out += line + "\n";
        line = "      " + c;
      } else {
        line += " " + c;
      }
    }
    out += line + ";" + trailing(in.trailing_comment) + "\n";
  }
  comments(m.closing_comments, "  ", out);
  out += "}\n";
  return out;
}

}  // namespace

std::string format_expr(const Expr& e) {
  std::string s;
  print_expr(e, s);
  return s;
}

std::string format_condition(const MappingCondition& c) {
  if (c.fastest) return "when(fastest)";
  return "when(" + format_expr(c.lhs) + " " + c.cmp + " " + format_expr(c.rhs) + ")";
}

std::string format_program(const Program& p) {
  std::string out;
  bool prev_task = false;
  bool first = true;
  for (const Program::Item& it : p.order) {
    bool is_task = it.kind == Program::ItemKind::Task;
    const auto& cs = is_task ? p.tasks[it.index].comments : p.variants[it.index].comments;
    if (!first && !(is_task && prev_task && cs.empty())) out += "\n";
    comments(cs, "", out);
    out += is_task ? task_text(p.tasks[it.index]) : variant_text(p.variants[it.index]);
    prev_task = is_task;
    first = false;
  }
  if (p.mapping) {
    if (!first) out += "\n";
    comments(p.mapping->comments, "", out);
    out += mapping_text(*p.mapping);
  }
  for (const Mapping& m : p.specializations) {
    out += "\n";
    comments(m.comments, "", out);
    out += mapping_text(m);
  }
  if (!p.trailing_comments.empty()) {
    if (!out.empty()) out += "\n";
    comments(p.trailing_comments, "", out);
  }
  return out;
}

// ---- structural dump ----
namespace {

void dump_expr(const Expr& e, std::string& out) {
  switch (e.kind) {
    case ExprKind::Int: out += "(int " + std::to_string(e.ival) + ")"; return;
    case ExprKind::Float: out += "(float " + e.name + ")"; return;
    case ExprKind::Name: out += "(name " + e.name + ")"; return;
    case ExprKind::Star: out += "(star)"; return;
    case ExprKind::Unary: out += std::string("(unary ") + e.op; break;
    case ExprKind::Binary: out += std::string("(binary ") + e.op; break;
    case ExprKind::Call: out += "(call " + e.name; break;
    case ExprKind::Index: out += "(index"; break;
    case ExprKind::List: out += "(list"; break;
  }
  for (const Expr& a : e.args) {
    out += " ";
    dump_expr(a, out);
  }
  out += ")";
}

void dump_stmts(const std::vector<Stmt>& body, int depth, std::string& out) {
  std::string ind(static_cast<size_t>(depth) * 2, ' ');
  for (const Stmt& s : body) {
    out += ind;
    switch (s.kind) {
      case StmtKind::Bind:
        out += "(bind " + s.target.name + " ";
        dump_expr(s.value, out);
        out += ")\n";
        break;
      case StmtKind::Call:
        out += "(call " + s.target.name;
        if (!s.label.name.empty()) out += " :label " + s.label.name;
        for (const Expr& a : s.args) {
          out += " ";
          dump_expr(a, out);
        }
        out += ")\n";
        break;
      case StmtKind::Loop:
        out += std::string("(") + (s.parallel ? "prange" : "srange");
        for (size_t i = 0; i < s.vars.size(); ++i) {
          out += " (" + s.vars[i].name + " ";
          if (i < s.extents.size()) dump_expr(s.extents[i], out);
          out += ")";
        }
        out += "\n";
        dump_stmts(s.body, depth + 1, out);
        out += ind + ")\n";
        break;
    }
  }
}

}  // namespace

std::string dump_program(const Program& p) {
  std::string out;
  auto names = [](const std::vector<Ident>& v) {
    std::string s;
    for (const Ident& i : v) s += " " + i.name;
    return s;
  };
  for (const Program::Item& it : p.order) {
    if (it.kind == Program::ItemKind::Task) {
      const TaskDecl& t = p.tasks[it.index];
      out += "(task " + t.name.name + " (types" + names(t.type_params) + ")\n";
      for (const Param& pr : t.params) {
        if (pr.is_tensor)
          out += "  (tensor " + pr.name.name + " " + privilege_spelling(pr.priv) + " " + pr.elem.name + " (dims" +
                 names(pr.dims) + "))\n";
        else
          out += "  (scalar " + pr.name.name + " " + pr.elem.name + ")\n";
      }
      out += ")\n";
    } else {
      const VariantDecl& v = p.variants[it.index];
      out += "(variant " + v.name.name + " of " + v.task.name + " " + (v.kind == VariantKind::Inner ? "inner" : "leaf");
      out += " (params";
      for (const VariantParam& vp : v.params)
        out += " " + vp.name.name + (vp.priv ? std::string(":") + privilege_spelling(*vp.priv) : "");
      out += ") (tunables" + names(v.tunables) + ") (on" + names(v.processors) + ")\n";
      if (v.is_extern) out += "  (extern " + std::to_string(v.extern_code.size()) + " bytes)\n";
      dump_stmts(v.body, 1, out);
      out += ")\n";
    }
  }
  std::vector<const Mapping*> all;
  if (p.mapping) all.push_back(&*p.mapping);
  for (const Mapping& m : p.specializations) all.push_back(&m);
  for (const Mapping* mp : all) {
    out += "(mapping " + mp->target.name;
    if (mp->when && mp->when->fastest) {
      out += " (when fastest)";
    } else if (mp->when) {
      out += " (when " + mp->when->cmp + " ";
      dump_expr(mp->when->lhs, out);
      out += " ";
      dump_expr(mp->when->rhs, out);
      out += ")";
    }
    out += "\n";
    for (const Instance& in : mp->instances) {
      out += "  (instance " + in.name.name + " " + in.variant.name + " on " + in.processor.name + " (mem" +
             names(in.mems) + ")";
      for (const TuneValue& t : in.tunes) {
        out += " (tune " + t.name.name + " ";
        dump_expr(t.value, out);
        out += ")";
      }
      for (const Dispatch& d : in.calls) out += " (call " + d.key.name + " " + d.instance.name + ")";
      if (in.warp_specialize) out += *in.warp_specialize ? " warpspecialize" : " nowarpspecialize";
      if (in.pipeline) out += " (pipeline " + std::to_string(*in.pipeline) + ")";
      if (in.pingpong) out += in.pingpong_double_buffer ? " (pingpong double_buffer)" : " pingpong";
      if (in.splitk) out += " (splitk " + std::to_string(*in.splitk) + ")";
      if (in.streamk) out += " streamk";
      if (in.multicast)
        out += " (multicast " + std::to_string(*in.multicast) + (in.multicast_n ? " " + std::to_string(*in.multicast_n) : "") + ")";
      if (in.alternate) out += " (alternate " + std::to_string(*in.alternate) + ")";
      if (in.kteams) out += " (kteams " + std::to_string(*in.kteams) + ")";
      if (in.schedule_optimal) out += " (schedule optimal)";
      if (in.regs) out += " (regs " + std::to_string(in.regs->first) + " " + std::to_string(in.regs->second) + ")";
      if (in.smem_bytes) out += " (smem " + std::to_string(*in.smem_bytes) + ")";
      for (const LayoutSpec& l : in.layouts) out += " (layout " + l.arg.name + names(l.attrs) + ")";
      if (in.entry) {
        out += " (entry";
        for (const TypeBinding& b : in.entry_types) out += " " + b.name.name + "=" + b.type.name;
        out += ")";
      }
      out += ")\n";
    }
    out += ")\n";
  }
  return out;
}

}  // namespace loom

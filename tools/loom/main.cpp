// The `loom` command-line tool. Subcommands:
//   loom check FILE              parse + semantic check; prints nothing on success
//   loom fmt FILE [-i|--check]   print the canonical form (in place with -i)
//   loom compile FILE --emit=ast|tree|ir|cuda|header|torch|ptx|cubin [-o OUT]
//   loom compile FILE -o DIR     the artifact: DIR/<entry>.cu and DIR/<entry>.h
//   loom compile FILE --emit=torch -o DIR   the artifact and DIR/<entry>_torch.cpp (PyTorch operator)
//   loom schedule GRAPH.json ... optimal software pipelining + warp specialization (docs/schedule.md)
// FILE may be `-` for stdin. Common flags: --diagnostics=json, --version, --help.
// Exit status: 0 ok, 1 user error (diagnostics printed), 2 internal error (a loom bug).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <map>
#include <optional>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "loom/check.h"
#include "loom/frontend.h"
#include "loom/machine.h"
#include "codegen/cuda.h"
#include "codegen/torch_ext.h"
#include "passes/pipeline.h"
#include "passes/schedule_graph.h"
#include "tx/cli.h"
#ifdef LOOM_HAVE_SCHED
#include "sched/cli.h"
#endif

namespace {

constexpr const char* kUsage =
    "usage: loom <command> [options] FILE\n"
    "\n"
    "commands:\n"
    "  check FILE               check a program and its mapping\n"
    "  fmt FILE                 print the canonical form (-i: rewrite FILE, --check: exit 1 if not canonical)\n"
    "  compile FILE             compile; --emit=tree (instantiated task tree, default) | ast | ir (event IR)\n"
    "                           | cuda (the kernel and launcher) | header (its C ABI) | torch (the PyTorch\n"
    "                           operator) | ptx | cubin (nvcc) | schedule (what schedule(optimal) solved\n"
    "                           and realized; --svg FILE draws it) | schedule-graph (the pipelined loop's\n"
    "                           dependence graph as `loom schedule` reads it; --loop=K picks the K-th loop,\n"
    "                           --tiles=T the tile loop's graph that schedule(optimal) solved for T teams,\n"
    "                           --subtiles=G the loop as G sub-tiles, one team of warp group each,\n"
    "                           --mapping=K the K-th mapping: 0 the default, then the specializations)\n"
    "  compile FILE -o DIR      write the artifact DIR/<entry>.cu and DIR/<entry>.h (docs/artifact.md)\n"
    "  compile FILE --emit=torch -o DIR\n"
    "                           the artifact and DIR/<entry>_torch.cpp, the PyTorch operator\n"
    "                           torch.ops.loom.<entry> (docs/pytorch.md)\n"
    "  run --cpu FILE           run the compiled event IR on the CPU in a random legal order and compare\n"
    "                           with the sequential reference (--size M=129,N=257 --seed 7 [--seeds N]\n"
    "                           [--tolerance X]: default exact, or 1 ulp for programs using exp/div/...);\n"
    "                           also fails on a data race (two unordered accesses, one writing; off with\n"
    "                           --no-race-check)\n"
    "  compile FILE.tx          a tensor-expression file: --emit=tx (canonical text) | deps (ISL domains,\n"
    "                           accesses, dependences) | contraction (recognized tensor-core kernels) |\n"
    "                           mapping (the SIMT kernels' thread mapping and its costs) | loom; -o DIR\n"
    "                           or --emit=cuda|header for the kernels;\n"
    "                           run --cpu FILE.tx [--size M=..]: its direct interpreter against the lowered\n"
    "                           programs on the CPU executor, same random inputs (--interpret-only: the\n"
    "                           interpreter alone)\n"
    "  schedule GRAPH.json      optimal modulo schedule + warp assignment (see docs/schedule.md)\n"
    "\n"
    "options:\n"
    "  -                        read the program from stdin\n"
    "  -o FILE                  write the output to FILE\n"
    "  --diagnostics=json       print diagnostics on stderr as JSON, one object per line\n"
    "                           (every command; --diagnostics=text, the default, as file:line:col: error: ...)\n"
    "  --print-after-all        print the IR after every pass that changed it (compile --emit=ir)\n"
    "  --time-passes            print the time of every pass\n"
    "  --version                print the version\n"
    "  --runtime-dir            print where loom's runtime/ headers are (for building the artifact)\n";

struct Options {
  std::string command;
  std::string input;
  std::string output;
  std::string emit = "tree";
  bool emit_given = false;
  bool json_diags = false;
  bool in_place = false;
  bool check_only = false;
  bool print_after_all = false;
  bool time_passes = false;
  bool cpu = false;
  std::string sizes;
  uint64_t seed = 1;
  int seeds = 1;
  double tolerance = -1;  // < 0: chosen from the program's leaf ops
  bool race_check = true;  // run --cpu: fail on a data race (ExecOptions::detect_races)
  bool interpret_only = false;  // run --cpu x.tx: the interpreter alone
  int loop = 0;  // --emit=schedule-graph: which pipelined loop (--loop=K)
  int tiles = 0;  // --emit=schedule-graph: the tile loop's graph with T tiles an iteration (--tiles=T; 0: the loop's own)
  int subtiles = 0;  // --emit=schedule-graph: the loop as G sub-tiles, each a team (--subtiles=G; 0: as it is)
  int mapping = 0;  // --emit=schedule-graph: which mapping (--mapping=K; 0 the default, then the specializations)
  std::string svg;  // --emit=schedule --svg FILE: the solved schedules drawn
};

// --diagnostics=json: every diagnostic, including the ones below that have no place in a program
// (command line, files, tools), is one JSON object per line on stderr (docs/cli.md). Set once in
// main() before anything can fail.
bool json_diagnostics = false;

// Prints one diagnostic that belongs to a file (or to the command line) rather than to a place in
// a program: `FILE: error: message` (+ `FILE: hint: ...`), or its JSON line with line = column = 0.
int fail(const std::string& file, const std::string& message, const std::string& hint = "") {
  loom::SourceManager sm;
  sm.add(file, "");
  loom::DiagnosticEngine diag(sm);
  diag.error(loom::SourceLoc{}, message).hint = hint;
  std::cerr << (json_diagnostics ? diag.format_json() : diag.format_text());
  return 1;
}

// A bad command line: the message, and in text form the usage after it.
// An option's whole value `v` as an integer in [lo, hi] into `out`; false (out unchanged) otherwise.
bool int_option(const std::string& v, long lo, long hi, int& out) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) return false;
  out = static_cast<int>(n);
  return true;
}

int usage_error(const std::string& msg) {
  fail("loom", msg);
  if (!json_diagnostics) std::cerr << kUsage;
  return 1;
}

bool read_input(const std::string& path, std::string& text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  text = ss.str();
  return true;
}

// Writes `text` to -o FILE (stdout without -o); a failure is reported. Returns the exit status.
int write_output(const Options& o, const std::string& text) {
  if (o.output.empty() || o.output == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream f(o.output, std::ios::binary);
  if (f) f << text;
  if (!f) return fail(o.output, "cannot write the output file");
  return 0;
}

int report(const loom::DiagnosticEngine& diag, const Options& o) {
  if (o.json_diags)
    std::cerr << diag.format_json();
  else
    std::cerr << diag.format_text();
  return diag.has_errors() ? 1 : 0;
}


// Every mapping of the program (loom::mapping_units) with its condition as the generated comments
// and messages show it: "when(...) [file:line]".
struct Unit {
  loom::Program program;
  loom::TaskTree tree;
  std::string when_text;
};

std::vector<Unit> mapping_units(const loom::Program& program, const loom::TaskTree& tree, const std::string& source) {
  std::vector<Unit> out;
  for (loom::MappingUnit& u : loom::mapping_units(program, tree)) {
    std::string text;
    if (u.when)
      text = loom::format_condition(*u.when) + " [" +
             source + ":" + std::to_string(u.when->loc.line) + "]";
    out.push_back({std::move(u.program), std::move(u.tree), text});
  }
  return out;
}

// The value of a specialized mapping's condition term at the --size extents, SMS being the machine
// model's multiprocessor count; nullopt when it names an extent --size does not bind or divides by 0.
std::optional<int64_t> size_value(const loom::ir::SizeExpr& e, const std::map<std::string, int64_t>& sizes, int64_t sms) {
  using K = loom::ir::SizeExpr::Kind;
  switch (e.kind) {
    case K::Int: return e.value;
    case K::Name: {
      if (e.name == "SMS") return sms;
      auto it = sizes.find(e.name);
      return it == sizes.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    case K::Neg: {
      auto a = size_value(e.args.at(0), sizes, sms);
      return a ? std::optional<int64_t>(-*a) : std::nullopt;
    }
    case K::Binary:
    case K::Call: {
      auto a = size_value(e.args.at(0), sizes, sms), b = size_value(e.args.at(1), sizes, sms);
      if (!a || !b) return std::nullopt;
      if (e.kind == K::Call) {
        if (e.name == "min") return std::min(*a, *b);
        if (e.name == "max") return std::max(*a, *b);
        if (e.name == "cdiv" && *b > 0) return (*a + *b - 1) / *b;
        return std::nullopt;
      }
      switch (e.op) {
        case '+': return *a + *b;
        case '-': return *a - *b;
        case '*': return *a * *b;
        case '/': return *b ? std::optional<int64_t>(*a / *b) : std::nullopt;
        case '%': return *b ? std::optional<int64_t>(*a % *b) : std::nullopt;
        default: return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

// Whether a specialized mapping's when(...) holds at the --size extents (nullopt: cannot tell).
std::optional<bool> condition_holds(const loom::ir::LaunchCondition& c, const std::map<std::string, int64_t>& sizes,
                                    int64_t sms) {
  if (c.fastest) return true;  // the cost model may pick it at any extents: always run it
  auto l = size_value(c.lhs, sizes, sms), r = size_value(c.rhs, sizes, sms);
  if (!l || !r) return std::nullopt;
  if (c.cmp == "<") return *l < *r;
  if (c.cmp == "<=") return *l <= *r;
  if (c.cmp == ">") return *l > *r;
  if (c.cmp == ">=") return *l >= *r;
  return std::nullopt;
}

// `loom run --cpu`: the same random integer inputs through the sequential reference interpreter and
// through the compiled event IR executed in a seeded random order; prints `match` or the first
// mismatching element. The executor also checks for data races (src/exec/executor.h, RACES) unless
// --no-race-check. Exit 0 on match, 1 otherwise.
int run_cpu(const Options& o, const loom::Program& program, const loom::TaskTree& tree) {
  if (!o.cpu) return usage_error("`loom run` needs --cpu (the only engine in this build)");
  std::map<std::string, int64_t> sizes;
  try {
    sizes = loom::exec::parse_sizes(o.sizes);
  } catch (const std::runtime_error& e) {
    return fail("loom", std::string("--size: ") + e.what());
  }
  // Every mapping (the default and each specialization whose condition holds at --size, with SMS the
  // machine model's multiprocessor count) runs on the same inputs against the same reference: mapping
  // choices may change speed, never results. A specialization whose condition does not hold is never
  // launched for these extents (it may not even cover them: when(D <= 64) with 64-wide tiles), so it
  // is not run, and the output says so.
  std::string source = o.input == "-" ? "<stdin>" : std::filesystem::path(o.input).filename().string();
  std::vector<Unit> units = mapping_units(program, tree, source);
  std::vector<loom::ir::Function> fs;
  const loom::Machine* machine = program.mapping ? loom::find_machine(program.mapping->target.name) : nullptr;
  std::vector<bool> skip;            // per mapping: its condition does not hold at --size
  std::vector<std::string> not_run;  // their conditions, for the output
  for (size_t m = 0; m < units.size(); ++m) {
    fs.push_back(loom::lower_to_event_ir(units[m].program, units[m].tree));
    skip.push_back(m > 0 && fs.back().when && machine &&
                   condition_holds(*fs.back().when, sizes, machine->limits.sm_count) == std::optional<bool>(false));
    if (skip.back()) not_run.push_back(units[m].when_text);
  }
  // Integer inputs keep mma, copies and sums exact, so those programs must match exactly. Programs
  // with transcendental or dividing leaf ops (exp, exp2, sigmoid, tanh, silu, gelu(_fast), div) round, and their
  // row sums add in a schedule-dependent order: they may differ by one rounding step of the output
  // element type (1 ulp), never more.
  double tolerance = o.tolerance < 0 ? 0 : o.tolerance;
  double ulps = 0;
  if (o.tolerance < 0)
    for (const loom::VariantDecl& v : program.variants)
      for (const loom::Stmt& st : v.body)
        if (st.kind == loom::StmtKind::Call)
          for (const char* inexact : {"exp", "exp2", "sigmoid", "tanh", "silu", "gelu", "gelu_fast", "div"})
            if (st.target.name == inexact) ulps = 1;
  // Each mapping's IR is compared with the reference run under that mapping's own dispatch (its
  // tile sizes): a specialization may cover extents the default cannot (flash_attention_2 with a
  // when(D > 128) mapping whose head-dimension tile is 256, where the default's 128-wide tile would
  // leave O's columns past 128 unwritten). Exact programs must also give the default's results in
  // every mapping whose reference writes every output the default's does (the default covers the
  // extents); inexact ones may round differently per tiling, so there each mapping answers to its own.
  auto unwritten = [](const loom::exec::Args& a) {
    int64_t n = 0;
    for (const loom::exec::Arg& x : a.args)
      if (x.is_tensor && loom::writes(x.priv)) n += loom::exec::count_nan(x);
    return n;
  };
  bool all_match = true;
  for (int s = 0; s < o.seeds && all_match; ++s) {
    uint64_t seed = o.seed + static_cast<uint64_t>(s);
    loom::exec::Args inputs, ref0;
    try {
      inputs = loom::exec::make_inputs(program, tree, sizes, seed);
      ref0 = loom::exec::copy_args(inputs);
      loom::exec::run_reference(program, tree, ref0);
    } catch (const std::runtime_error& e) {
      return fail(o.input == "-" ? "<stdin>" : o.input, e.what());
    }
    const int64_t ref0_unwritten = unwritten(ref0);
    for (size_t m = 0; m < fs.size(); ++m) {
      if (skip[m]) continue;
      const std::string which = units.size() == 1 ? "" : m == 0 ? " (the default mapping)" : " (mapping " + units[m].when_text + ")";
      loom::exec::Args ref = m == 0 ? loom::exec::copy_args(ref0) : loom::exec::copy_args(inputs);
      if (m > 0) {
        try {
          loom::exec::run_reference(units[m].program, units[m].tree, ref);
        } catch (const std::runtime_error& e) {
          return fail(o.input == "-" ? "<stdin>" : o.input, std::string("the reference") + which + ": " + e.what());
        }
        if (ulps == 0 && tolerance == 0 && ref0_unwritten <= unwritten(ref)) {
          if (auto mm = loom::exec::compare_outputs(ref0, ref, 0, 0)) {
            std::cout << "mismatch" << which << " (seed " << seed << "): its reference differs from the default mapping's: "
                      << mm->describe() << "\n";
            all_match = false;
            break;
          }
        }
      }
      loom::exec::Args got = loom::exec::copy_args(inputs);
      loom::exec::ExecOptions eo;
      eo.detect_races = o.race_check;
      loom::exec::ExecResult r = loom::exec::execute(fs[m], loom::exec::exec_args(got), seed, eo);
      if (!r.ok) {
        return fail(o.input == "-" ? "<stdin>" : o.input,
                    "the compiled program" + which + " failed on the CPU (seed " + std::to_string(seed) + "): " + r.error);
      }
      auto mm = loom::exec::compare_outputs(ref, got, tolerance, ulps);
      if (mm) {
        std::cout << "mismatch" << which << " (seed " << seed << "): " << mm->describe() << "\n";
        all_match = false;
        break;
      }
    }
  }
  if (all_match) {
    std::cout << "match";
    if (units.size() > 1 && not_run.empty()) std::cout << " (all " << units.size() << " mappings)";
    if (!not_run.empty()) {
      std::cout << " (" << units.size() - not_run.size() << " of " << units.size() << " mappings; not run, their condition does not hold at --size:";
      for (const std::string& w : not_run) std::cout << " " << w;
      std::cout << ")";
    }
    if (tolerance > 0) std::cout << " (within " << tolerance << ")";
    if (ulps > 0) std::cout << " (within 1 ulp: the program rounds inexact results)";
    std::cout << "\n";
  }
  return all_match ? 0 : 1;
}

int run_middle_end(const Options& o, const loom::Program& program, const loom::TaskTree& tree);

// A tensor-expression file (docs/tensor-expressions.md): check, fmt, compile --emit=tx|deps|contraction,
// run --cpu (the direct interpreter).
int run_tx(const Options& o, const std::string& text) {
  if (o.command == "run" && !o.cpu) return usage_error("`loom run` needs --cpu (the only engine in this build)");
  loom::tx::TxCommand c;
  c.command = o.command;
  c.path = o.input;
  c.text = text;
  c.emit = o.emit_given ? o.emit : "";
  c.sizes = o.sizes;
  c.seed = o.seed;
  c.interpret_only = o.interpret_only;
  c.race_check = o.race_check;
  c.tolerance = o.tolerance;
  c.json_diagnostics = o.json_diags;
  std::string out, err;
  const int rc = loom::tx::run_tx_command(c, out, err);
  if (rc != 0 && o.command == "run") std::cout << out;  // the comparison's report, with the mismatch
  std::cerr << err;
  if (rc != 0) return rc;
  if (o.command == "fmt" && o.check_only)
    return out == text ? 0 : fail(o.input, "not in canonical form", "run `loom fmt -i " + o.input + "`");
  if (o.command == "fmt" && o.in_place) {
    if (o.input == "-") return usage_error("-i needs a file, not stdin");
    Options w = o;
    w.output = o.input;
    return write_output(w, out);
  }
  return write_output(o, out);
}

int run_loom_text(const Options& o, const std::string& text);

// `loom compile x.tx` to the back end's kinds (or -o DIR): each recognized kernel lowered to its task
// program (--emit=loom shows it), compiled like a `.loom` file named <kernel>.loom beside x.tx.
int compile_tx(const Options& o, const std::string& text) {
  std::vector<std::pair<std::string, std::string>> programs;
  std::vector<loom::tx::SimtArtifact> simt;
  std::string err;
  const int rc = loom::tx::lower_tx_file(o.input, text, programs, simt, err, o.json_diags);
  std::cerr << err;
  if (rc != 0) return rc;
  for (const auto& [name, program] : programs) {
    Options w = o;
    w.input = (std::filesystem::path(o.input == "-" ? "." : o.input).parent_path() / (name + ".loom")).string();
    if (int r = run_loom_text(w, program); r != 0) return r;
  }
  // SIMT kernels (thread-mapped, src/tx/thread_map.h) go straight to CUDA: --emit=cuda|header or -o DIR.
  for (const loom::tx::SimtArtifact& a : simt) {
    if (o.emit_given && o.emit != "cuda" && o.emit != "header")
      return fail(o.input, "the SIMT kernel `" + a.entry + "` has no " + o.emit + " form; it compiles with --emit=cuda, --emit=header or -o DIR",
                  "`loom compile " + o.input + " --emit=mapping` shows its thread mapping");
    if (o.emit_given) {
      if (int r = write_output(o, o.emit == "cuda" ? a.cu : a.header); r != 0) return r;
      continue;
    }
    if (o.output.empty()) return usage_error("loom compile " + o.input + " needs -o DIR or --emit=cuda|header|mapping");
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(o.output, ec);
    std::ofstream cu(fs::path(o.output) / (a.entry + ".cu"), std::ios::binary), h(fs::path(o.output) / (a.entry + ".h"), std::ios::binary);
    cu << a.cu;
    h << a.header;
    if (ec || !cu || !h) return fail(o.output, "cannot write the artifact into this directory");
  }
  return 0;
}

int run(const Options& o) {
  std::string text;
  if (!read_input(o.input, text)) {
    return fail(o.input, "cannot read the file", "check the path and its permissions");
  }
  if (o.input.size() > 3 && o.input.compare(o.input.size() - 3, 3, ".tx") == 0) {
    const bool analysis = o.emit_given && (o.emit == "tx" || o.emit == "deps" || o.emit == "contraction" || o.emit == "mapping" || o.emit == "loom");
    if (o.command == "compile" && !analysis) return compile_tx(o, text);
    return run_tx(o, text);
  }
  return run_loom_text(o, text);
}

int run_loom_text(const Options& o, const std::string& text) {
  loom::SourceManager sm;
  uint32_t file = sm.add(o.input == "-" ? "<stdin>" : o.input, text);
  loom::DiagnosticEngine diag(sm);
  loom::Program program = loom::parse_program(sm, file, diag);
  if (diag.has_errors()) return report(diag, o);

  if (o.command == "fmt") {
    // Never drop a comment silently: refuse to format when one sits where the canonical form has no
    // place for it (inside an expression or between instance clauses).
    for (const loom::SourceLoc& loc : program.misplaced_comments) {
      auto& d = diag.error(loc, "`loom fmt` cannot keep the comment here; it would be lost");
      d.hint = "move the comment onto its own line before the statement, instance or declaration";
    }
    if (diag.has_errors()) return report(diag, o);
    std::string canon = loom::format_program(program);
    if (o.check_only) {
      if (canon != text) {
        return fail(sm.name(file), "not in canonical form", "run `loom fmt -i " + sm.name(file) + "`");
      }
      return 0;
    }
    if (o.in_place) {
      if (o.input == "-") return usage_error("-i needs a file, not stdin");
      Options w = o;
      w.output = o.input;
      return write_output(w, canon);
    }
    return write_output(o, canon);
  }

  if (o.command == "compile" && o.emit == "ast") {
    report(diag, o);  // warnings, if any
    return write_output(o, loom::dump_program(program));
  }

  std::optional<loom::TaskTree> tree = loom::check_program(program, diag);
  int rc = report(diag, o);
  if (rc != 0) return rc;
  if (o.command == "check") return 0;
  if (!tree) {
    return fail(sm.name(file), "the program has no mapping, so there is nothing to compile",
                "add a `mapping { ... }` block with an `entry(...)` instance (docs/mapping.md)");
  }
  try {
    return run_middle_end(o, program, *tree);
  } catch (const loom::CompileError& e) {
    loom::DiagnosticEngine errors(sm);  // a fresh engine: the checker's warnings were printed above
    errors.report(e.diagnostic);
    return report(errors, o);
  }
}

// Where runtime/ (loom/runtime.cuh, host.h, abi.h) lives, for nvcc: $LOOM_RUNTIME, else next to the
// source tree this binary was built from.
std::string runtime_dir() {
  if (const char* e = std::getenv("LOOM_RUNTIME")) return e;
  return LOOM_SOURCE_DIR "/runtime";
}

// schedule(optimal) instances whose search fell back to the rule-based settings: a warning at the
// clause (src/passes/schedule_optimal.h).
void schedule_warnings(const Options& o, const loom::ir::Function& f) {
  const std::string file = o.input == "-" ? "<stdin>" : o.input;
  for (const loom::ir::ScheduleNote& n : f.schedule_notes)
    if (!n.warning.empty()) std::cerr << file << ":" << n.loc.line << ":" << n.loc.col << ": warning: " << n.warning << "\n";
}

// --emit=schedule: what schedule(optimal) solved and realized, per mapping.
int emit_schedule(const Options& o, const loom::Program& program, const loom::TaskTree& tree) {
  std::string source = o.input == "-" ? "<stdin>" : std::filesystem::path(o.input).filename().string();
  std::vector<Unit> units = mapping_units(program, tree, source);
  std::string out;
  std::vector<std::pair<std::string, std::string>> svgs;  // (what, picture)
  for (size_t i = 0; i < units.size(); ++i) {
    loom::ir::Function f = loom::lower_to_event_ir(units[i].program, units[i].tree);
    schedule_warnings(o, f);
    if (units.size() > 1) out += std::string(i ? "\n" : "") + "// mapping " + std::to_string(i) + ": " + (i ? units[i].when_text : "the default") + "\n";
    if (f.schedule_notes.empty()) out += "no instance of this mapping says schedule(optimal): its schedule is the mapping's\n";
    for (const loom::ir::ScheduleNote& n : f.schedule_notes) {
      out += n.report + "  realized: " + n.realized + "\n";
      if (!n.svg.empty()) svgs.push_back({"mapping" + std::to_string(i) + "-" + n.instance, n.svg});
      if (!n.tile_svg.empty()) svgs.push_back({"mapping" + std::to_string(i) + "-" + n.instance + "-tiles", n.tile_svg});
      if (!n.subtile_svg.empty()) svgs.push_back({"mapping" + std::to_string(i) + "-" + n.instance + "-subtiles", n.subtile_svg});
    }
  }
  if (!o.svg.empty()) {
    // One picture: FILE itself; several (mappings, instances): FILE's stem + "-mappingK-INSTANCE".
    if (svgs.empty())
      return fail(o.input, "--svg: no schedule(optimal) instance of this program has a solved schedule to draw",
                  "the search found none (see the warning) or no instance says schedule(optimal)");
    const std::filesystem::path base(o.svg);
    for (const auto& [what, picture] : svgs) {
      std::filesystem::path p = base;
      if (svgs.size() > 1) p = base.parent_path() / (base.stem().string() + "-" + what + base.extension().string());
      std::ofstream f(p);
      if (!(f << picture)) return fail(p.string(), "cannot write the schedule's SVG");
      out += "// wrote " + p.string() + "\n";
    }
  }
  return write_output(o, out);
}

// --emit=cuda|header|torch|ptx|cubin, or the artifact directory (-o DIR without --emit; with
// --emit=torch, the artifact and the PyTorch operator's source DIR/<entry>_torch.cpp).
int emit_cuda(const Options& o, const loom::Program& program, const loom::TaskTree& tree) {
  loom::PipelineOptions po;
  po.print_after_all = o.print_after_all;
  po.time_passes = o.time_passes;
  po.log = &std::cerr;
  std::string source = o.input == "-" ? "<stdin>" : std::filesystem::path(o.input).filename().string();
  // One kernel per mapping; the launcher picks one per call (docs/mapping.md, "Specialized mappings").
  std::vector<Unit> units = mapping_units(program, tree, source);
  std::vector<loom::ir::Function> lowered;
  for (const Unit& u : units) {
    lowered.push_back(loom::lower_to_event_ir(u.program, u.tree, po));
    schedule_warnings(o, lowered.back());
  }
  std::vector<loom::codegen::MappingKernel> kernels;
  for (size_t i = 0; i < units.size(); ++i) kernels.push_back({&lowered[i], units[i].when_text});
  loom::codegen::CudaArtifact a = loom::codegen::generate_cuda(kernels, source);
  if (o.emit == "cuda") return write_output(o, a.cu);
  if (o.emit == "header") return write_output(o, a.header);
  // --emit=torch: the PyTorch operator's source on stdout (-o FILE), or beside the artifact (-o DIR).
  const bool torch = o.emit == "torch";
  const std::string torch_source = torch ? loom::codegen::generate_torch_extension(a.signature, source) : "";
  if (torch && (o.output.empty() || o.output == "-")) return write_output(o, torch_source);
  namespace fs = std::filesystem;
  auto write = [](const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
    return static_cast<bool>(out);
  };
  if (o.emit == "ptx" || o.emit == "cubin") {
    fs::path tmp = fs::temp_directory_path() / ("loom-" + std::to_string(::getpid()));
    fs::create_directories(tmp);
    if (!write(tmp / (a.entry + ".cu"), a.cu) || !write(tmp / (a.entry + ".h"), a.header)) {
      return fail(tmp.string(), "cannot write the temporary files for nvcc");
    }
    fs::path out = o.output.empty() || o.output == "-" ? tmp / (a.entry + "." + o.emit) : fs::path(o.output);
    std::string cmd = "nvcc -std=c++17 -O3 -gencode=arch=compute_90a," + std::string(o.emit == "ptx" ? "code=compute_90a" : "code=sm_90a") +
                      (o.emit == "ptx" ? " -ptx" : " -cubin") + " -I" + runtime_dir() + " -I" + tmp.string() + " " +
                      (tmp / (a.entry + ".cu")).string() + " -o " + out.string();
    int rc = std::system(cmd.c_str());
    if (rc != 0) {
      fs::remove_all(tmp);
      return fail("nvcc", "nvcc failed (" + cmd + ")", "is the CUDA toolkit installed and nvcc on PATH?");
    }
    if (o.output.empty() || o.output == "-") {
      std::ifstream in(out, std::ios::binary);
      std::cout << std::string(std::istreambuf_iterator<char>(in), {});
    }
    fs::remove_all(tmp);
    return 0;
  }
  fs::path dir(o.output);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !write(dir / (a.entry + ".cu"), a.cu) || !write(dir / (a.entry + ".h"), a.header) ||
      (torch && !write(dir / loom::codegen::torch_extension_file(a.signature), torch_source))) {
    return fail(o.output, "cannot write the artifact into this directory");
  }
  return 0;
}

// --emit=schedule-graph: the dependence graph of mapping --mapping=K's (0: the default) pipelined
// loop --loop=K (0: the first) in the JSON format of `loom schedule` (docs/schedule.md,
// src/passes/schedule_graph.h).
int emit_schedule_graph(const Options& o, const loom::Program& program, const loom::TaskTree& tree) {
  std::string source = o.input == "-" ? "<stdin>" : std::filesystem::path(o.input).filename().string();
  std::vector<Unit> units = mapping_units(program, tree, source);
  if (o.mapping >= static_cast<int>(units.size()))
    return usage_error("--mapping=" + std::to_string(o.mapping) + ": the program has " + std::to_string(units.size()) +
                       " mapping(s), numbered from 0 (the default)");
  const Unit& unit = units.at(static_cast<size_t>(o.mapping));
  const std::string which = o.mapping == 0 ? "the default mapping" : "mapping " + std::to_string(o.mapping);
  loom::ir::Function f = loom::lower_to_event_ir(unit.program, unit.tree);
  std::vector<const loom::ir::Op*> loops = loom::pipelined_loops(f);
  if (loops.empty())
    return fail(o.input, "the program has no sequential loop, so there is no schedule graph",
                "a loop is an `srange` in a variant mapped to a BLOCK (docs/schedule.md)");
  if (o.loop >= static_cast<int>(loops.size()))
    return usage_error("--loop=" + std::to_string(o.loop) + ": " + which + " has " + std::to_string(loops.size()) +
                       " pipelined loop(s), numbered from 0");
  if (o.tiles > 0 && o.subtiles > 0)
    return usage_error("--tiles and --subtiles: the tile loop's graph or the loop's as sub-tiles, not both");
  if (o.tiles > 0) {  // the tile loop's graph schedule(optimal) solved for that many teams
    for (const loom::ir::ScheduleNote& n : f.schedule_notes)
      if (static_cast<int>(n.tile_graphs.size()) >= o.tiles) return write_output(o, n.tile_graphs[static_cast<size_t>(o.tiles - 1)]);
    return fail(o.input, which + " has no tile-loop graph with " + std::to_string(o.tiles) + " tile(s) an iteration",
                "schedule(optimal) builds them when it decides teams (alternate(T)) for a block instance; --emit=schedule says why not");
  }
  nlohmann::ordered_json g = loom::schedule_graph(f, *loops[static_cast<size_t>(o.loop)], *tree.machine);
  if (o.subtiles > 0) g = loom::subtile_schedule_graph(g, o.subtiles);  // one team per compute warpgroup's rows
  return write_output(o, g.dump(1) + "\n");
}

// The commands that lower the checked program (they may raise a CompileError from a pass).
int run_middle_end(const Options& o, const loom::Program& program, const loom::TaskTree& tree_ref) {
  const loom::TaskTree* tree = &tree_ref;
  if (o.command == "run") return run_cpu(o, program, *tree);
  if (o.emit == "ir") {
    loom::PipelineOptions po;
    po.print_after_all = o.print_after_all;
    po.time_passes = o.time_passes;
    po.log = &std::cout;
    // With specialized mappings, each mapping's IR in turn, under a comment naming it.
    std::string source = o.input == "-" ? "<stdin>" : std::filesystem::path(o.input).filename().string();
    std::vector<Unit> units = mapping_units(program, *tree, source);
    std::string out;
    for (size_t i = 0; i < units.size(); ++i) {
      if (units.size() > 1) out += std::string(i ? "\n" : "") + "// mapping " + std::to_string(i) + ": " + (i ? units[i].when_text : "the default") + "\n";
      out += loom::ir::print(loom::lower_to_event_ir(units[i].program, units[i].tree, po));
    }
    return write_output(o, out);
  }
  if (o.command == "compile" && (o.emit == "cuda" || o.emit == "header" || o.emit == "torch" || o.emit == "ptx" || o.emit == "cubin" ||
                                 (!o.emit_given && !o.output.empty())))
    return emit_cuda(o, program, *tree);
  if (o.emit == "schedule-graph") return emit_schedule_graph(o, program, *tree);
  if (o.emit == "schedule") return emit_schedule(o, program, *tree);
  if (o.emit == "tree") {
    std::string out = "// checked program\n" + loom::format_program(program) + "\n// instantiated task tree (" +
                      tree->machine->target + ")\n" + loom::format_task_tree(*tree);
    return write_output(o, out);
  }
  return usage_error("unknown --emit kind '" + o.emit + "' (tree, ast, ir, cuda, header, torch, ptx, cubin, schedule-graph or schedule)");
}

}  // namespace

// A compiler bug: exit status 2, in text or as one JSON diagnostic.
int internal(const std::string& what) {
  if (!json_diagnostics) {
    std::cerr << "loom: " << what << "\nloom: this is a bug in loom, not in your program\n";
    return 2;
  }
  fail("loom", what, "this is a bug in loom, not in your program");
  return 2;
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Known before anything can fail, so that every diagnostic takes the requested form.
  for (const std::string& a : args)
    if (a == "--diagnostics=json" || a == "--diagnostics=text") json_diagnostics = a == "--diagnostics=json";
  if (args.empty()) {
    std::cerr << kUsage;
    return 1;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << "loom " << LOOM_VERSION << "\n";
    return 0;
  }
  if (args[0] == "--runtime-dir") {  // for tools that build the artifact (python/loom)
    std::cout << runtime_dir() << "\n";
    return 0;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return 0;
  }
  try {
    if (args[0] == "schedule") {
#ifdef LOOM_HAVE_SCHED
      return loom::sched::schedule_main(argc - 1, argv + 1);
#else
      return internal("this build has no scheduler (src/sched is missing)");
#endif
    }
    Options o;
    o.command = args[0];
    if (o.command != "check" && o.command != "fmt" && o.command != "compile" && o.command != "run")
      return usage_error("unknown command '" + o.command + "'");
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--diagnostics=json" || a == "--diagnostics=text") o.json_diags = json_diagnostics;
      else if (a == "-i") o.in_place = true;
      else if (a == "--check") o.check_only = true;
      else if (a.rfind("--emit=", 0) == 0) {
        o.emit = a.substr(7);
        o.emit_given = true;
      }
      else if (a == "--print-after-all") o.print_after_all = true;
      else if (a.rfind("--loop=", 0) == 0) {
        if (!int_option(a.substr(7), 0, 1000, o.loop)) return usage_error("--loop needs a loop number (0, 1, ...), found '" + a.substr(7) + "'");
      }
      else if (a.rfind("--subtiles=", 0) == 0) {
        if (!int_option(a.substr(11), 2, 4, o.subtiles))
          return usage_error("--subtiles needs a number of sub-tiles from 2 to 4, found '" + a.substr(11) + "'");
      } else if (a.rfind("--tiles=", 0) == 0) {
        if (!int_option(a.substr(8), 1, 4, o.tiles)) return usage_error("--tiles needs a number of tiles from 1 to 4, found '" + a.substr(8) + "'");
      }
      else if (a.rfind("--mapping=", 0) == 0) {
        if (!int_option(a.substr(10), 0, 1000, o.mapping))
          return usage_error("--mapping needs a mapping number (0, 1, ...), found '" + a.substr(10) + "'");
      }
      else if (a == "--time-passes") o.time_passes = true;
      else if (a == "--svg") {
        if (i + 1 >= args.size()) return usage_error("--svg needs a file name");
        o.svg = args[++i];
      }
      else if (a == "--cpu") o.cpu = true;
      else if (a == "--no-race-check") o.race_check = false;
      else if (a == "--interpret-only") o.interpret_only = true;
      else if (a == "--tolerance") {
        if (i + 1 >= args.size()) return usage_error("--tolerance needs a value");
        char* end = nullptr;
        o.tolerance = std::strtod(args[++i].c_str(), &end);
        if (*end != '\0' || !(o.tolerance >= 0)) return usage_error("--tolerance needs a non-negative number");
      }
      else if (a == "--size" || a == "--seed" || a == "--seeds") {
        if (i + 1 >= args.size()) return usage_error(a + " needs a value");
        const std::string& v = args[++i];
        if (a == "--size") {
          o.sizes = v;
        } else {
          char* end = nullptr;
          unsigned long long n = std::strtoull(v.c_str(), &end, 10);
          if (v.empty() || *end != '\0' || (a == "--seeds" && (n < 1 || n > 100000)))
            return usage_error(a + " needs a positive integer, found '" + v + "'");
          if (a == "--seed") o.seed = n;
          else o.seeds = static_cast<int>(n);
        }
      }
      else if (a == "-o") {
        if (i + 1 >= args.size()) return usage_error("-o needs a file name");
        o.output = args[++i];
      } else if (a == "--version") {
        std::cout << "loom " << LOOM_VERSION << "\n";
        return 0;
      } else if (a != "-" && a.rfind("-", 0) == 0) {
        return usage_error("unknown option '" + a + "'");
      } else if (!o.input.empty()) {
        return usage_error("more than one input file ('" + o.input + "' and '" + a + "')");
      } else {
        o.input = a;
      }
    }
    if (o.input.empty()) return usage_error("no input file (use - for stdin)");
    if (!o.svg.empty() && (o.command != "compile" || o.emit != "schedule"))
      return usage_error("--svg draws what schedule(optimal) solved: use it with compile --emit=schedule");
    return run(o);
  } catch (const loom::InternalError& e) {
    return internal(e.what());
  } catch (const std::exception& e) {
    return internal(std::string("internal compiler error: ") + e.what());
  }
}

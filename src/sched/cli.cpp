#include "sched/cli.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "sched/diagnostic.h"
#include "sched/graph.h"
#include "sched/machine.h"
#include "sched/problem.h"
#include "sched/report.h"
#include "sched/search.h"
#include "sched/svg.h"
#include "sched/validate.h"

namespace loom::sched {

namespace {

const char* kUsage =
    "usage: loom schedule GRAPH.json|- [options]\n"
    "  --machine hopper|blackwell|FILE  machine model (overrides the graph's \"machine\")\n"
    "  --json                           print the result as JSON\n"
    "  --diagnostics=json               print errors and warnings on stderr as JSON, one object per line\n"
    "  --svg OUT.svg                    draw the modular reservation table and warp assignment\n"
    "  --time-limit S                   wall-clock budget for the whole search (default 300)\n"
    "  --rlimit N                       deterministic Z3 resource budget (default 4e6 per second of --time-limit)\n"
    "  --norm-budget U                  cost-normalization bound on the sum of costs (default 300)\n"
    "  --seed N                         Z3's random seed (default 0): the same II, L and fewest groups, maybe another schedule\n"
    "  --ilp-max-nodes N                CBC branch-and-bound nodes per modulo-ILP call (default: no limit)\n"
    "  --no-normalize                   use the graph's cycle counts as they are\n"
    "  --no-ws                          modulo scheduling only (no warp specialization, no SMT)\n"
    "  --no-min-groups                  keep the first warp assignment found (do not minimize groups)\n"
    "  --groups-time-limit S            budget of the group minimization (default 5 s)\n"
    "  --extra-stages K                 also try K more stages per II than Algorithm 1 does\n"
    "  --max-ii N                       stop the search after II = N\n";

std::string read_all(std::istream& in) { return std::string(std::istreambuf_iterator<char>(in), {}); }

double parse_number(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= 0)) throw UserError(flag + " expects a non-negative number, got '" + v + "'");
  return x;
}

struct Args {
  std::string graph, machine, svg;
  bool json = false;
  SearchOptions search;
  BuildOptions build;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UserError(s + " needs a value");
      return argv[++i];
    };
    if (s == "--json") a.json = true;
    else if (s == "--diagnostics=json" || s == "--diagnostics=text") continue;  // read by schedule_main
    else if (s == "--svg") a.svg = value();
    else if (s == "--machine") a.machine = value();
    else if (s == "--time-limit") a.search.time_limit = parse_number(s, value());
    else if (s == "--rlimit") a.search.rlimit = static_cast<unsigned long long>(parse_number(s, value()));
    else if (s == "--norm-budget") a.build.norm_budget = static_cast<int>(parse_number(s, value()));
    else if (s == "--no-normalize") a.build.normalize = false;
    else if (s == "--no-ws") a.search.warp_specialize = false;
    else if (s == "--no-min-groups") a.search.minimize_groups = false;
    else if (s == "--groups-time-limit") a.search.groups_time_limit = parse_number(s, value());
    else if (s == "--extra-stages") a.search.extra_stages = static_cast<int>(parse_number(s, value()));
    else if (s == "--max-ii") a.search.max_ii = static_cast<int>(parse_number(s, value()));
    else if (s == "--seed") {
      const std::string v = value();
      const double x = parse_number(s, v);
      if (x > 4294967295.0 || x != std::floor(x)) throw UserError("--seed expects a whole number below 2^32, got '" + v + "'");
      a.search.seed = static_cast<unsigned>(x);
    } else if (s == "--ilp-max-nodes") a.search.ilp_max_nodes = static_cast<int>(parse_number(s, value()));
    else if (s == "-h" || s == "--help") throw UserError("help");
    else if (s.size() > 1 && s[0] == '-') throw UserError("unknown option '" + s + "'");
    else if (a.graph.empty()) a.graph = s;
    else throw UserError("more than one graph given ('" + a.graph + "' and '" + s + "')");
  }
  if (a.graph.empty()) throw UserError("no graph given");
  if (a.build.norm_budget < 1) throw UserError("--norm-budget must be >= 1");
  return a;
}

Machine load_machine(const Args& a, const Graph& g, const std::string& file) {
  if (!a.machine.empty()) {
    if (is_builtin_machine(a.machine)) return builtin_machine(a.machine);
    std::ifstream in(a.machine);
    if (!in) throw UserError("cannot read machine file '" + a.machine + "'");
    std::string text = read_all(in);
    try {
      return machine_from_json(nlohmann::json::parse(text));
    } catch (const nlohmann::json::parse_error& ex) {
      throw UserError(a.machine + ": invalid JSON: " + std::string(ex.what()),
                      position_of_offset(text, ex.byte > 0 ? ex.byte - 1 : 0));
    } catch (const UserError& e) {  // (reported at the graph: say which file is wrong)
      throw UserError("machine file '" + a.machine + "': " + e.what());
    }
  }
  if (g.machine.is_null()) return builtin_machine("hopper");
  SourcePos at = find_position(g.text, "\"machine\"");
  try {
    if (g.machine.is_string()) return builtin_machine(g.machine.get<std::string>());
    return machine_from_json(g.machine);
  } catch (UserError& e) {
    if (e.pos.line == 0) e.pos = at;
    throw;
  }
}

}  // namespace

int schedule_main(int argc, char** argv) {
  std::string file = "<command line>";
  bool json = false;  // --diagnostics=json: every error and warning as one JSON object per line
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--diagnostics=", 0) == 0) json = std::string(argv[i]) == "--diagnostics=json";
  auto diagnostic = [&](const std::string& where, const UserError& e, const char* severity = "error",
                        const std::string& hint = "") {
    std::cerr << (json ? format_diagnostic_json(where, e, severity, hint) : format_error(where, e, severity)) << "\n";
  };
  try {
    Args a;
    try {
      a = parse_args(argc, argv);
    } catch (const UserError& e) {
      if (std::string(e.what()) == "help") {
        std::cout << kUsage;
        return 0;
      }
      diagnostic("loom schedule", e);
      if (!json) std::cerr << kUsage;
      return 1;
    }
    file = a.graph == "-" ? "<stdin>" : a.graph;
    std::string text;
    if (a.graph == "-") {
      text = read_all(std::cin);
    } else {
      std::ifstream in(a.graph, std::ios::binary);
      if (!in) throw UserError("cannot read file");
      text = read_all(in);
    }
    Graph g = parse_graph(text);
    Machine m = load_machine(a, g, file);
    a.build.max_seconds = std::max(1.0, a.search.time_limit / 10);
    Problem p = build_problem(g, m, a.build);
    if (p.name.empty()) {
      std::string base = a.graph == "-" ? "stdin" : a.graph.substr(a.graph.find_last_of('/') + 1);
      p.name = base;
    }
    SearchResult r = search_schedule(p, a.search);
    if (r.found) {
      // Every schedule leaves through the independent validator; a failure is a compiler bug.
      ValidateOptions vo;
      vo.check_warps = r.schedule.has_warps();
      // Memory capacity is a constraint of the joint query only: --no-ws schedules, like the
      // document's Twill-SWP, do not model it (the report says when its peak is over).
      vo.check_memory = r.schedule.has_warps();
      auto bad = validate_schedule(p, r.schedule, vo);
      if (!bad.empty()) {
        std::string why = "internal error: the schedule found fails validation:";
        for (auto& b : bad) why += "\n  " + b;
        diagnostic(file, UserError(why), "error", "this is a bug in loom, not in your graph");
        return 2;
      }
    }
    if (a.json) std::cout << json_report(p, r).dump(2) << "\n";
    else std::cout << text_report(p, r);
    if (!a.svg.empty()) {
      if (!r.found) {
        diagnostic(file, UserError("no schedule, no SVG written"), "warning");
      } else {
        std::ofstream out(a.svg);
        if (!out) throw UserError("cannot write '" + a.svg + "'");
        out << schedule_svg(p, r.schedule, p.name + " on " + p.machine + ": II=" + std::to_string(r.schedule.ii) +
                                               ", L=" + std::to_string(r.schedule.length));
      }
    }
    return 0;
  } catch (const UserError& e) {
    diagnostic(file, e);
    return 1;
  } catch (const std::exception& e) {
    diagnostic(file, UserError(std::string("internal error: ") + e.what()), "error", "this is a bug in loom, not in your graph");
    return 2;
  }
}

}  // namespace loom::sched

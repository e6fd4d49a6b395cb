// test_util.h — helpers shared by the scheduler tests: build a Problem from JSON text.
#pragma once

#include <string>

#include "sched/graph.h"
#include "sched/machine.h"
#include "sched/problem.h"

namespace loom::sched::test {

inline Problem problem_from(const std::string& json_text, bool normalize = false) {
  Graph g = parse_graph(json_text);
  Machine m = g.machine.is_null() ? builtin_machine("hopper")
              : g.machine.is_string() ? builtin_machine(g.machine.get<std::string>())
                                      : machine_from_json(g.machine);
  BuildOptions o;
  o.normalize = normalize;
  return build_problem(g, m, o);
}

// Fig. 1 of the document: S = gemm, P = exp, O += gemm, all one cycle.
inline const char* kFig1 = R"({"machine": {"units": {"tc": 1, "mufu": 1}, "warps": 2, "reg_limit": 255},
  "nodes": [{"name": "S", "unit": "tc", "cycles": 1, "regs": 64},
            {"name": "P", "unit": "mufu", "cycles": 1, "regs": 32},
            {"name": "O", "unit": "tc", "cycles": 1, "regs": 64}],
  "edges": [{"from": "S", "to": "P", "delay": 1}, {"from": "P", "to": "O", "delay": 1},
            {"from": "O", "to": "O", "delay": 1, "distance": 1}]})";

}  // namespace loom::sched::test

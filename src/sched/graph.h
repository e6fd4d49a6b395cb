// graph.h — the scheduler's input: a loop dependence graph read from JSON (document section 3.1).
//
// Nodes are tile-level operations with a reservation table (per cycle: unit -> instances) or a
// unit + cycle count, or an `op` kind + `shape` whose cycles come from the machine model; the
// register (per thread) and memory footprints of their results; whether their latency is variable;
// and the cost of handing their result to another warp group. Edges (u, v, delay d, distance δ,
// blocking) say that v of iteration i issues at least d cycles after u of iteration i-δ. All cycle
// numbers here are raw machine cycles, before cost normalization (problem.h).
// Format: docs/schedule.md. Tested by tests/sched/graph_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/diagnostic.h"

namespace loom::sched {

struct GraphNode {
  std::string name;
  std::vector<std::map<std::string, int>> rrt;  // raw reservation table; empty until resolved
  std::string unit;                             // with `cycles`, or from `op`
  std::optional<std::int64_t> cycles;           // raw cycles
  std::string op;                               // optional op kind for the machine cost model
  std::vector<std::int64_t> shape;              // with `op`
  int regs = 0;                                 // registers per thread holding the result
  std::map<std::string, std::int64_t> memory;   // memory name -> bytes of the result ("smem": n)
  std::optional<bool> variable_latency;
  std::optional<std::int64_t> spill_cost;  // raw cycles to hand the result to another warp group
  std::string team;                        // nodes of one (non-empty) team run on one warp group
  SourcePos pos;
};

struct GraphEdge {
  int from = -1, to = -1;
  std::optional<std::int64_t> delay;  // raw cycles; default: latency of `from`
  int distance = 0;
  std::optional<bool> blocking;       // default: from the machine's op model
  SourcePos pos;
};

struct Graph {
  std::string name;
  nlohmann::json machine;  // name string or object, as written (null if absent)
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::string text;  // the source text, for positions of later diagnostics
  int node_index(const std::string& n) const;  // -1 if absent
};

// Parses `text` (JSON). Throws UserError with line:col for syntax errors and for semantic errors
// where the offending text can be located.
Graph parse_graph(const std::string& text);

}  // namespace loom::sched

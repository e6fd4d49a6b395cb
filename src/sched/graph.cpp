#include "sched/graph.h"

#include <set>

namespace loom::sched {

int Graph::node_index(const std::string& n) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == n) return static_cast<int>(i);
  return -1;
}

namespace {

using nlohmann::json;

const std::set<std::string> kNodeKeys = {"name", "unit", "cycles", "rrt", "op", "shape", "regs", "smem",
                                         "memory", "variable_latency", "spill_cost", "team", "comment", "note"};
const std::set<std::string> kEdgeKeys = {"from", "to", "delay", "distance", "blocking", "comment", "note"};

struct Reader {
  const std::string& text;
  SourcePos node_pos(const std::string& name) const { return find_position(text, "\"" + name + "\"", "\"nodes\""); }
};

// An integer field in [lo, hi]. The bounds keep what the search expands finite: a distance is a
// copy of the value per iteration it is carried, in the validator (a cycle-by-cycle liveness table
// per copy: 1e9 of them ran it out of memory) and in the joint query's liveness (quadratic in the
// copies; joint_smt.cpp declines an encoding past its own bound, which a carry of 1,000 iterations
// passes); loops carry values 1 or 2 iterations. Registers and cycles are summed over copies and
// cycles.
constexpr std::int64_t kMaxDistance = 64, kMaxRegs = 65536, kMaxCycles = std::int64_t{1} << 40;
std::int64_t get_int(const json& o, const char* key, const std::string& what, SourcePos pos, std::int64_t lo,
                     std::int64_t hi = kMaxCycles) {
  const json& v = o.at(key);
  if (!v.is_number_integer()) throw UserError(what + ": '" + key + "' must be an integer", pos);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    throw UserError(what + ": '" + key + "' must be <= " + std::to_string(hi), pos);
  std::int64_t x = v.get<std::int64_t>();
  if (x < lo) throw UserError(what + ": '" + key + "' must be >= " + std::to_string(lo), pos);
  if (x > hi) throw UserError(what + ": '" + key + "' must be <= " + std::to_string(hi), pos);
  return x;
}

bool get_bool(const json& o, const char* key, const std::string& what, SourcePos pos) {
  const json& v = o.at(key);
  if (!v.is_boolean()) throw UserError(what + ": '" + key + "' must be true or false", pos);
  return v.get<bool>();
}

GraphNode read_node(const json& jn, std::size_t idx, const Reader& rd) {
  GraphNode n;
  std::string what = "node " + std::to_string(idx);
  SourcePos pos = find_position(rd.text, "{", "\"nodes\"", static_cast<int>(idx));
  if (!jn.is_object()) throw UserError(what + " must be an object", pos);
  if (!jn.contains("name") || !jn["name"].is_string() || jn["name"].get<std::string>().empty())
    throw UserError(what + " needs a non-empty string 'name'", pos);
  n.name = jn["name"].get<std::string>();
  n.pos = rd.node_pos(n.name);
  what = "node '" + n.name + "'";
  for (auto& [k, v] : jn.items())
    if (!kNodeKeys.count(k)) throw UserError(what + ": unknown field '" + k + "'", n.pos);
  if (jn.contains("unit")) {
    if (!jn["unit"].is_string()) throw UserError(what + ": 'unit' must be a string", n.pos);
    n.unit = jn["unit"].get<std::string>();
  }
  if (jn.contains("cycles")) n.cycles = get_int(jn, "cycles", what, n.pos, 0);
  if (jn.contains("op")) {
    if (!jn["op"].is_string()) throw UserError(what + ": 'op' must be a string", n.pos);
    n.op = jn["op"].get<std::string>();
  }
  if (jn.contains("shape")) {
    if (!jn["shape"].is_array() || jn["shape"].empty())
      throw UserError(what + ": 'shape' must be a non-empty array of positive integers", n.pos);
    for (auto& d : jn["shape"]) {
      if (!d.is_number_integer() || d.get<std::int64_t>() <= 0)
        throw UserError(what + ": 'shape' must be a non-empty array of positive integers", n.pos);
      n.shape.push_back(d.get<std::int64_t>());
    }
  }
  if (jn.contains("rrt")) {
    const json& r = jn["rrt"];
    if (!r.is_array()) throw UserError(what + ": 'rrt' must be an array of {unit: count} objects", n.pos);
    for (auto& row : r) {
      if (!row.is_object()) throw UserError(what + ": 'rrt' rows must be objects {unit: count}", n.pos);
      std::map<std::string, int> m;
      for (auto& [u, c] : row.items()) {
        if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() > kMaxRegs ||
            (c.is_number_unsigned() && c.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxRegs)))
          throw UserError(what + ": rrt count for unit '" + u + "' must be a non-negative integer up to " + std::to_string(kMaxRegs), n.pos);
        if (c.get<int>() > 0) m[u] = c.get<int>();
      }
      n.rrt.push_back(std::move(m));
    }
    if (!n.unit.empty() || n.op.size())
      throw UserError(what + ": give either 'rrt' or 'unit'/'cycles' or 'op'/'shape', not several", n.pos);
  }
  if (n.rrt.empty() && n.op.empty() && (n.unit.empty() || !n.cycles))
    if (!(n.cycles && *n.cycles == 0))
      throw UserError(what + ": needs 'unit' and 'cycles', an 'rrt', or an 'op' with a 'shape'", n.pos);
  if (!n.op.empty() && n.shape.empty() && !n.cycles)
    throw UserError(what + ": 'op' needs a 'shape' (or explicit 'cycles')", n.pos);
  if (jn.contains("regs")) n.regs = static_cast<int>(get_int(jn, "regs", what, n.pos, 0, kMaxRegs));
  if (jn.contains("smem")) n.memory["smem"] = get_int(jn, "smem", what, n.pos, 0);
  if (jn.contains("memory")) {
    if (!jn["memory"].is_object()) throw UserError(what + ": 'memory' must be an object {memory: bytes}", n.pos);
    for (auto& [m, b] : jn["memory"].items()) {
      if (!b.is_number_integer() || b.get<std::int64_t>() < 0)
        throw UserError(what + ": memory footprint '" + m + "' must be a non-negative integer", n.pos);
      n.memory[m] = b.get<std::int64_t>();
    }
  }
  if (jn.contains("variable_latency")) n.variable_latency = get_bool(jn, "variable_latency", what, n.pos);
  if (jn.contains("spill_cost")) n.spill_cost = get_int(jn, "spill_cost", what, n.pos, 0);
  if (jn.contains("team")) {
    if (!jn["team"].is_string() || jn["team"].get<std::string>().empty())
      throw UserError(what + ": 'team' must be a non-empty string (nodes of one team run on one warp group)", n.pos);
    n.team = jn["team"].get<std::string>();
  }
  return n;
}

GraphEdge read_edge(const json& je, std::size_t idx, const Graph& g, const Reader& rd) {
  GraphEdge e;
  std::string what = "edge " + std::to_string(idx);
  SourcePos pos = find_position(rd.text, "{", "\"edges\"", static_cast<int>(idx));
  e.pos = pos;
  if (!je.is_object()) throw UserError(what + " must be an object", pos);
  for (auto& [k, v] : je.items())
    if (!kEdgeKeys.count(k)) throw UserError(what + ": unknown field '" + k + "'", pos);
  for (const char* key : {"from", "to"}) {
    if (!je.contains(key) || !je[key].is_string())
      throw UserError(what + " needs a string '" + key + "'", pos);
    std::string name = je[key].get<std::string>();
    int id = g.node_index(name);
    if (id < 0) {
      SourcePos at = find_position(rd.text, "\"" + name + "\"", "\"edges\"");
      throw UserError(what + ": unknown node '" + name + "'", at.line ? at : pos);
    }
    (std::string(key) == "from" ? e.from : e.to) = id;
  }
  what = "edge " + g.nodes[e.from].name + " -> " + g.nodes[e.to].name;
  if (je.contains("delay")) e.delay = get_int(je, "delay", what, pos, 0);
  if (je.contains("distance")) e.distance = static_cast<int>(get_int(je, "distance", what, pos, 0, kMaxDistance));
  if (je.contains("blocking")) e.blocking = get_bool(je, "blocking", what, pos);
  return e;
}

}  // namespace

Graph parse_graph(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& ex) {
    std::string msg = ex.what();
    if (auto p = msg.find("parse error"); p != std::string::npos) msg = msg.substr(p);
    // nlohmann reports the byte just past the offending token.
    std::size_t off = ex.byte > 0 ? ex.byte - 1 : 0;
    throw UserError("invalid JSON: " + msg, position_of_offset(text, off));
  }
  Graph g;
  g.text = text;
  Reader rd{g.text};
  if (!j.is_object()) throw UserError("a dependence graph must be a JSON object", {1, 1});
  for (auto& [k, v] : j.items())
    if (k != "machine" && k != "nodes" && k != "edges" && k != "name" && k != "comment" && k != "note")
      throw UserError("unknown top-level field '" + k + "'", find_position(text, "\"" + k + "\""));
  if (j.contains("name")) {
    if (!j["name"].is_string()) throw UserError("'name' must be a string", find_position(text, "\"name\""));
    g.name = j["name"].get<std::string>();
  }
  if (j.contains("machine")) g.machine = j["machine"];
  if (!j.contains("nodes") || !j["nodes"].is_array() || j["nodes"].empty())
    throw UserError("the graph needs a non-empty array 'nodes'", find_position(text, "\"nodes\""));
  for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
    GraphNode n = read_node(j["nodes"][i], i, rd);
    if (g.node_index(n.name) >= 0)
      throw UserError("duplicate node name '" + n.name + "'", find_position(text, "\"" + n.name + "\"", "\"nodes\"", 1));
    g.nodes.push_back(std::move(n));
  }
  if (j.contains("edges")) {
    if (!j["edges"].is_array()) throw UserError("'edges' must be an array", find_position(text, "\"edges\""));
    for (std::size_t i = 0; i < j["edges"].size(); ++i) g.edges.push_back(read_edge(j["edges"][i], i, g, rd));
  }
  return g;
}

}  // namespace loom::sched

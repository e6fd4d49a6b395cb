// The loop's graph as sub-tiles (schedule_graph.h, SUBTILES): one copy of the loop per compute
// warpgroup that owns its rows, each copy a team.
#include <set>
#include <string>
#include <tuple>

#include "passes/schedule_graph.h"

namespace loom {

nlohmann::ordered_json subtile_schedule_graph(const nlohmann::ordered_json& loop, int subtiles) {
  const int G = subtiles;
  std::set<std::string> shared;  // the TMA loads: one for every copy
  for (const auto& n : loop["nodes"])
    if (n.value("op", "") == "tma_load") shared.insert(n["name"].get<std::string>());
  auto copy_name = [&](const std::string& name, int c) { return shared.count(name) ? name : name + "#" + std::to_string(c); };
  nlohmann::ordered_json out = loop;
  out["name"] = loop.value("name", std::string("loop")) + "-" + std::to_string(G) + "-subtiles";
  out["comment"] = loop.value("comment", std::string()) + (loop.contains("comment") ? " " : "") + "As " + std::to_string(G) +
                   " sub-tiles (--subtiles=" + std::to_string(G) +
                   "): every node but the TMA loads copied per sub-tile (NODE#c, team sub<c>) with 1/" + std::to_string(G) +
                   " of its rows' work and shared memory; a register result's hand-off to another warp group costs a "
                   "round trip through shared memory.";
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array(), edges = nlohmann::ordered_json::array();
  for (const auto& n : loop["nodes"]) {
    const std::string name = n["name"].get<std::string>();
    if (shared.count(name)) {
      nodes.push_back(n);
      continue;
    }
    for (int c = 0; c < G; ++c) {
      nlohmann::ordered_json m = n;
      m["name"] = copy_name(name, c);
      if (m.contains("shape") && m["shape"].is_array() && !m["shape"].empty()) {
        const int64_t rows = m["shape"][0].get<int64_t>();
        m["shape"][0] = (rows + G - 1) / G;  // the sub-tile's rows (the first extent: rows, elements or words)
      }
      if (m.contains("smem")) m["smem"] = (m["smem"].get<int64_t>() + G - 1) / G;
      // A thread's registers are the same share of a sub-tile on one warp group as of the tile on
      // all; handing them to another warp group is a store and a load of 128 threads' words through
      // shared memory at 128 bytes a cycle: 4 cycles per register.
      if (m.contains("regs") && m.value("op", "") != "copy") m["spill_cost"] = 4 * m["regs"].get<int64_t>();
      m["team"] = "sub" + std::to_string(c);
      nodes.push_back(std::move(m));
    }
  }
  std::set<std::tuple<std::string, std::string, int>> seen;
  for (const auto& e : loop["edges"]) {
    for (int c = 0; c < G; ++c) {
      nlohmann::ordered_json d = e;
      d["from"] = copy_name(e["from"].get<std::string>(), c);
      d["to"] = copy_name(e["to"].get<std::string>(), c);
      const int dist = e.contains("distance") ? e["distance"].get<int>() : 0;
      if (seen.insert({d["from"].get<std::string>(), d["to"].get<std::string>(), dist}).second) edges.push_back(std::move(d));
    }
  }
  out["nodes"] = std::move(nodes);
  out["edges"] = std::move(edges);
  return out;
}

}  // namespace loom

// The scheduling graph of a pipelined loop. See schedule_graph.h.
#include "passes/schedule_graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "ir/leaf_ops.h"
#include "passes/bounds.h"

namespace loom {

using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::ValueId;

std::vector<const Op*> pipelined_loops(const Function& f) {
  std::vector<const Op*> marked, innermost;
  ir::Function& g = const_cast<ir::Function&>(f);  // for_each_op takes a mutable block; nothing changes
  ir::for_each_op(g.body, [&](Op& op) {
    if (op.kind != OpKind::For) return;
    bool nested = false;
    ir::for_each_op(op.regions[0], [&](Op& inner) { nested |= inner.kind == OpKind::For; });
    if (nested) return;
    innermost.push_back(&op);
    if (op.pipeline_depth > 1 || op.warp_specialize) marked.push_back(&op);
  });
  return marked.empty() ? innermost : marked;
}

namespace {

[[noreturn]] void refuse(const Op& at, const std::string& message, const std::string& hint = "") {
  Diagnostic d;
  d.loc = at.loc;
  d.message = message;
  d.hint = hint;
  throw CompileError(std::move(d));
}

// How many 32-bit words `bytes` occupy.
int64_t words(int64_t bytes) { return (bytes + 3) / 4; }

class GraphBuilder {
 public:
  // The loop's graph, or with `tile` the graph of the tile body `tile` that holds `loop` (TILES in
  // schedule_graph.h): `loop` one node of `loop_cycles` on the tensor core.
  GraphBuilder(const Function& f, const Op& loop, const Machine& m, const ir::Block* tile = nullptr, int64_t loop_cycles = 0)
      : f_(f), loop_(loop), m_(m), tile_(tile), loop_cycles_(loop_cycles), bounds_(f), names_(ir::value_names(f)) {
    ir::Function& g = const_cast<ir::Function&>(f);
    ir::for_each_op(g.body, [&](Op& op) {
      if (op.result != ir::kNone) def_[op.result] = &op;
    });
    const ir::Block& body = tile ? *tile : loop.regions.at(0);
    for (ValueId a : body.args) in_body_.insert(a);
    for (const Op& op : body.ops) {
      if (tile && &op == &loop) {
        ir::for_each_op(const_cast<Op&>(op).regions[0], [&](Op& inner) {
          if (inner.result != ir::kNone) in_loop_.insert(inner.result);
        });
      } else if (!op.regions.empty()) {
        if (tile) refuse(op, "cannot describe this tile for the scheduler: it holds a loop or branch besides the pipelined loop",
                         "teams take whole tiles of one srange loop");
        refuse(op, "cannot describe this loop for the scheduler: its body holds a nested loop", "only innermost sequential loops are scheduled");
      }
      if (tile && is_dma(op))
        refuse(op, "cannot describe this tile for the scheduler: it loads a buffer once per tile outside the pipelined loop",
               "teams that take every other tile cannot share a buffer loaded once per tile");
      if (op.result != ir::kNone) in_body_.insert(op.result);
      if (op.kind == OpKind::Copy || op.kind == OpKind::Call || (tile && &op == &loop)) {
        node_of_[op.result] = static_cast<int>(nodes_.size());
        nodes_.push_back(&op);
      }
    }
  }

  // The graph; in tile mode with `tiles` copies of the tile per iteration (TILES), the machine's warp
  // groups `tiles` teams of at most `reg_limit` registers a thread.
  nlohmann::ordered_json build(int tiles = 1, int reg_limit = 0) {
    std::string machine = m_.name == "hopper" ? "hopper" : "";
    if (machine.empty())
      refuse(loop_, "cannot describe this loop for the scheduler: it has no model of the machine '" + m_.name + "' (" +
                        m_.target + ")",
             "the scheduler's machine models are hopper and blackwell; map the program to sm_90a");
    std::vector<nlohmann::ordered_json> nodes;
    for (size_t i = 0; i < nodes_.size(); ++i) nodes.push_back(node(i));
    edges();
    if (tile_) team_edges();
    std::vector<std::string> contracted = contract();
    reduce();
    nlohmann::ordered_json g;
    std::string loop_name = names_.at(static_cast<size_t>(loop_.regions[0].args.at(0)));
    std::string c;
    if (tile_) {
      g["name"] = f_.name + ":tiles" + (tiles > 1 ? "x" + std::to_string(tiles) : std::string());
      nlohmann::ordered_json mj;
      mj["base"] = machine;
      mj["warps"] = tiles;
      if (reg_limit > 0) mj["reg_limit"] = reg_limit;
      g["machine"] = mj;
      c = "the block's tile loop around `for " + loop_name + "` (" + loop_.origin + ", line " + std::to_string(loop_.loc.line) +
          "), that loop one node of " + std::to_string(loop_cycles_) + " cycles on the tensor core (one iteration of its schedule), " +
          std::to_string(tiles) + " tile(s) an iteration, each team's registers reused by its next tile (docs/schedule.md, \"Teams\")";
    } else {
      g["name"] = f_.name + ":" + loop_name.substr(1);
      g["machine"] = machine;
      c = "the loop `for " + loop_name + "` (" + loop_.origin + ", line " + std::to_string(loop_.loc.line) +
          "): one node per asynchronous op of its body, edges from its events (docs/schedule.md)";
    }
    if (!contracted.empty()) {
      c += "; contracted (under 1/" + std::to_string(kCheap) + " of the costliest op, delays kept on the edges):";
      for (const std::string& x : contracted) c += " " + x;
    }
    g["comment"] = c;
    // Tile copy t of a node: its name with "#t" when an iteration holds several tiles.
    auto copy_name = [&](int v, int t) { return node_names_.at(static_cast<size_t>(v)) + (tiles > 1 ? "#" + std::to_string(t) : ""); };
    // Tile mode: the back end hands no value from one team to another, so a hand-off costs more
    // than all tiles' work together (no schedule at a useful II has one).
    int64_t all = 0;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!removed_[i]) all += cycles_[i];
    nlohmann::ordered_json jn = nlohmann::ordered_json::array();
    for (int t = 0; t < tiles; ++t)
      for (size_t i = 0; i < nodes.size(); ++i)
        if (!removed_[i]) {
          nlohmann::ordered_json n = nodes[i];
          n["name"] = copy_name(static_cast<int>(i), t);
          if (tile_) n["spill_cost"] = all * tiles;
          jn.push_back(n);
        }
    g["nodes"] = jn;
    nlohmann::ordered_json je = nlohmann::ordered_json::array();
    for (int t = 0; t < tiles; ++t)
      for (const Edge& e : edges_) {
        if (e.dropped) continue;
        nlohmann::ordered_json x;
        x["from"] = copy_name(e.from, t);
        x["to"] = copy_name(e.to, t);
        if (e.delay != cycles_[static_cast<size_t>(e.from)]) x["delay"] = e.delay;
        if (e.distance) x["distance"] = e.distance;
        if (tile_ && nodes_[static_cast<size_t>(e.from)] == &loop_) x["blocking"] = true;  // after the loop's last wgmma wait
        je.push_back(x);
      }
    // The tiles' turns on the ring: tile t + 1's loop starts when tile t's has issued its work, told
    // by a signal that carries no value (a named barrier: "turn:...#t", one cycle, no registers).
    if (tile_ && tiles > 1) {
      const int l = node_of_.at(loop_.result);
      const std::string turn = "turn:" + name(loop_.result).substr(1);
      for (int t = 0; t < tiles; ++t) {
        nlohmann::ordered_json n;
        n["name"] = turn + "#" + std::to_string(t);
        n["unit"] = "alu";
        n["cycles"] = 1;
        n["comment"] = "tile " + std::to_string(t) + "'s team passes the ring's turn on (a named barrier)";
        jn.push_back(n);
        nlohmann::ordered_json a, b;
        a["from"] = copy_name(l, t);
        a["to"] = turn + "#" + std::to_string(t);
        je.push_back(a);
        b["from"] = turn + "#" + std::to_string(t);
        b["to"] = copy_name(l, (t + 1) % tiles);
        if (t + 1 == tiles) b["distance"] = 1;
        je.push_back(b);
      }
      g["nodes"] = jn;
    }
    g["edges"] = je;
    return g;
  }

 private:
  // Ops cheaper than 1/kCheap of the costliest op of the loop are contracted (see CONTRACTION).
  static constexpr int64_t kCheap = 32;

  struct Edge {
    int from = 0, to = 0;
    int distance = 0;
    int64_t delay = 0;  // raw cycles
    bool data = false;
    bool dropped = false;
  };

  std::string name(ValueId v) const {
    const std::string& n = names_.at(static_cast<size_t>(v));
    return n.empty() ? "%?" : n;
  }

  // The ops of the loop (nodes, with their iteration distance) that event reference `r` of an op
  // in iteration k stands for: itself, through joins, through carried events to the yield.
  void sources(const EventRef& r, int distance, int depth, std::vector<std::pair<int, int>>& out) const {
    if (depth > 64) return;  // a yield that only waits for carried events: nothing per iteration
    const ir::Block& body = loop_.regions[0];
    for (size_t j = 1; j < body.args.size() && !tile_; ++j)
      if (body.args[j] == r.value) {
        sources(body.yield, distance + static_cast<int>(ir::carried_distance(loop_, j - 1)), depth + 1, out);
        return;
      }
    if (!in_body_.count(r.value)) return;  // before the loop: satisfied once, before every iteration
    auto n = node_of_.find(r.value);
    if (n != node_of_.end()) {
      out.push_back({n->second, distance});
      return;
    }
    const Op* d = def_.at(r.value);
    if (d->kind == OpKind::Join)
      for (const EventRef& a : d->after) sources(a, distance, depth + 1, out);
  }

  // The root buffer a tensor view is cut from (through `piece`).
  ValueId root(ValueId t) const {
    for (;;) {
      auto it = def_.find(t);
      if (it == def_.end() || it->second->kind != OpKind::Piece) return t;
      t = it->second->operands.at(0);
    }
  }

  // The tensors op `op` writes and reads.
  void accesses(const Op& op, std::vector<ValueId>& writes, std::vector<ValueId>& reads) const {
    if (op.kind == OpKind::For) {  // tile mode: the loop's node, what its ops access outside it
      for (const Op& inner : op.regions[0].ops) {
        std::vector<ValueId> w, r;
        if (inner.kind == OpKind::Copy || inner.kind == OpKind::Call) accesses(inner, w, r);
        for (ValueId x : w)
          if (!in_loop_.count(root(x))) writes.push_back(root(x));
        for (ValueId x : r)
          if (!in_loop_.count(root(x))) reads.push_back(root(x));
      }
      return;
    }
    if (op.kind == OpKind::Copy) {
      reads.push_back(op.operands.at(0));
      writes.push_back(op.operands.at(1));
      if (!op.name.empty()) reads.push_back(op.operands.at(1));  // copy.sum / copy.max
      return;
    }
    const LeafOp* leaf = find_leaf_op(op.name);
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (f_.info(op.operands[i]).type != ir::Type::Tensor) continue;
      Access a = Access::ReadWrite;  // an extern leaf may read and write every tensor
      if (leaf && i < leaf->args.size()) a = leaf->args[i].access;
      if (a != Access::Read) writes.push_back(op.operands[i]);
      if (a != Access::Write) reads.push_back(op.operands[i]);
    }
  }

  bool is_dma(const Op& op) const {
    return op.kind == OpKind::Copy && op.name.empty() && f_.info(op.operands.at(0)).mem == MemKind::Global &&
           f_.info(op.operands.at(1)).mem == MemKind::Shared;
  }

  // Whether `to` of iteration k reads a buffer `from` of iteration k - distance writes. A buffer
  // allocated in the body is a fresh one per iteration, so only one of the same iteration counts.
  bool data_edge(const Op& from, const Op& to, int distance) const {
    std::vector<ValueId> fw, fr, tw, tr;
    accesses(from, fw, fr);
    accesses(to, tw, tr);
    for (ValueId w : fw)
      for (ValueId r : tr)
        if (root(w) == root(r) && (distance == 0 || !in_body_.count(root(w)))) return true;
    return false;
  }

  void add_edge(int from, int to, int distance, int64_t delay) {
    for (Edge& e : edges_)
      if (!e.dropped && e.from == from && e.to == to && e.distance == distance) {
        e.delay = std::max(e.delay, delay);
        return;
      }
    edges_.push_back(Edge{from, to, distance, delay,
                          data_edge(*nodes_[static_cast<size_t>(from)], *nodes_[static_cast<size_t>(to)], distance), false});
  }

  void edges() {
    const ir::Block& body = loop_.regions[0];
    for (size_t x = 0; x < nodes_.size(); ++x) {
      std::vector<std::pair<int, int>> src;
      for (const EventRef& r : nodes_[x]->after) {
        // The TMA ring's write-after-read wait (see EDGES): the ring depth is the schedule's choice.
        bool ring = false;
        for (size_t j = 1; j < body.args.size() && !tile_; ++j)
          ring |= body.args[j] == r.value && is_dma(*nodes_[x]) && loop_.pipeline_depth > 1 &&
                  ir::carried_distance(loop_, j - 1) == loop_.pipeline_depth;
        if (!ring) sources(r, 0, 0, src);
      }
      std::map<int, int> least;  // producer -> smallest distance (it implies the larger ones)
      for (auto [y, d] : src) {
        if (y == static_cast<int>(x) && d == 0) LOOM_INTERNAL("an op of a loop body waits for itself");
        auto it = least.find(y);
        if (it == least.end() || d < it->second) least[y] = d;
      }
      for (auto [y, d] : least) add_edge(y, static_cast<int>(x), d, cycles_[static_cast<size_t>(y)]);
    }
  }

  // CONTRACTION: a cheap op x (not a GEMM or a TMA load) leaves the graph; each pair of edges
  // u -> x (delay a, distance p) and x -> v (delay b, distance q) becomes u -> v (a + b, p + q), so
  // every path constraint through x stays. What is lost: x's own unit time and its registers
  // (row statistics: a few per thread).
  std::vector<std::string> contract() {
    int64_t most = 0;  // TMA loads stream (zero cost) when nothing in the loop waits for them to start
    for (size_t x = 0; x < nodes_.size(); ++x)
      if (kinds_[x] != "tma_load") most = std::max(most, cycles_[x]);
    std::vector<std::string> out;
    for (size_t x = 0; x < nodes_.size(); ++x) {
      const std::string& kind = kinds_[x];
      if (kind == "gemm" || kind == "tma_load" || cycles_[x] * kCheap >= most) continue;
      std::vector<Edge> in, outs;
      for (Edge& e : edges_) {
        if (e.dropped) continue;
        if (e.to == static_cast<int>(x) && e.from == static_cast<int>(x)) {
          e.dropped = true;  // a self-dependence of x disappears with it
          continue;
        }
        if (e.to == static_cast<int>(x)) in.push_back(e), e.dropped = true;
        else if (e.from == static_cast<int>(x)) outs.push_back(e), e.dropped = true;
      }
      for (const Edge& a : in)
        for (const Edge& b : outs) {
          if (a.from == b.to && a.distance + b.distance == 0) LOOM_INTERNAL("contraction made a zero-distance cycle");
          add_edge(a.from, b.to, a.distance + b.distance, a.delay + b.delay);
        }
      removed_[x] = true;
      out.push_back(node_names_[x]);
    }
    return out;
  }

  // The largest delay of a path of at least one edge from `from` to each node, per total distance up
  // to `budget`, avoiding edge `skip` (-1: no such path); Bellman-Ford over (node, distance used).
  std::vector<std::vector<int64_t>> path_delays(int from, int budget, size_t skip) const {
    const size_t n = nodes_.size();
    std::vector<std::vector<int64_t>> best(n, std::vector<int64_t>(static_cast<size_t>(budget) + 1, -1));
    for (size_t k = 0; k < edges_.size(); ++k) {  // paths of at least one edge (`from` may be their end)
      const Edge& e = edges_[k];
      if (k != skip && !e.dropped && e.from == from && e.distance <= budget)
        best[static_cast<size_t>(e.to)][static_cast<size_t>(e.distance)] =
            std::max(best[static_cast<size_t>(e.to)][static_cast<size_t>(e.distance)], e.delay);
    }
    for (size_t round = 0; round < n * (static_cast<size_t>(budget) + 1); ++round) {
      bool changed = false;
      for (size_t k = 0; k < edges_.size(); ++k) {
        const Edge& e = edges_[k];
        if (k == skip || e.dropped) continue;
        for (int used = 0; used + e.distance <= budget; ++used) {
          int64_t b = best[static_cast<size_t>(e.from)][static_cast<size_t>(used)];
          if (b < 0) continue;
          int64_t& t = best[static_cast<size_t>(e.to)][static_cast<size_t>(used + e.distance)];
          if (b + e.delay > t) {
            t = b + e.delay;
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    return best;
  }

  // The largest delay of a path from `from` to `to` of total distance at most `budget` that avoids
  // edge `skip`; -1 when there is none.
  int64_t longest_path(int from, int to, int budget, size_t skip) const {
    const std::vector<std::vector<int64_t>> best = path_delays(from, budget, skip);  // (a range-for over a
    int64_t r = -1;                                                                  // temporary's element dangles)
    for (int64_t b : best[static_cast<size_t>(to)]) r = std::max(r, b);
    return r;
  }

  // Whether data edge `e` carries no value: every tensor `e.to` reads of those `e.from` writes is
  // written again, as the same tensor, by an op w ordered between them (paths e.from -> w and
  // w -> e.to whose distances add up to e's). Then e.to reads w's version (a register tile updated
  // in place, such as attention's rescale mul(O, O, a) between the PV GEMMs of two iterations),
  // and the producer's value dies at w: e is an ordering edge, and the value's lifetime ends at w.
  bool overwritten_between(const Edge& e) const {
    std::vector<ValueId> fw, fr, tw, tr;
    accesses(*nodes_[static_cast<size_t>(e.from)], fw, fr);
    accesses(*nodes_[static_cast<size_t>(e.to)], tw, tr);
    bool any = false;
    for (ValueId w : fw)
      for (ValueId r : tr) {
        if (root(w) != root(r) || (e.distance != 0 && in_body_.count(root(w)))) continue;
        any = true;
        if (w != r) return false;  // different views of one buffer: not known to be the same elements
        // Paths of kept edges (path_delays: >= 0 where one exists) from e.from, and from each writer x.
        const std::vector<std::vector<int64_t>> after_from = path_delays(e.from, e.distance, edges_.size());
        bool killed = false;
        for (size_t x = 0; x < nodes_.size() && !killed; ++x) {
          if (removed_[x]) continue;
          std::vector<ValueId> xw, xr;
          accesses(*nodes_[x], xw, xr);
          if (std::find(xw.begin(), xw.end(), r) == xw.end()) continue;
          const std::vector<std::vector<int64_t>> after_x = path_delays(static_cast<int>(x), e.distance, edges_.size());
          for (int p = 0; p <= e.distance && !killed; ++p) {
            if (static_cast<int>(x) == e.from && p == 0) continue;  // the producer itself
            if (static_cast<int>(x) == e.to && p == e.distance) continue;  // the consumer itself
            killed = after_from[x][static_cast<size_t>(p)] >= 0 &&
                     after_x[static_cast<size_t>(e.to)][static_cast<size_t>(e.distance - p)] >= 0;
          }
        }
        if (!killed) return false;
      }
    return any;
  }

  // Transitive reduction (see EDGES): an ordering edge is dropped when a path of other edges with at
  // most its distance has at least its delay. Dropped edges stay out of later searches; a path
  // through a dropped edge is implied by a path of kept ones, so the order of removal does not matter.
  void reduce() {
    for (Edge& e : edges_)
      if (!e.dropped && e.data && overwritten_between(e)) e.data = false;
    std::map<std::pair<int, int>, int> least;  // (from, to) -> the smallest distance
    for (const Edge& e : edges_)
      if (!e.dropped) {
        auto key = std::make_pair(e.from, e.to);
        auto it = least.find(key);
        if (it == least.end() || e.distance < it->second) least[key] = e.distance;
      }
    for (size_t k = 0; k < edges_.size(); ++k) {
      Edge& e = edges_[k];
      if (e.dropped || (e.data && least[{e.from, e.to}] == e.distance)) continue;
      if (longest_path(e.from, e.to, e.distance, k) >= e.delay) e.dropped = true;
    }
  }

  // Raw cycles of a node with the per-clock rates of the scheduler's Hopper model
  // (src/sched/machine.cpp, where each rate has its source): what edges through contracted ops
  // carry as delays, and what decides which ops are cheap.
  static int64_t raw_cycles(const std::string& kind, const std::vector<int64_t>& shape) {
    int64_t work = 1;
    for (int64_t x : shape) work *= x;
    int64_t per_clock = kind == "gemm" ? 2048 : kind == "exp" ? 16 : kind == "alu" ? 128 : kind == "copy" ? 32 : 14;
    return (work + per_clock - 1) / per_clock;
  }

  // Processors that run `op` (a vectorized op runs once per processor tuple of its result type).
  int64_t processors(const Op& op) const {
    int64_t n = 1;
    for (ProcKind p : f_.info(op.result).event_dims) {
      auto it = f_.proc_extents.find(p);
      n *= it == f_.proc_extents.end() ? 1 : it->second;
    }
    return n;
  }

  bool runs_per_thread(const Op& op) const {
    const auto& dims = f_.info(op.result).event_dims;
    return std::find(dims.begin(), dims.end(), ProcKind::Thread) != dims.end();
  }

  std::vector<int64_t> extents(ValueId t, const Op& at) const {
    std::vector<int64_t> out;
    for (const auto& e : bounds_.extent_bounds(t)) {
      if (!e)
        refuse(at, "cannot describe this loop for the scheduler: " + name(t) + " has no static size (" +
                       bounds_.why_unbounded(t) + ")",
               "tiles in a pipelined loop need compile-time sizes (tunables)");
      out.push_back(*e);
    }
    return out;
  }
  int64_t elements(ValueId t, const Op& at) const {
    int64_t n = 1;
    for (int64_t e : extents(t, at)) n *= e;
    return n;
  }
  int64_t bytes(ValueId t, const Op& at) const { return elements(t, at) * dtype_bytes(f_.info(t).dtype); }

  // The tile of an mma operand at the instruction holder's level: the source of the outermost
  // `piece mma(...)` in its chain, and that partition.
  std::pair<ValueId, const ir::PartitionSpec*> mma_tile(ValueId t) const {
    ValueId tile = ir::kNone;
    const ir::PartitionSpec* spec = nullptr;
    for (auto it = def_.find(t); it != def_.end() && it->second->kind == OpKind::Piece; it = def_.find(t)) {
      if (it->second->part.kind == ir::PartitionSpec::Kind::Mma) {
        tile = it->second->operands.at(0);
        spec = &it->second->part;
      }
      t = it->second->operands.at(0);
    }
    return {tile, spec};
  }

  // Bytes of SHARED memory the op fills per iteration (see schedule_graph.h, footprint).
  int64_t smem_footprint(ValueId dst, const Op& at) const {
    ValueId top = ir::kNone;
    for (ValueId t = dst; in_body_.count(t);) {
      top = t;
      auto it = def_.find(t);
      if (it == def_.end() || it->second->kind != OpKind::Piece) break;
      t = it->second->operands.at(0);
    }
    if (top == ir::kNone) return 0;
    const Op* d = def_.at(top);
    if (d->kind == OpKind::Alloc) return bytes(top, at);
    if (d->kind == OpKind::Piece)
      for (size_t i = 1; i < d->operands.size(); ++i)
        if (in_body_.count(d->operands[i])) return bytes(top, at);  // a ring slot
    return 0;
  }

  // The 32-bit registers a thread holds of REGISTER tensor `w` that `op` writes.
  int64_t regs_per_thread(const Op& op, ValueId w) const {
    int64_t threads = 1;
    if (!runs_per_thread(op))
      for (ProcKind p : {ProcKind::Warp, ProcKind::Thread}) {
        const auto& dims = f_.info(op.result).event_dims;
        auto it = f_.proc_extents.find(p);
        if (std::find(dims.begin(), dims.end(), p) == dims.end() && it != f_.proc_extents.end()) threads *= it->second;
      }
    return words((bytes(w, op) + threads - 1) / threads);
  }

  // Tile mode: whether an op of the loop writes the buffer rooted at `t`.
  bool loop_writes(ValueId t) const {
    std::vector<ValueId> w, r;
    accesses(loop_, w, r);
    return std::find(w.begin(), w.end(), t) != w.end();
  }

  // Tile mode: the pipelined loop as one node on the tensor core, its result the registers a thread
  // holds of the tile's register tensors its ops write (the accumulators).
  nlohmann::ordered_json loop_node() {
    nlohmann::ordered_json n;
    const std::string nm = "loop:" + name(loop_.result).substr(1);
    std::map<ValueId, int64_t> regs;
    for (const Op& inner : loop_.regions[0].ops) {
      if (inner.kind != OpKind::Copy && inner.kind != OpKind::Call) continue;
      std::vector<ValueId> w, r;
      accesses(inner, w, r);
      for (ValueId x : w)
        if (!in_loop_.count(root(x)) && f_.info(root(x)).mem == MemKind::Register && !regs.count(root(x)))
          regs[root(x)] = regs_per_thread(inner, x);
    }
    int64_t total = 0;
    for (auto& [v, k] : regs) total += k;
    node_names_.push_back(nm);
    kinds_.push_back("gemm");  // never contracted
    cycles_.push_back(loop_cycles_);
    removed_.push_back(false);
    n["name"] = nm;
    n["unit"] = "tc";
    n["cycles"] = loop_cycles_;
    if (total > 0) n["regs"] = total;
    n["comment"] = "the pipelined loop " + loop_.origin + " (line " + std::to_string(loop_.loc.line) + "), one iteration of its schedule";
    return n;
  }

  // TILES: a team runs its next tile in the same registers, so an op of a tile that accesses a
  // register tensor of the tile body comes before every op of the team's next tile (the next
  // iteration) that writes it.
  void team_edges() {
    for (size_t r = 0; r < nodes_.size(); ++r) {
      std::vector<ValueId> rw, rr;
      accesses(*nodes_[r], rw, rr);
      std::set<ValueId> touched;
      for (ValueId x : rw) touched.insert(root(x));
      for (ValueId x : rr) touched.insert(root(x));
      for (size_t w = 0; w < nodes_.size(); ++w) {
        if (w == r) continue;
        std::vector<ValueId> ww, wr;
        accesses(*nodes_[w], ww, wr);
        for (ValueId x : ww) {
          const ValueId t = root(x);
          auto d = def_.find(t);
          if (touched.count(t) && f_.info(t).mem == MemKind::Register && d != def_.end() && d->second->kind == OpKind::Alloc &&
              in_body_.count(t)) {
            add_edge(static_cast<int>(r), static_cast<int>(w), 1, cycles_[r]);
            break;
          }
        }
      }
    }
  }

  nlohmann::ordered_json node(size_t i) {
    const Op& op = *nodes_[i];
    if (op.kind == OpKind::For) return loop_node();
    nlohmann::ordered_json n;
    const std::string ev = name(op.result).substr(1);
    std::vector<ValueId> writes, reads;
    accesses(op, writes, reads);
    const int64_t procs = processors(op);
    std::string kind, label;
    std::vector<int64_t> shape;
    std::string detail;
    if (op.kind == OpKind::Call && op.name == "mma") {
      auto [btile, bspec] = mma_tile(op.operands.at(2));
      if (!bspec) refuse(op, "cannot describe this mma for the scheduler: its B operand is not an mma piece");
      std::vector<int64_t> kn = extents(btile, op);
      if (kn.size() != 2) refuse(op, "cannot describe this mma for the scheduler: its B tile is not rank 2");
      int64_t acc = elements(op.operands.at(0), op) * procs;
      kind = "gemm";
      label = "mma";
      shape = {acc / std::max<int64_t>(kn[1], 1), kn[1], kn[0]};
      detail = bspec->instr + " m" + std::to_string(bspec->m) + "n" + std::to_string(bspec->n) + "k" + std::to_string(bspec->k);
    } else if (op.kind == OpKind::Copy) {
      ValueId src = op.operands.at(0), dst = op.operands.at(1);
      MemKind sm = f_.info(src).mem, dm = f_.info(dst).mem;
      int64_t b = bytes(dst, op) * procs;
      if (is_dma(op)) {
        kind = "tma_load";
        label = "tma";
        shape = {b};
      } else if (sm == MemKind::Register && dm == MemKind::Register) {
        kind = "alu";
        label = op.name.empty() ? "mov" : "copy." + op.name;
        shape = {elements(dst, op) * procs};
      } else {
        kind = "copy";
        label = op.name.empty() ? "copy" : "copy." + op.name;
        shape = {words(b)};
      }
      detail = std::string(mem_name(sm)) + " -> " + mem_name(dm);
    } else {
      int64_t most = 1;
      for (ValueId t : op.operands)
        if (f_.info(t).type == ir::Type::Tensor) most = std::max(most, elements(t, op));
      most *= procs;
      static const std::set<std::string> one_mufu = {"exp", "exp2", "tanh", "gelu_fast"};
      static const std::set<std::string> two_mufu = {"sigmoid", "silu", "gelu", "div"};
      label = op.name;
      if (one_mufu.count(op.name) || two_mufu.count(op.name)) {
        kind = "exp";
        shape = {most * (two_mufu.count(op.name) ? 2 : 1)};
      } else {
        kind = "alu";
        shape = {most};
      }
      if (!find_leaf_op(op.name)) detail = "extern leaf, costed as one FP32 op per element";
    }
    std::string nm = label + ":" + ev;
    node_names_.push_back(nm);
    kinds_.push_back(kind);
    cycles_.push_back(raw_cycles(kind, shape));
    removed_.push_back(false);
    n["name"] = nm;
    n["op"] = kind;
    n["shape"] = shape;
    // The result's footprint: the first tensor the op writes.
    if (!writes.empty()) {
      ValueId w = writes[0];
      MemKind mem = f_.info(w).mem;
      // (Tile mode: registers the loop also writes, its accumulators cleared before it, are counted
      // once, on the loop's node: the team's next tile writes them only after this tile's last reader.)
      if (mem == MemKind::Register && !(tile_ && loop_writes(root(w)))) {
        if (int64_t regs = regs_per_thread(op, w); regs > 0) n["regs"] = regs;
      } else if (mem == MemKind::Shared) {
        int64_t s = smem_footprint(w, op);
        if (s > 0) n["smem"] = s;
      }
    }
    std::string c = op.origin.empty() ? std::string(op.kind == OpKind::Copy ? "copy" : "call " + op.name) : op.origin;
    if (op.loc.line) c += " (line " + std::to_string(op.loc.line) + ")";
    if (!detail.empty()) c += "; " + detail;
    n["comment"] = c;
    return n;
  }

  const Function& f_;
  const Op& loop_;
  const Machine& m_;
  const ir::Block* tile_ = nullptr;  // tile mode: the tile body holding loop_ (TILES)
  int64_t loop_cycles_ = 0;          // tile mode: loop_'s node's cycles
  std::set<ValueId> in_loop_;        // tile mode: the values defined inside loop_
  StaticBounds bounds_;
  std::vector<std::string> names_;
  std::unordered_map<ValueId, const Op*> def_;
  std::set<ValueId> in_body_;
  std::vector<const Op*> nodes_;
  std::vector<std::string> node_names_;
  std::unordered_map<ValueId, int> node_of_;
  std::vector<Edge> edges_;
  std::vector<int64_t> cycles_;    // per node: raw cycles on its unit (for delays and contraction)
  std::vector<std::string> kinds_;  // per node: the cost model's op kind
  std::vector<bool> removed_;       // per node: contracted
};

}  // namespace

nlohmann::ordered_json schedule_graph(const Function& f, const Op& loop, const Machine& m) {
  LOOM_ASSERT(loop.kind == OpKind::For && loop.regions.size() == 1, "schedule_graph needs a `for` loop");
  return GraphBuilder(f, loop, m).build();
}

nlohmann::ordered_json tile_schedule_graph(const Function& f, const Op& loop, const Machine& m, int64_t loop_cycles, int tiles,
                                           int reg_limit) {
  LOOM_ASSERT(loop.kind == OpKind::For && loop.regions.size() == 1 && tiles >= 1, "tile_schedule_graph needs a `for` loop");
  // The block that holds the loop, and the op whose region it is.
  const ir::Block* tile = nullptr;
  const Op* parent = nullptr;
  std::function<void(const ir::Block&, const Op*)> find = [&](const ir::Block& b, const Op* owner) {
    for (const Op& op : b.ops) {
      if (&op == &loop) tile = &b, parent = owner;
      for (const ir::Block& r : op.regions) find(r, &op);
    }
  };
  find(f.body, nullptr);
  if (!tile || !parent || parent->kind != OpKind::PFor || parent->proc != ProcKind::Block)
    refuse(loop, "cannot describe this tile for the scheduler: the pipelined loop is not in the body of the block's tile loop",
           "teams take the tiles of the block's grid (pfor BLOCK)");
  return GraphBuilder(f, loop, m, tile, std::max<int64_t>(1, loop_cycles)).build(tiles, reg_limit);
}

}  // namespace loom

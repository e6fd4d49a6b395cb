// The thread-mapping ILP. See mapping_ilp.h.
#include "tx/mapping_ilp.h"

#include <cmath>
#include <sstream>

#include "sched/ilp.h"
#include "loom/diagnostics.h"

namespace loom::tx {
namespace {

constexpr SmemLayout kLayouts[3] = {SmemLayout::Plain, SmemLayout::Padded, SmemLayout::Xor};

int staged_count(const MappingSpace& s) {
  const int n = static_cast<int>(s.lanes.size());
  return s.stageable && n >= 2 ? n * (n - 1) * 3 : 0;
}

// Index of the staged candidate (r, w, layout l) in the enumeration's order.
int staged_index(const MappingSpace& s, int r, int w, int l) {
  const int n = static_cast<int>(s.lanes.size());
  return n + (r * (n - 1) + (w < r ? w : w - 1)) * 3 + l;
}

// sum(coef * x) as text: "32 lane[i] + 4 lane[j]".
std::string linear(const std::vector<std::pair<int, std::string>>& terms) {
  std::string o;
  for (const auto& [c, v] : terms) {
    if (c == 0) continue;
    o += (o.empty() ? "" : " + ") + (c == 1 ? "" : std::to_string(c) + " ") + v;
  }
  return o.empty() ? "0" : o;
}

}  // namespace

int candidate_count(const MappingSpace& s) { return static_cast<int>(s.lanes.size()) + staged_count(s); }

MappingPoint candidate_point(const MappingSpace& s, int index) {
  const int n = static_cast<int>(s.lanes.size());
  LOOM_ASSERT(index >= 0 && index < candidate_count(s), "mapping candidate index out of range");
  if (index < n) return {index, index, !s.warps ? -1 : index == n - 1 ? n - 2 : n - 1, false, SmemLayout::Padded};
  const int k = index - n;
  const int l = k % 3, pair = k / 3, r = pair / (n - 1), w = pair % (n - 1);
  const int write_lane = w < r ? w : w + 1;
  return {r, write_lane, s.warps ? write_lane : -1, true, kLayouts[l]};
}

int candidate_cost(const MappingSpace& s, int index) {
  const MappingPoint p = candidate_point(s, index);
  int total = 0;
  for (const auto& a : s.accesses) total += a.cost[static_cast<size_t>(a.write ? p.write_lane : p.lane)];
  if (p.staged) total += s.tile_cost[static_cast<size_t>(p.layout)];
  return total;
}

namespace {

// The program of one mapping space: its columns by role, its rows, and what it prints.
class MappingModel {
 public:
  explicit MappingModel(const MappingSpace& s)
      : s_(s), n_(static_cast<int>(s.lanes.size())), K_(candidate_count(s)), staging_(staged_count(s) > 0) {
    LOOM_ASSERT(n_ >= 1 && (!s.warps || n_ >= 2), "a mapping space without lane options, or with warps over one loop");
    columns();
    roles();
    products();
  }

  MappingIlp solve(int max_nodes) const {
    MappingIlp out;
    out.num_vars = ilp_.num_vars();
    out.num_rows = ilp_.num_rows();
    const sched::Ilp::Result r = ilp_.solve(kMaxSeconds, max_nodes);
    out.nodes = r.nodes;
    if (r.status == sched::Ilp::Status::Infeasible) LOOM_INTERNAL("the thread-mapping ILP is infeasible");
    out.solved = r.status == sched::Ilp::Status::Optimal || r.status == sched::Ilp::Status::Feasible;
    out.proven = r.status == sched::Ilp::Status::Optimal;
    if (out.solved) decode(r, out);
    if (out.proven)
      out.status = "proven optimal (" + std::to_string(out.nodes) + " branch-and-bound nodes)";
    else
      out.status = "budget reached (" + std::to_string(max_nodes) + " nodes or " + std::to_string(static_cast<int>(kMaxSeconds)) + " s) " +
                   (out.solved ? "with an unproven solution" : "without a solution") + ": the enumeration's best is taken";
    return out;
  }

  // The formulation in a few lines, with this space's names and coefficients.
  std::vector<std::string> describe() const {
    std::vector<std::string> out;
    std::string vars = "0-1 variables: lane[d] (the lanes' loop; the read phase's when staged), wlane[d] (the write phase's)";
    if (s_.warps) vars += ", warp[d]";
    vars += ", staged, layout[plain|padded|xor]; d in {";
    for (int d = 0; d < n_; ++d) vars += (d ? ", " : "") + s_.lanes[static_cast<size_t>(d)];
    out.push_back(vars + "}");
    out.push_back("products in [0, 1] (p <= each factor, p >= sum of factors - (factors - 1)): direct[d] = lane[d] * (1 - staged)" +
                  std::string(staging_ ? ", tile[r,w,l] = lane[r] * wlane[w] * layout[l] (r != w)" : "") + "; " +
                  std::to_string(direct_.size() + tiles_.size()) + " of them, exactly one is 1");
    std::vector<std::pair<int, std::string>> lanes;
    for (int c : lane_) lanes.push_back({1, names_[static_cast<size_t>(c)]});
    std::string rows = std::to_string(ilp_.num_rows()) + " rows: " + linear(lanes) + " = 1, the same for wlane" + (s_.warps ? " and warp" : "") +
                       "; sum of layouts = staged; staged <= " +
                       (staging_ ? "1" : "0 (" + std::string(s_.stageable ? "one loop" : "not one assignment of a map") + ")") +
                       "; direct: wlane = lane; staged: lane[d] + wlane[d] <= 1";
    if (s_.warps) rows += ", warp = wlane; lane[d] + warp[d] <= 1; direct: warp = the innermost loop the lanes leave";
    out.push_back(rows);
    out.push_back("objective: min " + std::to_string(K_) + " * cost + candidate index (" + std::to_string(K_) +
                  " candidates: the earlier of equally cheap ones wins); cost =");
    for (const auto& a : s_.accesses) {
      std::vector<std::pair<int, std::string>> t;
      for (int d = 0; d < n_; ++d) t.push_back({a.cost[static_cast<size_t>(d)], names_[static_cast<size_t>((a.write ? wlane_ : lane_)[static_cast<size_t>(d)])]});
      out.push_back("    " + a.name + ": " + linear(t));
    }
    if (staging_) {
      std::vector<std::pair<int, std::string>> t;
      for (int l = 0; l < 3; ++l) t.push_back({s_.tile_cost[static_cast<size_t>(l)], names_[static_cast<size_t>(layout_[static_cast<size_t>(l)])]});
      out.push_back("    tile (shared store + load wavefronts): " + linear(t));
    }
    return out;
  }

 private:
  // Deterministic runs end at the node budget; the wall clock only guards a pathological model.
  static constexpr double kMaxSeconds = 10;
  static constexpr double kInf = sched::Ilp::kInf;

  struct Tile {
    int col, r, w, l;
  };
  const MappingSpace& s_;
  const int n_, K_;
  const bool staging_;
  sched::Ilp ilp_;
  std::vector<std::string> names_;
  std::vector<int> lane_, wlane_, warp_, layout_, direct_;
  int staged_ = -1;
  std::vector<Tile> tiles_;

  int var(const std::string& name, bool integer, double objective) {
    names_.push_back(name);
    return ilp_.add_var(0, 1, integer, objective);
  }
  const std::string& lane_name(int d) const { return s_.lanes[static_cast<size_t>(d)]; }

  // The decision variables, with the objective K * cost on them, and the products, with the
  // tie-break index on them.
  void columns() {
    std::vector<double> read(static_cast<size_t>(n_), 0), write(static_cast<size_t>(n_), 0);
    for (const auto& a : s_.accesses)
      for (int d = 0; d < n_; ++d) (a.write ? write : read)[static_cast<size_t>(d)] += static_cast<double>(K_) * a.cost[static_cast<size_t>(d)];
    for (int d = 0; d < n_; ++d) lane_.push_back(var("lane[" + lane_name(d) + "]", true, read[static_cast<size_t>(d)]));
    for (int d = 0; d < n_; ++d) wlane_.push_back(var("wlane[" + lane_name(d) + "]", true, write[static_cast<size_t>(d)]));
    if (s_.warps)
      for (int d = 0; d < n_; ++d) warp_.push_back(var("warp[" + lane_name(d) + "]", true, 0));
    staged_ = var("staged", true, 0);
    for (int l = 0; l < 3; ++l)
      layout_.push_back(var(std::string("layout[") + smem_layout_name(kLayouts[l]) + "]", true, static_cast<double>(K_) * s_.tile_cost[static_cast<size_t>(l)]));
    for (int d = 0; d < n_; ++d) direct_.push_back(var("direct[" + lane_name(d) + "]", false, d));
    if (!staging_) return;
    for (int r = 0; r < n_; ++r)
      for (int w = 0; w < n_; ++w)
        if (w != r)
          for (int l = 0; l < 3; ++l)
            tiles_.push_back({var("tile[" + lane_name(r) + "," + lane_name(w) + "," + smem_layout_name(kLayouts[l]) + "]", false, staged_index(s_, r, w, l)), r, w, l});
  }

  void sum_is(const std::vector<int>& cols, double v) {
    std::vector<std::pair<int, double>> t;
    for (int c : cols) t.push_back({c, 1});
    ilp_.add_row(t, v, v);
  }

  // Each role taken by exactly one loop, no loop in two roles, the tile only for one assignment.
  void roles() {
    sum_is(lane_, 1);
    sum_is(wlane_, 1);
    if (s_.warps) sum_is(warp_, 1);
    std::vector<std::pair<int, double>> layouts{{staged_, -1}};
    for (int c : layout_) layouts.push_back({c, 1});
    ilp_.add_row(layouts, 0, 0);
    ilp_.add_row({{staged_, 1}}, -kInf, staging_ ? 1 : 0);
    for (size_t d = 0; d < static_cast<size_t>(n_); ++d) {
      // Direct: the write phase is the kernel, wlane = lane. Staged: the two phases' lanes differ.
      ilp_.add_row({{wlane_[d], 1}, {lane_[d], -1}, {staged_, -1}}, -kInf, 0);
      ilp_.add_row({{lane_[d], 1}, {wlane_[d], -1}, {staged_, -1}}, -kInf, 0);
      ilp_.add_row({{lane_[d], 1}, {wlane_[d], 1}, {staged_, 1}}, -kInf, 2);
      if (!s_.warps) continue;
      // No loop holds two roles; staged: the read phase's warps run along the write phase's lanes.
      ilp_.add_row({{lane_[d], 1}, {warp_[d], 1}}, -kInf, 1);
      ilp_.add_row({{warp_[d], 1}, {wlane_[d], -1}, {staged_, 1}}, -kInf, 1);
      ilp_.add_row({{wlane_[d], 1}, {warp_[d], -1}, {staged_, 1}}, -kInf, 1);
    }
    if (!s_.warps) return;
    // Direct: the warps take the innermost loop the lanes leave (n - 1, or n - 2 when the lanes
    // take n - 1). The cost does not see a direct kernel's warp loop; this is the kernel's rule.
    const size_t last = static_cast<size_t>(n_ - 1), before = static_cast<size_t>(n_ - 2);
    ilp_.add_row({{warp_[last], 1}, {lane_[last], 1}, {staged_, 1}}, 1, kInf);
    ilp_.add_row({{warp_[before], 1}, {lane_[last], -1}, {staged_, 1}}, 0, kInf);
  }

  // The products, linearized: p <= each factor, p >= sum of factors - (factors - 1); exactly one
  // candidate is taken (implied by the rows above; it tightens the LP relaxation).
  void products() {
    std::vector<int> all;
    for (size_t d = 0; d < static_cast<size_t>(n_); ++d) {
      ilp_.add_row({{direct_[d], 1}, {lane_[d], -1}}, -kInf, 0);
      ilp_.add_row({{direct_[d], 1}, {staged_, 1}}, -kInf, 1);
      ilp_.add_row({{direct_[d], 1}, {lane_[d], -1}, {staged_, 1}}, 0, kInf);
      all.push_back(direct_[d]);
    }
    for (const Tile& t : tiles_) {
      const int r = lane_[static_cast<size_t>(t.r)], w = wlane_[static_cast<size_t>(t.w)], l = layout_[static_cast<size_t>(t.l)];
      ilp_.add_row({{t.col, 1}, {r, -1}}, -kInf, 0);
      ilp_.add_row({{t.col, 1}, {w, -1}}, -kInf, 0);
      ilp_.add_row({{t.col, 1}, {l, -1}}, -kInf, 0);
      ilp_.add_row({{t.col, 1}, {r, -1}, {w, -1}, {l, -1}}, -2, kInf);
      all.push_back(t.col);
    }
    sum_is(all, 1);
  }

  // The parameters the solution's variables describe, the candidate they are, and checks that
  // the objective is that candidate's.
  void decode(const sched::Ilp::Result& r, MappingIlp& out) const {
    out.objective = r.objective;
    auto on = [&](int c) { return r.x[static_cast<size_t>(c)] > 0.5; };
    for (size_t c = 0; c < names_.size(); ++c) out.values.push_back({names_[c], on(static_cast<int>(c)) ? 1 : 0});
    MappingPoint& p = out.point;
    for (int d = 0; d < n_; ++d) {
      if (on(lane_[static_cast<size_t>(d)])) p.lane = d;
      if (on(wlane_[static_cast<size_t>(d)])) p.write_lane = d;
      if (s_.warps && on(warp_[static_cast<size_t>(d)])) p.warp = d;
    }
    p.staged = on(staged_);
    for (int l = 0; l < 3; ++l)
      if (p.staged && on(layout_[static_cast<size_t>(l)])) p.layout = kLayouts[l];
    out.chosen = p.staged ? staged_index(s_, p.lane, p.write_lane, static_cast<int>(p.layout)) : p.lane;
    const MappingPoint want = candidate_point(s_, out.chosen);
    LOOM_ASSERT(want.lane == p.lane && want.write_lane == p.write_lane && want.warp == p.warp && want.staged == p.staged && want.layout == p.layout,
                "the thread-mapping ILP's solution is not a candidate permutation");
    out.cost = candidate_cost(s_, out.chosen);
    LOOM_ASSERT(std::lround(out.objective) == static_cast<long>(K_) * out.cost + out.chosen,
                "the thread-mapping ILP's objective does not match the candidate its solution encodes");
  }
};

}  // namespace

MappingIlp solve_mapping_ilp(const MappingSpace& s, int max_nodes) {
  MappingModel model(s);
  MappingIlp out = model.solve(max_nodes);
  out.formulation = model.describe();
  return out;
}

}  // namespace loom::tx

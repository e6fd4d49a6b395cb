#include "sched/ilp.h"

#include <chrono>
#include <cmath>
#include <string>

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

namespace loom::sched {

int Ilp::add_var(double lo, double hi, bool integer, double objective) {
  lo_.push_back(lo);
  hi_.push_back(hi);
  obj_.push_back(objective);
  integer_.push_back(integer);
  return static_cast<int>(lo_.size()) - 1;
}

void Ilp::add_row(const std::vector<std::pair<int, double>>& terms, double lo, double hi) {
  rows_.push_back({terms, lo, hi});
}

const char* to_string(Ilp::Status s) {
  switch (s) {
    case Ilp::Status::Optimal: return "optimal";
    case Ilp::Status::Infeasible: return "infeasible";
    case Ilp::Status::Feasible: return "feasible (limit reached)";
    case Ilp::Status::Unknown: return "unknown (limit reached)";
  }
  return "?";
}

Ilp::Result Ilp::solve(double max_seconds, int max_nodes) const {
  auto start = std::chrono::steady_clock::now();
  Result res;
  const int n = num_vars();
  // The rows as one row-ordered matrix, built from its arrays at once (appending row by row
  // regrows the matrix each time: quadratic in its size, minutes for a time-indexed ILP of a few
  // million nonzeros).
  std::vector<CoinBigIndex> starts;
  std::vector<int> idx, lengths;
  std::vector<double> val, rlo, rhi;
  for (const Row& r : rows_) {
    starts.push_back(static_cast<CoinBigIndex>(idx.size()));
    for (auto [c, v] : r.terms) {
      if (v == 0) continue;
      idx.push_back(c);
      val.push_back(v);
    }
    lengths.push_back(static_cast<int>(idx.size() - static_cast<size_t>(starts.back())));
    rlo.push_back(r.lo <= -kInf ? -COIN_DBL_MAX : r.lo);
    rhi.push_back(r.hi >= kInf ? COIN_DBL_MAX : r.hi);
  }
  starts.push_back(static_cast<CoinBigIndex>(idx.size()));  // (one past the last row: never empty)
  const CoinPackedMatrix m(false, n, static_cast<int>(rows_.size()), static_cast<CoinBigIndex>(idx.size()), val.data(), idx.data(),
                           starts.data(), lengths.data());
  std::vector<double> clo(lo_), chi(hi_);
  for (auto& v : clo) if (v <= -kInf) v = -COIN_DBL_MAX;
  for (auto& v : chi) if (v >= kInf) v = COIN_DBL_MAX;
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(m, clo.data(), chi.data(), obj_.data(), rlo.data(), rhi.data());
  for (int i = 0; i < n; ++i)
    if (integer_[i]) solver.setInteger(i);
  CbcModel model(solver);
  model.messageHandler()->setLogLevel(0);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  CbcMain0(model, data);
  std::string sec = std::to_string(std::max(0.05, max_seconds));
  std::string nodes = std::to_string(max_nodes < 0 ? 2000000000 : max_nodes);
  std::vector<const char*> argv = {"loom", "-log", "0", "-slog", "0", "-sec", sec.c_str(), "-maxN", nodes.c_str()};
  if (proof_mode_)
    for (const char* a : {"-preprocess", "off", "-heur", "off", "-feas", "off"}) argv.push_back(a);
  argv.push_back("-solve");
  argv.push_back("-quit");
  CbcMain1(static_cast<int>(argv.size()), argv.data(), model, nullptr, data);
  res.nodes = model.getNodeCount();
  const double* best = model.bestSolution();
  bool have = best != nullptr && model.getNumCols() == n;
  if (have) {
    res.x.assign(best, best + n);
    for (int i = 0; i < n; ++i)
      if (integer_[i]) res.x[i] = std::round(res.x[i]);
    res.objective = 0;
    for (int i = 0; i < n; ++i) res.objective += obj_[i] * res.x[i];
  }
  if (model.isProvenInfeasible() && !have) res.status = Status::Infeasible;
  else if (model.isProvenOptimal() && have) res.status = Status::Optimal;
  else if (have) res.status = Status::Feasible;
  else res.status = Status::Unknown;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

}  // namespace loom::sched

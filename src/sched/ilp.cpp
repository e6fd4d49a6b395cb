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
  CoinPackedMatrix m(false, 0, 0);
  m.setDimensions(0, n);
  std::vector<double> rlo, rhi;
  for (const Row& r : rows_) {
    std::vector<int> idx;
    std::vector<double> val;
    for (auto [c, v] : r.terms) {
      if (v == 0) continue;
      idx.push_back(c);
      val.push_back(v);
    }
    m.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
    rlo.push_back(r.lo <= -kInf ? -COIN_DBL_MAX : r.lo);
    rhi.push_back(r.hi >= kInf ? COIN_DBL_MAX : r.hi);
  }
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

// ilp.h — a small integer-linear-program builder solved with CBC (COIN-OR), used by cost
// normalization (costnorm.h), the optimal modulo scheduler (modulo_ilp.h) and the tensor-expression
// thread mapping (src/tx/mapping_ilp.h). Its own library, loom_ilp (src/sched/CMakeLists.txt), so
// that the compiler's library links it without the scheduler.
//
// Status is honest: Optimal and Infeasible are proofs from CBC; Feasible means a limit stopped the
// search with a solution in hand; Unknown means a limit stopped it without one. Node limits are
// deterministic; the time limit bounds the wall clock. Tested through tests/sched/modulo_test.cpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace loom::sched {

class Ilp {
 public:
  enum class Status { Optimal, Infeasible, Feasible, Unknown };
  struct Result {
    Status status = Status::Unknown;
    std::vector<double> x;
    double objective = 0;
    double seconds = 0;
    long nodes = 0;
  };

  // Returns the new column's index. Bounds are inclusive; `objective` is minimized.
  int add_var(double lo, double hi, bool integer, double objective = 0);
  // lo <= sum(coef * x[col]) <= hi; use +-kInf for one-sided rows.
  void add_row(const std::vector<std::pair<int, double>>& terms, double lo, double hi);
  int num_vars() const { return static_cast<int>(lo_.size()); }
  int num_rows() const { return static_cast<int>(rows_.size()); }

  Result solve(double max_seconds, int max_nodes = -1) const;

  // Proof mode: CBC's preprocessing and primal heuristics off (-preprocess off -heur off -feas off).
  // For models whose hard part is proving infeasibility or optimality at the LP bound (the
  // time-indexed modulo ILP: 0.2 s instead of 2 s on Blackwell forward attention), where
  // heuristics only spend time; answers do not change, only how fast they come.
  void set_proof_mode(bool on) { proof_mode_ = on; }

  static constexpr double kInf = 1e30;

 private:
  std::vector<double> lo_, hi_, obj_;
  std::vector<bool> integer_;
  struct Row {
    std::vector<std::pair<int, double>> terms;
    double lo, hi;
  };
  std::vector<Row> rows_;
  bool proof_mode_ = false;
};

const char* to_string(Ilp::Status s);

}  // namespace loom::sched

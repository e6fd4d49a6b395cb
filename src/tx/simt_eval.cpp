// The CPU evaluator of SIMT kernels. See simt_eval.h.
#include "tx/simt_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "exec/host_tensor.h"
#include "tx/invariant_div.h"

namespace loom::tx {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class Evaluator {
 public:
  Evaluator(const Model& m, const SimtKernel& k, const std::map<std::string, int64_t>& sizes, uint64_t seed)
      : m_(m), k_(k), sizes_(sizes), rng_(seed), loops_(m.loops.size(), 0), scalars_(m.tensors.size(), 0.0f) {}

  SimtRun run(const std::map<std::string, Array>& inputs, int row_threads, bool vector_path) {
    data_.resize(m_.tensors.size());
    writes_.resize(m_.tensors.size());
    for (const SimtTensor& p : k_.params) {
      const TensorInfo& t = m_.tensors[static_cast<size_t>(p.tensor)];
      Array& a = data_[static_cast<size_t>(p.tensor)];
      a.dtype = t.dtype;
      a.extents = tensor_extents(m_, p.tensor, sizes_);
      const size_t n = std::accumulate(a.extents.begin(), a.extents.end(), size_t{1}, [](size_t x, int64_t e) { return x * static_cast<size_t>(e); });
      if (t.role == Role::In) {
        a.data = inputs.at(t.name).data;
      } else {
        a.data.assign(n, std::numeric_limits<float>::quiet_NaN());
        writes_[static_cast<size_t>(p.tensor)].assign(n, 0);
      }
    }
    if (k_.shape == SimtKernel::Shape::Map) run_map();
    else run_rows(row_threads, vector_path);
    SimtRun out;
    for (const SimtTensor& p : k_.params) {
      const TensorInfo& t = m_.tensors[static_cast<size_t>(p.tensor)];
      if (t.role != Role::Out) continue;
      Array a = data_[static_cast<size_t>(p.tensor)];
      for (float& v : a.data) v = static_cast<float>(exec::round_to(a.dtype, v));
      for (int w : writes_[static_cast<size_t>(p.tensor)]) {
        if (w == 0) ++out.unwritten;
        if (w > 1) out.rewritten += w - 1;
      }
      out.outputs[t.name] = std::move(a);
    }
    return out;
  }

 private:
  const Model& m_;
  const SimtKernel& k_;
  const std::map<std::string, int64_t>& sizes_;
  std::mt19937_64 rng_;
  std::vector<int64_t> loops_;
  std::vector<float> scalars_;
  std::vector<Array> data_;
  std::vector<std::vector<int>> writes_;
  // The current statement's divisions through the row's reciprocal (empty while the IEEE
  // fallback is evaluated), and the fast path's proof flag.
  std::map<const Expr*, InvariantDivisor> divisors_;
  bool ok_ = true;

  std::vector<int64_t> shuffled(int64_t n) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    std::shuffle(v.begin(), v.end(), rng_);
    return v;
  }
  bool is_scalar(int t) const { return std::find(k_.scalars.begin(), k_.scalars.end(), t) != k_.scalars.end(); }

  int64_t index(const Expr& e) const {
    if (auto c = constant_value(e)) return *c;
    switch (e.kind) {
      case Expr::Kind::Name: return m_.loop_of.count(&e) ? loops_[static_cast<size_t>(m_.loop_of.at(&e))] : sizes_.at(e.name);
      case Expr::Kind::Neg: return -index(e.args[0]);
      case Expr::Kind::Binary: {
        const int64_t a = index(e.args[0]), b = index(e.args[1]);
        switch (e.op) {
          case '+': return a + b;
          case '-': return a - b;
          case '*': return a * b;
          case '/': return floor_div(a, b);
          default: return a - b * floor_div(a, b);
        }
      }
      default: break;
    }
    LOOM_INTERNAL("not an index expression: " << print_expr(e));
  }
  int64_t extent(int loop) const { return index(m_.loops[static_cast<size_t>(loop)].stmt->extent); }
  size_t offset(const Expr& access) const {
    const Array& a = data_[static_cast<size_t>(m_.tensor_of.at(&access))];
    int64_t off = 0;
    for (size_t d = 0; d < access.args.size(); ++d) {
      const int64_t i = index(access.args[d]);
      LOOM_ASSERT(i >= 0 && i < a.extents[d], "SIMT access out of bounds: " << print_expr(access));
      off = off * a.extents[d] + i;
    }
    return static_cast<size_t>(off);
  }

  float value(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Int: return static_cast<float>(e.ival);
      case Expr::Kind::Float: return static_cast<float>(e.fval);
      case Expr::Kind::Inf: return std::numeric_limits<float>::infinity();
      case Expr::Kind::Name: return static_cast<float>(m_.loop_of.count(&e) ? loops_[static_cast<size_t>(m_.loop_of.at(&e))] : sizes_.at(e.name));
      case Expr::Kind::Access: {
        const int t = m_.tensor_of.at(&e);
        if (is_scalar(t)) return scalars_[static_cast<size_t>(t)];
        return data_[static_cast<size_t>(t)].data[offset(e)];
      }
      case Expr::Kind::Neg: return -value(e.args[0]);
      case Expr::Kind::Binary: {
        if (auto d = divisors_.find(&e); d != divisors_.end()) return invariant_div(value(e.args[0]), d->second, ok_);
        const float a = value(e.args[0]), b = value(e.args[1]);
        switch (e.op) {
          case '+': return a + b;
          case '-': return a - b;
          case '*': return a * b;
          default: return a / b;
        }
      }
      case Expr::Kind::Call: return apply_function(e.name, value(e.args[0]), e.args.size() > 1 ? value(e.args[1]) : 0.0f);
    }
    return 0;
  }

  void store(const SimtStmt& s, float v) {
    const int t = s.target;
    if (is_scalar(t)) {
      float& r = scalars_[static_cast<size_t>(t)];
      r = s.src->accumulate ? r + v : v;
      return;
    }
    const size_t off = offset(s.src->lhs);
    data_[static_cast<size_t>(t)].data[off] = v;
    ++writes_[static_cast<size_t>(t)][off];
  }

  void run_map() {
    std::vector<int64_t> grid;
    for (int l : k_.nest) {
      const int64_t n = extent(l);
      grid.push_back(l == k_.lane_loop ? (n + (k_.row_loop < 0 ? 255 : 31)) / (k_.row_loop < 0 ? 256 : 32) : l == k_.row_loop ? (n + 31) / 32 : n);
    }
    const int64_t blocks = std::accumulate(grid.begin(), grid.end(), int64_t{1}, std::multiplies<int64_t>());
    for (int64_t b : shuffled(blocks)) {
      std::vector<int64_t> place(grid.size());
      for (size_t x = grid.size(); x-- > 0;) {
        place[x] = b % grid[x];
        b /= grid[x];
      }
      int64_t b_lane = 0, b_row = 0;
      for (size_t x = 0; x < k_.nest.size(); ++x) {
        const int l = k_.nest[x];
        if (l == k_.lane_loop) b_lane = place[x];
        else if (l == k_.row_loop) b_row = place[x];
        else loops_[static_cast<size_t>(l)] = place[x];
      }
      auto in_bounds = [&] {
        return loops_[static_cast<size_t>(k_.lane_loop)] < extent(k_.lane_loop) &&
               (k_.row_loop < 0 || loops_[static_cast<size_t>(k_.row_loop)] < extent(k_.row_loop));
      };
      auto& lane_v = loops_[static_cast<size_t>(k_.lane_loop)];
      if (k_.row_loop < 0) {
        for (int64_t th : shuffled(256)) {
          lane_v = 256 * b_lane + th;
          if (in_bounds())
            for (const SimtStmt& s : k_.stmts) store(s, value(*s.value));
        }
        continue;
      }
      auto& row_v = loops_[static_cast<size_t>(k_.row_loop)];
      if (!k_.staged) {
        for (int64_t th : shuffled(256)) {
          const int64_t lane = th & 31, warp = th >> 5;
          for (int64_t s = 0; s < 4; ++s) {
            lane_v = 32 * b_lane + lane;
            row_v = 32 * b_row + warp + 8 * s;
            if (in_bounds())
              for (const SimtStmt& st : k_.stmts) store(st, value(*st.value));
          }
        }
        continue;
      }
      std::vector<float> tile(32 * 33, std::numeric_limits<float>::quiet_NaN());
      const SimtStmt& st = k_.stmts.at(0);
      for (int64_t th : shuffled(256)) {  // read phase
        const int64_t lane = th & 31, warp = th >> 5;
        for (int64_t s = 0; s < 4; ++s) {
          lane_v = 32 * b_lane + lane;
          row_v = 32 * b_row + warp + 8 * s;
          if (in_bounds()) tile[static_cast<size_t>(smem_word(k_.layout, warp + 8 * s, lane))] = value(*st.value);
        }
      }
      for (int64_t th : shuffled(256)) {  // write phase, after the barrier
        const int64_t lane = th & 31, warp = th >> 5;
        for (int64_t s = 0; s < 4; ++s) {
          row_v = 32 * b_row + lane;
          lane_v = 32 * b_lane + warp + 8 * s;
          if (in_bounds()) store(st, tile[static_cast<size_t>(smem_word(k_.layout, lane, warp + 8 * s))]);
        }
      }
    }
  }

  static float combine(Combine op, float a, float b) {
    switch (op) {
      case Combine::Sum: return a + b;
      case Combine::Max: return std::fmax(a, b);
      case Combine::Min: return std::fmin(a, b);
    }
    return a;
  }

  void run_rows(int kt, bool vec) {
    const int64_t row_len = index(*k_.row_length);
    if (kt == 0) kt = !k_.rows_by_lanes ? 1 : row_len <= k_.warp_max_len ? 32 : k_.block_threads;
    const int64_t rows_per_block = kt == 1 ? 256 : kt == 32 ? k_.rows_per_warp_block : 1;
    const int V = vec ? k_.vector_elems : 1;
    const int64_t rows = extent(k_.rows_loop);
    auto& row = loops_[static_cast<size_t>(k_.rows_loop)];
    for (int64_t b : shuffled((rows + rows_per_block - 1) / rows_per_block)) {
      for (int64_t r : shuffled(rows_per_block)) {
        row = b * rows_per_block + r;
        if (row >= rows) continue;
        for (int t : k_.scalars) scalars_[static_cast<size_t>(t)] = 0.0f;
        for (const SimtStmt& s : k_.stmts) {
          if (s.loop < 0) {
            store(s, value(*s.value));
            continue;
          }
          auto& j = loops_[static_cast<size_t>(s.loop)];
          const int64_t n = extent(s.loop);
          const bool reduce = s.kind == SimtStmt::Kind::Reduce;
          const float identity = s.op == Combine::Sum ? 0.0f : s.op == Combine::Max ? -INFINITY : INFINITY;
          std::vector<float> part(static_cast<size_t>(kt), identity);
          // The divisors' reciprocals, once per row. The generated code falls back to IEEE
          // divisions for a whole vector when one element leaves the proven range; per element
          // here, which gives the same values (the fast quotient is the IEEE one where proven).
          std::map<const Expr*, InvariantDivisor> divisors;
          for (const Expr* d : s.divisions) divisors[d] = invariant_divisor(value(d->args[1]));
          auto element = [&] {
            divisors_ = divisors;
            ok_ = true;
            float v = value(*s.value);
            divisors_.clear();
            if (!ok_) v = value(*s.value);
            return v;
          };
          for (int64_t t : shuffled(kt)) {
            // columns t*V .. in steps of kt*V, V at a time, in order (V = 1: t, t + kt, ...)
            for (int64_t c = t * V; c < n; c += static_cast<int64_t>(kt) * V)
              for (int64_t e = 0; e < V && c + e < n; ++e) {
                j = c + e;
                if (reduce) part[static_cast<size_t>(t)] = combine(s.op, part[static_cast<size_t>(t)], element());
                else store(s, element());
              }
          }
          if (!reduce) continue;
          float total = part[0];
          if (kt > 1) {
            for (int64_t w0 = 0; w0 < kt; w0 += 32)  // the xor butterfly of each warp
              for (int o = 16; o > 0; o >>= 1) {
                std::vector<float> next(32);
                for (int l = 0; l < 32; ++l) next[static_cast<size_t>(l)] = combine(s.op, part[static_cast<size_t>(w0 + l)], part[static_cast<size_t>(w0 + (l ^ o))]);
                std::copy(next.begin(), next.end(), part.begin() + w0);
              }
            total = part[0];
            for (int64_t w = 1; w < kt / 32; ++w) total = combine(s.op, total, part[static_cast<size_t>(32 * w)]);
          }
          float& sc = scalars_[static_cast<size_t>(s.target)];
          sc = combine(s.op, sc, total);
        }
      }
    }
  }
};

}  // namespace

SimtRun evaluate_simt(const Model& m, const SimtKernel& k, const std::map<std::string, int64_t>& sizes,
                      const std::map<std::string, Array>& inputs, uint64_t seed, int row_threads, bool vector_path) {
  return Evaluator(m, k, sizes, seed).run(inputs, row_threads, vector_path);
}

}  // namespace loom::tx

// The mapping of a lowered contraction (src/tx/lower_internal.h): one instance per variant and
// processor level, for a tile chosen by the cost model (src/tx/tile_model.h). Global tensors stay
// GLOBAL down to the block; the K step's operand tiles are TMA-staged in SHARED with 128-byte
// swizzle (column-major tiles for transposed operands, which the entry instance declares
// column-major); the accumulator lives in the consumer threads' registers; the bias is read from
// GLOBAL by the threads, the residual TMA-staged in SHARED when the budget allows (else read from
// GLOBAL, as in every split-K mapping). A split-K candidate is the same mapping with splitk(S) on
// the block instance. Test: tests/unit/tx_lower_test.cpp.
#include "tx/lower_internal.h"

#include <sstream>

namespace loom::tx::detail {

namespace {

struct Instance {
  std::string name, variant, level;
  std::vector<std::string> mem, tune, call, layout;
  std::string tail;  // warpspecialize pipeline(N) smem(...), entry
};

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (const std::string& x : xs) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string text(const Instance& i) {
  std::string s = "  instance " + i.name + " = " + i.variant + " on " + i.level;
  if (!i.mem.empty()) s += " mem(" + join(i.mem) + ")";
  if (!i.tune.empty()) s += " tune(" + join(i.tune) + ")";
  if (!i.call.empty()) s += " call(" + join(i.call) + ")";
  if (!i.tail.empty() && i.tail.find("entry") == std::string::npos) s += " " + i.tail;
  if (!i.layout.empty()) s += " layout(" + join(i.layout) + ")";
  if (i.tail.find("entry") != std::string::npos) s += " " + i.tail;
  return s + ";\n";
}

std::string order(bool col_major) { return col_major ? "col_major" : "row_major"; }

std::vector<Instance> instances(const Plan& p, const TileConfig& c) {
  std::vector<Instance> out;
  const std::vector<std::string> global(p.params.size(), "GLOBAL");
  std::vector<std::string> entry_layout;
  for (const Param& q : p.params)
    if (q.col_major) entry_layout.push_back(q.name + ": col_major");
  const std::string n_mma = "N_MMA=" + std::to_string(c.v);
  const std::string g = "G=" + std::to_string(c.g);
  // Instance names: <task>_<level>, made distinct.
  Names names;
  auto inst = [&](const std::string& base) { return names.fresh(base); };
  const std::string host = inst(p.mat_task + "_host"), block = inst(p.mat_task + "_block");
  // The batch levels (the first is the entry), then the matrix task.
  std::vector<std::string> batch;
  for (const std::string& t : p.batch_tasks) batch.push_back(inst(t + "_slices"));
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::string next = b + 1 < batch.size() ? p.batch_tasks[b + 1] : p.mat_task;
    const std::string next_inst = b + 1 < batch.size() ? batch[b + 1] : host;
    Instance i{batch[b], p.variant(p.batch_tasks[b], "slices"), "HOST", global, {}, {next + ": " + next_inst}, {}, ""};
    if (b == 0) {
      i.layout = entry_layout;
      i.tail = "entry";
    }
    out.push_back(i);
  }
  {
    Instance i{host, p.variant(p.mat_task, "host"), "HOST", global,
               {p.U + "=" + std::to_string(c.u), p.V + "=" + std::to_string(c.v)}, {p.mat_task + ": " + block}, {}, ""};
    if (batch.empty()) {
      i.layout = entry_layout;
      i.tail = "entry";
    }
    out.push_back(i);
  }
  // Helper instance chains: tile (BLOCK), wg (WARPGROUP), warp (WARP), thread (THREAD).
  std::vector<std::string> gemm_tiles;
  for (int s = 0; s < p.stagings; ++s) gemm_tiles.push_back(inst(p.gemm + "_tile"));
  const std::string gemm_wg = inst(p.gemm + "_wg"), gemm_warp = inst(p.gemm + "_warp"),
                    gemm_thread = inst(p.gemm + "_thread");
  struct Chain {
    std::string task, tile, wg, warp, thread;
  };
  auto chain = [&](const std::string& task) {
    return Chain{task, inst(task + "_tile"), inst(task + "_wg"), inst(task + "_warp"), inst(task + "_thread")};
  };
  const Chain clear = chain(p.clear), epi = chain(p.epilogue);
  std::vector<Chain> pros;
  for (const Prologue& pro : p.prologues) pros.push_back(chain(pro.task));
  {
    std::vector<std::string> calls;
    if (p.stagings == 1) calls.push_back(p.gemm + ": " + gemm_tiles[0]);
    else
      for (const TermPlan& t : p.terms) calls.push_back(t.label + ": " + gemm_tiles[size_t(t.staging)]);
    calls.push_back(p.clear + ": " + clear.tile);
    calls.push_back(p.epilogue + ": " + epi.tile);
    for (const Chain& ch : pros) calls.push_back(ch.task + ": " + ch.tile);
    out.push_back({block, p.variant(p.mat_task, "block"), "BLOCK", global, {p.W + "=" + std::to_string(c.w)}, calls,
                   {},
                   "warpspecialize pipeline(" + std::to_string(c.stages) + ")" +
                       (c.split > 1 ? " splitk(" + std::to_string(c.split) + ")" : "") + " smem(" +
                       std::to_string(p.machine->limits.smem_per_block / 1024) + "KB)"});
  }
  const std::vector<std::string> gemm_mem = {"NONE", "SHARED", "SHARED"};
  for (int s = 0; s < p.stagings; ++s) {
    const TermPlan* t = nullptr;
    for (const TermPlan& tp : p.terms)
      if (tp.staging == s && !t) t = &tp;
    out.push_back({gemm_tiles[size_t(s)], p.variant(p.gemm, "tile"), "BLOCK", gemm_mem, {g}, {p.gemm + ": " + gemm_wg},
                   {"A: " + order(p.params[t->a].col_major) + " swizzle128",
                    "B: " + order(p.params[t->b].col_major) + " swizzle128"},
                   ""});
  }
  out.push_back({gemm_wg, p.variant(p.gemm, "mma"), "WARPGROUP", gemm_mem, {n_mma}, {p.gemm + ": " + gemm_warp}, {}, ""});
  out.push_back({gemm_warp, p.variant(p.gemm, "mma"), "WARP", gemm_mem, {n_mma}, {p.gemm + ": " + gemm_thread}, {}, ""});
  out.push_back({gemm_thread, p.variant(p.gemm, "thread"), "THREAD", {"REGISTER", "SHARED", "SHARED"}, {}, {}, {}, ""});
  // A fragment chain with per-level memories (tile, wg/warp, thread) and the N of its wgmma cut.
  auto fragment_chain = [&](const Chain& ch, const std::vector<std::string>& tile_mem,
                            const std::vector<std::string>& mid_mem, const std::vector<std::string>& thread_mem,
                            int n, const std::vector<std::string>& layout) {
    const std::string nm = "N_MMA=" + std::to_string(n);
    out.push_back({ch.tile, p.variant(ch.task, "tile"), "BLOCK", tile_mem, {g}, {ch.task + ": " + ch.wg}, layout, ""});
    out.push_back({ch.wg, p.variant(ch.task, "mma"), "WARPGROUP", mid_mem, {nm}, {ch.task + ": " + ch.warp}, {}, ""});
    out.push_back({ch.warp, p.variant(ch.task, "mma"), "WARP", mid_mem, {nm}, {ch.task + ": " + ch.thread}, {}, ""});
    out.push_back({ch.thread, p.variant(ch.task, "thread"), "THREAD", thread_mem, {}, {}, {}, ""});
  };
  fragment_chain(clear, {"NONE"}, {"NONE"}, {"REGISTER"}, c.v, {});
  {
    std::vector<std::string> tile = {"GLOBAL", "NONE"}, mid = {"GLOBAL", "NONE"}, thread = {"GLOBAL", "REGISTER"};
    std::vector<std::string> layout;
    if (p.bias >= 0) {
      tile.push_back("GLOBAL");
      mid.push_back("GLOBAL");
      thread.push_back("GLOBAL");
    }
    if (p.residual >= 0) {
      if (c.residual_shared) {
        tile.push_back("SHARED");
        mid.push_back("NONE");
        thread.push_back("REGISTER");
        layout.push_back("R: row_major swizzle128");
      } else {
        tile.push_back("GLOBAL");
        mid.push_back("GLOBAL");
        thread.push_back("GLOBAL");
      }
    }
    fragment_chain(epi, tile, mid, thread, c.v, layout);
  }
  for (size_t i = 0; i < pros.size(); ++i) {
    const Prologue& pro = p.prologues[i];
    const bool a = pro.side == Role::A;
    fragment_chain(pros[i], {"SHARED", "SHARED"}, {"SHARED", "SHARED"},
                   {a ? "REGISTER" : "SHARED", "SHARED"}, a ? c.w : c.v,
                   {"S: " + order(p.params[pro.param].col_major) + " swizzle128"});
  }
  return out;
}

}  // namespace

std::string emit_mapping(const Plan& p, const TileConfig& c) {
  std::string s;
  for (const Instance& i : instances(p, c)) s += text(i);
  return s;
}

std::string emit_specialization(const Plan& p, const TileConfig& alt) {
  std::vector<Instance> main = instances(p, p.tiles.main), small = instances(p, alt);
  std::string s;
  for (size_t i = 0; i < small.size(); ++i)
    if (i >= main.size() || text(main[i]) != text(small[i])) s += text(small[i]);
  return s;
}

}  // namespace loom::tx::detail

// Tests of warp specialization and pipelining (src/passes/warp_specialize.h, Cypress 4.2.5).
// - GEMM as the example maps it (warpspecialize pipeline(3), two consumer warpgroups): FileCheck-
//   style checks on the printed IR and structural checks of the K loop (one DMA copy per operand
//   into slot `mod %k, 3` of a hoisted [3, ...] buffer, waiting only for the distance-3 carried
//   event; crossing edges marked; the register split recorded). Both with the pipeline up to this
//   pass and without copy elimination (the pass must not depend on the copy-in/copy-out temporaries).
// - nowarpspecialize / pipeline(1) / no keywords leave the loop unpipelined or unpartitioned (no
//   keywords: only the shared tiles' copies wait for the previous iteration — one buffer each).
// - The pipelined GEMM at a K with 6 steps (each 3-slot ring reused twice) matches the reference on
//   the CPU executor; dropping the write-after-read edge (the copy's wait for the distance-3 event,
//   or the carried event itself) is caught.
// - Hand-built loops for the safety conditions: a reader that does not wait for the copy, or a
//   second writer, stops the ring (the tile is then ordered one iteration at a time); a yield that
//   does not cover the reader is extended with a join.
// - The register-split formula; goldens tests/golden/ir/<example>.ws.txt (UPDATE_GOLDEN=1).
#include "passes/warp_specialize.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "passes/dependence_analysis.h"
#include "passes/pipeline.h"
#include "passes/vectorize.h"
#include "test_util.h"

namespace loom {
namespace {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::Role;
using ir::Type;
using ir::ValueId;
using test::check_text;
using test::expect_golden;
using test::read_file;
using test::source_dir;

// ---- helpers -----------------------------------------------------------------------------------------

std::string example_text(const std::string& name) {
  return read_file(source_dir() + "/examples/" + name + "/" + name + ".loom");
}

// Replaces every occurrence of each `from` (which must occur) by its `to`.
std::string edited(std::string text, const std::vector<std::pair<std::string, std::string>>& edits) {
  for (const auto& [from, to] : edits) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "edit does not apply: " << from;
    while (at != std::string::npos) {
      text.replace(at, from.size(), to);
      at = text.find(from, at + to.size());
    }
  }
  return text;
}

std::vector<std::pair<std::string, std::string>> concat_edits(std::vector<std::pair<std::string, std::string>> a,
                                                              const std::vector<std::pair<std::string, std::string>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// GEMM with one warpgroup, 64 x 32 block tiles and K steps of 16 (small enough for the executor).
std::string gemm_small(const std::vector<std::pair<std::string, std::string>>& more = {}) {
  std::vector<std::pair<std::string, std::string>> e = {
      {"U=128, V=256", "U=64, V=32"}, {"N_MMA=256", "N_MMA=32"}, {"G=2", "G=1"}, {"W=64", "W=16"}};
  e.insert(e.end(), more.begin(), more.end());
  return edited(example_text("gemm"), e);
}

enum class Route { Pipeline, NoCopyElimination };
const char* route_name(Route r) { return r == Route::Pipeline ? "pipeline" : "without copy elimination"; }

// The pipeline up to this pass (resource allocation, after it, has its own tests).
ir::Function lower_through_warp_specialize(const Program& p, const TaskTree& tree) {
  PipelineOptions po;
  po.stop_after = "warp-specialize";
  return lower_to_event_ir(p, tree, po);
}

struct Lowered {
  test::CheckResult checked;
  Function f;
};

Lowered lower(const std::string& text, Route route) {
  Lowered l{check_text(text, "gemm.loom"), {}};
  EXPECT_TRUE(l.checked.ok && l.checked.tree) << l.checked.diagnostics;
  if (!l.checked.ok || !l.checked.tree) return l;
  if (route == Route::Pipeline) {
    l.f = lower_through_warp_specialize(l.checked.program, *l.checked.tree);
  } else {
    l.f = dependence_analysis(l.checked.program, *l.checked.tree);
    vectorize(l.f);
    warp_specialize(l.f, *l.checked.tree->machine);
    EXPECT_EQ(ir::verify(l.f), "") << ir::print(l.f);
  }
  return l;
}

// FileCheck in miniature. Patterns "CHECK: s" (the next line containing s), "CHECK-NEXT: s" (the
// line right after the previous match contains s), "CHECK-NOT: s" (no line between the previous
// match and the next positive match contains s). Returns "" or what went wrong.
std::string file_check(const std::string& text, const std::vector<std::string>& patterns) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  size_t next = 0;  // first line a CHECK may match
  std::vector<std::string> nots;
  for (const std::string& p : patterns) {
    size_t colon = p.find(": ");
    std::string kind = p.substr(0, colon), want = p.substr(colon + 2);
    if (kind == "CHECK-NOT") {
      nots.push_back(want);
      continue;
    }
    size_t at = lines.size();
    if (kind == "CHECK-NEXT") {
      if (next < lines.size() && lines[next].find(want) != std::string::npos) at = next;
    } else {
      for (size_t i = next; i < lines.size() && at == lines.size(); ++i)
        if (lines[i].find(want) != std::string::npos) at = i;
    }
    if (at == lines.size()) return p + "\n  not found after line " + std::to_string(next) + "\n";
    for (const std::string& n : nots)
      for (size_t i = next; i < at; ++i)
        if (lines[i].find(n) != std::string::npos) return "CHECK-NOT: " + n + "\n  found on line " + std::to_string(i) + ": " + lines[i] + "\n";
    nots.clear();
    next = at + 1;
  }
  return "";
}

void walk(const Block& b, const std::function<void(const Op&, const Block&)>& fn) {
  for (const Op& op : b.ops) {
    fn(op, b);
    for (const Block& r : op.regions) walk(r, fn);
  }
}

std::map<ValueId, const Op*> defs(const Function& f) {
  std::map<ValueId, const Op*> d;
  walk(f.body, [&](const Op& op, const Block&) {
    if (op.result != ir::kNone) d[op.result] = &op;
  });
  return d;
}

// The (only) `for` that the mapping marked, and the block holding it.
std::pair<const Op*, const Block*> marked_loop(const Function& f) {
  std::pair<const Op*, const Block*> out{nullptr, nullptr};
  walk(f.body, [&](const Op& op, const Block& b) {
    if (op.kind == OpKind::For && (op.pipeline_depth > 1 || op.warp_specialize)) {
      EXPECT_EQ(out.first, nullptr) << "one marked loop";
      out = {&op, &b};
    }
  });
  return out;
}

bool is_global_to_shared(const Function& f, const Op& op) {
  return op.kind == OpKind::Copy && op.operands.size() == 2 && f.info(op.operands[0]).mem == MemKind::Global &&
         f.info(op.operands[1]).mem == MemKind::Shared;
}

// ---- GEMM as mapped ------------------------------------------------------------------------------------

TEST(WarpSpecialize, GemmPrintedKLoop) {
  Lowered l = lower(example_text("gemm"), Route::Pipeline);
  std::string text = ir::print(l.f);
  EXPECT_EQ(file_check(text, {
                                 "CHECK: func @gemm_host(",
                                 "CHECK-NOT: role(",
                                 "CHECK: pfor BLOCK %j",
                                 "CHECK: = const 3",
                                 "CHECK: _stages = alloc SHARED bf16 [%c3, ",
                                 "CHECK: _stages = alloc SHARED bf16 [%c3, ",
                                 "CHECK: for %k in [0, ",
                                 "CHECK-NEXT: %slot = mod %k, %c3",
                                 "CHECK-NOT: role(compute)",
                                 "CHECK: piece %A_stages slices(0) [%slot]",
                                 "CHECK: piece %B_stages slices(0) [%slot]",
                                 "CHECK: after [cross(%w)] role(dma)",
                                 "CHECK: after [cross(%w)] role(dma)",
                                 "CHECK-NOT: role(dma)",
                                 "CHECK: call mma(",
                                 "CHECK-NOT: role(dma)",
                                 "CHECK: yield",
                                 "CHECK-NOT: role(dma)",
                                 "CHECK: call convert(",
                             }),
            "")
      << text;
  EXPECT_NE(text.find("iter(%c, %w distance 3) pipeline(3) warpspecialize after ["), std::string::npos) << text;
  EXPECT_NE(text.find(") processors(WARPGROUP=2, WARP=4, THREAD=32) warp_roles(dma: 1 x 40 regs, compute: 2 x 232 regs) {"),
            std::string::npos)
      << text;
  ASSERT_TRUE(l.f.warp_roles);
  EXPECT_EQ(*l.f.warp_roles, (ir::WarpRoles{1, 2, 40, 232}));
}

// The K loop's structure, with the pipeline up to this pass and without copy elimination.
TEST(WarpSpecialize, GemmKLoopStructure) {
  for (Route route : {Route::Pipeline, Route::NoCopyElimination}) {
    SCOPED_TRACE(route_name(route));
    Lowered l = lower(example_text("gemm"), route);
    const Function& f = l.f;
    auto def = defs(f);
    auto [loop, parent] = marked_loop(f);
    ASSERT_TRUE(loop);
    const Block& body = loop->regions[0];
    ASSERT_EQ(body.args.size(), 3u) << "%k, %c and the distance-3 event";
    EXPECT_EQ(loop->distances, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(loop->pipeline_depth, 3);
    EXPECT_TRUE(loop->warp_specialize);
    EXPECT_EQ(loop->role, Role::Any) << "the loop holds both roles";
    const ValueId k = body.args[0], c = body.args[1], w = body.args[2];
    auto is_const = [&](ValueId v, int64_t x) { return def.count(v) && def[v]->kind == OpKind::Const && def[v]->ival == x; };
    auto before_loop = [&](ValueId v) {
      for (const Op& op : parent->ops) {
        if (&op == loop) return false;
        if (op.result == v) return true;
      }
      return false;
    };

    std::set<ValueId> dma_events, buffers;
    int dma_anywhere = 0;
    walk(body, [&](const Op& op, const Block&) {
      if (op.role == Role::Dma) ++dma_anywhere;
    });
    for (const Op& op : body.ops) {
      if (!is_async(op.kind)) continue;
      if (!is_global_to_shared(f, op)) {
        EXPECT_EQ(op.role, Role::Compute) << ir::print(f);
        continue;
      }
      EXPECT_EQ(op.role, Role::Dma);
      dma_events.insert(op.result);
      // Waits for the distance-3 event (across roles) and never for %c.
      int waits_w = 0;
      for (const EventRef& r : op.after) {
        EXPECT_NE(r.value, c) << "a pipelined copy must not wait for the distance-1 carried event";
        if (r.value == w) {
          ++waits_w;
          EXPECT_TRUE(r.cross);
        }
      }
      EXPECT_EQ(waits_w, 1);
      // Its destination is slot `mod %k, 3` of a [3, ...] SHARED buffer hoisted before the loop.
      ValueId v = op.operands[1];
      while (def.count(v) && def[v]->kind == OpKind::Piece && def[v]->part.kind != ir::PartitionSpec::Kind::Slices)
        v = def[v]->operands[0];
      ASSERT_TRUE(def.count(v) && def[v]->kind == OpKind::Piece) << "the destination is a slice of a ring";
      const Op& slice = *def[v];
      EXPECT_EQ(slice.part.dim, 0);
      const Op& slot = *def.at(slice.operands.at(1));
      EXPECT_EQ(slot.kind, OpKind::Arith);
      EXPECT_EQ(slot.name, "mod");
      EXPECT_EQ(slot.operands.at(0), k);
      EXPECT_TRUE(is_const(slot.operands.at(1), 3));
      const Op& ring = *def.at(slice.operands.at(0));
      EXPECT_EQ(ring.kind, OpKind::Alloc);
      EXPECT_EQ(ring.mem, MemKind::Shared);
      EXPECT_EQ(ring.dtype, DType::BF16);
      EXPECT_EQ(ring.operands.size(), 3u);
      EXPECT_TRUE(is_const(ring.operands.at(0), 3));
      EXPECT_TRUE(before_loop(ring.result));
      buffers.insert(ring.result);
    }
    EXPECT_EQ(dma_events.size(), 2u) << "one global -> shared copy per operand\n" << ir::print(f);
    EXPECT_EQ(dma_anywhere, 2) << ir::print(f);
    EXPECT_EQ(buffers.size(), 2u) << "a ring per operand";
    // Every wait for a DMA copy crosses roles; the loop's precondition (the clear, a compute op)
    // does too: the producer waits for it.
    int crossing_waits = 0;
    walk(body, [&](const Op& op, const Block&) {
      for (const EventRef& r : op.after)
        if (dma_events.count(r.value)) {
          EXPECT_TRUE(r.cross) << ir::print(f);
          ++crossing_waits;
        }
    });
    EXPECT_GE(crossing_waits, 2);
    for (const EventRef& r : loop->after) EXPECT_TRUE(r.cross) << ir::print(f);
    ASSERT_TRUE(f.warp_roles);
    EXPECT_EQ(*f.warp_roles, (ir::WarpRoles{1, 2, 40, 232}));
  }
}

// ---- the mapping switches ------------------------------------------------------------------------------

TEST(WarpSpecialize, NoWarpSpecializeOrDepthOneLeavesTheLoop) {
  const std::string ws = " warpspecialize pipeline(3)";
  // examples/gemm without its multicast candidates (their loads need the DMA role: without
  // warpspecialize the checker refuses them).
  const std::string full = example_text("gemm");
  const std::string gemm = full.substr(0, full.find("// The same tiles on clusters of 2 blocks"));
  {
    SCOPED_TRACE("nowarpspecialize pipeline(3): pipelined, no roles");
    std::string text = ir::print(lower(edited(gemm, {{ws, " nowarpspecialize pipeline(3)"}}), Route::Pipeline).f);
    EXPECT_NE(text.find("iter(%c, %w distance 3) pipeline(3) after ["), std::string::npos) << text;
    EXPECT_NE(text.find("%slot = mod %k, %c3"), std::string::npos) << text;
    for (const char* no : {"role(", "cross(", "warp_roles", "warpspecialize"}) EXPECT_EQ(text.find(no), std::string::npos) << no << "\n" << text;
  }
  {
    SCOPED_TRACE("warpspecialize pipeline(1): roles, not pipelined");
    Lowered l = lower(edited(gemm, {{ws, " warpspecialize pipeline(1)"}}), Route::Pipeline);
    std::string text = ir::print(l.f);
    EXPECT_NE(text.find("iter(%c) warpspecialize after ["), std::string::npos) << text;
    EXPECT_NE(text.find("role(dma)"), std::string::npos) << text;
    for (const char* no : {"distance", "_stages", "%slot", "pipeline("}) EXPECT_EQ(text.find(no), std::string::npos) << no << "\n" << text;
    auto [loop, parent] = marked_loop(l.f);
    ASSERT_TRUE(loop);
    EXPECT_EQ(loop->regions[0].args.size(), 2u);
  }
  {
    SCOPED_TRACE("no keywords: only the shared tiles' copies wait for the previous iteration");
    auto r = check_text(edited(gemm, {{ws, ""}}), "gemm.loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    PipelineOptions before_ws;
    before_ws.stop_after = "copy-elimination";
    Function f = lower_to_event_ir(r.program, *r.tree, before_ws);
    const Op* loop = nullptr;
    walk(f.body, [&](const Op& op, const Block&) {
      if (op.kind == OpKind::For) loop = &op;
    });
    ASSERT_TRUE(loop);
    const ValueId c = loop->regions[0].args.at(1);
    // What the pass must do: each global -> shared copy of the body (one per operand, into a fresh
    // tile that is one buffer on the GPU) also waits for %c.
    Function want = f;
    int copies = 0;
    std::function<void(Block&)> add_waits = [&](Block& b) {
      for (Op& op : b.ops) {
        for (Block& r : op.regions) add_waits(r);
        if (op.kind != OpKind::For) continue;
        for (Op& x : op.regions[0].ops)
          if (is_global_to_shared(want, x)) {
            EXPECT_TRUE(x.after.empty()) << ir::print(want);
            x.after.push_back(EventRef{c, {}});
            ++copies;
          }
      }
    };
    add_waits(want.body);
    EXPECT_EQ(copies, 2);
    Function got = f;
    warp_specialize(got, hopper_machine());
    EXPECT_EQ(ir::print(got), ir::print(want));
    EXPECT_FALSE(got.warp_roles);
    Function again = got;
    warp_specialize(again, hopper_machine());
    EXPECT_EQ(ir::print(again), ir::print(got)) << "the pass is idempotent";
  }
}

// ---- the executor --------------------------------------------------------------------------------------

// 6 K steps of 16 (the last with one column): each 3-slot ring is reused twice.
const std::map<std::string, int64_t> kSizes = {{"M", 65}, {"N", 40}, {"K", 81}};

// 0 = matches; 1 = mismatch; 2 = executor error.
int run_gemm(const Lowered& l, uint64_t seed, const exec::ExecOptions& opt, std::string* why) {
  exec::Args in = exec::make_inputs(l.checked.program, *l.checked.tree, kSizes, seed);
  exec::Args ref = exec::copy_args(in);
  exec::run_reference(l.checked.program, *l.checked.tree, ref);
  exec::ExecResult res = exec::execute(l.f, exec::exec_args(in), seed, opt);
  if (!res.ok) {
    *why = res.error.substr(0, 400);
    return 2;
  }
  auto mm = exec::compare_outputs(ref, in);
  if (mm) *why = mm->describe();
  return mm ? 1 : 0;
}

TEST(WarpSpecialize, PipelinedGemmMatchesTheReference) {
  struct Case {
    std::string depth;
    Route route;
    int seeds;
  };
  for (const Case& c : {Case{"pipeline(3)", Route::Pipeline, 8}, Case{"pipeline(3)", Route::NoCopyElimination, 4},
                        Case{"pipeline(2)", Route::Pipeline, 4}}) {
    SCOPED_TRACE(c.depth + ", " + route_name(c.route));
    Lowered l = lower(gemm_small({{"pipeline(3)", c.depth}}), c.route);
    ASSERT_NE(ir::print(l.f).find("distance " + c.depth.substr(9, 1)), std::string::npos) << ir::print(l.f);
    for (uint64_t seed = 1; seed <= static_cast<uint64_t>(c.seeds); ++seed) {
      std::string why;
      EXPECT_EQ(run_gemm(l, seed, {}, &why), 0) << "seed " << seed << ": " << why;
    }
  }
}

TEST(WarpSpecialize, DroppedWriteAfterReadEdgeIsCaught) {
  Lowered l = lower(gemm_small(), Route::Pipeline);
  auto [loop, parent] = marked_loop(l.f);
  ASSERT_TRUE(loop);
  const ValueId w = loop->regions[0].args.at(2);
  // The edges that carry the write-after-read order: each DMA copy's wait for %w, and %w itself.
  std::vector<exec::EdgeId> war;
  for (const exec::EdgeId& e : exec::list_edges(l.f)) {
    const Op* op = nullptr;
    const Block* b = &l.f.body;
    for (int i : e.op_path) {
      op = &b->ops[static_cast<size_t>(i)];
      b = op->regions.empty() ? nullptr : &op->regions[0];
    }
    if ((e.kind == exec::EdgeId::Kind::After && op->after[static_cast<size_t>(e.index)].value == w) ||
        (e.kind == exec::EdgeId::Kind::Carried && op == loop && e.index == 1))
      war.push_back(e);
  }
  ASSERT_EQ(war.size(), 3u) << "A's and B's copies wait for %w, and the loop carries it";
  for (const exec::EdgeId& e : war) {
    exec::ExecOptions opt;
    opt.skip_edge = e;
    int caught = 0;
    std::string why;
    for (uint64_t seed = 1; seed <= 10 && !caught; ++seed)
      if (run_gemm(l, seed, opt, &why) == 1) caught = static_cast<int>(seed);
    EXPECT_GT(caught, 0) << "no seed catches dropping " << exec::describe_edge(l.f, e);
  }
}

// ---- hand-built loops: the conditions ------------------------------------------------------------------

// Out = A row by row through a SHARED staging tile:
//   for %k in [0, rows(A)) iter(%c) pipeline(2) {
//     %Ak = piece %A blocks[%one, *] [%k, %c0];  %T = alloc SHARED f32 [dim %Ak 0, dim %Ak 1]
//     %e = copy %Ak -> %T after [];  %Ok = piece %Out blocks[%one, *] [%k, %c0]
//     %e.1 = copy %T -> %Ok after [%e if reader_waits];  yield %e.1 (none unless yield_reader)
//   }
Function staging(bool reader_waits, bool yield_reader, bool second_writer = false) {
  Function f;
  f.name = "staging";
  auto tensor = [&](const char* name, MemKind m) { return f.add_value({Type::Tensor, name, DType::F32, m, 2, {}}); };
  auto index = [&](const char* name) { return f.add_value({Type::Index, name}); };
  auto event = [&](const char* name) { return f.add_value({Type::Event, name}); };
  ValueId A = tensor("A", MemKind::Global), Out = tensor("Out", MemKind::Global);
  f.params = {A, Out};
  ValueId n = index("n"), one = index("one"), c0 = index("c0");
  f.body.ops.push_back(Op{.kind = OpKind::Dim, .result = n, .operands = {A}, .ival = 0});
  f.body.ops.push_back(Op{.kind = OpKind::Const, .result = one, .ival = 1});
  f.body.ops.push_back(Op{.kind = OpKind::Const, .result = c0, .ival = 0});
  ValueId k = index("k"), c = event("c");
  Block body;
  body.args = {k, c};
  auto rows = [&](ValueId src, const char* name) {
    ValueId v = tensor(name, f.info(src).mem);
    Op op{.kind = OpKind::Piece, .result = v, .operands = {src, k, c0}};
    op.part.kind = ir::PartitionSpec::Kind::Blocks;
    op.part.block = {one, ir::kNone};
    body.ops.push_back(op);
    return v;
  };
  ValueId Ak = rows(A, "Ak");
  ValueId r = index("r"), s = index("s"), T = tensor("T", MemKind::Shared);
  body.ops.push_back(Op{.kind = OpKind::Dim, .result = r, .operands = {Ak}, .ival = 0});
  body.ops.push_back(Op{.kind = OpKind::Dim, .result = s, .operands = {Ak}, .ival = 1});
  body.ops.push_back(Op{.kind = OpKind::Alloc, .result = T, .operands = {r, s}, .mem = MemKind::Shared});
  ValueId e = event("e");
  body.ops.push_back(Op{.kind = OpKind::Copy, .result = e, .operands = {Ak, T}});
  if (second_writer) body.ops.push_back(Op{.kind = OpKind::Copy, .result = event("e"), .operands = {Ak, T}, .after = {{e, {}}}});
  const ValueId written = body.ops.back().result;
  ValueId Ok = rows(Out, "Ok");
  ValueId e1 = event("e");
  Op out{.kind = OpKind::Copy, .result = e1, .operands = {T, Ok}};
  if (reader_waits) out.after = {{written, {}}};
  body.ops.push_back(out);
  if (yield_reader) body.yield = {e1, {}};
  Op loop{.kind = OpKind::For, .result = event("L"), .operands = {n}};
  loop.regions.push_back(body);
  loop.pipeline_depth = 2;
  f.body.ops.push_back(loop);
  f.result = {loop.result, {}};
  EXPECT_EQ(ir::verify(f), "") << ir::print(f);
  return f;
}

// Runs `f` (A: 7 x 5 values 1..35, Out poisoned) and says whether Out == A.
bool copies_through(const Function& f, uint64_t seed, const exec::ExecOptions& opt = {}) {
  exec::View A(exec::make_buffer(DType::F32, {7, 5}, "A")), Out(exec::make_buffer(DType::F32, {7, 5}, "Out"));
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      A.store({i, j}, static_cast<double>(i * 5 + j + 1));
      Out.store({i, j}, -1);
    }
  exec::ExecResult res = exec::execute(f, {A, Out}, seed, opt);
  EXPECT_TRUE(res.ok) << res.error;
  return res.ok && A.buffer()->data == Out.buffer()->data;
}

TEST(WarpSpecialize, StagingLoopGetsARingAndItsWriteAfterReadEdgeMatters) {
  Function f = staging(true, true);
  warp_specialize(f, hopper_machine());
  std::string text = ir::print(f);
  ASSERT_EQ(ir::verify(f), "") << text;
  EXPECT_EQ(file_check(text, {"CHECK: %ext = dim %A, 1",
                              "CHECK-NEXT: %c2 = const 2",
                              "CHECK-NEXT: %T_stages = alloc SHARED f32 [%c2, %one, %ext]",
                              "CHECK-NEXT: %L = for %k in [0, %n) iter(%c, %w distance 2) pipeline(2) after [] {",
                              "CHECK-NEXT: %slot = mod %k, %c2",
                              "CHECK: %T_slot = piece %T_stages slices(0) [%slot]",
                              "CHECK-NEXT: %T = piece %T_slot blocks[%r, %s] [%c0, %c0]",
                              "CHECK-NEXT: %e = copy %Ak -> %T after [%w]",
                              "CHECK: %e.1 = copy %T -> %Ok after [%e]",
                              "CHECK-NEXT: yield %e.1"}),
            "")
      << text;
  EXPECT_FALSE(f.warp_roles) << "no warpspecialize";
  for (uint64_t seed = 0; seed < 10; ++seed) EXPECT_TRUE(copies_through(f, seed)) << "seed " << seed;
  // Without the copy's wait for %w, row k+2's copy may overwrite the slot before row k is copied out.
  std::optional<exec::EdgeId> war;
  for (const exec::EdgeId& e : exec::list_edges(f))
    if (exec::describe_edge(f, e) == "after[0] (%w) of %e = copy %Ak -> %T at 6.6") war = e;
  ASSERT_TRUE(war) << text;
  exec::ExecOptions opt;
  opt.skip_edge = war;
  bool caught = false;
  for (uint64_t seed = 0; seed < 30 && !caught; ++seed) caught = !copies_through(f, seed, opt);
  EXPECT_TRUE(caught);
}

// Slot k could be read before its copy: no ring. The tile stays one buffer, so each access waits
// for the previous iteration (%c) and the yield waits for both.
TEST(WarpSpecialize, ReaderThatDoesNotWaitForTheCopyGetsNoRingButOneIterationAtATime) {
  Function f = staging(false, true);
  warp_specialize(f, hopper_machine());
  std::string text = ir::print(f);
  ASSERT_EQ(ir::verify(f), "") << text;
  EXPECT_EQ(file_check(text, {"CHECK: %L = for %k in [0, %n) iter(%c) pipeline(2) after [] {",
                              "CHECK: %T = alloc SHARED f32 [%r, %s]",
                              "CHECK-NEXT: %e = copy %Ak -> %T after [%c]",
                              "CHECK: %e.1 = copy %T -> %Ok after [%c]",
                              "CHECK-NEXT: %y = join after [%e.1, %e]",
                              "CHECK-NEXT: yield %y"}),
            "")
      << text;
}

TEST(WarpSpecialize, TwoCopiesIntoOneBufferGetNoRing) {
  Function f = staging(true, true, true);
  warp_specialize(f, hopper_machine());
  std::string text = ir::print(f);
  EXPECT_EQ(file_check(text, {"CHECK-NOT: _stages", "CHECK: %T = alloc SHARED f32 [%r, %s]",
                              "CHECK-NEXT: %e = copy %Ak -> %T after [%c]", "CHECK-NEXT: %e.1 = copy %Ak -> %T after [%e]",
                              "CHECK: %e.2 = copy %T -> %Ok after [%e.1]", "CHECK-NEXT: yield %e.2"}),
            "")
      << text;
  for (uint64_t seed = 0; seed < 5; ++seed) EXPECT_TRUE(copies_through(f, seed)) << "seed " << seed;
}

TEST(WarpSpecialize, YieldIsExtendedToCoverTheReaders) {
  Function f = staging(true, false);
  warp_specialize(f, hopper_machine());
  std::string text = ir::print(f);
  ASSERT_EQ(ir::verify(f), "") << text;
  EXPECT_EQ(file_check(text, {"CHECK: %e.1 = copy %T -> %Ok after [%e]", "CHECK-NEXT: %y = join after [%e, %e.1]",
                              "CHECK-NEXT: yield %y"}),
            "")
      << text;
  for (uint64_t seed = 0; seed < 10; ++seed) EXPECT_TRUE(copies_through(f, seed)) << "seed " << seed;
}

// ---- register split, goldens ---------------------------------------------------------------------------

// SHARED RINGS: add_gemm's L loop (C, D tiles alike to the K loop's A, B tiles) takes over the K
// loop's rings instead of hoisting its own; it already waits for the whole K loop (the
// accumulator), so no precondition is added. With L steps of another size the tiles differ and
// each loop keeps rings of its own. Both match the reference on the executor.
TEST(WarpSpecialize, ConsecutiveLoopsShareAlikeRings) {
  const std::vector<std::pair<std::string, std::string>> small = {
      {"U=128, V=256", "U=64, V=32"}, {"N_MMA=256", "N_MMA=32"}, {"G=2", "G=1"}, {"W=64", "W=16"}};
  Lowered l = lower(edited(example_text("add_gemm"), small), Route::Pipeline);
  std::string text = ir::print(l.f);
  EXPECT_EQ(file_check(text, {
                                 "CHECK: %A_stages = alloc SHARED bf16 [%c3, ",
                                 "CHECK: %B_stages = alloc SHARED bf16 [%c3, ",
                                 "CHECK: %e.1 = for %k in [0, ",
                                 "CHECK: for %l in [0, ",
                                 "CHECK-NEXT: %slot.1 = mod %l, %c3",
                                 "CHECK: piece %A_stages slices(0) [%slot.1]",
                                 "CHECK: piece %B_stages slices(0) [%slot.1]",
                                 "CHECK: after [cross(%w.1)] role(dma)",
                             }),
            "")
      << text;
  size_t stages = 0;
  for (size_t at = text.find("_stages = alloc"); at != std::string::npos; at = text.find("_stages = alloc", at + 1)) ++stages;
  EXPECT_EQ(stages, 2u) << text;
  EXPECT_NE(text.find("pipeline(3) warpspecialize after [cross(%e.1)]"), std::string::npos) << text;

  Lowered own = lower(edited(example_text("add_gemm"), concat_edits(small, {{"Cp = blocks(C, [*, W]);", "Cp = blocks(C, [*, 32]);"},
                                                                          {"Dp = blocks(D, [W, *]);", "Dp = blocks(D, [32, *]);"},
                                                                          {"srange l in cdiv(L, W)", "srange l in cdiv(L, 32)"}})),
                      Route::Pipeline);
  std::string t2 = ir::print(own.f);
  stages = 0;
  for (size_t at = t2.find("_stages"); at != std::string::npos; at = t2.find("_stages", at + 1))
    if (t2.compare(at, 15, "_stages = alloc") == 0 || t2.compare(at, 17, "_stages.1 = alloc") == 0) ++stages;
  EXPECT_EQ(stages, 4u) << t2;

  for (const Lowered* x : {&l, &own}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      exec::Args in = exec::make_inputs(x->checked.program, *x->checked.tree, {{"M", 65}, {"N", 40}, {"K", 33}, {"L", 50}}, seed);
      exec::Args ref = exec::copy_args(in);
      exec::run_reference(x->checked.program, *x->checked.tree, ref);
      exec::ExecResult res = exec::execute(x->f, exec::exec_args(in), seed, {});
      ASSERT_TRUE(res.ok) << res.error.substr(0, 400);
      auto mm = exec::compare_outputs(ref, in);
      EXPECT_FALSE(mm) << mm->describe();
    }
  }
}

TEST(WarpSpecialize, RegisterSplitFollowsTheFormula) {
  // 1 producer warpgroup at 40 registers; consumers share the rest of the block's pool: what it gets
  // at launch, the same count for every thread (65536 / threads, at most 255, rounded down to a
  // multiple of 8) times its threads; the consumers' share rounded down to a multiple of 8, at most
  // 256. Five warpgroups get 96 registers a thread at launch (61440, not 65536: more would make
  // setmaxnreg.inc wait forever), so four consumer warpgroups get 104, not 112.
  const std::map<int64_t, int64_t> want = {{1, 256}, {2, 232}, {3, 152}, {4, 104}};
  for (auto [groups, regs] : want) {
    ir::WarpRoles w = warp_roles_for(groups, hopper_machine());
    EXPECT_EQ(w, (ir::WarpRoles{1, groups, 40, regs})) << groups;
    const int64_t threads = 128 * (1 + groups);
    const int64_t at_launch = std::min<int64_t>(255, hopper_machine().limits.regs_per_sm / threads) / 8 * 8;
    EXPECT_LE(128 * (w.dma_regs + groups * w.compute_regs), at_launch * threads) << groups;
    EXPECT_EQ(w.compute_regs % 8, 0);
  }
  EXPECT_EQ(warp_roles_for(2, ampere_machine()), (ir::WarpRoles{1, 2, 0, 0})) << "no setmaxnreg on sm_80";
}

TEST(WarpSpecialize, TheMappingsRegsReplaceTheRule) {
  // regs(24, 240): FlashAttention-3's split, on the loop, in the roles and in the kernel's setmaxnreg.
  auto with_regs = [](const std::string& regs) {  // the default mapping's block instance (the first pipeline(3))
    std::string text = example_text("gemm");
    const std::string from = "warpspecialize pipeline(3)";
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos);
    return at == std::string::npos ? text : text.replace(at, from.size(), from + " " + regs);
  };
  Lowered l = lower(with_regs("regs(24, 240)"), Route::Pipeline);
  ASSERT_TRUE(l.f.warp_roles);
  EXPECT_EQ(*l.f.warp_roles, (ir::WarpRoles{1, 2, 24, 240}));
  const std::string text = ir::print(l.f);
  EXPECT_NE(text.find("pipeline(3) warpspecialize regs(24, 240) after ["), std::string::npos) << text;
  EXPECT_NE(text.find("warp_roles(dma: 1 x 24 regs, compute: 2 x 240 regs)"), std::string::npos) << text;
  // `loom fmt` keeps the clause (after the other loop options, before smem).
  const std::string formatted = format_program(l.checked.program);
  EXPECT_NE(formatted.find("regs(24, 240) smem(227KB);"), std::string::npos) << formatted;
  // More than the block's pool (3 x 168 registers a thread slot): a located error with the split that fits.
  auto c = check_text(with_regs("regs(40, 240)"), "gemm.loom");
  ASSERT_TRUE(c.ok && c.tree) << c.diagnostics;  // the checker cannot count the warpgroups
  try {
    (void)lower_through_warp_specialize(c.program, *c.tree);
    ADD_FAILURE() << "regs(40, 240) on two compute warpgroups was accepted";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic.message,
              "regs(40, 240): 1 x 40 + 2 x 240 = 520 registers per thread slot, more than the 504 the block's 3 warpgroups get at launch");
    EXPECT_EQ(e.diagnostic.hint, "regs(40, 232) fits: the compute warpgroups share what the DMA warpgroup leaves");
    EXPECT_TRUE(e.diagnostic.loc.valid());
  }
}

TEST(WarpSpecialize, GoldenIR) {
  for (const char* name : {"gemm", "dual_gemm", "gemm_reduce", "flash_attention_2"}) {
    SCOPED_TRACE(name);
    auto r = check_text(example_text(name), std::string(name) + ".loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    expect_golden(std::string("ir/") + name + ".ws.txt", ir::print(lower_through_warp_specialize(r.program, *r.tree)));
  }
}

}  // namespace
}  // namespace loom

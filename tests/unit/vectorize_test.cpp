// Tests of the vectorization pass (src/passes/vectorize.h, Cypress 4.2.2): the IR after it verifies
// for every example; goldens of the vectorized IR (tests/golden/ir/<name>.vec.txt, UPDATE_GOLDEN=1
// regenerates); FileCheck-style facts on GEMM (no pfor over WARPGROUP/WARP/THREAD left, proc_index
// ops, processor counts recorded, the copy-out after the thread level waits for [:] over THREAD
// and its own warp point-wise); the vectorized GEMM runs on the CPU executor without
// ExecOptions::proc_extents and matches the reference; hand-built loops the pass must leave (trip
// count not a constant) or rewrite with care (several preconditions, a yield of no body event).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

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
using ir::Type;
using ir::ValueId;
using test::check_text;
using test::example_files;
using test::expect_golden;
using test::read_file;
using test::source_dir;

Function lower_example(const std::string& name) {
  auto r = check_text(read_file(source_dir() + "/examples/" + name + "/" + name + ".loom"), name + ".loom");
  EXPECT_TRUE(r.ok && r.tree) << r.diagnostics;
  if (!r.ok || !r.tree) return {};
  PipelineOptions po;
  po.stop_after = "vectorize";  // the IR this pass produced (later passes have their own tests)
  return lower_to_event_ir(r.program, *r.tree, po);
}

void walk(const Block& b, const std::function<void(const Op&)>& fn) {
  for (const Op& op : b.ops) {
    fn(op);
    for (const Block& r : op.regions) walk(r, fn);
  }
}

TEST(Vectorize, EveryExampleVerifiesAndHasNoImplicitLoopLeft) {
  auto files = example_files();
  ASSERT_GE(files.size(), 6u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    auto r = check_text(read_file(path), path.filename().string());
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    Function f = dependence_analysis(r.program, *r.tree);
    vectorize(f);
    EXPECT_EQ(ir::verify(f), "") << ir::print(f);
    int left = 0, proc_index = 0;
    walk(f.body, [&](const Op& op) {
      if (op.kind == OpKind::PFor && (op.proc == ProcKind::Warpgroup || op.proc == ProcKind::Warp || op.proc == ProcKind::Thread))
        ++left;
      if (op.kind == OpKind::ProcIndex) ++proc_index;
    });
    EXPECT_EQ(left, 0) << ir::print(f);
    EXPECT_GT(proc_index, 0);
    EXPECT_FALSE(f.proc_extents.empty());
  }
}

TEST(Vectorize, GoldenIR) {
  for (const char* name : {"gemm", "dual_gemm", "gemm_reduce", "flash_attention_2"}) {
    SCOPED_TRACE(name);
    Function f = lower_example(name);
    expect_golden(std::string("ir/") + name + ".vec.txt", ir::print(f));
  }
}

TEST(Vectorize, GemmFacts) {
  Function f = lower_example("gemm");
  std::string text = ir::print(f);
  for (const char* no : {"pfor WARPGROUP", "pfor WARP", "pfor THREAD"}) EXPECT_EQ(text.find(no), std::string::npos) << no;
  for (const char* yes : {"proc_index WARPGROUP", "proc_index WARP", "proc_index THREAD", "pfor BLOCK"})
    EXPECT_NE(text.find(yes), std::string::npos) << yes;
  EXPECT_NE(text.find("processors(WARPGROUP=2, WARP=4, THREAD=32)"), std::string::npos);
  std::map<ProcKind, int64_t> want = {{ProcKind::Warpgroup, 2}, {ProcKind::Warp, 4}, {ProcKind::Thread, 32}};
  EXPECT_EQ(f.proc_extents, want);

  // Every copy-out of a warp's accumulator (a copy over [WARPGROUP, WARP]) waits for all of its
  // threads ([..., :] over THREAD) with the warp's own indices: the copy-out after the thread level.
  std::map<ValueId, const Op*> def;
  walk(f.body, [&](const Op& op) {
    if (op.result != ir::kNone) def[op.result] = &op;
  });
  auto is_proc = [&](ValueId v, ProcKind k) { return def.count(v) && def[v]->kind == OpKind::ProcIndex && def[v]->proc == k; };
  int warp_copy_outs = 0;
  walk(f.body, [&](const Op& op) {
    if (op.kind != OpKind::Copy || f.info(op.result).type != Type::Events) return;
    if (f.info(op.result).event_dims != std::vector<ProcKind>{ProcKind::Warpgroup, ProcKind::Warp}) return;
    for (const EventRef& r : op.after) {
      const ir::ValueInfo& i = f.info(r.value);
      if (i.type != Type::Events || i.event_dims.size() != 3 || i.event_dims[2] != ProcKind::Thread) continue;
      EXPECT_TRUE(is_proc(r.indices[0], ProcKind::Warpgroup));
      EXPECT_TRUE(is_proc(r.indices[1], ProcKind::Warp));
      if (r.indices[2] == ir::kNone) ++warp_copy_outs;
    }
  });
  EXPECT_GE(warp_copy_outs, 3) << "clear, gemm and copy each copy a warp's tile out after its threads\n" << text;

  // The block-level copy into Acc after the K step waits for every warpgroup ([:]) of the tile.
  EXPECT_NE(text.find("-> %Acc after [%e.27[:]"), std::string::npos) << text;
}

TEST(Vectorize, GemmRunsWithoutExplicitProcessorCounts) {
  auto r = check_text(read_file(source_dir() + "/examples/gemm/gemm.loom"), "gemm.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  Function f = lower_to_event_ir(r.program, *r.tree);
  const std::map<std::string, int64_t> sizes = {{"M", 129}, {"N", 257}, {"K", 65}};
  for (uint64_t seed : {1, 2}) {
    exec::Args in = exec::make_inputs(r.program, *r.tree, sizes, seed);
    exec::Args ref = exec::copy_args(in);
    exec::run_reference(r.program, *r.tree, ref);
    exec::ExecResult res = exec::execute(f, exec::exec_args(in), seed);  // counts from f.proc_extents
    ASSERT_TRUE(res.ok) << res.error;
    auto mm = exec::compare_outputs(ref, in);
    EXPECT_FALSE(mm) << mm->describe();
  }
}

// Hand-built: %n = param; pfor THREAD in [0, %n) stays, with the reason in its comment; a pfor WARP
// in [0, 4) with two preconditions and `yield none` is flattened into a join of the preconditions,
// a proc_index and a join that stands for each warp's completion.
TEST(Vectorize, LeavesNonConstantLoopsAndKeepsPreconditions) {
  Function f;
  f.name = "t";
  ValueId n = f.add_value({Type::Index, "n"});
  f.params = {n};
  auto ev = [&](const char* name) { return f.add_value({Type::Event, name}); };
  auto idx = [&](const char* name) { return f.add_value({Type::Index, name}); };
  ValueId a = ev("a"), b = ev("b");
  Op ja{.kind = OpKind::Join, .result = a};
  Op jb{.kind = OpKind::Join, .result = b};
  f.body.ops = {ja, jb};
  ValueId c4 = idx("c4");
  f.body.ops.push_back(Op{.kind = OpKind::Const, .result = c4, .ival = 4});
  // pfor THREAD %t in [0, %n) { %x = join; yield %x }
  ValueId t = idx("t"), x = ev("x");
  Op pt{.kind = OpKind::PFor, .result = f.add_value({Type::Events, "T", DType::F32, MemKind::None, 0, {ProcKind::Thread}})};
  pt.proc = ProcKind::Thread;
  pt.operands = {n};
  pt.origin = "threads";
  Block tb;
  tb.args = {t};
  tb.ops.push_back(Op{.kind = OpKind::Join, .result = x});
  tb.yield = {x, {}};
  pt.regions.push_back(tb);
  f.body.ops.push_back(pt);
  // pfor WARP %w in [0, %c4) after [%a, %b] { %y = join; yield none }
  ValueId w = idx("w"), y = ev("y");
  ValueId W = f.add_value({Type::Events, "W", DType::F32, MemKind::None, 0, {ProcKind::Warp}});
  Op pw{.kind = OpKind::PFor, .result = W};
  pw.proc = ProcKind::Warp;
  pw.operands = {c4};
  pw.after = {{a, {}}, {b, {}}};
  Block wb;
  wb.args = {w};
  wb.ops.push_back(Op{.kind = OpKind::Join, .result = y});
  pw.regions.push_back(wb);
  f.body.ops.push_back(pw);
  ValueId z = ev("z");
  Op jz{.kind = OpKind::Join, .result = z};
  jz.after = {{W, {ir::kNone}}, {pt.result, {ir::kNone}}};
  f.body.ops.push_back(jz);
  f.result = {z, {}};
  ASSERT_EQ(ir::verify(f), "") << ir::print(f);

  vectorize(f);
  std::string text = ir::print(f);
  ASSERT_EQ(ir::verify(f), "") << text;
  EXPECT_NE(text.find("pfor THREAD %t in [0, %n)"), std::string::npos) << text;
  EXPECT_NE(text.find("// threads [not vectorized: the trip count is not a compile-time constant]"), std::string::npos) << text;
  EXPECT_EQ(text.find("pfor WARP"), std::string::npos) << text;
  EXPECT_NE(text.find("%s = join after [%a, %b]"), std::string::npos) << text;
  EXPECT_NE(text.find("%w = proc_index WARP"), std::string::npos) << text;
  EXPECT_NE(text.find("%y = join after [%s] : events[WARP]"), std::string::npos) << text;
  EXPECT_NE(text.find("%y.1 = join after [%s] : events[WARP]"), std::string::npos) << text;
  EXPECT_NE(text.find("%z = join after [%y.1[:], %T[:]]"), std::string::npos) << text;
  EXPECT_EQ(f.proc_extents, (std::map<ProcKind, int64_t>{{ProcKind::Warp, 4}}));

  exec::ExecResult res = exec::execute(f, {3.0}, 1);
  EXPECT_TRUE(res.ok) << res.error;
}

}  // namespace
}  // namespace loom

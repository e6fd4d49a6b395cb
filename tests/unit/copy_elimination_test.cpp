// Tests of the copy-elimination pass (src/passes/copy_elimination.h, Cypress 4.2.3): goldens of the
// IR after it (tests/golden/ir/<name>.ce.txt, UPDATE_GOLDEN=1 regenerates); FileCheck-style facts
// on GEMM (inside the K loop: exactly one global->shared copy per operand, the accumulator never
// goes through shared memory and never leaves its registers; after the loop: the accumulator is
// converted and stored once); duplicate copies merged (dual GEMM's A tile) and loop-invariant ones
// hoisted (flash attention's Q tile); GEMM + row sums keeps its accumulator in registers and reduces
// the row sums straight into shared memory; every example still matches the reference on the CPU
// executor; the NONE-still-materialized diagnostic names the tensor and the instance. Leading pieces
// (`blocks(S, [*, n])[0, 0]`) of a NONE tensor: on hand-built IR, a copy into such a piece shares
// the register conduit of the whole tensor, a tensor used only through one is narrowed to it, and a
// piece partitioned differently is still reported; FA3 at N not a multiple of its key tile keeps its
// scores in one register allocation.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "passes/copy_elimination.h"
#include "passes/pipeline.h"
#include "test_util.h"

namespace loom {
namespace {

using ir::Block;
using ir::Function;
using ir::Op;
using ir::OpKind;
using test::check_text;
using test::ev;
using test::expect_golden;
using test::IrBuilder;
using test::read_file;
using test::source_dir;

Function lower_example(const std::string& name, const std::string& text = "") {
  std::string src = text.empty() ? read_file(source_dir() + "/examples/" + name + "/" + name + ".loom") : text;
  auto r = check_text(src, name + ".loom");
  EXPECT_TRUE(r.ok && r.tree) << r.diagnostics;
  if (!r.ok || !r.tree) return {};
  PipelineOptions po;
  po.stop_after = "copy-elimination";
  return lower_to_event_ir(r.program, *r.tree, po);
}

void walk(const Block& b, const std::function<void(const Op&, int depth)>& fn, int depth = 0) {
  for (const Op& op : b.ops) {
    fn(op, depth);
    for (const Block& r : op.regions) walk(r, fn, depth + 1);
  }
}

const Op* find_for(const Block& b) {
  for (const Op& op : b.ops) {
    if (op.kind == OpKind::For) return &op;
    for (const Block& r : op.regions)
      if (const Op* f = find_for(r)) return f;
  }
  return nullptr;
}

TEST(CopyElimination, GoldenIR) {
  for (const char* name : {"gemm", "dual_gemm", "gemm_reduce", "flash_attention_2"}) {
    SCOPED_TRACE(name);
    Function f = lower_example(name);
    expect_golden(std::string("ir/") + name + ".ce.txt", ir::print(f));
  }
}

TEST(CopyElimination, GemmFacts) {
  Function f = lower_example("gemm");
  const Op* loop = find_for(f.body);
  ASSERT_NE(loop, nullptr);
  // Inside the K loop: one GLOBAL -> SHARED copy per operand (A and B), no other copy at all (the
  // accumulator stays in registers: no copy touches REGISTER or NONE memory).
  int g2s = 0, other = 0, mma = 0;
  walk(loop->regions[0], [&](const Op& op, int) {
    if (op.kind == OpKind::Copy) {
      MemKind from = f.info(op.operands[0]).mem, to = f.info(op.operands[1]).mem;
      if (from == MemKind::Global && to == MemKind::Shared) ++g2s;
      else ++other;
    }
    if (op.kind == OpKind::Call && op.name == "mma") {
      ++mma;
      // The accumulator operand is a REGISTER buffer allocated before the loop.
      EXPECT_EQ(f.info(op.operands[0]).mem, MemKind::Register);
    }
  });
  EXPECT_EQ(g2s, 2);
  EXPECT_EQ(other, 0) << ir::print(f);
  EXPECT_EQ(mma, 1);
  // No SHARED allocation of f32 (an accumulator staged through shared memory) anywhere.
  walk(f.body, [&](const Op& op, int) {
    if (op.kind == OpKind::Alloc) {
      EXPECT_FALSE(op.mem == MemKind::Shared && op.dtype == DType::F32) << ir::print(f);
    }
  });
  // After the loop, the accumulator leaves its registers once: one convert into the GLOBAL C tile.
  int converts = 0, after_loop = 0;
  std::function<void(const Block&)> scan = [&](const Block& b) {
    bool seen_loop = false;
    for (const Op& op : b.ops) {
      if (&op == loop) {
        seen_loop = true;
        continue;
      }
      if (!seen_loop) {
        for (const Block& r : op.regions) scan(r);
        continue;
      }
      if (op.kind == OpKind::Call && op.name == "convert") {
        ++converts;
        EXPECT_EQ(f.info(op.operands[0]).mem, MemKind::Global);
        EXPECT_EQ(f.info(op.operands[1]).mem, MemKind::Register);
      }
      if (op.kind == OpKind::Copy) ++after_loop;
    }
  };
  scan(f.body);
  EXPECT_EQ(converts, 1);
  EXPECT_EQ(after_loop, 0) << "the convert writes the output tile directly";
}

// Dual GEMM: both products read the same tile of A in each K step. The two global -> shared copies
// of it (one per gemm launch) merge into one: three copies in the loop (A, B1, B2), and both mma
// calls read pieces of the one A buffer, the second waiting for the kept copy.
TEST(CopyElimination, DualGemmCopiesTheATileOnce) {
  Function f = lower_example("dual_gemm");
  const Op* loop = find_for(f.body);
  ASSERT_NE(loop, nullptr);
  std::map<ir::ValueId, const Op*> def;
  walk(f.body, [&](const Op& op, int) {
    if (op.result != ir::kNone) def[op.result] = &op;
  });
  auto root = [&](ir::ValueId v) {
    while (def.count(v) && def[v]->kind == OpKind::Piece) v = def[v]->operands[0];
    return v;
  };
  std::vector<const Op*> copies, mmas;
  walk(loop->regions[0], [&](const Op& op, int) {
    if (op.kind == OpKind::Copy) copies.push_back(&op);
    if (op.kind == OpKind::Call && op.name == "mma") mmas.push_back(&op);
  });
  ASSERT_EQ(copies.size(), 3u) << ir::print(f);
  ASSERT_EQ(mmas.size(), 2u);
  ir::ValueId a = root(mmas[0]->operands[1]);
  EXPECT_EQ(root(mmas[1]->operands[1]), a) << "both products read one A tile\n" << ir::print(f);
  const Op* copy_a = nullptr;
  for (const Op* c : copies)
    if (c->operands[1] == a) copy_a = c;
  ASSERT_NE(copy_a, nullptr);
  for (const Op* m : mmas)
    EXPECT_NE(std::find(m->after.begin(), m->after.end(), ir::EventRef{copy_a->result, {}}), m->after.end()) << ir::print(f);
}

// Flash attention: the Q tile is the same for every K/V tile. Its copy leaves the loop (FA2), and
// in FA3, whose prologue GEMM already copied it, the two copies merge: one Q copy in all, before
// the loop, which waits for it.
TEST(CopyElimination, FlashAttentionCopiesQOnceBeforeTheLoop) {
  for (const char* name : {"flash_attention_2", "flash_attention_3"}) {
    SCOPED_TRACE(name);
    Function f = lower_example(name);
    std::vector<std::pair<const Op*, int>> q_copies;  // (copy, depth)
    walk(f.body, [&](const Op& op, int depth) {
      if (op.kind == OpKind::Copy && f.info(op.operands[0]).name == "Qp") q_copies.push_back({&op, depth});
    });
    ASSERT_EQ(q_copies.size(), 1u) << ir::print(f);
    const Op* loop = find_for(f.body);
    ASSERT_NE(loop, nullptr);
    EXPECT_NE(std::find(loop->after.begin(), loop->after.end(), ir::EventRef{q_copies[0].first->result, {}}), loop->after.end())
        << ir::print(f);
    walk(loop->regions[0], [&](const Op& op, int) { EXPECT_NE(&op, q_copies[0].first) << "the Q copy is in the loop"; });
  }
}

TEST(CopyElimination, EveryExampleStillMatchesTheReference) {
  struct Case {
    const char* name;
    std::map<std::string, int64_t> sizes;
    double ulps;
  };
  for (const Case& c : {Case{"gemm", {{"M", 129}, {"N", 257}, {"K", 65}}, 0},
                        Case{"batched_gemm", {{"Bt", 2}, {"M", 65}, {"N", 40}, {"K", 33}}, 0},
                        Case{"dual_gemm", {{"M", 65}, {"N", 40}, {"K", 33}}, 1},
                        Case{"gemm_reduce", {{"M", 129}, {"N", 257}, {"K", 65}}, 0},
                        Case{"flash_attention_2", {{"BH", 1}, {"M", 70}, {"N", 50}, {"D", 128}}, 1},
                        Case{"flash_attention_3", {{"BH", 1}, {"M", 70}, {"N", 200}, {"D", 128}}, 1}}) {
    SCOPED_TRACE(c.name);
    auto r = check_text(read_file(source_dir() + "/examples/" + c.name + "/" + c.name + ".loom"), std::string(c.name) + ".loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    Function f = lower_to_event_ir(r.program, *r.tree);
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      std::map<std::string, double> scalars;
      if (std::string(c.name).rfind("flash", 0) == 0) scalars["scale"] = 0.125;
      exec::Args in = exec::make_inputs(r.program, *r.tree, c.sizes, seed, scalars);
      exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
      exec::run_reference(r.program, *r.tree, ref);
      exec::ExecResult res = exec::execute(f, exec::exec_args(got), seed, {});
      ASSERT_TRUE(res.ok) << res.error;
      auto mm = exec::compare_outputs(ref, got, 0, c.ulps);
      ASSERT_FALSE(mm) << "seed " << seed << ": " << mm->describe();
    }
  }
}

// GEMM + row sums (Racc in SHARED): the accumulator never leaves its registers (the clear, the K
// loop, the row sums and the store all use the one REGISTER tile), and the row-sum reduction
// instances of the block, warpgroup and warp levels are gone: each lane folds its partial sums
// straight into Racc (one copy.sum, REGISTER -> SHARED). The final IR matches the reference,
// race-free, at shapes that are not tile multiples.
TEST(CopyElimination, GemmReduceRowSums) {
  auto r = check_text(read_file(source_dir() + "/examples/gemm_reduce_shared/gemm_reduce_shared.loom"), "gemm_reduce_shared.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  Function f = lower_example("gemm_reduce_shared");
  const Op* jloop = find_for(f.body);
  ASSERT_NE(jloop, nullptr);
  int copies = 0, sums = 0, fills = 0, f32_shared = 0;
  std::vector<const Op*> acc_users;  // mma, rowsum, convert
  walk(jloop->regions[0], [&](const Op& op, int) {
    if (op.kind == OpKind::Copy && op.name.empty() && f.info(op.operands[0]).mem != MemKind::Global) ++copies;
    if (op.kind == OpKind::Copy && op.name == "sum") {
      ++sums;
      EXPECT_EQ(f.info(op.operands[0]).mem, MemKind::Register);
      EXPECT_EQ(f.info(op.operands[1]).mem, MemKind::Shared);
    }
    if (op.kind == OpKind::Call && op.name == "fill") ++fills;
    if (op.kind == OpKind::Call && (op.name == "mma" || op.name == "rowsum")) acc_users.push_back(&op);
    if (op.kind == OpKind::Call && op.name == "convert") acc_users.push_back(&op);
    if (op.kind == OpKind::Alloc && op.mem == MemKind::Shared && op.dtype == DType::F32) ++f32_shared;
  });
  EXPECT_EQ(copies, 0) << "nothing is copied out of registers or shared memory in the column loop\n" << ir::print(f);
  EXPECT_EQ(sums, 1) << ir::print(f);
  EXPECT_EQ(fills, 2) << "the accumulator's clear and one lane-private row-sum buffer\n" << ir::print(f);
  EXPECT_EQ(f32_shared, 0) << ir::print(f);
  ASSERT_EQ(acc_users.size(), 3u) << ir::print(f);
  const ir::ValueId acc = acc_users[0]->operands[0];  // mma's C
  EXPECT_EQ(f.info(acc).mem, MemKind::Register);
  EXPECT_EQ(acc_users[1]->operands[1], acc) << "rowsum reads the accumulator registers\n" << ir::print(f);
  EXPECT_EQ(acc_users[2]->operands[1], acc) << "convert stores the accumulator registers\n" << ir::print(f);

  Function full = lower_to_event_ir(r.program, *r.tree);
  exec::ExecOptions opt;
  opt.detect_races = true;
  for (const std::map<std::string, int64_t>& sizes : std::vector<std::map<std::string, int64_t>>{
           {{"M", 129}, {"N", 257}, {"K", 65}}, {{"M", 200}, {"N", 100}, {"K", 130}}, {{"M", 65}, {"N", 300}, {"K", 17}}}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE("M=" + std::to_string(sizes.at("M")) + " N=" + std::to_string(sizes.at("N")) + " K=" +
                   std::to_string(sizes.at("K")) + " seed " + std::to_string(seed));
      exec::Args in = exec::make_inputs(r.program, *r.tree, sizes, seed, {});
      exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
      exec::run_reference(r.program, *r.tree, ref);
      exec::ExecResult res = exec::execute(full, exec::exec_args(got), seed, opt);
      ASSERT_TRUE(res.ok) << res.error;
      auto mm = exec::compare_outputs(ref, got, 0, 0);
      ASSERT_FALSE(mm) << mm->describe();
    }
  }
}

// The Cypress document's mapping with a cross-block reduction (examples/gemm_reduce: one 128 x 256
// tile per block, R red(sum) NONE at the block, warpgroup and warp levels, REGISTER at the thread):
// the reducing copies through the NONE levels fold into one, so each lane's partial row sums in
// registers are reduced straight into R in global memory (the back end: quad shuffle, then one
// atomic add per row), and no row vector needs memory in the block.
TEST(CopyElimination, GemmReduceRowSumsInRegisters) {
  Function f = lower_example("gemm_reduce");
  int sums = 0, row_vectors = 0;
  walk(f.body, [&](const Op& op, int) {
    if (op.kind == OpKind::Alloc && op.mem != MemKind::Register && op.mem != MemKind::None && f.info(op.result).rank == 1)
      ++row_vectors;
    if (op.kind == OpKind::Copy && op.name == "sum") {
      ++sums;
      EXPECT_EQ(f.info(op.operands[0]).mem, MemKind::Register);
      EXPECT_EQ(f.info(op.operands[1]).mem, MemKind::Global);
    }
  });
  EXPECT_EQ(row_vectors, 0) << ir::print(f);
  EXPECT_EQ(sums, 1) << ir::print(f);
}

// The cross-block reduction in the final IR: the blocks of a row of tiles reduce into the same
// entries of R, unordered; the race check accepts the reducing copies (and R, poisoned on input,
// starts at 0), and still reports a race when the same copy is a plain write.
TEST(CopyElimination, GemmReduceCrossBlockSumsAreNoRaceButPlainWritesAre) {
  auto r = check_text(read_file(source_dir() + "/examples/gemm_reduce/gemm_reduce.loom"), "gemm_reduce.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  Function full = lower_to_event_ir(r.program, *r.tree);
  exec::ExecOptions opt;
  opt.detect_races = true;
  const std::map<std::string, int64_t> sizes = {{"M", 129}, {"N", 520}, {"K", 65}};  // 2 x 3 blocks
  for (bool plain : {false, true}) {
    SCOPED_TRACE(plain ? "plain copy" : "copy.sum");
    Function f = full;
    int sums = 0;
    std::function<void(ir::Block&)> strip = [&](ir::Block& b) {
      for (Op& op : b.ops) {
        if (op.kind == OpKind::Copy && op.name == "sum") {
          ++sums;
          if (plain) op.name.clear();
        }
        for (ir::Block& reg : op.regions) strip(reg);
      }
    };
    strip(f.body);
    ASSERT_EQ(sums, 1);
    exec::Args in = exec::make_inputs(r.program, *r.tree, sizes, 1, {});
    exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
    exec::run_reference(r.program, *r.tree, ref);
    exec::ExecResult res = exec::execute(f, exec::exec_args(got), 1, opt);
    if (!plain) {
      ASSERT_TRUE(res.ok) << res.error;
      auto mm = exec::compare_outputs(ref, got, 0, 0);
      ASSERT_FALSE(mm) << mm->describe();
    } else {
      ASSERT_FALSE(res.ok);
      EXPECT_TRUE(res.race);
      EXPECT_NE(res.error.find("data race on %R["), std::string::npos) << res.error;
    }
  }
}

TEST(CopyElimination, NoneTensorStillMaterializedIsAUserError) {
  // The K loop's accumulator tile at the BLOCK level staged in SHARED while the warpgroup level keeps
  // it in NONE: the warpgroup's NONE tile is read and written between registers and shared memory,
  // so it must live somewhere the mapping does not say.
  std::string text = read_file(source_dir() + "/examples/gemm/gemm.loom");
  for (auto [from, to] : {std::pair<std::string, std::string>{"instance gemm_tile = gemm_tile on BLOCK mem(NONE,",
                                                              "instance gemm_tile = gemm_tile on BLOCK mem(SHARED,"},
                          {"instance clear_tile = clear_tile on BLOCK mem(NONE)", "instance clear_tile = clear_tile on BLOCK mem(SHARED)"}}) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  auto r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  try {
    lower_to_event_ir(r.program, *r.tree);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "tensor `Acc` is mapped to NONE by instance `gemm_block` but still needs memory after copy elimination");
    EXPECT_NE(e.diagnostic.hint.find("REGISTER or SHARED"), std::string::npos);
    ASSERT_FALSE(e.diagnostic.notes.empty());
    EXPECT_NE(e.diagnostic.notes[0].message.find("it is still"), std::string::npos);
  }
}

// ---- leading pieces of NONE tensors ------------------------------------------------------------------

// S: NONE, M x N. One processor's piece P = blocks(S, [h, *])[1, 0] (h = cdiv(M, 2)) is filled with 1
// from registers; then the same partition of the leading piece S' = blocks(S, [*, n])[0, 0] gets
// the first n columns of X's rows from registers (`same_partition`; otherwise S' is cut into blocks
// of 2 rows, another partition); then P is copied out whole through registers into Out. Every
// access of S is a register move of P or of a leading box of it.
ir::Function leading_piece_ir(bool same_partition) {
  IrBuilder b("lead");
  ir::ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 2), n = b.index_param("n");
  ir::ValueId M = b.dim(X, 0), N = b.dim(X, 1);
  ir::ValueId c0 = b.konst(0), c1 = b.konst(1), c2 = b.konst(2);
  ir::ValueId h = b.arith("cdiv", M, c2);
  ir::ValueId S = b.alloc("S", {M, N}, MemKind::None);
  ir::ValueId P = b.blocks(S, {h, ir::kNone}, {c1, c0});
  ir::ValueId R1 = b.alloc("R1", {b.dim(P, 0), b.dim(P, 1)}, MemKind::Register);
  ir::ValueId e1 = b.call("fill", {R1, b.fconst(1.0)}, {});
  ir::ValueId e2 = b.copy(R1, P, {ev(e1)});
  ir::ValueId Sc = b.blocks(S, {ir::kNone, n}, {c0, c0});
  ir::ValueId Pc = b.blocks(Sc, {same_partition ? h : c2, ir::kNone}, {c1, c0});
  ir::ValueId Xc = b.blocks(b.blocks(X, {ir::kNone, n}, {c0, c0}), {same_partition ? h : c2, ir::kNone}, {c1, c0});
  ir::ValueId R2 = b.alloc("R2", {b.dim(Pc, 0), b.dim(Pc, 1)}, MemKind::Register);
  ir::ValueId e3 = b.copy(Xc, R2, {});
  ir::ValueId e4 = b.copy(R2, Pc, {ev(e3), ev(e2)});
  ir::ValueId R3 = b.alloc("R3", {b.dim(P, 0), b.dim(P, 1)}, MemKind::Register);
  ir::ValueId e5 = b.copy(P, R3, {ev(e4)});
  ir::ValueId e6 = b.copy(R3, b.blocks(Out, {h, ir::kNone}, {c1, c0}), {ev(e5)});
  b.f.result = ev(e6);
  return b.f;
}

// Runs `f` (params X, Out, n) on a 5 x 7 X for several n, race detection on, and checks Out against
// `expect(X, n, i, j)`.
void expect_runs(const ir::Function& f, const std::function<double(const exec::View&, int64_t, int64_t, int64_t)>& expect) {
  for (int64_t n : {1, 3, 6, 7}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", seed " + std::to_string(seed));
      exec::View X(exec::make_buffer(DType::F32, {5, 7}, "X")), Out(exec::make_buffer(DType::F32, {5, 7}, "Out"));
      for (int64_t i = 0; i < 5; ++i)
        for (int64_t j = 0; j < 7; ++j) {
          X.store({i, j}, static_cast<double>(10 * i + j + 2));
          Out.store({i, j}, 0.0);
        }
      exec::ExecOptions opt;
      opt.detect_races = true;
      exec::ExecResult r = exec::execute(f, {X, Out, static_cast<double>(n)}, seed, opt);
      ASSERT_TRUE(r.ok) << r.error << "\n" << ir::print(f);
      for (int64_t i = 0; i < 5; ++i)
        for (int64_t j = 0; j < 7; ++j) ASSERT_EQ(Out.load({i, j}), expect(X, n, i, j)) << "Out[" << i << ", " << j << "]";
    }
  }
}

// The leading piece's copy goes into a leading box of the whole piece's register allocation: the
// same registers (the fill's), only fewer of them.
TEST(CopyElimination, LeadingPieceSharesTheRegisterConduit) {
  ir::Function f = leading_piece_ir(true);
  ASSERT_EQ(ir::verify(f), "");
  ir::Function before = f;
  eliminate_copies(f);
  ASSERT_EQ(ir::verify(f), "") << ir::print(f);
  std::map<ir::ValueId, const Op*> def;
  walk(f.body, [&](const Op& op, int) {
    if (op.result != ir::kNone) def[op.result] = &op;
  });
  ir::ValueId regs = ir::kNone;
  walk(f.body, [&](const Op& op, int) {
    if (op.kind == OpKind::Call && op.name == "fill") regs = op.operands[0];
  });
  ASSERT_TRUE(def.count(regs) && def[regs]->kind == OpKind::Alloc && def[regs]->mem == MemKind::Register) << ir::print(f);
  int into_box = 0, none_accesses = 0;
  walk(f.body, [&](const Op& op, int) {
    if (op.kind != OpKind::Copy && op.kind != OpKind::Call) return;
    for (ir::ValueId v : op.operands)
      if (f.info(v).type == ir::Type::Tensor && f.info(v).mem == MemKind::None) ++none_accesses;
    if (op.kind != OpKind::Copy || !def.count(op.operands[1])) return;
    const Op* d = def[op.operands[1]];
    if (d->kind == OpKind::Piece && d->operands[0] == regs && d->part.kind == ir::PartitionSpec::Kind::Blocks) {
      for (size_t i = 1; i < d->operands.size(); ++i) EXPECT_EQ(def[d->operands[i]]->ival, 0) << ir::print(f);
      ++into_box;
    }
  });
  EXPECT_EQ(into_box, 1) << "the copy into the leading piece writes a leading box of the registers\n" << ir::print(f);
  EXPECT_EQ(none_accesses, 0) << ir::print(f);
  // Rows h.. of Out: X in the first n columns, 1 after them; the other rows untouched.
  auto expect = [](const exec::View& X, int64_t n, int64_t i, int64_t j) { return i < 3 ? 0.0 : j < n ? X.load({i, j}) : 1.0; };
  expect_runs(before, expect);
  expect_runs(f, expect);
}

// Another partition of the leading piece (blocks of 2 rows instead of h) does not give the same
// processor's registers: the piece is not a leading box of P, and S still needs memory.
TEST(CopyElimination, LeadingPiecePartitionedDifferentlyStillNeedsMemory) {
  ir::Function f = leading_piece_ir(false);
  ASSERT_EQ(ir::verify(f), "");
  try {
    eliminate_copies(f);
    FAIL() << "expected a CompileError\n" << ir::print(f);
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "tensor `S` is mapped to NONE by instance `inst_S` but still needs memory after copy elimination");
  }
}

// S (NONE, M x N) used only through its leading piece W = blocks(S, [*, n])[0, 0]: W is written from
// registers and copied whole into a fresh SHARED tile T, which is copied out. W becomes a tensor of
// its own, which then lives in T (NONE forwarding): the registers go straight into T.
TEST(CopyElimination, NoneTensorUsedThroughOneLeadingPieceIsNarrowed) {
  IrBuilder b("narrow");
  ir::ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 2), n = b.index_param("n");
  (void)X;
  ir::ValueId M = b.dim(Out, 0), N = b.dim(Out, 1);
  ir::ValueId c0 = b.konst(0);
  ir::ValueId S = b.alloc("S", {M, N}, MemKind::None);
  ir::ValueId W = b.blocks(S, {ir::kNone, n}, {c0, c0});
  ir::ValueId R = b.alloc("R", {b.dim(W, 0), b.dim(W, 1)}, MemKind::Register);
  ir::ValueId e1 = b.call("fill", {R, b.fconst(1.0)}, {});
  ir::ValueId e2 = b.copy(R, W, {ev(e1)});
  ir::ValueId T = b.alloc("T", {b.dim(W, 0), b.dim(W, 1)}, MemKind::Shared);
  ir::ValueId e3 = b.copy(W, T, {ev(e2)});
  ir::ValueId e4 = b.copy(T, b.blocks(Out, {ir::kNone, n}, {c0, c0}), {ev(e3)});
  b.f.result = ev(e4);
  ASSERT_EQ(ir::verify(b.f), "");
  ir::Function f = b.f;
  eliminate_copies(f);
  ASSERT_EQ(ir::verify(f), "") << ir::print(f);
  int copies = 0;
  walk(f.body, [&](const Op& op, int) {
    if (op.kind != OpKind::Copy) return;
    ++copies;
    for (ir::ValueId v : op.operands) EXPECT_NE(f.info(v).mem, MemKind::None) << ir::print(f);
  });
  EXPECT_EQ(copies, 2) << "registers -> T -> Out\n" << ir::print(f);
  expect_runs(f, [](const exec::View&, int64_t n, int64_t, int64_t j) { return j < n ? 1.0 : 0.0; });
}

// FA3 with N not a multiple of the key tile: the first GEMMs write, and the last softmax reads,
// leading pieces of the carried scores S. They all use one register allocation (S's conduit), and
// the program matches the reference race-free at several such shapes.
TEST(CopyElimination, FlashAttention3ClippedScoresStayInOneRegisterAllocation) {
  Function f = lower_example("flash_attention_3");
  std::map<ir::ValueId, const Op*> def;
  walk(f.body, [&](const Op& op, int) {
    if (op.result != ir::kNone) def[op.result] = &op;
  });
  auto root = [&](ir::ValueId v) {
    while (def.count(v) && def[v]->kind == OpKind::Piece) v = def[v]->operands[0];
    return v;
  };
  std::set<ir::ValueId> score_roots;
  int qk = 0, last_softmax = 0;
  walk(f.body, [&](const Op& op, int) {
    if (op.kind == OpKind::Call && op.name == "mma" && op.origin.find("qk_thread") != std::string::npos) {
      score_roots.insert(root(op.operands[0]));
      ++qk;
    }
    // The softmax scales its scores in exp_scores; only the last one (after the loop) works on S
    // itself (the loop's works on the copy Sc).
    if (op.kind == OpKind::Call && op.name == "scale" && op.origin.find("exp_scores_thread") != std::string::npos) {
      ir::ValueId r = root(op.operands[0]);
      if (def.count(r) && def[r]->origin.find("register conduit") != std::string::npos &&
          def[r]->origin.find("attn_block: S = tensor") != std::string::npos) {
        score_roots.insert(r);
        ++last_softmax;
      }
    }
  });
  EXPECT_EQ(qk, 2) << ir::print(f);
  EXPECT_EQ(last_softmax, 1) << "the last softmax scales the conduit's registers\n" << ir::print(f);
  ASSERT_EQ(score_roots.size(), 1u) << ir::print(f);
  const ir::ValueId regs = *score_roots.begin();
  ASSERT_TRUE(def.count(regs));
  EXPECT_EQ(def[regs]->kind, OpKind::Alloc);
  EXPECT_EQ(def[regs]->mem, MemKind::Register);

  auto r = check_text(read_file(source_dir() + "/examples/flash_attention_3/flash_attention_3.loom"), "flash_attention_3.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  Function full = lower_to_event_ir(r.program, *r.tree);
  exec::ExecOptions opt;
  opt.detect_races = true;
  for (const std::map<std::string, int64_t>& sizes : std::vector<std::map<std::string, int64_t>>{
           {{"BH", 1}, {"M", 70}, {"N", 200}, {"D", 128}}, {{"BH", 1}, {"M", 5}, {"N", 7}, {"D", 128}}}) {
    SCOPED_TRACE("M=" + std::to_string(sizes.at("M")) + " N=" + std::to_string(sizes.at("N")));
    exec::Args in = exec::make_inputs(r.program, *r.tree, sizes, 1, {{"scale", 0.125}});
    exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
    exec::run_reference(r.program, *r.tree, ref);
    exec::ExecResult res = exec::execute(full, exec::exec_args(got), 1, opt);
    ASSERT_TRUE(res.ok) << res.error;
    auto mm = exec::compare_outputs(ref, got, 0, 1);
    ASSERT_FALSE(mm) << mm->describe();
  }
}

}  // namespace
}  // namespace loom

// Dependence analysis (src/passes/dependence_analysis.cpp): every example lowers to IR that
// verifies; the printed IR of gemm, dual_gemm, gemm_reduce and flash_attention_2 matches its
// golden (tests/golden/ir/<name>.dep.txt; UPDATE_GOLDEN=1 regenerates); FileCheck-style facts about
// GEMM's K loop (Fig. 8); the ordering rules (true, anti, output dependences; nested loops; locals
// in a loop body) on a small program; reduction arguments (fill with the identity, copy.sum/max);
// float scalars; the entry signature and a specialization's condition; extern leaves; snapshots of
// replicated row pieces (the lanes of a quad read the rows as they were before the prange, checked
// on flash_attention_2's IR and by running a small program on the CPU executor against the
// reference).
#include <functional>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "ir/ir.h"
#include "passes/dependence_analysis.h"
#include "test_util.h"

namespace loom::test {
namespace {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;

Function lower_text(const std::string& text, const std::string& name = "test.loom") {
  CheckResult r = check_text(text, name);
  EXPECT_TRUE(r.ok) << r.diagnostics;
  if (!r.ok || !r.tree) return {};
  Function f = dependence_analysis(r.program, *r.tree);
  EXPECT_EQ(ir::verify(f), "") << ir::print(f);
  return f;
}

Function lower_example(const std::string& name) {
  return lower_text(read_file(source_dir() + "/examples/" + name + "/" + name + ".loom"), name + ".loom");
}

// FileCheck-like: each pattern must occur after the previous one's match.
void expect_in_order(const std::string& text, const std::vector<std::string>& patterns) {
  size_t pos = 0;
  for (const std::string& p : patterns) {
    size_t at = text.find(p, pos);
    if (at == std::string::npos) {
      ADD_FAILURE() << "pattern not found after offset " << pos << ": " << p << "\n" << text.substr(pos, 4000);
      return;
    }
    pos = at + p.size();
  }
}

// Every op of a block, recursively, with the op that defines each value.
void walk(const Block& b, const std::function<void(const Op&)>& fn) {
  for (const Op& op : b.ops) {
    fn(op);
    for (const Block& r : op.regions) walk(r, fn);
  }
}

const Op* def_of(const Function& f, ir::ValueId v) {
  const Op* found = nullptr;
  walk(f.body, [&](const Op& op) {
    if (op.result == v) found = &op;
  });
  return found;
}

std::vector<const Op*> find_ops(const Block& b, OpKind k) {
  std::vector<const Op*> out;
  walk(b, [&](const Op& op) {
    if (op.kind == k) out.push_back(&op);
  });
  return out;
}

bool waits_on(const Op& op, ir::ValueId ev) {
  for (const EventRef& r : op.after)
    if (r.value == ev) return true;
  return false;
}

TEST(DependenceAnalysis, EveryExampleLowersToVerifiedIR) {
  auto files = example_files();
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    Function fn = lower_text(read_file(f), f.filename().string());
    EXPECT_FALSE(fn.body.ops.empty());
    EXPECT_NE(fn.result.value, ir::kNone);
  }
}

TEST(DependenceAnalysis, GoldenIR) {
  for (const char* name : {"gemm", "dual_gemm", "gemm_reduce", "flash_attention_2"}) {
    SCOPED_TRACE(name);
    Function f = lower_example(name);
    expect_golden(std::string("ir/") + name + ".dep.txt", ir::print(f));
  }
}

TEST(DependenceAnalysis, GemmParamsAreTheEntryTasksTensors) {
  Function f = lower_example("gemm");
  EXPECT_EQ(f.name, "gemm_host");
  ASSERT_EQ(f.params.size(), 3u);
  const char* names[] = {"C", "A", "B"};
  for (size_t i = 0; i < 3; ++i) {
    const ir::ValueInfo& vi = f.info(f.params[i]);
    EXPECT_EQ(vi.type, ir::Type::Tensor);
    EXPECT_EQ(vi.name, names[i]);
    EXPECT_EQ(vi.mem, MemKind::Global);
    EXPECT_EQ(vi.dtype, DType::BF16);
    EXPECT_EQ(vi.rank, 2);
  }
}

// The entry signature (ir.h) carries what the back end's C ABI needs of the task declaration.
TEST(DependenceAnalysis, EntrySignatureIsTheTaskDeclaration) {
  Function f = lower_example("flash_attention_2");
  ASSERT_TRUE(f.entry.has_value());
  EXPECT_EQ(f.entry->task, "mha");
  ASSERT_EQ(f.entry->params.size(), f.params.size());
  const ir::EntryParam& o = f.entry->params[0];
  EXPECT_EQ(o.name, "O");
  EXPECT_EQ(o.privilege, ir::ParamPrivilege::Write);
  EXPECT_EQ(o.dims, (std::vector<std::string>{"BH", "M", "D"}));
  EXPECT_EQ(f.entry->params[1].privilege, ir::ParamPrivilege::Read);
  const ir::EntryParam& scale = f.entry->params[4];
  EXPECT_EQ(scale.name, "scale");
  EXPECT_TRUE(scale.dims.empty());
  EXPECT_EQ(scale.scalar_type, "f32");
  EXPECT_FALSE(f.when.has_value());  // one mapping: no condition
}

// A specialized mapping's when(...) reaches the IR as a LaunchCondition; the default has none.
TEST(DependenceAnalysis, SpecializationKeepsItsCondition) {
  {  // examples/gemm: 27 when(fastest) candidates
    CheckResult g = check_text(read_file(source_dir() + "/examples/gemm/gemm.loom"), "gemm.loom");
    ASSERT_TRUE(g.ok && g.tree) << g.diagnostics;
    std::vector<MappingUnit> gu = mapping_units(g.program, *g.tree);
    ASSERT_EQ(gu.size(), 28u);
    for (size_t i = 1; i < gu.size(); ++i) {
      Function f = dependence_analysis(gu[i].program, gu[i].tree);
      ASSERT_TRUE(f.when.has_value());
      EXPECT_TRUE(f.when->fastest);
    }
  }
  // A written condition: examples/gemm with its first candidate's when(fastest) replaced.
  std::string text = read_file(source_dir() + "/examples/gemm/gemm.loom");
  const std::string fastest = "mapping sm_90a when(fastest) {";
  ASSERT_NE(text.find(fastest), std::string::npos);
  text.replace(text.find(fastest), fastest.size(), "mapping sm_90a when(2 * cdiv(M, 128) * cdiv(N, 256) <= SMS) {");
  CheckResult r = check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  std::vector<MappingUnit> units = mapping_units(r.program, *r.tree);
  ASSERT_EQ(units.size(), 28u);
  EXPECT_FALSE(dependence_analysis(units[0].program, units[0].tree).when.has_value());
  Function f = dependence_analysis(units[1].program, units[1].tree);
  ASSERT_TRUE(f.when.has_value());  // when(2 * cdiv(M, 128) * cdiv(N, 256) <= SMS)
  EXPECT_FALSE(f.when->fastest);
  using Kind = ir::SizeExpr::Kind;
  EXPECT_EQ(f.when->cmp, "<=");
  EXPECT_EQ(f.when->rhs.kind, Kind::Name);
  EXPECT_EQ(f.when->rhs.name, "SMS");
  const ir::SizeExpr& lhs = f.when->lhs;  // (2 * cdiv(M, 128)) * cdiv(N, 256)
  ASSERT_EQ(lhs.kind, Kind::Binary);
  EXPECT_EQ(lhs.op, '*');
  ASSERT_EQ(lhs.args.size(), 2u);
  EXPECT_EQ(lhs.args[1].kind, Kind::Call);
  EXPECT_EQ(lhs.args[1].name, "cdiv");
  ASSERT_EQ(lhs.args[1].args.size(), 2u);
  EXPECT_EQ(lhs.args[1].args[0].name, "N");
  EXPECT_EQ(lhs.args[1].args[1].value, 256);
}

// Fig. 8: the K loop of gemm_block, with the copy-in/copy-out discipline in full.
TEST(DependenceAnalysis, GemmKLoopFollowsFigure8) {
  Function f = lower_example("gemm");
  std::string text = ir::print(f);
  // host prange i, j -> two nested pfor BLOCK; the K loop; the tensor-core nest inside it.
  expect_in_order(text, {"pfor BLOCK %i in", "pfor BLOCK %j in", "%Acc = alloc NONE f32", "// gemm_block: clear(Acc)",
                         "// gemm_block: srange k in cdiv(K, W)", "for %k in", "iter(%c)",
                         "// gemm_block: gemm(Acc, Ap[0, k], Bp[k, 0])", "= alloc NONE f32",
                         "= alloc SHARED bf16", "= alloc SHARED bf16", "copy %Acc -> %C", "pfor WARPGROUP %g",
                         "pfor WARP %t", "pfor THREAD %t", "call mma(", "-> %Acc after", "yield",
                         "// gemm_block: copy(C, Acc)"});

  auto fors = find_ops(f.body, OpKind::For);
  ASSERT_EQ(fors.size(), 1u) << "gemm has one srange: the K loop";
  const Op& kloop = *fors[0];
  const Block& body = kloop.regions.at(0);
  ir::ValueId carried = body.args.at(1);
  EXPECT_FALSE(kloop.after.empty()) << "the K loop waits for clear(Acc)'s copy-out";

  // Copies at the loop body's own level: one copy-in per operand into SHARED, and the accumulator's
  // copy-in and copy-out (later passes hoist them).
  int shared_copy_ins = 0, acc_in = 0, acc_out = 0;
  for (const Op& op : body.ops) {
    if (op.kind != OpKind::Copy) continue;
    const ir::ValueInfo& src = f.info(op.operands[0]);
    const ir::ValueInfo& dst = f.info(op.operands[1]);
    if (dst.mem == MemKind::Shared) {
      ++shared_copy_ins;
      EXPECT_EQ(src.mem, MemKind::Global);
      EXPECT_FALSE(waits_on(op, carried)) << "operand tiles do not wait for the previous iteration";
      const Op* piece = def_of(f, op.operands[0]);
      ASSERT_NE(piece, nullptr);
      EXPECT_EQ(piece->kind, OpKind::Piece) << "the copy-in reads a K tile of the operand";
    }
    if (src.name == "Acc" && dst.mem == MemKind::None) {
      ++acc_in;
      EXPECT_TRUE(waits_on(op, carried)) << "the accumulator is carried from iteration to iteration";
    }
    if (dst.name == "Acc") ++acc_out;
  }
  EXPECT_EQ(shared_copy_ins, 2);
  EXPECT_EQ(acc_in, 1);
  EXPECT_EQ(acc_out, 1);

  // The nest below the loop: pfor WARPGROUP > pfor WARP > pfor THREAD > call mma.
  auto wg = find_ops(body, OpKind::PFor);
  ASSERT_FALSE(wg.empty());
  EXPECT_EQ(wg[0]->proc, ProcKind::Warpgroup);
  auto warp = find_ops(wg[0]->regions[0], OpKind::PFor);
  ASSERT_FALSE(warp.empty());
  EXPECT_EQ(warp[0]->proc, ProcKind::Warp);
  auto thr = find_ops(warp[0]->regions[0], OpKind::PFor);
  ASSERT_FALSE(thr.empty());
  EXPECT_EQ(thr[0]->proc, ProcKind::Thread);
  auto calls = find_ops(thr[0]->regions[0], OpKind::Call);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->name, "mma");
  // The mma partition is held by the instance that partitions: WARPGROUP, then WARP.
  auto pieces = find_ops(wg[0]->regions[0], OpKind::Piece);
  bool saw_wg = false, saw_warp = false;
  for (const Op* p : pieces)
    if (p->part.kind == ir::PartitionSpec::Kind::Mma) {
      EXPECT_EQ(p->part.instr, "wgmma");
      EXPECT_EQ(p->part.m, 64);
      EXPECT_EQ(p->part.n, 256);
      EXPECT_EQ(p->part.k, 16);
      saw_wg |= p->part.holder == ProcKind::Warpgroup;
      saw_warp |= p->part.holder == ProcKind::Warp;
    }
  EXPECT_TRUE(saw_wg);
  EXPECT_TRUE(saw_warp);

  // After the loop, copy(C, Acc) reads Acc: its copy-in waits for the loop.
  const Op* copy_in_after = nullptr;
  walk(f.body, [&](const Op& op) {
    if (op.kind == OpKind::Copy && op.origin == "gemm_block: copy(C, Acc)" && f.info(op.operands[0]).name == "Acc")
      copy_in_after = &op;
  });
  ASSERT_NE(copy_in_after, nullptr);
  EXPECT_TRUE(waits_on(*copy_in_after, kloop.result));
}

// The rules on a small program: one BLOCK running leaf tasks on a GLOBAL tensor.
const char* kSmall = R"(
task top(X: rw f32[N], Y: rw f32[N]);
task wr(X: w f32[N]);
task rd(Y: w f32[N], X: r f32[N]);
task acc(X: rw f32[N]);

variant top_host of top(X, Y): inner {
  Xp = blocks(X, [N]);
  Yp = blocks(Y, [N]);
  prange b in 1 {
    top(Xp[b], Yp[b]);
  }
}

variant top_block of top(X, Y): inner {
  wr(X);
  rd(Y, X);
  wr(X);
  srange k, l in 2, 3 {
    T = tensor(f32, [N]);
    wr(T);
    acc(X);
    rd(Y, T);
  }
}

variant wr_leaf of wr(X): leaf {
  fill(X, 1.5);
}

variant rd_leaf of rd(Y, X): leaf {
  copy(Y, X);
}

variant acc_leaf of acc(X): leaf {
  add(X, X, X);
}

mapping sm_90a {
  instance host = top_host on HOST mem(GLOBAL, GLOBAL) call(top: blk) entry;
  instance blk = top_block on BLOCK mem(GLOBAL, GLOBAL) call(wr: wr_b, rd: rd_b, acc: acc_b);
  instance wr_b = wr_leaf on BLOCK mem(GLOBAL);
  instance rd_b = rd_leaf on BLOCK mem(GLOBAL, GLOBAL);
  instance acc_b = acc_leaf on BLOCK mem(GLOBAL);
}
)";

TEST(DependenceAnalysis, TrueAntiAndOutputDependences) {
  Function f = lower_text(kSmall);
  ASSERT_FALSE(f.body.ops.empty());
  // Collect the copies of the block level by origin.
  std::vector<const Op*> copies;
  walk(f.body, [&](const Op& op) {
    if (op.kind == OpKind::Copy && op.origin.rfind("blk: ", 0) == 0) copies.push_back(&op);
  });
  // wr(X): copy-out only. rd(Y, X): copy-in X, copy-out Y. wr(X): copy-out. acc: in the loop.
  ASSERT_GE(copies.size(), 4u) << ir::print(f);
  const Op& wr1_out = *copies[0];
  const Op& rd_in = *copies[1];
  const Op& rd_out = *copies[2];
  const Op& wr2_out = *copies[3];
  EXPECT_EQ(wr1_out.origin, "blk: wr(X)");
  EXPECT_EQ(rd_in.origin, "blk: rd(Y, X)");
  EXPECT_EQ(f.info(rd_in.operands[1]).mem, MemKind::Global);
  EXPECT_EQ(rd_out.origin, "blk: rd(Y, X)");
  EXPECT_EQ(wr2_out.origin, "blk: wr(X)");
  EXPECT_TRUE(waits_on(rd_in, wr1_out.result)) << "true dependence: read after write";
  EXPECT_TRUE(waits_on(wr2_out, rd_in.result)) << "anti dependence: write after read";
  EXPECT_TRUE(waits_on(wr2_out, wr1_out.result)) << "output dependence: write after write";
  EXPECT_FALSE(waits_on(rd_out, wr1_out.result)) << "Y does not depend on X's writes except through the callee";

  // srange k, l: one `for` per variable, nested. The outer loop waits for the second write of X;
  // the inner one for the outer's carried event (X is written in the body); inside, X's copy-in
  // waits for the previous iteration.
  auto fors = find_ops(f.body, OpKind::For);
  ASSERT_EQ(fors.size(), 2u);
  const Op& outer = *fors[0];
  const Op& inner = *fors[1];
  EXPECT_TRUE(waits_on(outer, wr2_out.result));
  EXPECT_TRUE(waits_on(inner, outer.regions[0].args[1]));
  ir::ValueId c = inner.regions[0].args[1];
  const Op* x_in = nullptr;
  const Op* t_out = nullptr;
  const Op* t_in = nullptr;
  for (const Op& op : inner.regions[0].ops) {
    if (op.kind != OpKind::Copy) continue;
    if (op.origin == "blk: acc(X)" && f.info(op.operands[0]).name == "X") x_in = &op;
    if (op.origin == "blk: wr(T)") t_out = &op;
    if (op.origin == "blk: rd(Y, T)" && f.info(op.operands[0]).name == "T") t_in = &op;
  }
  ASSERT_TRUE(x_in && t_out && t_in) << ir::print(f);
  EXPECT_TRUE(waits_on(*x_in, c));
  // The local T, created in the body, is fresh per iteration: written, then read.
  EXPECT_EQ(f.info(t_out->operands[1]).mem, MemKind::None);
  EXPECT_FALSE(waits_on(*t_out, c));
  EXPECT_TRUE(waits_on(*t_in, t_out->result));
  // Leaf literal -> fconst.
  auto fc = find_ops(f.body, OpKind::FConst);
  ASSERT_FALSE(fc.empty());
  EXPECT_EQ(fc[0]->fval, 1.5);
  // The single-variable prange on HOST launching a BLOCK instance is a pfor BLOCK.
  auto pf = find_ops(f.body, OpKind::PFor);
  ASSERT_EQ(pf.size(), 1u);
  EXPECT_EQ(pf[0]->proc, ProcKind::Block);
  // The function completes with every iteration of the host's prange: E[:].
  EXPECT_EQ(f.result.value, pf[0]->result);
  EXPECT_EQ(f.result.indices, std::vector<ir::ValueId>{ir::kNone});
}

// red(sum) / red(max) arguments are reduction instances: filled with the identity instead of copied
// in, folded back with a reducing copy (so the 4 lanes of a quad may fold into the same rows).
TEST(DependenceAnalysis, ReductionArgumentsFoldBack) {
  Function f = lower_example("gemm_reduce_shared");
  int folds = 0;
  walk(f.body, [&](const Op& op) {
    if (op.kind != OpKind::Copy || op.origin.find("row_sum(") == std::string::npos) return;
    if (op.name.empty() && f.info(op.operands[1]).name == "R") ADD_FAILURE() << "R is copied in: " << op.origin;
    if (op.name == "sum") {
      ++folds;
      // The folded allocation was filled with 0 (the identity), never copied into.
      const Op* fill = nullptr;
      walk(f.body, [&](const Op& o) {
        if (o.kind == OpKind::Call && o.name == "fill" && o.operands[0] == op.operands[0]) fill = &o;
      });
      ASSERT_NE(fill, nullptr) << op.origin;
      const Op* id = def_of(f, fill->operands[1]);
      ASSERT_NE(id, nullptr);
      EXPECT_EQ(id->kind, OpKind::FConst);
      EXPECT_EQ(id->fval, 0.0);
    }
  });
  EXPECT_EQ(folds, 4) << "block -> warpgroup -> warp -> thread: one fold per level";
  std::string fa = ir::print(lower_example("flash_attention_2"));
  expect_in_order(fa, {"fconst -inf", "call fill(", "call rowmax(", "copy.max "});
}

TEST(DependenceAnalysis, FlashAttentionFloatScalar) {
  Function f = lower_example("flash_attention_2");
  ASSERT_EQ(f.params.size(), 5u);
  EXPECT_EQ(f.info(f.params[4]).type, ir::Type::Float);
  expect_in_order(ir::print(f), {"fconst -1e+30", "call scale(", "%scale"});
}

// An extern leaf is one call with every parameter, ordered by the task's privileges.
TEST(DependenceAnalysis, ExternLeafIsOneCall) {
  std::string text = kSmall;
  size_t at = text.find("variant rd_leaf of rd(Y, X): leaf {\n  copy(Y, X);\n}");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("variant rd_leaf of rd(Y, X): leaf {\n  copy(Y, X);\n}").size(),
               "variant rd_leaf of rd(Y, X): leaf extern %{ Y(0) = X(0); %}");
  Function f = lower_text(text);
  auto calls = find_ops(f.body, OpKind::Call);
  int externs = 0;
  for (const Op* c : calls)
    if (c->name == "extern:rd_leaf") {
      ++externs;
      ASSERT_EQ(c->operands.size(), 2u);
      EXPECT_EQ(f.info(c->operands[0]).name, "Y");
      EXPECT_EQ(f.info(c->operands[1]).name, "X");
      // X's copy-in, and (Y is write-only) the caller's last accesses of Y's root, so that writing
      // the caller's tensor in place after copy elimination stays ordered.
      ASSERT_GE(c->after.size(), 1u);
      bool copy_in = false;
      for (const auto& a : c->after) copy_in = copy_in || (def_of(f, a.value) && def_of(f, a.value)->kind == OpKind::Copy);
      EXPECT_TRUE(copy_in);
    }
  EXPECT_EQ(externs, 2);
}

// Replicated row pieces (rank-1 mma partitions held by a WARP: the 4 lanes of a quad share them).
// In softmax_lanes, rescale_sum(ap[t], lp[t], mop[t], mp[t]) writes a and l from replicated rows:
// its lanes must copy in a and l from snapshots taken before the pfor (else a lane may copy in l
// after another lane's copy-out and compute l * a * a); mo and m, which that prange only reads, and
// every other phase need no snapshot.
TEST(DependenceAnalysis, ReplicatedRowsAreReadFromASnapshot) {
  Function f = lower_example("flash_attention_2");
  // The block holding the pfor of the rescale_sum phase.
  const Block* holder = nullptr;
  size_t at = 0;
  std::function<void(const Block&)> find = [&](const Block& b) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const Op& op = b.ops[i];
      if (op.kind == OpKind::PFor && op.proc == ProcKind::Thread)
        for (const Op& in : op.regions[0].ops)
          if (in.origin.rfind("softmax_warp: rescale_sum(", 0) == 0) {
            holder = &b;
            at = i;
          }
      for (const Block& r : op.regions) find(r);
    }
  };
  find(f.body);
  ASSERT_NE(holder, nullptr) << ir::print(f);
  const Op& pfor = holder->ops[at];
  // Before the pfor: an alloc and a copy per snapshot, of l and of a, in the source's memory.
  std::map<std::string, ir::ValueId> snap;   // source name -> snapshot
  std::map<std::string, ir::ValueId> taken;  // source name -> the snapshot copy's event
  for (size_t i = 0; i < at; ++i) {
    const Op& op = holder->ops[i];
    if (op.origin.find("(snapshot of ") == std::string::npos) continue;
    if (op.kind == OpKind::Alloc) {
      EXPECT_EQ(f.info(op.result).name.substr(f.info(op.result).name.size() - 5), "_snap");
      continue;
    }
    ASSERT_EQ(op.kind, OpKind::Copy);
    EXPECT_TRUE(op.name.empty()) << "a plain copy";
    const ir::ValueInfo& src = f.info(op.operands[0]);
    EXPECT_EQ(src.rank, 1);
    EXPECT_EQ(f.info(op.operands[1]).mem, src.mem);
    snap[src.name] = op.operands[1];
    taken[src.name] = op.result;
    EXPECT_TRUE(waits_on(pfor, op.result)) << "the pfor writes " << src.name << " after the snapshot read it";
  }
  ASSERT_EQ(snap.size(), 2u) << ir::print(f);
  ASSERT_TRUE(snap.count("l") && snap.count("a"));
  // Inside: the copy-ins of a and l read the lane's piece of the snapshot (same partition);
  // mo and m the real tensors; the copy-outs write the real a and l, and ms (written only: no
  // copy-in, no snapshot).
  int from_snapshot = 0, from_real = 0, outs = 0;
  for (const Op& op : pfor.regions[0].ops) {
    if (op.kind != OpKind::Copy) continue;
    const Op* src = def_of(f, op.operands[0]);
    const Op* dst = def_of(f, op.operands[1]);
    ASSERT_TRUE(src && dst);
    if (dst->kind == OpKind::Alloc) {  // a copy-in
      ASSERT_EQ(src->kind, OpKind::Piece);
      EXPECT_EQ(src->part.kind, ir::PartitionSpec::Kind::Mma);
      EXPECT_EQ(src->part.holder, ProcKind::Warp);
      EXPECT_EQ(src->operands.at(1), pfor.regions[0].args[0]) << "the lane's own piece";
      bool is_snap = src->operands[0] == snap["l"] || src->operands[0] == snap["a"];
      if (is_snap) {
        ++from_snapshot;
        EXPECT_TRUE(op.after.empty()) << "the pfor's preconditions cover the snapshot copy";
      } else {
        ++from_real;
        EXPECT_TRUE(f.info(src->operands[0]).name == "mo" || f.info(src->operands[0]).name == "m");
      }
    } else {  // a copy-out
      ++outs;
      ASSERT_EQ(dst->kind, OpKind::Piece);
      EXPECT_NE(dst->operands[0], snap["l"]);
      EXPECT_NE(dst->operands[0], snap["a"]);
    }
  }
  EXPECT_EQ(from_snapshot, 2);
  EXPECT_EQ(from_real, 2);
  EXPECT_EQ(outs, 3);
  // One other snapshot: normalize's recip phase (inv = 1; inv = inv / l) reads the inv rows it
  // writes. Every other phase only reads the rows it shares, or reduces into them.
  int snaps = 0, inv_snaps = 0;
  walk(f.body, [&](const Op& op) {
    bool snap_alloc = op.kind == OpKind::Alloc && op.origin.find("(snapshot of ") != std::string::npos;
    snaps += snap_alloc;
    inv_snaps += snap_alloc && op.origin.find("(snapshot of inv)") != std::string::npos;
  });
  EXPECT_EQ(snaps, 3);
  EXPECT_EQ(inv_snaps, 1);
}

// The same rule on a minimal program, run: l = l * a on replicated rows under a WARP, then l is
// read. Without snapshots, some seeds square a.
const char* kRows = R"(
task rows(L: rw f32[M], A: r f32[M]);

variant rows_host of rows(L, A): inner {
  Lp = blocks(L, [64]);
  Ap = blocks(A, [64]);
  prange i in cdiv(M, 64) {
    rows(Lp[i], Ap[i]);
  }
}

variant rows_block of rows(L, A): inner {
  Lp = blocks(L, [64]);
  Ap = blocks(A, [64]);
  prange g in 1 {
    rows(Lp[g], Ap[g]);
  }
}

variant rows_mma of rows(L, A): inner {
  Lp = mma(L, acc, wgmma(64, 16, 16));
  Ap = mma(A, acc, wgmma(64, 16, 16));
  prange t in pieces(Lp) {
    rows(Lp[t], Ap[t]);
  }
}

variant rows_thread of rows(L, A): leaf on(THREAD) {
  mul(L, L, A);
}

mapping sm_90a {
  instance host = rows_host on HOST mem(GLOBAL, GLOBAL) call(rows: blk) entry;
  instance blk = rows_block on BLOCK mem(GLOBAL, GLOBAL) call(rows: wg);
  instance wg = rows_mma on WARPGROUP mem(GLOBAL, GLOBAL) call(rows: warp);
  instance warp = rows_mma on WARP mem(GLOBAL, GLOBAL) call(rows: thr);
  instance thr = rows_thread on THREAD mem(REGISTER, REGISTER);
}
)";

TEST(DependenceAnalysis, ReplicatedRowsSnapshotRunsLikeTheReference) {
  CheckResult c = check_text(kRows);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  Function f = dependence_analysis(c.program, *c.tree);
  ASSERT_EQ(ir::verify(f), "") << ir::print(f);
  std::string text = ir::print(f);
  expect_in_order(text, {"pfor WARP", "%L_snap = alloc GLOBAL f32", "copy %L", "-> %L_snap", "pfor THREAD",
                         "piece %L_snap mma(acc, wgmma(64, 16, 16), WARP)", "call mul("});
  EXPECT_EQ(text.find("%A_snap"), std::string::npos) << "A is only read: no snapshot";
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    exec::Args in = exec::make_inputs(c.program, *c.tree, {{"M", 100}}, seed);
    exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
    exec::run_reference(c.program, *c.tree, ref);
    std::vector<exec::ExecArg> ea;
    for (const exec::Arg& a : got.args) ea.emplace_back(a.view);
    exec::ExecResult r = exec::execute(f, ea, seed);
    ASSERT_TRUE(r.ok) << r.error;
    auto mm = exec::compare_outputs(ref, got);
    EXPECT_FALSE(mm.has_value()) << mm->describe();
  }
}

}  // namespace
}  // namespace loom::test

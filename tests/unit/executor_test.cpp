// Tests of the CPU executor for the event IR (src/exec/executor.h) on hand-built IR functions.
#include "exec/executor.h"

#include <cmath>
#include <set>

#include <gtest/gtest.h>

namespace loom::exec {
namespace {

using ir::EventRef;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

// A small IR builder: ops are appended to the innermost open block.
class Build {
 public:
  explicit Build(std::string name) {
    f.name = std::move(name);
    blocks_.push_back(&f.body);
  }

  ValueId tensor_param(const std::string& name, int rank, DType t = DType::F32) {
    ValueId v = f.add_value({Type::Tensor, name, t, MemKind::Global, rank, {}});
    f.params.push_back(v);
    return v;
  }
  ValueId index_param(const std::string& name) {
    ValueId v = f.add_value({Type::Index, name});
    f.params.push_back(v);
    return v;
  }

  ValueId konst(int64_t x) {
    ir::Op op;
    op.kind = OpKind::Const;
    op.ival = x;
    return push(std::move(op), {Type::Index, ""});
  }
  ValueId arith(const std::string& o, ValueId a, ValueId b) {
    ir::Op op;
    op.kind = OpKind::Arith;
    op.name = o;
    op.operands = {a, b};
    return push(std::move(op), {Type::Index, ""});
  }
  ValueId dim(ValueId t, int d) {
    ir::Op op;
    op.kind = OpKind::Dim;
    op.operands = {t};
    op.ival = d;
    return push(std::move(op), {Type::Index, ""});
  }
  ValueId proc_index(ProcKind p) {
    ir::Op op;
    op.kind = OpKind::ProcIndex;
    op.proc = p;
    return push(std::move(op), {Type::Index, "pi"});
  }
  ValueId alloc(const std::string& name, std::vector<ValueId> extents, MemKind m = MemKind::Shared) {
    ir::Op op;
    op.kind = OpKind::Alloc;
    op.mem = m;
    op.dtype = DType::F32;
    op.operands = std::move(extents);
    int rank = static_cast<int>(op.operands.size());
    return push(std::move(op), {Type::Tensor, name, DType::F32, m, rank, {}});
  }
  // piece `src` blocks[block...] [idx...]
  ValueId blocks(ValueId src, std::vector<ValueId> block, std::vector<ValueId> idx) {
    ir::Op op;
    op.kind = OpKind::Piece;
    op.part.kind = ir::PartitionSpec::Kind::Blocks;
    op.part.block = std::move(block);
    op.operands = {src};
    op.operands.insert(op.operands.end(), idx.begin(), idx.end());
    const ir::ValueInfo& s = f.info(src);
    return push(std::move(op), {Type::Tensor, s.name + "_p", s.dtype, s.mem, s.rank, {}});
  }
  ValueId slice(ValueId src, int d, ValueId i) {
    ir::Op op;
    op.kind = OpKind::Piece;
    op.part.kind = ir::PartitionSpec::Kind::Slices;
    op.part.dim = d;
    op.operands = {src, i};
    const ir::ValueInfo& s = f.info(src);
    return push(std::move(op), {Type::Tensor, s.name + "_s", s.dtype, s.mem, s.rank - 1, {}});
  }
  ValueId copy(ValueId src, ValueId dst, std::vector<EventRef> after, std::vector<ProcKind> over = {}) {
    ir::Op op;
    op.kind = OpKind::Copy;
    op.operands = {src, dst};
    op.after = std::move(after);
    op.origin = "copy " + f.info(src).name + " -> " + f.info(dst).name;
    return push(std::move(op), event_info("e", over));
  }
  ValueId call(const std::string& name, std::vector<ValueId> args, std::vector<EventRef> after) {
    ir::Op op;
    op.kind = OpKind::Call;
    op.name = name;
    op.operands = std::move(args);
    op.after = std::move(after);
    op.origin = name;
    return push(std::move(op), event_info("e", {}));
  }
  ValueId join(std::vector<EventRef> after) {
    ir::Op op;
    op.kind = OpKind::Join;
    op.after = std::move(after);
    op.origin = "join";
    return push(std::move(op), event_info("j", {}));
  }

  // for %k in [0, n) iter(%c) after [...] { body(k, c) ; yield body's return }
  template <class Body>
  ValueId for_loop(ValueId n, std::vector<EventRef> after, Body body) {
    ir::Op op;
    op.kind = OpKind::For;
    op.operands = {n};
    op.after = std::move(after);
    op.origin = "for";
    op.regions.resize(1);
    ValueId k = f.add_value({Type::Index, "k"});
    ValueId c = f.add_value({Type::Event, "c"});
    op.regions[0].args = {k, c};
    ir::Block blk;
    blk.args = {k, c};
    blocks_.push_back(&blk);
    blk.yield = body(k, c);
    blocks_.pop_back();
    op.regions[0] = std::move(blk);
    return push(std::move(op), event_info("L", {}));
  }
  template <class Body>
  ValueId pfor(ProcKind p, ValueId n, std::vector<EventRef> after, Body body) {
    ir::Op op;
    op.kind = OpKind::PFor;
    op.proc = p;
    op.operands = {n};
    op.after = std::move(after);
    op.origin = "pfor";
    ValueId i = f.add_value({Type::Index, "p"});
    ir::Block blk;
    blk.args = {i};
    blocks_.push_back(&blk);
    blk.yield = body(i);
    blocks_.pop_back();
    op.regions.push_back(std::move(blk));
    return push(std::move(op), event_info("E", {p}));
  }

  ir::Function f;

 private:
  ir::ValueInfo event_info(const std::string& name, std::vector<ProcKind> dims) {
    ir::ValueInfo i{dims.empty() ? Type::Event : Type::Events, name};
    i.event_dims = std::move(dims);
    return i;
  }
  ValueId push(ir::Op op, ir::ValueInfo info) {
    op.result = f.add_value(std::move(info));
    ValueId r = op.result;
    blocks_.back()->ops.push_back(std::move(op));
    return r;
  }
  std::vector<ir::Block*> blocks_;
};

EventRef ev(ValueId v) { return EventRef{v, {}}; }
EventRef all(ValueId v) { return EventRef{v, {ir::kNone}}; }
EventRef at(ValueId v, ValueId i) { return EventRef{v, {i}}; }

View vec(const std::string& name, std::vector<double> xs) {
  View v(make_buffer(DType::F32, {static_cast<int64_t>(xs.size())}, name));
  for (size_t i = 0; i < xs.size(); ++i) v.store({static_cast<int64_t>(i)}, xs[i]);
  return v;
}
View zeros(const std::string& name, int64_t n) { return vec(name, std::vector<double>(static_cast<size_t>(n), 0.0)); }
std::vector<double> values(const View& v) { return v.buffer()->data; }

// ---- copy chain: A -> T (fresh, poisoned) -> C ----
ir::Function copy_chain() {
  Build b("chain");
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId n = b.dim(A, 0);
  ValueId T = b.alloc("T", {n});
  ValueId e1 = b.copy(A, T, {});
  ValueId e2 = b.copy(T, C, {ev(e1)});
  b.f.result = ev(e2);
  return b.f;
}

TEST(Executor, CopyChain) {
  ir::Function f = copy_chain();
  ASSERT_EQ(ir::verify(f), "");
  for (uint64_t seed = 0; seed < 10; ++seed) {
    View A = vec("A", {1, 2, 3, 4, 5}), C = zeros("C", 5);
    ExecResult r = execute(f, {A, C}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(C), values(A));
    EXPECT_EQ(r.ops_run, 2);
    EXPECT_EQ(r.element_ops, 10);
  }
}

TEST(Executor, DroppedEdgeInCopyChainIsCaught) {
  ir::Function f = copy_chain();
  std::vector<EdgeId> edges = list_edges(f);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(describe_edge(f, edges[0]), "after[0] (%e) of %e.1 = copy %T -> %C at 3 (copy T -> C)");
  ExecOptions opt;
  opt.skip_edge = edges[0];
  std::set<bool> poisoned;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    View A = vec("A", {1, 2, 3}), C = zeros("C", 3);
    ExecResult r = execute(f, {A, C}, seed, opt);
    ASSERT_TRUE(r.ok) << r.error;
    poisoned.insert(std::isnan(values(C)[0]));
  }
  EXPECT_EQ(poisoned, (std::set<bool>{false, true})) << "both orders must occur once the edge is gone";
}

// ---- for loop: Acc = 0; for k: Acc = 2*Acc + X[k, :] (Horner, order-sensitive); Out = Acc ----
ir::Function horner() {
  Build b("horner");
  ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 1);
  ValueId rows = b.dim(X, 0), cols = b.dim(X, 1);
  ValueId Acc = b.alloc("Acc", {cols}, MemKind::Register);
  ValueId e0 = b.call("clear", {Acc}, {});
  ValueId two = b.f.add_value({Type::Float, "two"});
  {
    ir::Op op;
    op.kind = OpKind::FConst;
    op.fval = 2.0;
    op.result = two;
    b.f.body.ops.push_back(op);
  }
  ValueId L = b.for_loop(rows, {ev(e0)}, [&](ValueId k, ValueId c) {
    ValueId row = b.slice(X, 0, k);
    ValueId s = b.call("scale", {Acc, Acc, two}, {ev(c)});
    ValueId a = b.call("add", {Acc, Acc, row}, {ev(s)});
    return ev(a);
  });
  ValueId out = b.copy(Acc, Out, {ev(L)});
  b.f.result = ev(out);
  return b.f;
}

View matrix(int64_t r, int64_t c) {
  View v(make_buffer(DType::F32, {r, c}, "X"));
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) v.store({i, j}, static_cast<double>((i * 7 + j * 3) % 5));
  return v;
}

std::vector<double> horner_expected(const View& X) {
  std::vector<double> acc(static_cast<size_t>(X.extents()[1]), 0.0);
  for (int64_t i = 0; i < X.extents()[0]; ++i)
    for (int64_t j = 0; j < X.extents()[1]; ++j) acc[static_cast<size_t>(j)] = 2 * acc[static_cast<size_t>(j)] + X.load({i, j});
  return acc;
}

TEST(Executor, ForLoopWithCarriedEvent) {
  ir::Function f = horner();
  ASSERT_EQ(ir::verify(f), "");
  View X = matrix(5, 3);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    View Out = zeros("Out", 3);
    ExecResult r = execute(f, {X, Out}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Out), horner_expected(X)) << "seed " << seed;
    EXPECT_EQ(r.ops_run, 1 + 1 + 5 * 2 + 1);  // clear, the loop, 2 calls per iteration, copy-out
  }
}

TEST(Executor, ZeroTripForLoopCompletes) {
  ir::Function f = horner();
  View X(make_buffer(DType::F32, {0, 3}, "X"));
  View Out = vec("Out", {9, 9, 9});
  ExecResult r = execute(f, {X, Out}, 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(values(Out), (std::vector<double>{0, 0, 0}));
}

// The mutation test in miniature: every edge of the Horner function is needed, and the executor
// finds a mismatch for each one within a few seeds.
TEST(Executor, EveryDroppedEdgeOfHornerIsCaught) {
  ir::Function f = horner();
  std::vector<EdgeId> edges = list_edges(f);
  // after of the loop, carried event, after of add, yield, after of the copy-out (and scale's
  // after [%c], which is the same carried dependence seen from the op).
  ASSERT_EQ(edges.size(), 6u);
  std::set<EdgeId::Kind> kinds;
  for (const EdgeId& e : edges) kinds.insert(e.kind);
  EXPECT_EQ(kinds.size(), 3u);
  View X = matrix(4, 3);
  std::vector<double> want = horner_expected(X);
  for (const EdgeId& e : edges) {
    ExecOptions opt;
    opt.skip_edge = e;
    bool caught = false;
    for (uint64_t seed = 0; seed < 40 && !caught; ++seed) {
      View Out = zeros("Out", 3);
      ExecResult r = execute(f, {X, Out}, seed, opt);
      ASSERT_TRUE(r.ok) << r.error;
      caught = values(Out) != want;
    }
    EXPECT_TRUE(caught) << describe_edge(f, e);
  }
}

// ---- a carried event of distance 2: two interleaved Horner chains. Row k of X updates accumulator
// row k mod 2 (Acc[p] = 2*Acc[p] + X[k]); it waits for the carried %w of distance 2 (iteration k-2,
// the previous update of the same row) and not for %c (distance 1), so iterations k and k-1 may run
// in either order. ----
ir::Function interleaved_horner() {
  Build b("interleaved");
  ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 2);
  ValueId rows = b.dim(X, 0), cols = b.dim(X, 1);
  ValueId two_rows = b.konst(2);
  ValueId Acc = b.alloc("Acc", {two_rows, cols}, MemKind::Register);
  ValueId e0 = b.call("clear", {Acc}, {});
  ValueId two = b.f.add_value({Type::Float, "two"});
  {
    ir::Op op;
    op.kind = OpKind::FConst;
    op.fval = 2.0;
    op.result = two;
    b.f.body.ops.push_back(op);
  }
  ValueId w = b.f.add_value({Type::Event, "w"});
  ValueId L = b.for_loop(rows, {ev(e0)}, [&](ValueId k, ValueId) {
    ValueId row = b.slice(X, 0, k);
    ValueId acc = b.slice(Acc, 0, b.arith("mod", k, two_rows));
    ValueId s = b.call("scale", {acc, acc, two}, {ev(w)});
    ValueId a = b.call("add", {acc, acc, row}, {ev(s)});
    return ev(a);
  });
  ir::Op& loop = b.f.body.ops.back();
  loop.regions[0].args.push_back(w);
  loop.distances = {1, 2};
  ValueId out = b.copy(Acc, Out, {ev(L)});
  b.f.result = ev(out);
  return b.f;
}

std::vector<double> interleaved_expected(const View& X) {
  const int64_t cols = X.extents()[1];
  std::vector<double> acc(static_cast<size_t>(2 * cols), 0.0);
  for (int64_t i = 0; i < X.extents()[0]; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double& a = acc[static_cast<size_t>((i % 2) * cols + j)];
      a = 2 * a + X.load({i, j});
    }
  return acc;
}

TEST(Executor, CarriedEventOfDistanceTwoOrdersIterationKAfterKMinus2Only) {
  ir::Function f = interleaved_horner();
  ASSERT_EQ(ir::verify(f), "");
  EXPECT_NE(ir::print(f).find("iter(%c, %w distance 2)"), std::string::npos) << ir::print(f);
  View X = matrix(6, 3);
  std::set<bool> odd_first;  // does iteration 1's add run before iteration 0's?
  for (uint64_t seed = 0; seed < 30; ++seed) {
    View Out(make_buffer(DType::F32, {2, 3}, "Out"));
    ExecOptions opt;
    opt.trace = true;
    ExecResult r = execute(f, {X, Out}, seed, opt);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Out), interleaved_expected(X)) << "seed " << seed;
    auto at = [&](const std::string& k) {
      for (size_t i = 0; i < r.trace.size(); ++i)
        if (r.trace[i].find("call add") != std::string::npos && r.trace[i].find("[%k=" + k + "]") != std::string::npos) return i;
      return r.trace.size();
    };
    ASSERT_LT(at("0"), r.trace.size());
    odd_first.insert(at("1") < at("0"));
  }
  EXPECT_EQ(odd_first, (std::set<bool>{false, true})) << "distance 2 must not order iteration 1 after iteration 0";
}

TEST(Executor, DroppedDistanceTwoCarriedEventIsCaught) {
  ir::Function f = interleaved_horner();
  std::optional<EdgeId> carried;
  for (const EdgeId& e : list_edges(f))
    if (e.kind == EdgeId::Kind::Carried) {
      EXPECT_FALSE(carried) << "only %w is used by the body: one carried edge";
      carried = e;
    }
  ASSERT_TRUE(carried);
  EXPECT_EQ(carried->index, 1);
  EXPECT_EQ(describe_edge(f, *carried), "carried event %w (distance 2) of %L = for at 6 (for)");
  View X = matrix(6, 3);
  ExecOptions opt;
  opt.skip_edge = carried;
  bool caught = false;
  for (uint64_t seed = 0; seed < 40 && !caught; ++seed) {
    View Out(make_buffer(DType::F32, {2, 3}, "Out"));
    ExecResult r = execute(f, {X, Out}, seed, opt);
    ASSERT_TRUE(r.ok) << r.error;
    caught = values(Out) != interleaved_expected(X);
  }
  EXPECT_TRUE(caught) << "without %w the updates of one accumulator row race";
}

// ---- pfor over 4 blocks writing disjoint pieces of T, then a copy after E[:] ----
ir::Function pfor_pieces(bool single_element) {
  Build b("pieces");
  ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
  ValueId n = b.dim(X, 0);
  ValueId four = b.konst(4);
  ValueId tile = b.arith("cdiv", n, four);
  ValueId T = b.alloc("T", {n}, MemKind::Global);
  ValueId three = b.f.add_value({Type::Float, "three"});
  {
    ir::Op op;
    op.kind = OpKind::FConst;
    op.fval = 3.0;
    op.result = three;
    b.f.body.ops.push_back(op);
  }
  ValueId E = b.pfor(ProcKind::Block, four, {}, [&](ValueId p) {
    ValueId xs = b.blocks(X, {tile}, {p});
    ValueId ts = b.blocks(T, {tile}, {p});
    ValueId S = b.alloc("S", {b.dim(xs, 0)});  // fresh per iteration
    ValueId e1 = b.copy(xs, S, {});
    ValueId e2 = b.call("scale", {ts, S, three}, {ev(e1)});
    return ev(e2);
  });
  ValueId two = b.konst(2);
  ValueId e = single_element ? b.copy(b.blocks(T, {tile}, {two}), b.blocks(Out, {tile}, {two}), {at(E, two)})
                             : b.copy(T, Out, {all(E)});
  b.f.result = ev(e);
  return b.f;
}

TEST(Executor, PForThenCopyAfterBroadcast) {
  ir::Function f = pfor_pieces(false);
  ASSERT_EQ(ir::verify(f), "");
  for (uint64_t seed = 0; seed < 20; ++seed) {
    View X = vec("X", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), Out = zeros("Out", 10);  // tiles of 3, the last one of 1
    ExecResult r = execute(f, {X, Out}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Out), (std::vector<double>{3, 6, 9, 12, 15, 18, 21, 24, 27, 30}));
  }
}

TEST(Executor, PForElementReferenceWaitsForThatIterationOnly) {
  ir::Function f = pfor_pieces(true);
  ASSERT_EQ(ir::verify(f), "");
  for (uint64_t seed = 0; seed < 20; ++seed) {
    View X = vec("X", {1, 2, 3, 4, 5, 6, 7, 8}), Out = zeros("Out", 8);
    ExecResult r = execute(f, {X, Out}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Out), (std::vector<double>{0, 0, 0, 0, 15, 18, 0, 0}));
  }
}

TEST(Executor, PForDroppedYieldIsCaught) {
  ir::Function f = pfor_pieces(false);
  EdgeId yield;
  for (const EdgeId& e : list_edges(f))
    if (e.kind == EdgeId::Kind::Yield) yield = e;
  ASSERT_EQ(yield.kind, EdgeId::Kind::Yield);
  ExecOptions opt;
  opt.skip_edge = yield;
  bool nan = false;
  for (uint64_t seed = 0; seed < 20 && !nan; ++seed) {
    View X = vec("X", {1, 2, 3, 4, 5, 6, 7, 8}), Out = zeros("Out", 8);
    ExecResult r = execute(f, {X, Out}, seed, opt);
    ASSERT_TRUE(r.ok) << r.error;
    for (double v : values(Out)) nan |= std::isnan(v);
  }
  EXPECT_TRUE(nan) << "the copy-out must sometimes read T before it is written";
}

// ---- randomness is real: two unordered copies into one buffer ----
TEST(Executor, RacyCopiesDifferAcrossSeeds) {
  Build b("race");
  ValueId A = b.tensor_param("A", 1), B = b.tensor_param("B", 1), C = b.tensor_param("C", 1);
  ValueId e1 = b.copy(A, C, {});
  ValueId e2 = b.copy(B, C, {});
  b.f.result = EventRef{b.join({ev(e1), ev(e2)}), {}};
  ASSERT_EQ(ir::verify(b.f), "");
  std::set<double> outcomes;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    View Av = vec("A", {1, 1}), Bv = vec("B", {2, 2}), Cv = zeros("C", 2);
    ExecResult r = execute(b.f, {Av, Bv, Cv}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    outcomes.insert(values(Cv)[0]);
    // The same seed gives the same order.
    View Cw = zeros("C", 2);
    ASSERT_TRUE(execute(b.f, {Av, Bv, Cw}, seed).ok);
    EXPECT_EQ(values(Cw), values(Cv));
  }
  EXPECT_EQ(outcomes, (std::set<double>{1, 2}));
}

// ---- deadlock: two joins that wait for each other (not SSA: the verifier rejects it) ----
TEST(Executor, DeadlockIsReported) {
  Build b("stuck");
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId j1 = b.join({});
  ValueId j2 = b.join({ev(j1)});
  b.f.body.ops[0].after = {ev(j2)};  // j1 waits for j2, which waits for j1
  ValueId e = b.copy(A, C, {ev(j2)});
  b.f.result = ev(e);
  EXPECT_NE(ir::verify(b.f), "");
  ExecResult r = execute(b.f, {vec("A", {1}), zeros("C", 1)}, 3);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("deadlock"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("3 operation instance(s) never ran"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("copy %A -> %C at 2"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("waits for:\n    %j.1 = join at 1"), std::string::npos) << r.error;
}

// ---- poison: reading a fresh allocation yields NaN, through copies and leaf ops ----
TEST(Executor, PoisonedReadsPropagateNaN) {
  Build b("poison");
  ValueId C = b.tensor_param("C", 1), D = b.tensor_param("D", 1);
  ValueId n = b.dim(C, 0);
  ValueId T = b.alloc("T", {n});
  ValueId e1 = b.copy(T, C, {});
  ValueId e2 = b.call("exp", {D, T}, {});
  b.f.result = EventRef{b.join({ev(e1), ev(e2)}), {}};
  View Cv = vec("C", {1, 2, 3}), Dv = vec("D", {1, 2, 3});
  ExecResult r = execute(b.f, {Cv, Dv}, 0);
  ASSERT_TRUE(r.ok) << r.error;
  for (double v : values(Cv)) EXPECT_TRUE(std::isnan(v));
  for (double v : values(Dv)) EXPECT_TRUE(std::isnan(v));
}

TEST(Executor, AllocInLoopIsFreshPerIteration) {
  // Iteration k reads S into Out[k], then writes X[k] into S. Were S one buffer for the whole loop,
  // iteration 1 would read X[0]; fresh and poisoned per iteration, every read is NaN.
  Build b("fresh");
  ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
  ValueId one = b.konst(1), n = b.dim(X, 0);
  ValueId L = b.for_loop(n, {}, [&](ValueId k, ValueId c) {
    ValueId S = b.alloc("S", {one});
    ValueId read = b.copy(S, b.blocks(Out, {one}, {k}), {ev(c)});
    ValueId write = b.copy(b.blocks(X, {one}, {k}), S, {ev(read)});
    return ev(write);
  });
  b.f.result = ev(L);
  ASSERT_EQ(ir::verify(b.f), "");
  View Ov = vec("Out", {5, 5, 5});
  ExecResult r = execute(b.f, {vec("X", {1, 2, 3}), Ov}, 0);
  ASSERT_TRUE(r.ok) << r.error;
  for (double v : values(Ov)) EXPECT_TRUE(std::isnan(v));
}

// ---- errors ----
TEST(Executor, ExternCallHasNoCpuImplementation) {
  Build b("ext");
  ValueId C = b.tensor_param("C", 1);
  ValueId e = b.call("extern:my_softmax", {C}, {});
  b.f.result = ev(e);
  ExecResult r = execute(b.f, {zeros("C", 2)}, 0);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("extern leaf 'my_softmax' has no CPU implementation"), std::string::npos) << r.error;
}

TEST(Executor, LeafShapeErrorIsReported) {
  Build b("shape");
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId e = b.copy(A, C, {});
  b.f.result = ev(e);
  ExecResult r = execute(b.f, {zeros("A", 2), zeros("C", 3)}, 0);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("copy %A -> %C at 0"), std::string::npos) << r.error;
}

TEST(Executor, ArgumentsAreChecked) {
  ir::Function f = copy_chain();
  EXPECT_FALSE(execute(f, {zeros("A", 2)}, 0).ok);
  ExecResult r = execute(f, {zeros("A", 2), 1.0}, 0);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("argument 1 (%C) must be a tensor view"), std::string::npos) << r.error;
}

TEST(Executor, InstanceLimit) {
  Build b("big");
  ValueId C = b.tensor_param("C", 1);
  ValueId n = b.konst(1000);
  ValueId E = b.pfor(ProcKind::Block, n, {}, [&](ValueId) { return ev(b.call("clear", {C}, {})); });
  b.f.result = all(E);
  ExecOptions opt;
  opt.max_instances = 500;
  ExecResult r = execute(b.f, {zeros("C", 4)}, 0, opt);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("instance limit exceeded"), std::string::npos) << r.error;
  opt = {};
  opt.max_element_ops = 100;
  r = execute(b.f, {zeros("C", 4)}, 0, opt);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("element-op limit exceeded"), std::string::npos) << r.error;
  EXPECT_TRUE(execute(b.f, {zeros("C", 4)}, 0).ok);
}

// ---- processors: pfor binds proc_index; vectorized ops run once per processor ----
TEST(Executor, ProcIndexInsidePFor) {
  Build b("procs");
  ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
  ValueId two = b.konst(2), four = b.konst(4);
  ValueId E = b.pfor(ProcKind::Warp, four, {}, [&](ValueId) {
    ValueId w = b.proc_index(ProcKind::Warp);
    return ev(b.copy(b.blocks(X, {two}, {w}), b.blocks(Out, {two}, {w}), {}));
  });
  b.f.result = all(E);
  View Xv = vec("X", {1, 2, 3, 4, 5, 6, 7, 8}), Ov = zeros("Out", 8);
  ExecResult r = execute(b.f, {Xv, Ov}, 0);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(values(Ov), values(Xv));
}

ir::Function vectorized() {
  // After vectorization: no pfor WARP; the copy's result is events[WARP] (one per warp).
  Build b("vec");
  ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
  ValueId two = b.konst(2), n = b.dim(X, 0);
  ValueId T = b.alloc("T", {n});
  ValueId w = b.proc_index(ProcKind::Warp);
  ValueId e = b.copy(b.blocks(X, {two}, {w}), b.blocks(T, {two}, {w}), {}, {ProcKind::Warp});
  ValueId out = b.copy(T, Out, {all(e)});
  b.f.result = ev(out);
  return b.f;
}

TEST(Executor, VectorizedOpsRunPerProcessor) {
  ir::Function f = vectorized();
  ExecOptions opt;
  opt.proc_extents[ProcKind::Warp] = 4;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    View Xv = vec("X", {1, 2, 3, 4, 5, 6, 7, 8}), Ov = zeros("Out", 8);
    ExecResult r = execute(f, {Xv, Ov}, seed, opt);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Ov), values(Xv));
    EXPECT_EQ(r.ops_run, 5);
  }
  ExecResult r = execute(f, {vec("X", {1, 2}), zeros("Out", 2)}, 0);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("proc_extents gives no count for WARP"), std::string::npos) << r.error;
}

TEST(Executor, UnboundProcIndexIsAnError) {
  Build b("unbound");
  ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
  ValueId two = b.konst(2);
  ValueId w = b.proc_index(ProcKind::Thread);
  ValueId e = b.copy(b.blocks(X, {two}, {w}), b.blocks(Out, {two}, {w}), {});
  b.f.result = ev(e);
  ExecResult r = execute(b.f, {zeros("X", 4), zeros("Out", 4)}, 0);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("proc_index THREAD: no THREAD processor is bound here"), std::string::npos) << r.error;
}

TEST(Executor, TraceListsEveryInstance) {
  ir::Function f = horner();
  ExecOptions opt;
  opt.trace = true;
  View X = matrix(2, 2), Out = zeros("Out", 2);
  ExecResult r = execute(f, {X, Out}, 5, opt);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(static_cast<int64_t>(r.trace.size()), r.ops_run);
  bool saw_iteration = false;
  for (const std::string& line : r.trace) saw_iteration |= line.find("[%k=1]") != std::string::npos;
  EXPECT_TRUE(saw_iteration);
}

}  // namespace
}  // namespace loom::exec

namespace loom::exec {
namespace {

// A pfor of for loops of joins chained by the carried event: many small instances, quickly.
TEST(Executor, ManySmallInstances) {
  const int64_t blocks = 100, iters = 100;
  Build b("many");
  ValueId nb = b.konst(blocks), ni = b.konst(iters);
  ValueId E = b.pfor(ProcKind::Block, nb, {}, [&](ValueId) {
    ValueId L = b.for_loop(ni, {}, [&](ValueId, ValueId c) { return ev(b.join({ev(c)})); });
    return ev(L);
  });
  b.f.result = all(E);
  ExecResult r = execute(b.f, {}, 11);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.ops_run, 1 + blocks + blocks * iters);
}

}  // namespace
}  // namespace loom::exec

namespace loom::exec {
namespace {

// copy.sum from 4 parallel iterations into one accumulator: reducing copies commute, so every
// order gives the same sum; copy.max keeps the maximum and propagates NaN.
TEST(Executor, ReducingCopies) {
  Build b("reduce");
  ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 1), M = b.tensor_param("M", 1);
  ValueId four = b.konst(4);
  ValueId E = b.pfor(ProcKind::Block, four, {}, [&](ValueId p) {
    ValueId row = b.slice(X, 0, p);
    ValueId e1 = b.copy(row, Out, {});
    ValueId e2 = b.copy(row, M, {});
    return ev(b.join({ev(e1), ev(e2)}));
  });
  b.f.result = all(E);
  // Make the two copies reducing ones.
  ir::Block& body = b.f.body.ops.back().regions[0];
  int seen = 0;
  for (ir::Op& op : body.ops)
    if (op.kind == OpKind::Copy) op.name = seen++ == 0 ? "sum" : "max";
  ASSERT_EQ(ir::verify(b.f), "");
  for (uint64_t seed = 0; seed < 10; ++seed) {
    View Xv = matrix(4, 3), Ov = vec("Out", {100, 100, 100}), Mv = vec("M", {-1, -1, std::nan("")});
    ExecResult r = execute(b.f, {Xv, Ov, Mv}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    for (int64_t j = 0; j < 3; ++j) {
      double sum = 100, mx = -1;
      for (int64_t i = 0; i < 4; ++i) {
        sum += Xv.load({i, j});
        mx = std::max(mx, Xv.load({i, j}));
      }
      EXPECT_EQ(Ov.load({j}), sum);
      if (j < 2) {
        EXPECT_EQ(Mv.load({j}), mx);
      }
    }
    EXPECT_TRUE(std::isnan(Mv.load({2})));
  }
}

}  // namespace
}  // namespace loom::exec

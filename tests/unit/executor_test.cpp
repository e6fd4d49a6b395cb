// Tests of the CPU executor for the event IR (src/exec/executor.h) on hand-built IR functions.
#include "exec/executor.h"

#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "test_util.h"

namespace loom::exec {
namespace {

using ir::EventRef;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

using test::all;
using test::at;
using test::ev;
using test::IrBuilder;
using test::values;
using test::vec;
using test::zeros;

// ---- copy chain: A -> T (fresh, poisoned) -> C ----
ir::Function copy_chain() {
  IrBuilder b("chain");
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
  IrBuilder b("horner");
  ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 1);
  ValueId rows = b.dim(X, 0), cols = b.dim(X, 1);
  ValueId Acc = b.alloc("Acc", {cols}, MemKind::Register);
  ValueId e0 = b.call("clear", {Acc}, {});
  ValueId two = b.fconst(2.0, "two");
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
  IrBuilder b("interleaved");
  ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 2);
  ValueId rows = b.dim(X, 0), cols = b.dim(X, 1);
  ValueId two_rows = b.konst(2);
  ValueId Acc = b.alloc("Acc", {two_rows, cols}, MemKind::Register);
  ValueId e0 = b.call("clear", {Acc}, {});
  ValueId two = b.fconst(2.0, "two");
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
  IrBuilder b("pieces");
  ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
  ValueId n = b.dim(X, 0);
  ValueId four = b.konst(4);
  ValueId tile = b.arith("cdiv", n, four);
  ValueId T = b.alloc("T", {n}, MemKind::Global);
  ValueId three = b.fconst(3.0, "three");
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
  IrBuilder b("race");
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
  IrBuilder b("stuck");
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
  IrBuilder b("poison");
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
  IrBuilder b("fresh");
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
  IrBuilder b("ext");
  ValueId C = b.tensor_param("C", 1);
  ValueId e = b.call("extern:my_softmax", {C}, {});
  b.f.result = ev(e);
  ExecResult r = execute(b.f, {zeros("C", 2)}, 0);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("extern leaf 'my_softmax' has no CPU implementation"), std::string::npos) << r.error;
}

TEST(Executor, LeafShapeErrorIsReported) {
  IrBuilder b("shape");
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
  IrBuilder b("big");
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
  IrBuilder b("procs");
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
  IrBuilder b("vec");
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
  IrBuilder b("unbound");
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
  IrBuilder b("many");
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
  IrBuilder b("reduce");
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

namespace loom::exec {
namespace {

// ---- race detection (executor.h, RACES) ----

ExecOptions races() {
  ExecOptions opt;
  opt.detect_races = true;
  return opt;
}

// Two unordered copies into one buffer: a race on every seed, whichever runs first, named in the
// message with both ops and the element.
TEST(ExecutorRaces, UnorderedWritesAreARaceOnEverySeed) {
  IrBuilder b("race");
  ValueId A = b.tensor_param("A", 1), B = b.tensor_param("B", 1), C = b.tensor_param("C", 1);
  ValueId e1 = b.copy(A, C, {});
  ValueId e2 = b.copy(B, C, {});
  b.f.result = ev(b.join({ev(e1), ev(e2)}));
  for (uint64_t seed = 0; seed < 8; ++seed) {
    ExecResult r = execute(b.f, {vec("A", {1, 1}), vec("B", {2, 2}), zeros("C", 2)}, seed, races());
    ASSERT_FALSE(r.ok);
    EXPECT_TRUE(r.race);
    EXPECT_NE(r.error.find("data race on %C[0]"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("copy %A -> %C at 0 (copy A -> C) writes it"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("copy %B -> %C at 1 (copy B -> C) writes it"), std::string::npos) << r.error;
  }
  // Ordered, it is no race.
  b.f.body.ops[1].after = {ev(e1)};
  ExecResult r = execute(b.f, {vec("A", {1, 1}), vec("B", {2, 2}), zeros("C", 2)}, 0, races());
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.race);
}

// Reads overlap freely; a read unordered with a write is a race; disjoint pieces never race.
TEST(ExecutorRaces, ReadsOverlapFreelyAndDisjointPiecesDoNotRace) {
  IrBuilder b("reads");
  ValueId X = b.tensor_param("X", 1), P = b.tensor_param("P", 1), Q = b.tensor_param("Q", 1);
  ValueId e1 = b.copy(X, P, {});
  ValueId e2 = b.copy(X, Q, {});
  b.f.result = ev(b.join({ev(e1), ev(e2)}));
  ExecResult r = execute(b.f, {vec("X", {1, 2}), zeros("P", 2), zeros("Q", 2)}, 0, races());
  EXPECT_TRUE(r.ok) << r.error;

  for (bool single : {false, true}) {  // pfor over disjoint pieces, then a copy after E[:] or E[2]
    ir::Function f = pfor_pieces(single);
    for (uint64_t seed = 0; seed < 4; ++seed) {
      ExecResult q = execute(f, {vec("X", {1, 2, 3, 4, 5, 6, 7, 8}), zeros("Out", 8)}, seed, races());
      EXPECT_TRUE(q.ok) << q.error;
    }
  }

  IrBuilder c("raw");
  ValueId A = c.tensor_param("A", 1), T = c.tensor_param("T", 1), O = c.tensor_param("O", 1);
  ValueId w = c.copy(A, T, {});
  ValueId rd = c.copy(T, O, {});
  c.f.result = ev(c.join({ev(w), ev(rd)}));
  r = execute(c.f, {vec("A", {1}), zeros("T", 1), zeros("O", 1)}, 0, races());
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(r.race);
  EXPECT_NE(r.error.find("data race on %T[0]"), std::string::npos) << r.error;
}

// Reducing copies of one kind commute (no race between them); a plain write among them races.
TEST(ExecutorRaces, ReducingCopiesOfOneKindDoNotRace) {
  auto build = [](const std::string& second) {
    IrBuilder b("reduce");
    ValueId X = b.tensor_param("X", 2), Out = b.tensor_param("Out", 1);
    ValueId four = b.konst(4);
    ValueId E = b.pfor(ProcKind::Block, four, {}, [&](ValueId p) { return ev(b.copy(b.slice(X, 0, p), Out, {})); });
    ValueId e = b.copy(b.slice(X, 0, four), Out, {});  // X has 5 rows
    b.f.result = ev(b.join({all(E), ev(e)}));
    b.f.body.ops[1].regions[0].ops.back().name = "sum";
    b.f.body.ops.back().name.clear();
    for (ir::Op& op : b.f.body.ops)
      if (op.kind == OpKind::Copy) op.name = second;
    return b.f;
  };
  for (const std::string& second : {std::string("sum"), std::string("max"), std::string()}) {
    ir::Function f = build(second);
    ASSERT_EQ(ir::verify(f), "");
    ExecResult r = execute(f, {matrix(5, 3), zeros("Out", 3)}, 1, races());
    if (second == "sum") {
      EXPECT_TRUE(r.ok) << r.error;
    } else {
      ASSERT_FALSE(r.ok) << second;
      EXPECT_TRUE(r.race);
      EXPECT_NE(r.error.find("reduces (copy.sum) into it"), std::string::npos) << r.error;
    }
  }
}

// Happens-before, not "ready at the same time": the reader waits for a chain of joins that does
// not involve the writer, so the writer has long run when the reader becomes ready — a race all
// the same, on every seed.
TEST(ExecutorRaces, FoundWhenTheTwoAreNeverReadyTogether) {
  IrBuilder b("chain");
  ValueId A = b.tensor_param("A", 1), T = b.tensor_param("T", 1), O = b.tensor_param("O", 1);
  ValueId w = b.copy(A, T, {});
  ValueId j = b.join({});
  for (int i = 0; i < 5; ++i) j = b.join({ev(j)});
  ValueId rd = b.copy(T, O, {ev(j)});
  b.f.result = ev(b.join({ev(w), ev(rd)}));
  for (uint64_t seed = 0; seed < 16; ++seed) {
    ExecResult r = execute(b.f, {vec("A", {1}), zeros("T", 1), zeros("O", 1)}, seed, races());
    ASSERT_FALSE(r.ok);
    EXPECT_TRUE(r.race) << r.error;
  }
}

// Every edge of Horner is needed: without it, a race — on every seed (the instance graph does not
// depend on the order), including the carried event whose loss a seed may not show in values.
TEST(ExecutorRaces, EveryDroppedEdgeOfHornerIsARace) {
  ir::Function f = horner();
  View X = matrix(4, 3);
  for (uint64_t seed = 0; seed < 4; ++seed) {
    View Out = zeros("Out", 3);
    ExecResult r = execute(f, {X, Out}, seed, races());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Out), horner_expected(X));
  }
  for (const EdgeId& e : list_edges(f))
    for (uint64_t seed = 0; seed < 4; ++seed) {
      ExecOptions opt = races();
      opt.skip_edge = e;
      View Out = zeros("Out", 3);
      ExecResult r = execute(f, {X, Out}, seed, opt);
      EXPECT_TRUE(r.race) << describe_edge(f, e) << ", seed " << seed << ": " << (r.ok ? "ok" : r.error);
    }
}

// The loop body's instances come after their loop started: an op before the loop that the loop
// waits for is ordered before the body; the ring buffer of the interleaved Horner is race-free, and
// without its distance-2 carried event races.
TEST(ExecutorRaces, LoopBodiesAndCarriedEvents) {
  ir::Function f = interleaved_horner();
  View X = matrix(6, 3);
  ExecResult r = execute(f, {X, View(make_buffer(DType::F32, {2, 3}, "Out"))}, 3, races());
  ASSERT_TRUE(r.ok) << r.error;
  for (const EdgeId& e : list_edges(f)) {
    ExecOptions opt = races();
    opt.skip_edge = e;
    r = execute(f, {X, View(make_buffer(DType::F32, {2, 3}, "Out"))}, 3, opt);
    EXPECT_TRUE(r.race) << describe_edge(f, e) << ": " << (r.ok ? "ok" : r.error);
  }
}

// Replicated row pieces (a WARP-held mma partition of a rank-1 tensor): the four lanes of a quad
// write "the same" entries, each its own replica — no race. A write of the whole vector unordered
// with them is one.
TEST(ExecutorRaces, ReplicatedRowPiecesAreOneReplicaPerLane) {
  auto build = [](bool whole_write) {
    IrBuilder b("rows");
    ValueId X = b.tensor_param("X", 1), Out = b.tensor_param("Out", 1);
    ValueId n = b.dim(X, 0);
    ValueId v = b.alloc("v", {n});
    ValueId t = b.proc_index(ProcKind::Thread);
    ValueId xs = b.mma(X, MmaRole::Acc, ProcKind::Warp, t), vs = b.mma(v, MmaRole::Acc, ProcKind::Warp, t);
    ValueId lanes = b.copy(xs, vs, {}, {ProcKind::Thread});
    std::vector<ir::EventRef> after{all(lanes)};
    if (whole_write) after = {ev(b.copy(X, v, {}))};
    ValueId out = b.copy(v, Out, after);
    b.f.result = ev(out);
    b.f.proc_extents[ProcKind::Thread] = 32;
    return b.f;
  };
  std::vector<double> xs(16);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i);
  for (uint64_t seed = 0; seed < 4; ++seed) {
    View Out = zeros("Out", 16);
    ExecResult r = execute(build(false), {vec("X", xs), Out}, seed, races());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(values(Out), xs);
  }
  ExecResult r = execute(build(true), {vec("X", xs), zeros("Out", 16)}, 0, races());
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(r.race) << r.error;
  EXPECT_NE(r.error.find("data race on %v["), std::string::npos) << r.error;
}

}  // namespace
}  // namespace loom::exec

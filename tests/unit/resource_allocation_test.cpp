// Tests of resource allocation (src/passes/resource_allocation.h): hand-built thread blocks whose
// shared tensors are ordered or not by their events, the budget that decides whether ordered ones
// share bytes, the write-after-read edges, one iteration per buffer, the user errors; and every
// example through the real pipeline, still matching the sequential reference on the CPU executor,
// with an independent check that tensors sharing bytes never interleave in the executor's order;
// the shared memory each example needs; goldens of the final IR (tests/golden/ir/<example>.ra.txt,
// UPDATE_GOLDEN=1 regenerates).
#include "passes/resource_allocation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "exec/executor.h"
#include "exec/inputs.h"
#include "exec/reference.h"
#include "passes/pipeline.h"
#include "passes/register_residents.h"
#include "test_util.h"

namespace loom {
namespace {

using ir::EventRef;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

// The shared test IR builder (test_util.h), with a 1 KB shared-memory budget.
struct Build : test::IrBuilder {
  Build() {
    name_consts = true;
    f.smem = {1024, 232448, "blk", "smem(1KB)", {}};
  }
};
using test::all;
using test::ev;
using test::find_op;
using test::vec;

// ---- two tiles staged through shared memory, one after the other ----
// In one block: A -> T1 -> C, then B -> T2 -> D. T2's copy-in waits for T1's copy-out through a
// join when `ordered` (so the WAR edge is new), or for nothing.
struct TwoTiles {
  ir::Function f;
  ValueId T1 = 0, T2 = 0, in2 = 0, out1 = 0;
};

TwoTiles two_tiles(bool ordered, int64_t budget) {
  Build b;
  TwoTiles t;
  ValueId A = b.tensor_param("A", 1), B = b.tensor_param("B", 1), C = b.tensor_param("C", 1), D = b.tensor_param("D", 1);
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId n = b.konst(256);
    t.T1 = b.alloc("T1", {n});
    t.T2 = b.alloc("T2", {n});
    ValueId e1 = b.copy(A, t.T1, {});
    t.out1 = b.copy(t.T1, C, {ev(e1)});
    ValueId j = b.join({ev(t.out1)});
    t.in2 = b.copy(B, t.T2, ordered ? std::vector<EventRef>{ev(j)} : std::vector<EventRef>{});
    ValueId e4 = b.copy(t.T2, D, {ev(t.in2)});
    return ev(b.join({ev(e4), ev(t.out1)}));
  });
  b.f.result = all(E);
  b.f.smem.bytes = budget;
  t.f = b.f;
  return t;
}

void expect_copies_through(const ir::Function& f) {
  for (uint64_t seed = 0; seed < 8; ++seed) {
    exec::View A = vec("A", std::vector<double>(256, 3)), B = vec("B", std::vector<double>(256, 5));
    exec::View C = vec("C", std::vector<double>(256, 0)), D = vec("D", std::vector<double>(256, 0));
    exec::ExecResult r = exec::execute(f, {A, B, C, D}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(C.buffer()->data, A.buffer()->data);
    EXPECT_EQ(D.buffer()->data, B.buffer()->data);
  }
}

TEST(ResourceAllocation, OrderedTensorsShareBytesWhenTheBudgetIsTight) {
  TwoTiles t = two_tiles(true, 1024);
  allocate_resources(t.f);
  ASSERT_EQ(ir::verify(t.f), "");
  EXPECT_EQ(t.f.smem_slots.at(t.T1), (ir::SmemSlot{0, 1024, 1}));
  EXPECT_EQ(t.f.smem_slots.at(t.T2), (ir::SmemSlot{0, 1024, 1}));
  // The write-after-read edge: T2's writer waits for T1's last reader (already implied by %j).
  const ir::Op* in2 = find_op(t.f.body, t.in2);
  ASSERT_EQ(in2->after.size(), 2u);
  EXPECT_EQ(in2->after[1], ev(t.out1));
  std::string text = ir::print(t.f);
  EXPECT_NE(text.find("func @t(%A: f32<1>@GLOBAL, %B: f32<1>@GLOBAL, %C: f32<1>@GLOBAL, %D: f32<1>@GLOBAL) smem(1024) {"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%T1 = alloc SHARED f32 [%c256] @smem[0, 1024)"), std::string::npos) << text;
  EXPECT_NE(text.find("%T2 = alloc SHARED f32 [%c256] @smem[0, 1024)"), std::string::npos) << text;
  EXPECT_NE(text.find("%e.2 = copy %B -> %T2 after [%j, %e.1]"), std::string::npos) << text;
  expect_copies_through(t.f);
  // Running the pass again changes nothing.
  std::string once = ir::print(t.f);
  allocate_resources(t.f);
  EXPECT_EQ(ir::print(t.f), once);
}

TEST(ResourceAllocation, OrderedTensorsKeepTheirOwnBytesWhenTheBudgetAllows) {
  TwoTiles t = two_tiles(true, 2048);
  allocate_resources(t.f);
  ASSERT_EQ(ir::verify(t.f), "");
  EXPECT_EQ(t.f.smem_slots.at(t.T1), (ir::SmemSlot{0, 1024, 1}));
  EXPECT_EQ(t.f.smem_slots.at(t.T2), (ir::SmemSlot{1024, 1024, 1}));
  EXPECT_EQ(find_op(t.f.body, t.in2)->after.size(), 1u) << "no shared bytes, no edge";
  expect_copies_through(t.f);
}

TEST(ResourceAllocation, UnorderedTensorsNeverShareBytes) {
  TwoTiles t = two_tiles(false, 2048);
  allocate_resources(t.f);
  EXPECT_EQ(t.f.smem_slots.at(t.T1).offset, 0);
  EXPECT_EQ(t.f.smem_slots.at(t.T2).offset, 1024);
  TwoTiles tight = two_tiles(false, 1024);
  EXPECT_THROW(allocate_resources(tight.f), CompileError);
}

// The over-budget diagnostic, exactly.
TEST(ResourceAllocation, OverBudgetIsAUserErrorNamingEveryTensor) {
  SourceManager sm;
  uint32_t file = sm.add("k.loom", "line one\n  T1 = tensor(f32, [256]);\n  T2 = tensor(f32, [300]);\n  smem(1KB);\n");
  Build b;
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId T1 = b.alloc("T1", {b.konst(256)}, MemKind::Shared, {file, 2, 3});
    ValueId T2 = b.alloc("T2", {b.konst(300)}, MemKind::Shared, {file, 3, 3});
    ValueId e1 = b.copy(A, T1, {});
    ValueId e2 = b.copy(T1, C, {ev(e1)});
    ValueId p = b.blocks(A, {b.konst(300)}, {b.konst(0)});
    ValueId e3 = b.copy(p, T2, {});  // unordered with T1: they interfere
    return ev(b.join({ev(e2), ev(e3)}));
  });
  b.f.result = all(E);
  b.f.smem = {1024, 232448, "blk", "smem(1KB)", {file, 4, 3}};
  try {
    allocate_resources(b.f);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    DiagnosticEngine diag(sm);
    diag.report(e.diagnostic);
    EXPECT_EQ(diag.format_text(false),
              "k.loom:4:3: error: shared memory of blk needs 2224 bytes but smem(1KB) allows 1024\n"
              "k.loom:4:3: hint: raise smem(...) (at most smem(227KB)), use smaller tiles, lower pipeline(n), or map fewer "
              "tensors to SHARED\n"
              "k.loom:2:3: note: shared tensor `T1` (f32 [256]) takes 1024 bytes, placed in SHARED by instance `inst_T1`\n"
              "k.loom:3:3: note: shared tensor `T2` (f32 [300]) takes 1200 bytes, placed in SHARED by instance `inst_T2`\n");
  }
}

TEST(ResourceAllocation, SharedTensorWithoutStaticSizeIsAUserError) {
  Build b;
  ValueId A = b.tensor_param("A", 1);
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId n = b.dim(A, 0);
    ValueId T = b.alloc("T", {n});
    return ev(b.copy(A, T, {}));
  });
  b.f.result = all(E);
  try {
    allocate_resources(b.f);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic.message,
              "the size of shared tensor `T` is not known at compile time: extent 0 (%0) depends on dimension 0 of %A, a "
              "run-time size");
  }
}

// Tiles (rank >= 2, >= 1024 bytes: maybe swizzled) start at multiples of 1024 bytes, vectors and
// small fragments at multiples of 16.
TEST(ResourceAllocation, TilesAreAlignedTo1024BytesAndVectorsTo16) {
  Build b;
  ValueId A = b.tensor_param("A", 2), V = b.tensor_param("V", 1);
  ValueId T1 = 0, T2 = 0, V1 = 0, V2 = 0;
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId c10 = b.konst(10), c30 = b.konst(30), c0 = b.konst(0);
    ValueId Ap = b.blocks(A, {c10, c30}, {c0, c0}), Vp = b.blocks(V, {c30}, {c0});
    T1 = b.alloc("T1", {c10, c30});  // 1200 bytes
    T2 = b.alloc("T2", {c10, c30});
    V1 = b.alloc("V1", {c30});       // 120 bytes
    V2 = b.alloc("V2", {c30});
    std::vector<EventRef> done;
    for (auto [src, dst] : {std::pair{Ap, T1}, {Ap, T2}, {Vp, V1}, {Vp, V2}}) done.push_back(ev(b.copy(src, dst, {})));
    return ev(b.join(done));
  });
  b.f.result = all(E);
  b.f.smem.bytes = 8192;
  allocate_resources(b.f);
  ASSERT_EQ(ir::verify(b.f), "");
  EXPECT_EQ(b.f.smem_slots.at(T1).offset, 0);
  EXPECT_EQ(b.f.smem_slots.at(T2).offset, 2048);
  EXPECT_EQ(b.f.smem_slots.at(V1).offset, 1200);  // in the padding after T1, 16-aligned
  EXPECT_EQ(b.f.smem_slots.at(V2).offset, 1328);
  // A misaligned slot is an invalid IR.
  b.f.smem_slots.at(T2).offset = 1200;
  EXPECT_NE(ir::verify(b.f).find("is not a multiple of 1024"), std::string::npos) << ir::verify(b.f);
  b.f.smem_slots.at(T2).offset = 7168;
  EXPECT_NE(ir::verify(b.f).find("past the shared-memory budget of 8192 bytes"), std::string::npos) << ir::verify(b.f);
}

// ---- loops ----
// In a K loop, per iteration: X staged, read; then Y staged, read. X and Y are allocated per
// iteration but get one buffer each. When the iterations are chained by the carried event, X and
// Y are ordered — inside each iteration and across (iteration k's Y before k+1's X) — and may
// share bytes. When X's copy-in does not wait for the previous iteration (the K loop's copy-ins
// may run ahead), the pass makes it wait (one buffer serves one iteration at a time), and then
// they may share too. A loop whose only carried event has distance 2 orders iteration k after
// k - 2 only: X and Y interfere.
enum class Chain { Carried, Free, Distance2 };

struct LoopTiles {
  ir::Function f;
  ValueId X = 0, Y = 0, c = 0, in_x = 0, loop = 0;
};

ir::Op* find_mut(ir::Block& b, ValueId result) {
  for (ir::Op& op : b.ops) {
    if (op.result == result) return &op;
    for (ir::Block& r : op.regions)
      if (ir::Op* x = find_mut(r, result)) return x;
  }
  return nullptr;
}

LoopTiles loop_tiles(Chain chain) {
  Build b;
  LoopTiles t;
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId one = b.konst(1), four = b.konst(4);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId L = b.for_loop(four, {}, [&](ValueId, ValueId c) {
      t.c = c;
      ValueId n = b.konst(256);
      t.X = b.alloc("X", {n});
      t.Y = b.alloc("Y", {n});
      t.in_x = b.copy(A, t.X, chain == Chain::Free ? std::vector<EventRef>{} : std::vector<EventRef>{ev(c)});
      ValueId e2 = b.copy(t.X, C, {ev(t.in_x)});
      ValueId e3 = b.copy(A, t.Y, {ev(e2)});
      ValueId e4 = b.copy(t.Y, C, {ev(e3)});
      return ev(e4);
    });
    t.loop = L;
    return ev(L);
  });
  if (chain == Chain::Distance2) find_mut(b.f.body, t.loop)->distances = {2};
  b.f.result = all(E);
  t.f = b.f;
  return t;
}

TEST(ResourceAllocation, PerIterationTensorsShareBytesWhenIterationsAreChained) {
  LoopTiles t = loop_tiles(Chain::Carried);
  ASSERT_EQ(ir::verify(t.f), "");
  allocate_resources(t.f);
  ASSERT_EQ(ir::verify(t.f), "");
  EXPECT_EQ(t.f.smem_slots.at(t.X).offset, 0);
  EXPECT_EQ(t.f.smem_slots.at(t.Y).offset, 0);
  EXPECT_EQ(find_op(t.f.body, t.in_x)->after, (std::vector<EventRef>{ev(t.c)}));
}

TEST(ResourceAllocation, APerIterationBufferWaitsForThePreviousIteration) {
  LoopTiles t = loop_tiles(Chain::Free);
  allocate_resources(t.f);
  ASSERT_EQ(ir::verify(t.f), "");
  EXPECT_EQ(find_op(t.f.body, t.in_x)->after, (std::vector<EventRef>{ev(t.c)}));
  EXPECT_EQ(t.f.smem_slots.at(t.X).offset, 0);
  EXPECT_EQ(t.f.smem_slots.at(t.Y).offset, 0);
  for (uint64_t seed = 0; seed < 4; ++seed) {
    exec::View A = vec("A", std::vector<double>(256, 2)), C = vec("C", std::vector<double>(256, 0));
    exec::ExecResult r = exec::execute(t.f, {A, C}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(C.buffer()->data, A.buffer()->data);
  }
}

TEST(ResourceAllocation, ACarriedEventOfDistanceTwoDoesNotOrderConsecutiveIterations) {
  LoopTiles t = loop_tiles(Chain::Distance2);
  ASSERT_EQ(ir::verify(t.f), "");
  EXPECT_THROW(allocate_resources(t.f), CompileError);
  t = loop_tiles(Chain::Distance2);
  t.f.smem.bytes = 2048;
  allocate_resources(t.f);
  EXPECT_NE(t.f.smem_slots.at(t.X).offset, t.f.smem_slots.at(t.Y).offset);
}

// The iteration's yield must cover the last use of its buffer: here it names only X's copy-in, so
// the pass makes the iteration end with a join of both.
TEST(ResourceAllocation, TheIterationEndsAfterTheLastUseOfItsBuffer) {
  Build b;
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId one = b.konst(1), three = b.konst(3);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId L = b.for_loop(three, {}, [&](ValueId, ValueId c) {
      ValueId X = b.alloc("X", {b.konst(256)});
      ValueId e1 = b.copy(A, X, {ev(c)});
      b.copy(X, C, {ev(e1)});
      return ev(e1);
    });
    return ev(L);
  });
  b.f.result = all(E);
  allocate_resources(b.f);
  ASSERT_EQ(ir::verify(b.f), "");
  std::string text = ir::print(b.f);
  EXPECT_NE(text.find("      %y = join after [%e, %e.1]\n      yield %y\n"), std::string::npos) << text;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    exec::View Av = vec("A", std::vector<double>(256, 2)), Cv = vec("C", std::vector<double>(256, 0));
    exec::ExecResult r = exec::execute(b.f, {Av, Cv}, seed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(Cv.buffer()->data, Av.buffer()->data);
  }
}

// A tensor read inside a loop is live until the loop's yield waits for the read.
TEST(ResourceAllocation, ALoopCoversOnlyTheAccessesItsYieldWaitsFor) {
  for (bool yield_waits : {true, false}) {
    Build b;
    ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
    ValueId X = 0, Y = 0;
    ValueId one = b.konst(1), two = b.konst(2);
    ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
      ValueId n = b.konst(256);
      X = b.alloc("X", {n});
      Y = b.alloc("Y", {n});
      ValueId e1 = b.copy(A, X, {});
      ValueId L = b.for_loop(two, {ev(e1)}, [&](ValueId, ValueId c) {
        ValueId r = b.copy(X, C, {ev(c)});
        return yield_waits ? ev(b.join({ev(r)})) : ev(c);
      });
      ValueId e3 = b.copy(A, Y, {ev(L)});
      return ev(b.copy(Y, C, {ev(e3)}));
    });
    b.f.result = all(E);
    if (yield_waits) {
      allocate_resources(b.f);
      EXPECT_EQ(b.f.smem_slots.at(Y).offset, 0);
      EXPECT_EQ(b.f.smem_slots.at(X).offset, 0);
    } else {
      EXPECT_THROW(allocate_resources(b.f), CompileError);
    }
  }
}

// ---- processors ----
// X is written by every thread into its own slice and read the same way; Y is written after X's
// readers: per thread (%e[%t]: only that thread's reads are done) they interfere, after all of
// them (%e[:]) they do not — the point-wise edge from X's writers to its readers reaches every
// writer. When X's readers wait for thread 0's writer only (%e[%c0]), the other threads' writes
// are ordered before nothing of Y's: they interfere again. X depends on no proc_index: one buffer
// per block.
TEST(ResourceAllocation, PointWiseEventsDoNotOrderWholeTensors) {
  for (int variant = 0; variant < 3; ++variant) {
    const bool broadcast = variant != 1, only_thread0 = variant == 2;
    Build b;
    ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
    ValueId X = 0, Y = 0;
    ValueId one = b.konst(1);
    ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
      ValueId n = b.konst(256), eight = b.konst(8);
      X = b.alloc("X", {n});
      Y = b.alloc("Y", {n});
      ValueId t = b.proc_index(ProcKind::Thread);
      ValueId Ap = b.blocks(A, {eight}, {t}), Xp = b.blocks(X, {eight}, {t}), Yp = b.blocks(Y, {eight}, {t});
      ValueId Cp = b.blocks(C, {eight}, {t});
      ValueId e1 = b.copy(Ap, Xp, {}, {ProcKind::Thread});
      ValueId e2 = b.copy(Xp, Cp, {EventRef{e1, {only_thread0 ? b.konst(0) : t}}}, {ProcKind::Thread});
      ValueId e3 = b.copy(Ap, Yp, {broadcast ? all(e2) : EventRef{e2, {t}}}, {ProcKind::Thread});
      ValueId e4 = b.copy(Yp, Cp, {EventRef{e3, {t}}}, {ProcKind::Thread});
      return ev(b.join({all(e4)}));
    });
    b.f.result = all(E);
    b.f.proc_extents[ProcKind::Thread] = 32;
    ASSERT_EQ(ir::verify(b.f), "");
    if (broadcast && !only_thread0) {
      allocate_resources(b.f);
      ASSERT_EQ(ir::verify(b.f), "");
      EXPECT_EQ(b.f.smem_slots.at(X).offset, b.f.smem_slots.at(Y).offset);
      for (uint64_t seed = 0; seed < 4; ++seed) {
        exec::View Av = vec("A", std::vector<double>(256, 7)), Cv = vec("C", std::vector<double>(256, 0));
        exec::ExecResult r = exec::execute(b.f, {Av, Cv}, seed);
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_EQ(Cv.buffer()->data, Av.buffer()->data);
      }
    } else {
      EXPECT_THROW(allocate_resources(b.f), CompileError);
    }
  }
}

// An alloc whose extents depend on a proc_index is one buffer per processor: its slot holds all.
TEST(ResourceAllocation, PerProcessorAllocsTakeOneCopyPerProcessor) {
  Build b;
  ValueId A = b.tensor_param("A", 2);
  ValueId X = 0, Y = 0, Z = 0;
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId w = b.proc_index(ProcKind::Warp), t = b.proc_index(ProcKind::Thread);
    ValueId c0 = b.konst(0), c2 = b.konst(2), c8 = b.konst(8), c150 = b.konst(150);
    ValueId Ap = b.blocks(A, {b.konst(16), b.konst(64)}, {w, c0});
    X = b.alloc("X", {b.dim(Ap, 0), b.dim(Ap, 1)});  // 4 KB per warp
    ValueId Tp = b.blocks(A, {c2, c8}, {t, c0}), Up = b.blocks(A, {c2, c150}, {t, c0});
    Y = b.alloc("Y", {b.dim(Tp, 0), b.dim(Tp, 1)});  // 64 bytes per thread: 16-aligned copies
    Z = b.alloc("Z", {b.dim(Up, 0), b.dim(Up, 1)});  // 1200 bytes per thread: 1024-aligned copies
    return ev(b.join({all(b.copy(Ap, X, {}, {ProcKind::Warp})), all(b.copy(Tp, Y, {}, {ProcKind::Thread})),
                      all(b.copy(Up, Z, {}, {ProcKind::Thread}))}));
  });
  b.f.result = all(E);
  b.f.proc_extents = {{ProcKind::Warp, 4}, {ProcKind::Thread, 32}};
  b.f.smem.bytes = 16384 + 2048 + 32 * 2048;
  allocate_resources(b.f);
  ASSERT_EQ(ir::verify(b.f), "");
  EXPECT_EQ(b.f.smem_slots.at(X), (ir::SmemSlot{b.f.smem_slots.at(X).offset, 4 * 16 * 64 * 4, 4}));
  EXPECT_EQ(b.f.smem_slots.at(Y), (ir::SmemSlot{b.f.smem_slots.at(Y).offset, 32 * 64, 32}));
  EXPECT_EQ(b.f.smem_slots.at(Z), (ir::SmemSlot{b.f.smem_slots.at(Z).offset, 32 * 2048, 32}));
  EXPECT_NE(ir::print(b.f).find("@smem[65536, 81920) x4"), std::string::npos) << ir::print(b.f);
  b.f.smem_slots.at(Z).bytes = 32 * 1200;
  EXPECT_NE(ir::verify(b.f).find("copy size is not a multiple of 1024"), std::string::npos) << ir::verify(b.f);
}

// Budget pressure aliases the pair furthest apart first: of three tiles in a chain, T1 and T3.
TEST(ResourceAllocation, TheFurthestOrderedPairSharesFirst) {
  Build b;
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId T[3];
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId n = b.konst(256);
    for (ValueId& x : T) x = b.alloc("T", {n});
    EventRef last{};
    for (ValueId x : T) {
      ValueId w = b.copy(A, x, last.value == ir::kNone ? std::vector<EventRef>{} : std::vector<EventRef>{last});
      last = ev(b.copy(x, C, {ev(w)}));
    }
    return last;
  });
  b.f.result = all(E);
  b.f.smem.bytes = 2048;
  allocate_resources(b.f);
  ASSERT_EQ(ir::verify(b.f), "");
  EXPECT_EQ(b.f.smem_slots.at(T[0]).offset, b.f.smem_slots.at(T[2]).offset);
  EXPECT_NE(b.f.smem_slots.at(T[0]).offset, b.f.smem_slots.at(T[1]).offset);
  EXPECT_NE(b.f.smem_slots.at(T[1]).offset, b.f.smem_slots.at(T[2]).offset);
}

// Three ordered tiles of 1, 1 and 2 KB under a 2 KB budget: T3 must share bytes with both, but T1
// and T2 need not share with each other — the pass undoes every aliasing the budget does not need.
TEST(ResourceAllocation, OnlyTheAliasingTheBudgetNeedsIsKept) {
  Build b;
  ValueId A = b.tensor_param("A", 1), C = b.tensor_param("C", 1);
  ValueId T[3];
  ValueId one = b.konst(1);
  ValueId E = b.pfor(ProcKind::Block, one, {}, [&](ValueId) {
    ValueId small = b.konst(256), big = b.konst(512);
    T[0] = b.alloc("T", {small});
    T[1] = b.alloc("T", {small});
    T[2] = b.alloc("T", {big});
    EventRef last{};
    for (ValueId x : T) {
      ValueId Ap = b.blocks(A, {b.dim(x, 0)}, {b.konst(0)}), Cp = b.blocks(C, {b.dim(x, 0)}, {b.konst(0)});
      ValueId w = b.copy(Ap, x, last.value == ir::kNone ? std::vector<EventRef>{} : std::vector<EventRef>{last});
      last = ev(b.copy(x, Cp, {ev(w)}));
    }
    return last;
  });
  b.f.result = all(E);
  b.f.smem.bytes = 2048;
  allocate_resources(b.f);
  ASSERT_EQ(ir::verify(b.f), "");
  const ir::SmemSlot &s1 = b.f.smem_slots.at(T[0]), &s2 = b.f.smem_slots.at(T[1]), &s3 = b.f.smem_slots.at(T[2]);
  EXPECT_EQ(s3.offset, 0);
  EXPECT_TRUE(s1.offset + s1.bytes <= s2.offset || s2.offset + s2.bytes <= s1.offset)
      << "T1 at " << s1.offset << ", T2 at " << s2.offset;
}

// ---- the examples, through the real pipeline ----
// An independent check of the slots, on the CPU executor's random orders (which it records with
// ExecOptions::trace): of two tensors whose slots overlap, every op instance that touches one runs
// before every op instance that touches the other. Pairs allocated in the same `for` body are left
// out (their instances alternate by iteration, ordered by the carried event). Returns how many
// overlapping pairs were checked.
struct Accessors {
  std::map<std::string, std::set<ValueId>> by_path;  // "6.0.3" -> SHARED allocs the op touches
  std::map<ValueId, const ir::Block*> home;
};

void index_accessors(const ir::Function& f, const ir::Block& b, std::vector<int>& path, Accessors& out,
                     std::map<ValueId, ValueId>& root) {
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const ir::Op& op = b.ops[i];
    path.push_back(static_cast<int>(i));
    if (op.kind == OpKind::Alloc && op.mem == MemKind::Shared) {
      root[op.result] = op.result;
      out.home[op.result] = &b;
    }
    if (op.kind == OpKind::Piece && root.count(op.operands[0])) root[op.result] = root[op.operands[0]];
    if (op.kind == OpKind::Copy || op.kind == OpKind::Call) {
      std::string p;
      for (size_t k = 0; k < path.size(); ++k) p += (k ? "." : "") + std::to_string(path[k]);
      for (ValueId u : op.operands)
        if (root.count(u)) out.by_path[p].insert(root[u]);
    }
    for (const ir::Block& r : op.regions) index_accessors(f, r, path, out, root);
    path.pop_back();
  }
}

int expect_overlapping_tensors_never_interleave(const ir::Function& f, const std::vector<std::string>& trace) {
  Accessors acc;
  std::vector<int> path;
  std::map<ValueId, ValueId> root;
  index_accessors(f, f.body, path, acc, root);
  std::map<ValueId, std::vector<size_t>> when;  // tensor -> trace positions of its accesses
  for (size_t i = 0; i < trace.size(); ++i) {
    size_t at = trace[i].find(" at ");
    if (at == std::string::npos || trace[i].rfind("yield of", 0) == 0 || trace[i].rfind("completion of", 0) == 0) continue;
    size_t end = trace[i].find_first_not_of("0123456789.", at + 4);
    auto it = acc.by_path.find(trace[i].substr(at + 4, end - (at + 4)));
    if (it != acc.by_path.end())
      for (ValueId t : it->second) when[t].push_back(i);
  }
  int pairs = 0;
  for (const auto& [x, sx] : f.smem_slots)
    for (const auto& [y, sy] : f.smem_slots) {
      if (x >= y || sx.offset >= sy.offset + sy.bytes || sy.offset >= sx.offset + sx.bytes) continue;
      if (acc.home[x] == acc.home[y] && acc.home[x] != &f.body) {
        bool in_for = false;  // the same loop body: alternating instances
        std::function<void(const ir::Block&)> find = [&](const ir::Block& b) {
          for (const ir::Op& op : b.ops)
            for (const ir::Block& r : op.regions) {
              if (&r == acc.home[x] && op.kind == OpKind::For) in_for = true;
              find(r);
            }
        };
        find(f.body);
        if (in_for) continue;
      }
      const std::vector<size_t>& wx = when[x];
      const std::vector<size_t>& wy = when[y];
      if (wx.empty() || wy.empty()) continue;
      ++pairs;
      EXPECT_TRUE(wx.back() < wy.front() || wy.back() < wx.front())
          << "%" << f.info(x).name << " and %" << f.info(y).name << " share bytes but their accesses interleave";
    }
  return pairs;
}

struct ExampleRun {
  std::string label;  // the test name
  std::string name;   // the example
  std::map<std::string, int64_t> sizes;
  std::map<std::string, double> scalars;
  double ulps = 0;
  std::vector<std::pair<std::string, std::string>> edits;  // mapping edits (from, to)
  bool aliases = false;  // the budget forces some tensors to share bytes
};

void PrintTo(const ExampleRun& r, std::ostream* os) { *os << r.label; }

class ResourceAllocationExample : public ::testing::TestWithParam<ExampleRun> {};

TEST_P(ResourceAllocationExample, AllocatesAndStillMatchesTheReference) {
  const ExampleRun& ex = GetParam();
  std::string text = test::read_file(test::source_dir() + "/examples/" + ex.name + "/" + ex.name + ".loom");
  for (const auto& [from, to] : ex.edits) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  auto r = test::check_text(text, ex.name + ".loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  ir::Function f;
  try {
    f = lower_to_event_ir(r.program, *r.tree);
  } catch (const CompileError& e) {
    if (e.diagnostic.message.rfind("shared memory of", 0) == 0 || e.diagnostic.message.find("shared tensor") != std::string::npos)
      FAIL() << "resource allocation failed on " << ex.label << ": " << e.what();
    FAIL() << "an earlier pass rejects " << ex.label << ": " << e.what();
  }
  try {
    allocate_resources(f);  // again if the pipeline already ran it: the result must be the same
  } catch (const CompileError& e) {
    std::string notes;
    for (const Diagnostic& n : e.diagnostic.notes) notes += "\n  note: " + n.message;
    FAIL() << ex.label << ": " << e.what() << notes;
  }
  ASSERT_EQ(ir::verify(f), "");
  int shared = 0;
  std::function<void(const ir::Block&)> scan = [&](const ir::Block& b) {
    for (const ir::Op& op : b.ops) {
      if (op.kind == OpKind::Alloc && op.mem == MemKind::Shared) {
        ++shared;
        EXPECT_TRUE(f.smem_slots.count(op.result)) << "no slot for %" << f.info(op.result).name;
      }
      for (const ir::Block& x : op.regions) scan(x);
    }
  };
  scan(f.body);
  EXPECT_EQ(f.smem_slots.size(), static_cast<size_t>(shared));
  EXPECT_GT(shared, 0) << ex.label << " stages nothing in shared memory";
  exec::ExecOptions opt;
  opt.trace = true;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    exec::Args in = exec::make_inputs(r.program, *r.tree, ex.sizes, seed, ex.scalars);
    exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
    exec::run_reference(r.program, *r.tree, ref);
    exec::ExecResult res = exec::execute(f, exec::exec_args(got), seed, opt);
    ASSERT_TRUE(res.ok) << res.error;
    auto mm = exec::compare_outputs(ref, got, 0, ex.ulps);
    ASSERT_FALSE(mm) << ex.label << ", seed " << seed << ": " << mm->describe();
    int pairs = expect_overlapping_tensors_never_interleave(f, res.trace);
    if (ex.aliases) {
      EXPECT_GT(pairs, 0) << "the budget should force tensors to share bytes";
    }
  }
}

const std::vector<ExampleRun>& example_runs() {
  const std::map<std::string, int64_t> attention = {{"BH", 1}, {"M", 70}, {"N", 256}, {"D", 128}};
  static const std::vector<ExampleRun> runs = {
      // the L loop takes over the K loop's rings (warp_specialize.h, SHARED RINGS): 144 KB, not 288
      {"add_gemm", "add_gemm", {{"M", 130}, {"N", 260}, {"K", 70}, {"L", 40}}, {}, 0, {}, false},
      {"relu_gemm", "relu_gemm", {{"M", 130}, {"N", 260}, {"K", 70}}, {}, 0, {}, false},
      {"batched_gemm", "batched_gemm", {{"Bt", 2}, {"M", 130}, {"N", 260}, {"K", 70}}, {}, 0, {}, false},
      {"dual_gemm", "dual_gemm", {{"M", 130}, {"N", 130}, {"K", 70}}, {}, 0, {}, false},
      {"flash_attention_2", "flash_attention_2", attention, {{"scale", 0.25}}, 1, {}, false},
      // P is kept in registers (register_residents.h), so the first K tile has bytes of its own.
      {"flash_attention_3", "flash_attention_3", attention, {{"scale", 0.25}}, 1, {}, false},
      {"flash_attention_3_causal", "flash_attention_3_causal", attention, {{"scale", 0.25}}, 1, {}, false},
      {"gemm", "gemm", {{"M", 130}, {"N", 260}, {"K", 70}}, {}, 0, {}, false},
      {"gemm_reduce", "gemm_reduce", {{"M", 130}, {"N", 256}, {"K", 70}}, {}, 0, {}, false},
      {"gemm_reduce_shared", "gemm_reduce_shared", {{"M", 130}, {"N", 256}, {"K", 70}}, {}, 0, {}, false},
      {"gemm_bias_act", "gemm_bias_act", {{"M", 130}, {"N", 260}, {"K", 70}}, {}, 0, {}, false},
      {"gemm_residual", "gemm_residual", {{"M", 130}, {"N", 260}, {"K", 70}}, {{"alpha", 0.5}}, 0, {}, false},
  };
  return runs;
}

INSTANTIATE_TEST_SUITE_P(Examples, ResourceAllocationExample, ::testing::ValuesIn(example_runs()),
                         [](const ::testing::TestParamInfo<ExampleRun>& i) { return i.param.label; });

TEST(ResourceAllocationExamples, EveryExampleIsCovered) {
  std::set<std::string> covered;
  for (const ExampleRun& r : example_runs()) covered.insert(r.name);
  for (const auto& p : test::example_files()) EXPECT_TRUE(covered.count(p.stem().string())) << p.stem();
}

// GEMM without pipelining: the K loop allocates its A and B tiles per iteration; with one buffer
// each, an iteration's copy-ins must wait for the previous iteration (the carried event; marked
// cross(...) when warp-specialized: the DMA copy waits for the consumers). Still matches.
TEST(ResourceAllocationExamples, UnpipelinedGemmReusesItsTilesOneIterationAtATime) {
  for (std::string ws : {"", " warpspecialize"}) {
    std::string text = test::read_file(test::source_dir() + "/examples/gemm/gemm.loom");
    size_t at = text.find(" warpspecialize pipeline(3)");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::string(" warpspecialize pipeline(3)").size(), ws);
    auto r = test::check_text(text, "gemm.loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    ir::Function f = lower_to_event_ir(r.program, *r.tree);
    allocate_resources(f);
    ASSERT_EQ(ir::verify(f), "");
    int checked = 0;
    std::function<void(const ir::Block&)> scan = [&](const ir::Block& b) {
      for (const ir::Op& op : b.ops) {
        if (op.kind == OpKind::For) {
          const ir::Block& body = op.regions[0];
          std::set<ValueId> tiles;
          for (const ir::Op& x : body.ops)
            if (x.kind == OpKind::Alloc && x.mem == MemKind::Shared) tiles.insert(x.result);
          for (const ir::Op& x : body.ops) {
            if (x.kind != OpKind::Copy || !tiles.count(x.operands[1])) continue;
            EventRef c{body.args[1], {}};
            c.cross = !ws.empty();
            EXPECT_NE(std::find(x.after.begin(), x.after.end(), c), x.after.end()) << ir::print(f);
            ++checked;
          }
        }
        for (const ir::Block& x : op.regions) scan(x);
      }
    };
    scan(f.body);
    EXPECT_EQ(checked, 2) << "the A and B copy-ins\n" << ir::print(f);
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      exec::Args in = exec::make_inputs(r.program, *r.tree, {{"M", 130}, {"N", 260}, {"K", 200}}, seed);
      exec::Args ref = exec::copy_args(in), got = exec::copy_args(in);
      exec::run_reference(r.program, *r.tree, ref);
      exec::ExecResult res = exec::execute(f, exec::exec_args(got), seed);
      ASSERT_TRUE(res.ok) << res.error;
      auto mm = exec::compare_outputs(ref, got);
      ASSERT_FALSE(mm) << mm->describe();
    }
  }
}

// The final IR (the whole pipeline), slots printed `@smem[offset, end)`.
TEST(ResourceAllocationExamples, GoldenIR) {
  for (const char* name : {"gemm", "dual_gemm", "gemm_reduce", "flash_attention_2", "flash_attention_3"}) {
    SCOPED_TRACE(name);
    auto r = test::check_text(test::read_file(test::source_dir() + "/examples/" + name + "/" + name + ".loom"),
                              std::string(name) + ".loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    test::expect_golden(std::string("ir/") + name + ".ra.txt", ir::print(lower_to_event_ir(r.program, *r.tree)));
  }
}

// Register residents (register_residents.h) get a `registers` slot and no bytes: FA2's P (the
// bf16 tile the second GEMM reads as its A operand, forwarded from the probabilities' registers)
// and its row statistics (FA3 also has the last tile's P and statistics, after its loop); GEMM and
// GEMM + row sums kept in shared memory have none. The slots say exactly what the analysis (which
// the back end also uses) finds.
TEST(ResourceAllocationExamples, RegisterResidentsTakeNoSharedMemory) {
  for (auto [name, tiles, rows] : std::vector<std::tuple<std::string, size_t, size_t>>{
           {"flash_attention_2", 1, 8}, {"flash_attention_3", 2, 10}, {"gemm", 0, 0}, {"gemm_reduce_shared", 0, 0}}) {
    SCOPED_TRACE(name);
    auto r = test::check_text(test::read_file(test::source_dir() + "/examples/" + name + "/" + name + ".loom"), name + ".loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    ir::Function f = lower_to_event_ir(r.program, *r.tree);
    const RegisterResidents rr = find_register_residents(f);
    std::set<ValueId> in_regs;
    for (const auto& [v, slot] : f.smem_slots)
      if (slot.registers) {
        in_regs.insert(v);
        EXPECT_EQ(slot.bytes, 0) << f.info(v).name;
        EXPECT_TRUE(rr.contains(v)) << f.info(v).name;
      } else {
        EXPECT_FALSE(rr.contains(v)) << f.info(v).name;
      }
    EXPECT_EQ(rr.forwarded.size(), tiles);
    for (const auto& [tile, src] : rr.forwarded) {
      EXPECT_EQ(f.info(tile).rank, 2) << f.info(tile).name;
      EXPECT_EQ(f.info(tile).dtype, f.info(src).dtype) << f.info(tile).name;
    }
    EXPECT_EQ(rr.row_vectors.size(), rows);
    EXPECT_EQ(in_regs.size(), tiles + rows);
  }
}

// The least shared memory each example's thread block needs (every tensor that the events do not
// order before or after another in bytes of its own): what a smem(...) clause may be lowered to.
// Dual GEMM: one A tile per K step for both products (copy elimination merges the duplicate
// copies), so four stages of A, B1 and B2 are 192 KB. FA2: Q and two stages of K and V (160 KB);
// P and the row statistics are kept in registers (no bytes). FA3: Q loaded once, before the loop,
// and the prologue's K tile next to the rings (192 KB).
TEST(ResourceAllocationExamples, SharedMemoryEachExampleNeeds) {
  for (auto [name, bytes] : std::vector<std::pair<std::string, int64_t>>{{"gemm", 147456},
                                                                         {"batched_gemm", 147456},
                                                                         {"dual_gemm", 196608},
                                                                         {"gemm_reduce", 147456},
                                                                         {"flash_attention_2", 163840},
                                                                         {"flash_attention_3", 196608}}) {
    SCOPED_TRACE(name);
    std::string text = test::read_file(test::source_dir() + "/examples/" + name + "/" + name + ".loom");
    size_t at = text.find("smem(227KB)");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::string("smem(227KB)").size(), "smem(1KB)");
    auto r = test::check_text(text, name + ".loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    try {
      lower_to_event_ir(r.program, *r.tree);
      FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
      EXPECT_NE(e.diagnostic.message.find(" needs " + std::to_string(bytes) + " bytes but smem(1KB)"), std::string::npos)
          << e.diagnostic.message;
    }
  }
}

// The 1-based line of the first occurrence of `what` in `text`.
uint32_t line_of(const std::string& text, const std::string& what) {
  size_t at = text.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  if (at == std::string::npos) return 0;
  return 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// The budget is the kernel's BLOCK instance's smem(...), else the machine's maximum.
TEST(ResourceAllocationExamples, TheBudgetComesFromTheKernelInstance) {
  std::string text = test::read_file(test::source_dir() + "/examples/gemm/gemm.loom");
  for (const char* clause : {"smem(200KB)", ""}) {
    std::string t = text;
    size_t at = t.find("smem(227KB)");
    ASSERT_NE(at, std::string::npos);
    t.replace(at, std::string("smem(227KB)").size(), clause);
    auto r = test::check_text(t, "gemm.loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    ir::Function f = lower_to_event_ir(r.program, *r.tree);
    EXPECT_EQ(f.smem.bytes, *clause ? 200 * 1024 : 227 * 1024);
    EXPECT_EQ(f.smem.machine_max, 227 * 1024);
    EXPECT_EQ(f.smem.instance, "gemm_block");
    EXPECT_EQ(f.smem.clause, clause);
    EXPECT_EQ(f.smem.loc.line, *clause ? line_of(t, clause) : line_of(t, "instance gemm_block"));
  }
}

// GEMM without pipelining under a 40KB budget: its A (16KB) and B (32KB) tiles are read by the
// same mma, so they cannot share bytes.
TEST(ResourceAllocationExamples, GemmOverBudgetPointsAtTheSmemClause) {
  std::string text = test::read_file(test::source_dir() + "/examples/gemm/gemm.loom");
  for (auto [from, to] : {std::pair<std::string, std::string>{" warpspecialize pipeline(3)", ""}, {"smem(227KB)", "smem(40KB)"}}) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  auto r = test::check_text(text, "gemm.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  try {
    ir::Function f = lower_to_event_ir(r.program, *r.tree);
    allocate_resources(f);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostic;
    EXPECT_EQ(d.message, "shared memory of gemm_block needs 49152 bytes but smem(40KB) allows 40960");
    EXPECT_EQ(d.loc.line, line_of(text, "smem(40KB)"));
    ASSERT_EQ(d.notes.size(), 2u);
    EXPECT_NE(d.notes[0].message.find("(bf16 [128, 64]) takes 16384 bytes"), std::string::npos) << d.notes[0].message;
    EXPECT_NE(d.notes[1].message.find("(bf16 [64, 256]) takes 32768 bytes"), std::string::npos) << d.notes[1].message;
    EXPECT_NE(d.hint.find("raise smem(...) (at most smem(227KB))"), std::string::npos) << d.hint;
  }
}

// FA3 with three K/V stages: Q and three stages each of K and V are all in use at once in the loop
// (224 KB), and the prologue's K tile needs bytes of its own: 262144 bytes in all, beyond any
// budget a Hopper block can have. (P is kept in registers; the example is mapped with two stages.)
TEST(ResourceAllocationExamples, FlashAttention3WithThreeStagesDoesNotFit) {
  std::string text = test::read_file(test::source_dir() + "/examples/flash_attention_3/flash_attention_3.loom");
  size_t at = text.find("warpspecialize pipeline(2)");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("warpspecialize pipeline(2)").size(), "warpspecialize pipeline(3)");
  auto r = test::check_text(text, "flash_attention_3.loom");
  ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
  try {
    lower_to_event_ir(r.program, *r.tree);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic.message, "shared memory of attn_block needs 262144 bytes but smem(227KB) allows 232448");
  }
}

}  // namespace
}  // namespace loom

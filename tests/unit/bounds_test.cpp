// Tests of static bounds (src/passes/bounds.h): index arithmetic, dims of allocs and of pieces
// (blocks, slices, mma at each holder level), what stays unknown and why; and every on-chip
// tensor of the examples' final IR has a static size.
#include "passes/bounds.h"

#include <functional>

#include <gtest/gtest.h>

#include "passes/pipeline.h"
#include "test_util.h"

namespace loom {
namespace {

using ir::OpKind;
using ir::ValueId;

using test::IrBuilder;

using Bounds = std::vector<std::optional<int64_t>>;

TEST(StaticBounds, IndexArithmetic) {
  IrBuilder b;
  ValueId n = b.index_param("n");
  ValueId c3 = b.konst(3), c64 = b.konst(64), c200 = b.konst(200), cm5 = b.konst(-5);
  ValueId add = b.arith("add", c3, c64), sub = b.arith("sub", c64, c200), mul = b.arith("mul", c3, cm5);
  ValueId div = b.arith("div", c200, c64), cdiv = b.arith("cdiv", c200, c64), mod = b.arith("mod", c200, c64);
  ValueId mn = b.arith("min", n, c64), mx = b.arith("max", n, c64), mx2 = b.arith("max", c3, c64);
  ValueId pn = b.arith("add", n, c3), cd = b.arith("cdiv", n, c64);
  ValueId w = b.proc_index(ProcKind::Warp);
  ValueId wm = b.arith("mul", w, c64);
  b.f.proc_extents[ProcKind::Warp] = 4;
  ValueId k = 0, kmod = 0, nk = 0;
  b.for_loop(c200, {}, [&](ValueId kk, ValueId) {
    k = kk;
    kmod = b.arith("mod", kk, c3);
    nk = b.arith("mod", n, c3);  // n may be negative: only the upper end is known
    return ir::EventRef{};
  });
  StaticBounds sb(b.f);
  EXPECT_EQ(sb.upper_bound(c3), 3);
  EXPECT_EQ(sb.upper_bound(add), 67);
  EXPECT_EQ(sb.range(sub).lo, -136);
  EXPECT_EQ(sb.upper_bound(sub), -136);
  EXPECT_EQ(sb.range(mul).lo, -15);
  EXPECT_EQ(sb.upper_bound(div), 3);
  EXPECT_EQ(sb.upper_bound(cdiv), 4);
  EXPECT_EQ(sb.upper_bound(mod), 63);
  EXPECT_EQ(sb.upper_bound(mn), 64) << "min(n, 64) <= 64 whatever n is";
  EXPECT_EQ(sb.upper_bound(mx), std::nullopt);
  EXPECT_EQ(sb.upper_bound(mx2), 64);
  EXPECT_EQ(sb.upper_bound(n), std::nullopt) << "a parameter is a run-time value";
  EXPECT_EQ(sb.upper_bound(pn), std::nullopt);
  EXPECT_EQ(sb.upper_bound(cd), std::nullopt) << "cdiv of a value with no lower bound";
  EXPECT_EQ(sb.upper_bound(w), 3);
  EXPECT_EQ(sb.upper_bound(wm), 192);
  EXPECT_EQ(sb.upper_bound(k), 199);
  EXPECT_EQ(sb.range(k).lo, 0);
  EXPECT_EQ(sb.upper_bound(kmod), 2);
  EXPECT_EQ(sb.upper_bound(nk), 2);
  EXPECT_EQ(sb.range(nk).lo, std::nullopt);
}

TEST(StaticBounds, DimsOfAllocsAndBlocksAndSlices) {
  IrBuilder b;
  ValueId A = b.tensor_param("A", 3, DType::BF16);
  ValueId c0 = b.konst(0), c4 = b.konst(4), c64 = b.konst(64), c128 = b.konst(128);
  ValueId i = b.index_param("i");
  // A tile of a run-time tensor: blocks bound it; `*` leaves the run-time extent.
  ValueId Ap = b.blocks(A, {c4, ir::kNone, c64}, {i, c0, c0});
  EXPECT_EQ(StaticBounds(b.f).extent_bounds(Ap), (Bounds{4, std::nullopt, 64}));
  // An alloc with constant extents, cut smaller, then sliced.
  ValueId T = b.alloc("T", {c4, c128, c64}, MemKind::Shared, DType::BF16);
  ValueId Tp = b.blocks(T, {ir::kNone, c64, c128}, {c0, c0, c0});  // 128 > 64: the source bounds it
  ValueId row = b.slice(Tp, 1, i);
  ValueId d1 = b.dim(Tp, 1), d2 = b.dim(row, 1), dA = b.dim(Ap, 1);
  ValueId X = b.alloc("X", {b.dim(Ap, 0), b.dim(Ap, 2)}, MemKind::Shared, DType::F32);
  StaticBounds sb(b.f);
  EXPECT_EQ(sb.extent_bounds(T), (Bounds{4, 128, 64}));
  EXPECT_EQ(sb.extent_bounds(Tp), (Bounds{4, 64, 64}));
  EXPECT_EQ(sb.extent_bounds(row), (Bounds{4, 64}));
  EXPECT_EQ(sb.upper_bound(d1), 64);
  EXPECT_EQ(sb.upper_bound(d2), 64);
  EXPECT_EQ(sb.upper_bound(dA), std::nullopt);
  EXPECT_EQ(sb.extent_bounds(A), (Bounds{std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(sb.tensor_bytes_bound(T), 4 * 128 * 64 * 2);
  EXPECT_EQ(sb.tensor_bytes_bound(X), 4 * 64 * 4);
  EXPECT_EQ(sb.tensor_bytes_bound(A), std::nullopt);
  EXPECT_EQ(sb.why_unbounded(X), "");
}

// The wgmma m64n256k16 distribution (layout/partition.h): a warpgroup's [128, 256] accumulator
// goes to its 4 warps as [32, 256] (16 rows of each 64-row group), a warp's [32, 256] to its 32
// lanes as [4, 64] (the 256 values a thread holds); lhs [128, 64] -> [32, 64] -> [4, 64]; rhs
// [64, 256] whole per warp, then [64, 64] per lane; a row vector [128] -> [32] -> [4].
TEST(StaticBounds, MmaPiecesAreTheInstructionTilePerHolderLevel) {
  IrBuilder b;
  ValueId c64 = b.konst(64), c128 = b.konst(128), c256 = b.konst(256);
  ValueId w = b.proc_index(ProcKind::Warp), t = b.proc_index(ProcKind::Thread);
  ValueId C = b.alloc("C", {c128, c256}, MemKind::Shared, DType::F32);
  ValueId A = b.alloc("A", {c128, c64}, MemKind::Shared, DType::BF16);
  ValueId B = b.alloc("B", {c64, c256}, MemKind::Shared, DType::BF16);
  ValueId v = b.alloc("v", {c128}, MemKind::Shared, DType::F32);
  ValueId Cw = b.mma(C, MmaRole::Acc, ProcKind::Warpgroup, w), Ct = b.mma(Cw, MmaRole::Acc, ProcKind::Warp, t);
  ValueId Aw = b.mma(A, MmaRole::Lhs, ProcKind::Warpgroup, w), At = b.mma(Aw, MmaRole::Lhs, ProcKind::Warp, t);
  ValueId Bw = b.mma(B, MmaRole::Rhs, ProcKind::Warpgroup, w), Bt = b.mma(Bw, MmaRole::Rhs, ProcKind::Warp, t);
  ValueId vw = b.mma(v, MmaRole::Acc, ProcKind::Warpgroup, w), vt = b.mma(vw, MmaRole::Acc, ProcKind::Warp, t);
  ValueId R = b.alloc("R", {b.dim(Ct, 0), b.dim(Ct, 1)}, MemKind::Shared, DType::F32);  // a thread's register fragment
  b.f.proc_extents = {{ProcKind::Warp, 4}, {ProcKind::Thread, 32}};
  StaticBounds sb(b.f);
  EXPECT_EQ(sb.extent_bounds(Cw), (Bounds{32, 256}));
  EXPECT_EQ(sb.extent_bounds(Ct), (Bounds{4, 64}));
  EXPECT_EQ(sb.extent_bounds(Aw), (Bounds{32, 64}));
  EXPECT_EQ(sb.extent_bounds(At), (Bounds{4, 64}));
  EXPECT_EQ(sb.extent_bounds(Bw), (Bounds{64, 256}));
  EXPECT_EQ(sb.extent_bounds(Bt), (Bounds{64, 64}));
  EXPECT_EQ(sb.extent_bounds(vw), (Bounds{32}));
  EXPECT_EQ(sb.extent_bounds(vt), (Bounds{4}));
  EXPECT_EQ(sb.tensor_bytes_bound(R), 4 * 64 * 4);
}

TEST(StaticBounds, WhyASizeIsUnknown) {
  IrBuilder b;
  ValueId A = b.tensor_param("A", 2, DType::BF16);
  ValueId n = b.index_param("n");
  ValueId c64 = b.konst(64), c0 = b.konst(0);
  ValueId Ap = b.blocks(A, {c64, ir::kNone}, {c0, c0});
  ValueId X = b.alloc("X", {b.dim(Ap, 0), b.dim(Ap, 1)}, MemKind::Shared, DType::BF16);
  ValueId Y = b.alloc("Y", {c64, b.arith("add", n, c64)}, MemKind::Shared, DType::BF16);
  ValueId Z = 0;
  b.for_loop(n, {}, [&](ValueId k, ValueId) {
    Z = b.alloc("Z", {b.arith("add", k, c64)}, MemKind::Shared, DType::BF16);
    return ir::EventRef{};
  });
  StaticBounds sb(b.f);
  EXPECT_EQ(sb.why_unbounded(X), "extent 1 (%3) depends on dimension 1 of %A, a run-time size");
  EXPECT_EQ(sb.why_unbounded(Y), "extent 1 (%4) depends on %n, a run-time argument");
  EXPECT_EQ(sb.why_unbounded(Z), "extent 0 (%5) depends on loop variable %k, whose trip count depends on %n, a run-time argument");
  EXPECT_EQ(sb.tensor_bytes_bound(Y), std::nullopt);
}

// The code generator sizes shared tiles and register fragments statically: every SHARED and
// REGISTER tensor of the examples' final IR has a bound.
TEST(StaticBounds, EveryOnChipTensorOfTheExamplesHasAStaticSize) {
  for (const auto& path : test::example_files()) {
    auto r = test::check_text(test::read_file(path), path.filename().string());
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    ir::Function f;
    try {
      f = lower_to_event_ir(r.program, *r.tree);
    } catch (const CompileError& e) {
      continue;  // an earlier pass rejects the example (reported by its own tests)
    }
    StaticBounds sb(f);
    int on_chip = 0;
    std::function<void(const ir::Block&)> scan = [&](const ir::Block& blk) {
      for (const ir::Op& op : blk.ops) {
        if (op.kind == OpKind::Alloc && (op.mem == MemKind::Shared || op.mem == MemKind::Register)) {
          ++on_chip;
          EXPECT_TRUE(sb.tensor_bytes_bound(op.result).has_value())
              << path.stem() << ": %" << f.info(op.result).name << " (" << op.origin << "): " << sb.why_unbounded(op.result);
        }
        for (const ir::Block& x : op.regions) scan(x);
      }
    };
    scan(f.body);
    EXPECT_GT(on_chip, 0) << path.stem();
  }
}

}  // namespace
}  // namespace loom

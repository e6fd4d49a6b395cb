// Warp specialization and software pipelining (Cypress section 4.2.5, Figs. 1 and 12): the pass
// after copy elimination. Pipelining (1) and warp specialization (3) act on the `for` loops that
// the mapping marked (dependence analysis puts the BLOCK instance's `pipeline(D)` and
// `warpspecialize` on the innermost loops of its sranges; docs/mapping.md, Block options); the
// single-buffer ordering (2) applies to every `for`.
//
// WHAT AND WHY. A Hopper GEMM main loop is fast when the TMA copies of the next K tiles run while
// the tensor cores work on the current one. The event IR already allows that — the copy-ins of an
// iteration do not wait on the carried event (ir.h, `for`) — but each iteration allocates its own
// shared tiles, which a GPU cannot do. Pipelining gives those tiles D fixed slots, and warp
// specialization says which warps issue the copies (the producer, DMA) and which compute (the
// consumers), so the back end can write the skeleton of Fig. 1: a producer loop of TMA copies
// into a ring of D slots and consumer loops of wgmma, tied by full/empty mbarriers.
//
// 1. PIPELINING (a loop with pipeline(D), D > 1) — "unroll to D and compact back". A DMA copy is a
//    plain `copy` whose source is in GLOBAL and destination in SHARED memory. For each top-level
//    DMA copy X of the body, with a single event (not vectorized), into a top-level SHARED `alloc`
//    T of the body that no other DMA copy writes, T becomes slot k mod D of a buffer hoisted before
//    the loop with a leading dimension D, and X waits for a new carried event of distance D — the
//    completion of iteration k-D, whose ops read the slot (write-after-read; also orders X after
//    the previous write, X of k-D). X does NOT wait on the distance-1 carried event: that is what
//    lets the DMA run D iterations ahead. Conditions (else T stays a fresh per-iteration buffer):
//      - every other op of the body (at any depth) that uses T or a view of it waits for X
//        (transitively through `after` lists, so no access of slot k happens before X of k);
//      - each extent of T has a bound known before the loop: a constant (the tile size, preferred:
//        the back end sizes shared memory statically) or an extent of a tensor defined before the
//        loop, found through `dim`, `piece blocks/slices` and `alloc` (mma pieces are not followed).
//    When a bound may exceed the iteration's extent (a clipped edge tile), the slot is cut to the
//    extent with `piece blocks[extents] [0, ...]` (a run-time extent of 0 would read as `*` there;
//    tiles of a cdiv grid are never empty). A copy whose source is the same every iteration (e.g.
//    flash attention's Q tile, when copy elimination has not moved it out) gets no ring: D copies
//    of the same data would only cost shared memory. Before -> after (GEMM's A tile, D = 3):
//      %e.1 = for %k in [0, %4) iter(%c) pipeline(3) after [...] {
//        %A.1 = alloc SHARED bf16 [%M.3, %K.1]
//        %e.2 = copy %Ap.1 -> %A.1 after []
//        ... %e.4 = call mma(%C.1, %Ap.4, %Bp.3) after [%c, %e.2, %e.3] ...
//    ->
//      %c3 = const 3
//      %A_stages = alloc SHARED bf16 [%c3, %U, %W]
//      %e.1 = for %k in [0, %4) iter(%c, %w distance 3) pipeline(3) after [...] {
//        %slot = mod %k, %c3
//        %A_slot = piece %A_stages slices(0) [%slot]
//        %A.1 = piece %A_slot blocks[%M.3, %K.1] [%c0, %c0]
//        %e.2 = copy %Ap.1 -> %A.1 after [%w]
//        ...
//    Every access of the slot must also complete before the iteration's yield: see 2.
//    SHARED RINGS. Consecutive pipelined loops of one block (examples/add_gemm: a K loop over A, B
//    into an accumulator, then an L loop over C, D into the same one) would each hoist rings of
//    their own, though the second loop's run after the first's. When every ring a loop needs
//    matches a distinct ring of the block's previous pipelined loop — element type, layout,
//    constant slot bounds, depth and warp specialization, and as many rings — the loop takes those
//    buffers over (slot l mod D of the same alloc) instead of hoisting new ones. Its copy into a
//    slot then overwrites what the previous loop read there: unless the loop already waits for the
//    previous loop's event, each such copy gets it as a precondition (the IR cannot name one
//    iteration of a finished loop, so the first D copies wait for all of it). The back end runs
//    the two loops on one ring (src/codegen/rings.cpp). Before -> after (add_gemm, the L loop):
//      %A_stages.1 = alloc SHARED bf16 [%c3, %U, %c64]   // gone: the K loop's %A_stages is used
//      %e.6 = for %l in [0, %7) iter(%c.1, %w.1 distance 3) pipeline(3) after [%e.1] {
//        %slot.1 = mod %l, %c3
//        %A_slot.1 = piece %A_stages slices(0) [%slot.1]
//        ...
// 2. ONE ITERATION AT A TIME (every `for`). A SHARED buffer of a loop body is one buffer on the GPU
//    (resource_allocation.h), though the IR makes a fresh one per iteration. So every access of a
//    SHARED alloc at the top of the body must wait (transitively) for the distance-1 carried event
//    — missing waits go on its first accesses, e.g. the copy-ins of a loop that is not pipelined:
//    `copy %Ap.1 -> %A.1 after []` becomes `after [%c]` — and every access of such a buffer or of a
//    ring slot must complete before the iteration's yield: a yield that does not wait for one (in
//    the body, or in a loop inside it) becomes `%y = join after [old yield, the access]` (a later
//    yield is always legal).
// 3. WARP SPECIALIZATION (a loop with warpspecialize). The kernel scope is the body of the
//    innermost `pfor BLOCK` around the loop (the function body when there is none). Every
//    asynchronous op in it gets a role: DMA copies `role(dma)`; a loop holding ops of both roles
//    none (both run it); any other op `role(compute)` — also outside the loop: the prologue (the
//    accumulator clear) and the epilogue (the copy-out) run on the consumer warpgroups, which hold
//    the accumulator in registers. Every `after` reference inside the scope whose producer's role
//    does not cover the waiting op's is marked `cross(...)` (the back end lowers it to an mbarrier):
//    the compute ops' waits for the DMA copies (full barriers), the DMA copies' waits for the
//    distance-D event (empty barriers; the yield is produced by compute ops), and the loop's own
//    preconditions produced by compute ops (the producer waits for them too). The producer of a
//    loop's event or of a carried event is the producer of the body's yield.
// 4. REGISTER SPLIT. Function::warp_roles records 1 DMA warpgroup and C = proc_extents[WARPGROUP]
//    (1 if absent) compute warpgroups. With one block per SM, the warpgroups share
//    P = regs_per_sm / threads per warpgroup (65536 / 128 = 512) registers per thread slot; the
//    producer keeps kDmaRegs = 40 (it only computes TMA coordinates and waits; CUTLASS's choice), and
//    each consumer gets the rest: compute = min(setmaxnreg_max, round_down_to_step((P - 40) / C)).
//    C = 2: 40 / 232 (40 + 2 * 232 = 504 <= 512); C = 1: 40 / 256; C = 3: 40 / 152; C = 4: 40 / 112.
//    On a machine without setmaxnreg (sm_80) both counts are 0: no split. The mapping's regs(P, C)
//    on the instance replaces the rule (FlashAttention-3's 24 / 240; schedule(optimal) derives it
//    from the schedule, schedule_optimal.h) if the pool holds it: P + C x compute <= the pool, else
//    a located error.
//
// INVARIANTS. The pass only adds preconditions (the distance-D and distance-1 waits, a later
// yield) and reuses buffers whose every access it ordered, so every schedule of the result is one
// of the original's with the buffer reuse race-free: the CPU executor must still match the
// reference. Roles and `cross` marks change nothing the executor sees. Without the mapping
// keywords only 2 applies. Running the pass twice changes nothing more.
// Test: tests/unit/warp_specialize_test.cpp (goldens tests/golden/ir/<example>.ws.txt).
#pragma once

#include "ir/ir.h"
#include "loom/machine.h"

namespace loom {

void warp_specialize(ir::Function& f, const Machine& m);

// The register split of section 4 for `compute_warpgroups` consumer warpgroups on `m`.
ir::WarpRoles warp_roles_for(int64_t compute_warpgroups, const Machine& m);

// The registers per thread slot a block of `warpgroups` warpgroups has at launch on `m` (the pool
// setmaxnreg moves registers within, section 4); 0 on a machine without setmaxnreg.
int64_t register_pool(int64_t warpgroups, const Machine& m);

// What each thread of a block of `warpgroups` warpgroups gets at launch, before any setmaxnreg
// (register_pool's share per warpgroup; what a kernel variant without a DMA role runs with).
int64_t regs_at_launch(int64_t warpgroups, const Machine& m);

// What each of `compute_warpgroups` compute warpgroups gets when `dma_warpgroups` DMA warpgroups keep
// `dma_regs` registers a thread: the rest of the block's pool shared evenly, rounded down to
// setmaxnreg's step, at most setmaxnreg_max (0 on a machine without setmaxnreg). Below
// setmaxnreg_min the split cannot be made.
int64_t compute_regs_left(int64_t dma_regs, int64_t dma_warpgroups, int64_t compute_warpgroups, const Machine& m);

}  // namespace loom

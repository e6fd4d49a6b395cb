// Resource allocation (Cypress section 4.2.4, Fig. 11): the last pass of the middle end. It binds
// every SHARED tensor of a thread block to bytes of the block's shared memory, within the budget
// the mapping gives (`smem(...)` on the kernel's BLOCK instance, else the machine's maximum;
// ir::Function::smem), aliasing tensors whose lifetimes the events order — as little as the budget
// allows — and records the result in ir::Function::smem_slots (printed `@smem[offset, end)`).
//
// TENSORS. One per SHARED `alloc` op inside a `pfor BLOCK` (its innermost one is the thread block;
// each is allocated on its own). An alloc in a `for` body is a fresh buffer per iteration in the IR
// but one buffer here (ONE BUFFER PER ALLOC below); a pipelined buffer is hoisted before the loop
// by the pipelining pass with a leading dimension of size `depth` — an ordinary, larger alloc
// here, whose slot reuse that pass orders (warp_specialize.h). Sizes are static
// (bounds.h): the product of the extents' upper bounds times the element size, times the number
// of copies when the alloc is evaluated once per processor (its extents depend on a proc_index)
// or per iteration of an enclosing non-BLOCK pfor (each copy padded to the alignment). Offsets
// are aligned (ir::smem_alignment): 1024 bytes for a tile that may hold a swizzle atom (rank >= 2,
// at least 1024 bytes: a 128-byte-swizzle atom is 1024 bytes), 16 for vectors and small
// fragments. (All at 1024 would not fit flash_attention_2's six row-statistics vectors of 512
// bytes next to its 224 KB of tiles, nor a thread's 64-byte fragment per thread.)
//
// ONE BUFFER PER ALLOC (first, before allocating). For a tensor allocated in a `for` body, one
// buffer serves every iteration only if iteration k + 1's accesses follow all of iteration k's.
// So, for each enclosing `for` up to the thread block, the pass makes the loop's yield wait for
// every access (a new `%y = join after [old yield, ...]` when some access is not waited for) and
// the first accesses wait for the distance-1 carried event (`after [%c]`, `cross(%c)` for a DMA
// copy of a warp-specialized loop) — only where the events do not already say so. E.g. an
// unpipelined K loop's tile copy-ins (`after []`, free to run ahead) wait for the previous
// iteration's mma: one iteration in flight, as one buffer allows. A pfor's iterations get copies
// of their own instead (above).
//
// INTERFERENCE. An access of a tensor is a copy or call with an operand that is the tensor or a
// piece of it (following piece chains to the alloc). X happens-before Y when every access of X
// completes before any access of Y starts, as the events prove. The proof works in the deepest
// block B holding both allocs: there each access is summarized by the op of B that contains it
// (itself, or the loop around it), and for all summaries x of X and y of Y, x must precede y
// "fully" in B's event graph — every instance of y (a vectorized op runs once per processor) waits,
// transitively, for every instance of x. Edges are `after` references (and the body's yield): a
// plain event or an all-`:` reference E[:, :] is full; E[%g, ...] is point-wise and counts only
// on a path whose full part is preceded by references that reach every instance (each index a
// proc_index the waiting op is vectorized over) and followed by any references. A loop summary
// precedes only as far as its body's yield waits (fully) for the access inside it. When B lies in a
// `for` body, X and Y are per-iteration tensors in one buffer each: every access must also wait for
// a distance-1 carried event and be waited for by the yield (so iteration k + 1's accesses follow
// all of iteration k's; longer-distance carried events order nothing here); a pfor or vectorized
// `for` between B and the thread block, or a loop without a distance-1 carried event, makes them
// interfere. X and Y interfere unless X happens-before Y or Y before X: whatever cannot be proven
// ordered interferes. (A tensor with no access interferes with nothing.)
//
// ALLOCATION (Cypress after Knight et al. 2007). Start from the complete graph: the interference
// edges plus an auxiliary edge between every ordered pair, i.e. every tensor in bytes of its own.
// While the assignment does not fit the budget, drop the next auxiliary edge, in this order: the
// pair furthest apart in program order first (the first access of the later tensor minus the last
// access of the earlier one, counting ops in pre-order: the most work between them, so sharing
// their bytes is the least likely to cost overlap should a later change relax the ordering), then
// the pair that can share the most bytes (the smaller size), then program order. Once it fits,
// each dropped edge is tried back, latest first, and kept when the assignment still fits, so no
// single aliasing can be undone. An assignment for a set of edges is first fit (each tensor at the
// lowest aligned offset that overlaps none of its already placed neighbours) in two orders —
// largest first, and program order — keeping the smaller peak (a heuristic: finding the least
// peak is NP-hard). If the interference edges alone do not fit, that is the user's error (below).
// Since only tensors the events already order may share bytes, aliasing never removes
// parallelism the IR allows; minimizing it keeps the slots distinct for the back end and leaves
// room for a weaker interference relation later (ordering tensors by new edges, as Cypress does).
//
// WRITE-AFTER-READ EDGES. For every two tensors whose bytes overlap, X before Y, with no third one
// overlapping both in between, the last accesses of X (in practice its readers; the summaries in
// B that precede no other summary of X) become `after` references of the first accesses of Y (its
// writers: a fresh buffer is written first; the summaries in B that follow no other) — on the
// enclosing op in B when an access is inside a loop; vectorized events with `:`; marked
// `cross(...)` when the warp roles differ, as warp specialization marks them. The events already
// imply them (that is how X before Y was proven), so they add no order and no deadlock; they make
// the reuse explicit for the back end. Across iterations of a `for` (two per-iteration tensors
// sharing bytes) the carried event orders iteration k's last access before iteration k + 1's first.
//
// INVARIANTS after the pass: every SHARED alloc in a thread block has a slot (an alloc outside any
// `pfor BLOCK` is an internal error); slots are aligned and end within ir::Function::smem.bytes
// (the verifier checks both); two slots overlap only if one tensor happens-before the other; an
// alloc in a `for` body is used by one iteration at a time. The pass only adds preconditions (and
// later yields), so every schedule of the result is one of the input's: the CPU executor still
// matches. It may run again (slots are recomputed; edges it added are not added twice).
//
// ERRORS (user errors, thrown as CompileError — loom/diagnostics.h — for the caller to report):
//   file:line:col: error: shared memory of gemm_block needs 49152 bytes but smem(40KB) allows 40960
//   (at the smem(...) clause), one note per shared tensor (at its alloc: its type, size, copies and
//   the instance that placed it in SHARED), and a hint (raise smem(...) up to the machine's
//   maximum, smaller tiles, a lower pipeline(n), fewer tensors in SHARED). A SHARED tensor whose
//   size has no static bound is also an error, at its alloc, naming the unbounded extent.
//
// EXAMPLE (budget of one tile; %T1 and %T2 1024 bytes each, %e3 waits for %T1's reader):
//   before:  %T1 = alloc SHARED f32 [%c256]
//            %T2 = alloc SHARED f32 [%c256]
//            %e1 = copy %A -> %T1 after []
//            %e2 = copy %T1 -> %C after [%e1]
//            %e3 = copy %B -> %T2 after [%e2]
//   after:   %T1 = alloc SHARED f32 [%c256] @smem[0, 1024)
//            %T2 = alloc SHARED f32 [%c256] @smem[0, 1024)
//            ...
//            %e3 = copy %B -> %T2 after [%e2]        (the WAR edge %e2 is already there)
// Test: tests/unit/resource_allocation_test.cpp.
#pragma once

#include "ir/ir.h"

namespace loom {

// Fills f.smem_slots (f.smem must hold the budget) and adds the preconditions described above
// (one iteration per buffer, write-after-read). Throws CompileError when the shared tensors of a
// thread block cannot fit f.smem.bytes or one has no static size; raises an internal error for a
// SHARED alloc outside every `pfor BLOCK` or a function without a budget.
void allocate_resources(ir::Function& f);

}  // namespace loom

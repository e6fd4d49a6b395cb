// Copy elimination (Cypress section 4.2.3, Fig. 10): the third pass of the middle end. It removes
// the copies and temporaries that the copy-in/copy-out discipline of the dependence analysis
// introduced, keeping every dependence the removed copies carried.
//
// REWRITES (applied to a fixed point; each round runs them in this order):
//  1. canonicalize — `dim` of an `alloc` folds to the extent operand; identical immediate ops
//     (const, fconst, arith, dim, proc_index, piece) within a scope are merged (CSE), a `dim` along
//     a whole (`*`) dimension of a `blocks` piece counting as the same `dim` of the piece's tensor;
//     immediate ops of a `for` body whose operands are defined outside it are hoisted before the
//     loop (LICM). This makes two pieces cut the same way from the same tensor the same SSA value,
//     which the patterns below compare (GEMM + row sums: the copy-out's pieces of the accumulator,
//     sized from the output tile's rows, and the K loop's, sized from the accumulator's). A `dim`
//     along a whole dimension of a `blocks` piece of a NONE allocation folds to the allocation's
//     extent, so a leading piece `blocks(X, [*, n])[0, 0]` and X are cut alike along their rows. A
//     piece's memory is its tensor's (updated when a rewrite places a NONE tensor in a real buffer).
//  2. spill elimination (Fig. 10a) — `copy X1 -> P` followed in the same block by `copy P -> X2`,
//     X2 a fresh allocation in X1's memory written only by that copy, P not touched in between,
//     X1 not written afterwards: X2 becomes X1 and the second copy goes. (GEMM: the accumulator
//     registers the clear task filled are the ones the K loop accumulates into.)
//  3. spill hoisting (Fig. 10b) — in a `for` body, a fresh allocation X copied in from a
//     loop-invariant P at the top and back to P at the bottom, P (and every tensor cut from P's
//     root) not otherwise used in the loop: X, its copy-in and its copy-out move before / after
//     the loop. (GEMM: the accumulator stays in registers for the whole K loop.)
//  4. coalescing (self-copy and duplicate-copy elimination, Fig. 10c/d) — a fresh allocation X
//     copied in from S and/or out to S, S in X's memory with X's element type, and no other copy
//     into or out of X: X is replaced by S, and the copies, now S -> S, go. Duplicates of the same
//     data (each warpgroup copying the shared B tile into "its own" shared B) collapse this way.
//     A NONE X that is only read (copied in, never written) may also take S in SHARED or GLOBAL:
//     the callee reads the caller's tensor in place. X may not be replaced by a replicated row
//     piece that it updates (each lane's update must stay private) unless X is only overwritten
//     (no copy-in, no op that reads what it writes: the lanes write equal values).
//  4c. register conduits (only once nothing above applies) — a NONE allocation X accessed only by
//     plain copies between one piece P of it (one processor's) and REGISTER allocations: P becomes
//     a REGISTER allocation R of its own. The copies may also reach P through leading cuts (a
//     `blocks` piece at index 0 in every dimension, `blocks(X, [*, n])[0, 0]`, possibly clipped) in
//     a chain of pieces otherwise the same partitions with the same block sizes and indices: such
//     a piece is a leading box of P in P's compact coordinates (partitions map leading boxes to
//     leading boxes), so its copies use `piece R blocks[dim(V, 0), ...] [0, ...]` — the same
//     registers, fewer of them. (FA3: the scores carried across the K loop, its first GEMMs writing
//     and its last softmax reading the clipped view of the last, narrower key tile.)
//  4h. leading pieces (only once nothing above applies) — a NONE allocation X all of whose accesses
//     go through one leading cut W of it, cut in X's block: W becomes a NONE allocation of its own
//     (W's extents, where W is defined), which the rewrites above then place (FA3: the last tile's
//     probabilities, a clipped view of Pl, go straight into the shared tile of the last P*V GEMM).
//  4e. loop-invariant copies (only once nothing above applies) — in a `for` body, a copy S -> X
//     into an allocation X of the body (not NONE), S defined before the loop and its root written
//     nowhere in the loop, X written by nothing else, the copy waiting for nothing the loop
//     defines: X and the copy move before the loop, the copy after the loop's preconditions, and
//     the loop waits for it (so the body's readers of X and, through the loop's event, any later
//     writer of S stay ordered). (Flash attention: the Q tile, copied again for every K/V tile.)
//  4f. duplicate copies (section 4.2.3) — copy S -> X1, then copy S -> X2 in the same block, X1 and X2
//     allocations alike (memory, element type, extents, layout; not NONE), each written only by its
//     copy, S's root not written between the two copies: X2 is replaced by X1 and the second copy
//     becomes a join that also waits for the first (point-wise when both copies run on the same
//     processors), so X2's readers wait for the data in X1. (Dual GEMM: the A tile both products
//     read, one shared buffer — and one ring — instead of two; with 4e, FA3's Q tile.)
//       before:  %e1 = copy %Ap -> %A1 after [%p]     after:  %e1 = copy %Ap -> %A1 after [%p]
//                %e2 = copy %Ap -> %A2 after [%q]             %e2 = join after [%q, %e1]
//                ... mma(%C2, %A2, ...) after [%e2]           ... mma(%C2, %A1, ...) after [%e2]
//  4g. reduction forwarding (only once nothing above applies) — a reduction instance X (a red(op)
//     argument's allocation, not distinct; NONE or in S's memory): `fill(X, identity)`, then only
//     reducing copies `copy.op Y -> X or a piece of X` in the same block, then `copy.op X -> S`,
//     with no other access of S's root in between: X := S, the fill and the fold become joins, and
//     every reduction into X also waits for what the fold waited for besides those reductions (the
//     caller's last write and reads of S's root: dependence analysis step (4)); later accesses of S
//     still wait for the fold's join, which waits for all of them. S op (id op Y1 op ...) = S op Y1
//     op ... (reductions commute, ir.h). (GEMM + row sums: the block, warpgroup and warp instances
//     of the row sums go; each lane reduces its partial sums from registers straight into Racc.)
//       %f = call fill(%X, %zero) after [%a]             %f = join after [%a]
//       %r = copy.sum %Y -> %Xp after [%b]       ==>     %r = copy.sum %Y -> %Sp after [%b, %p]
//       %o = copy.sum %X -> %S after [%r, %p]            %o = join after [%r, %p]
//  5. dead copies — a copy into a local allocation none of whose elements is read afterwards.
// A removed copy keeps its event: it becomes a `join` with the copy's preconditions (self-copy
// event forwarding: a collapsed event array stays collapsed). Then
//  6. join forwarding — a reference to a join in an `after` list is replaced by the join's
//     preconditions, the join's processor indices substituted by the reference's indices (so
//     E[:] stays a broadcast and E[%t] stays point-wise); joins nothing references are removed;
//  7. dead code — immediate ops and allocations nothing uses are removed.
// Soundness rests on the dependence analysis ordering every access of an argument's root in the
// caller before a callee's copy-in / after its copy-out *and* after/before the callee's own
// accesses (read-only arguments stay read until the callee's last read; a written argument's
// copy-in waits for the reads since): so a callee may use the caller's tensor in place.
// Afterwards, an allocation in NONE memory that is still accessed is a user error (CompileError)
// naming the tensor and the mapping instance that placed it in NONE.
// Source: one concept per file, src/passes/copy_elimination_*.cpp (the driver in
// copy_elimination.cpp); copy_elimination_internal.h says which file holds which rewrite.
// Test: tests/unit/copy_elimination_test.cpp; goldens tests/golden/ir/<example>.ce.txt.
#pragma once

#include "ir/ir.h"

namespace loom {

// Throws CompileError when a NONE tensor must still be materialized.
void eliminate_copies(ir::Function& f);

}  // namespace loom

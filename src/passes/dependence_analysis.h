// Dependence analysis (Cypress section 4.2.1): the first pass of the middle end. It lowers the
// instantiated task tree (check_program's TaskTree, walked from the entry instance in program
// order) to the event IR (src/ir/ir.h) with the copy-in/copy-out discipline — a fresh allocation
// per launch argument in the memory the callee's instance maps it to, copies in for what the callee
// reads and out for what it writes — and with events chained by privileges (true, anti and output
// dependences; broadcasts E[:] after parallel groups). See dependence_analysis.cpp for the rules.
//
// SNAPSHOTS OF REPLICATED ROW PIECES. The pieces of a rank-1 `mma(v, acc, ...)` partition held by a
// WARP overlap: the 4 lanes of a quad get the same entries (docs/language.md sections 4 and 5). A
// prange may update them from replicated rows only (`rescale_sum(ap[t], lp[t], ...)`: l = l * a),
// meaning: every lane computes from the rows as they were before the prange and writes the same
// values (the reference runs such a launch once per quad). Plain copy-in/copy-out would let one lane
// copy in after another lane's copy-out (l * a * a). So, for a launch directly in a prange body that
// reads (r, rw; not red) a piece of such a partition whose source the loop writes, the pass copies
// the source into a snapshot before the pfor (`alloc` in the source's memory + a `copy` ordered like
// any read of the source, so the pfor, which writes it, waits for it), and the lane's copy-in reads
// its piece of the snapshot — as long as the iteration has not written that source itself. The
// copy-outs still go to the real tensor: the lanes write identical values, in any order.
//   before:  %E = pfor THREAD %t in [0, %c32) after [%w] {
//              %lp = piece %l mma(acc, wgmma(64, 128, 16), WARP) [%t]
//              %x = alloc REGISTER f32 [%n]
//              %e1 = copy %lp -> %x after []
//              %e2 = call mul(%x, %x, %a) after [%e1]
//              %e3 = copy %x -> %lp after [%e2, %e1]  ...
//   after:   %l_snap = alloc NONE f32 [%M]                  (NONE: the memory of %l)
//            %e0 = copy %l -> %l_snap after [%w]
//            %E = pfor THREAD %t in [0, %c32) after [%w, %e0] {
//              %lp = piece %l mma(acc, wgmma(64, 128, 16), WARP) [%t]
//              %x = alloc REGISTER f32 [%n]
//              %l_snap.1 = piece %l_snap mma(acc, wgmma(64, 128, 16), WARP) [%t]
//              %e1 = copy %l_snap.1 -> %x after []
//              %e2 = call mul(%x, %x, %a) after [%e1]
//              %e3 = copy %x -> %lp after [%e2, %e1]  ...
// A source the loop only reads needs no snapshot (no lane writes it during the pfor). Copy
// elimination (4.2.3) may remove the snapshot again, e.g. where the lanes' copy-ins can be hoisted
// before the pfor; if the source is NONE (a register tile's rows), so is the snapshot.
// Limitation: a launch that reads such rows after an earlier launch of the same body wrote them
// copies in from the real tensor (the lane's own write must be seen); lanes of a quad may then still
// race. No example does that (softmax_lanes has one launch per prange); the checker could forbid it.
// Test: tests/unit/dependence_analysis_test.cpp (goldens under tests/golden/ir/*.dep.txt).
#pragma once

#include "ir/ir.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom {

// `p` and `tree` must come from one successful check_program. Raises an internal error (never a
// user error) when they disagree.
ir::Function dependence_analysis(const Program& p, const TaskTree& tree);

}  // namespace loom

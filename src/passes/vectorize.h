// Vectorization (Cypress section 4.2.2, Fig. 9): the second pass of the middle end. It flattens the
// parallel loops that are implicit in the GPU programming model — `pfor` over WARPGROUP, WARP and
// THREAD — and keeps the dependences between their iterations in event arrays indexed by processor
// indices. pfor over HOST, CLUSTER and BLOCK stays.
//
// MECHANICS. Starting from the deepest nesting, each such pfor %E = pfor P %p in [0, %n) after
// [pre] { body; yield Y } is flattened when %n is a `const` (> 0) and the body holds no pfor:
//   - %p becomes `%p = proc_index P`, the first of the body's ops, which move into the parent block;
//   - every asynchronous op of the body (not of nested regions) is promoted: its result type event
//     becomes events[P], events[Q...] becomes events[P, Q...] (outermost processor first, the
//     executor's convention: the op runs once per processor);
//   - references to promoted events inside the body (nested regions and the yield included) get %p
//     as their new leading index: point-wise dependences stay point-wise;
//   - the loop's preconditions: one ref is used directly, several are joined (`%s = join after
//     [pre]` before the body); it becomes a precondition of every body op that waits for no other
//     body op (all others wait for one of those, transitively);
//   - a yield that names no body event (none, or an outer event) becomes a body `join`;
//   - references after the loop to %E[x] (%E[:]) become references to the promoted yield Y with x
//     (`:`) as its leading index: broadcasts stay broadcasts;
//   - Function::proc_extents[P] records %n.
// Then, once, for every op: an `after` entry implied by another remaining entry of the same op
// (transitively through copy/call/join/for preconditions, a processor's indices substituted into
// the ops it waits for; E[:] implies every E[i]) is dropped: the dependence analysis ordered every
// body op after its loop's preconditions and the loop's consumers after the loop, which after
// flattening are chains through the promoted events (e.g. `after [%e21[%t], %e18[%t]]` where %e21
// waits for %e18[%t] becomes `after [%e21[%t]]`).
// A loop that cannot be flattened (trip count not a constant, zero, different from another loop's
// count over P, a body that still holds a pfor, or a REGISTER/NONE alloc of the body whose extents
// do not depend on %p: it would become one buffer for all processors) stays, and its origin comment
// says why. A SHARED or GLOBAL alloc that does not depend on %p does become one buffer per block:
// in the examples every processor copies the same data into it (e.g. GEMM's B tile, copied in by
// each warpgroup); copy elimination (4.2.3) removes the duplicate copies.
//
// EXAMPLE (Fig. 8 -> Fig. 9):
//   before:  %E = pfor THREAD %t in [0, %c32) after [%w] {
//              %Cp = piece %CW mma(...) [%t]
//              %e1 = call fill(%CR, %z) after []
//              %e2 = copy %CR -> %Cp after [%e1]
//              yield %e2
//            }
//            %e3 = copy %CW -> %C1 after [%E[:]]
//   after:   %t = proc_index THREAD
//            %Cp = piece %CW mma(...) [%t]
//            %e1 = call fill(%CR, %z) after [%w] : events[THREAD]
//            %e2 = copy %CR -> %Cp after [%e1[%t]] : events[THREAD]
//            %e3 = copy %CW -> %C1 after [%e2[:]]
// Test: tests/unit/vectorize_test.cpp (goldens tests/golden/ir/<example>.vec.txt).
#pragma once

#include "ir/ir.h"

namespace loom {

void vectorize(ir::Function& f);

}  // namespace loom

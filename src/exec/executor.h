// The CPU executor for the event IR (issue 3, section 3): runs a compiled ir::Function on the host in
// a seeded random order of ready operations, to prove that the compiler's events keep the source
// program's sequential semantics. Semantics are those of src/ir/ir.h; this file says how they are
// realized.
//
// METHOD. The IR is expanded dynamically into a graph of operation *instances*: an op plus the values
// of the induction variables and processor indices of its enclosing loops. A block (the function
// body, or one iteration of a loop) is instantiated when its enclosing instance starts (the function
// at the beginning; an iteration when its loop runs): its immediate ops (const, fconst, arith, dim,
// proc_index, alloc, piece) are evaluated in program order, and every asynchronous op (copy, call,
// join, for, pfor) becomes one instance whose `after` references are resolved to completion records.
// References are resolved after the whole block is instantiated, so a reference to an event defined
// later in the same block (never produced by a pass: the verifier rejects it) waits instead of failing
// and a cycle of such references shows up as a deadlock.
// Then, repeatedly, one *ready* instance (all preconditions complete) is picked uniformly at random
// with std::mt19937_64(seed) — not in program order — and run:
//   copy         copy_view(src, dst); copy.sum / copy.max: dst = dst + src / max(dst, src)
//                elementwise (max propagates NaN, so a poisoned operand stays visible);
//   call NAME    run_leaf_op for a built-in leaf op (tensor operands are views, index/float operands
//                are scalars); `extern:*` and unknown names are an error (no CPU implementation);
//   join         nothing;
//   for / pfor   instantiates all its iterations at once (each iteration's body is a fresh block
//                instance: allocs in it are fresh poisoned buffers per iteration).
// Its completion then completes its event. Events:
//   - a copy/call/join event completes when the instance has run;
//   - the yield of iteration k completes when the event its `yield` refers to completes (a body
//     without a yield — `yield none` — completes as soon as the loop has started);
//   - `for`: carried block argument %cj (distance d_j) of iteration k < d_j is the loop's own start
//     (complete once the loop's preconditions are), of iteration k >= d_j the yield of iteration
//     k - d_j (every iteration's yield is kept); the loop's event completes when the loop has
//     started and every iteration's yield has completed (at once for %n = 0);
//   - `pfor`: E[i] is the yield of iteration i; a reference with `:` is all the elements it selects,
//     and any reference to E also waits for the pfor to have started (so E[:] of a zero-trip pfor
//     still waits for the pfor's preconditions). An index out of range is an error.
// Execution ends when no instance is left (ok), when an instance fails (error), or when nothing is
// ready but instances remain: a DEADLOCK, reported as an error naming the stuck operations and the
// preconditions they wait for (a compiler bug: verified SSA IR cannot deadlock, so this means an
// event reference that can never complete). Messages name values as the printer does (%C, %C.1),
// ops by their path (see EdgeId) and origin, and instances by their loop indices ([%k=1, %p=3]).
// Warp roles and `cross` marks (ir.h, WARP SPECIALIZATION) are ignored: they carry no semantics.
//
// PROCESSORS. `proc_index PROC` is the induction value of the innermost enclosing `pfor PROC`
// iteration (an index within the parent processor: a warp's index within its warpgroup when the IR
// nests pfor WARP in pfor WARPGROUP). Vectorized IR (ir.h: pfor loops over WARPGROUP/WARP/THREAD
// flattened away) is supported under this convention: an asynchronous op other than pfor whose
// result has type `events[P1, ...]` is executed once per processor (i1, ...) in
// [0, proc_extents[P1]) x ..., with proc_index P1 = i1, ...; its result element [i1, ...] is that
// processor's completion. The counts are ir::Function::proc_extents (recorded by the vectorization
// pass), with ExecOptions::proc_extents added and taking precedence. Immediate ops that depend on a
// proc_index not bound where they are defined are evaluated per executing processor: once per tuple
// of the processor indices they depend on, in the frame where they are defined, so the ops of one
// processor (and the processors that share those indices, e.g. a warp's threads for a value that
// depends on the warp index only) see the same value — the same buffer for an alloc. A proc_index
// evaluated where no processor of its kind is bound is an error. (ir.h, VECTORIZED OPS: how the
// verifier types such ops.)
//
// LIMITS. Expansion is bounded (ExecOptions::max_instances instances — op instances and block
// instances (loop iterations, processors) counted together — and max_element_ops element operations: a
// copy counts its elements, an mma M*N*K, other leaf ops the elements of their tensor operands);
// exceeding either is an error, not a hang.
//
// MUTATION. ExecOptions::skip_edge deletes one event edge (see EdgeId), in every instance of its op:
//   After   op's after[index] is ignored: the op no longer waits for that reference;
//   Carried carried event `index` (0 = the first, %c) of a for loop is cut: in every iteration it
//           is the loop's start (as for k < d), so that chain between iterations is gone;
//   Yield   the body's yield is ignored: every iteration completes as soon as the loop has started,
//           so the loop's event (for) or its elements (pfor) no longer wait for the body.
// A dropped edge never causes a deadlock; it can only let an operation run earlier. list_edges
// enumerates every edge that can be dropped.
//
// RACES. With ExecOptions::detect_races a run also fails (ExecResult::race) when two instances race:
// both access a common buffer element, at least one of them writes it, and neither happens before
// the other. Happens-before is reachability in the instance graph: an instance comes after every
// node it waited for (the resolved `after` references, carried events, yields, a loop's completion
// waiting for its iterations) and after the loop instance whose expansion created it (a body runs
// only once its loop has started). The graph is fixed by the IR and its index values, not by the
// seed, so the check is order-independent: an IR with a race fails on every seed (the pair
// reported may differ), including a missing edge between two writers whose results
// commute (two `mma` into one accumulator: integer sums give the same result in either order, but
// on a GPU the two unordered updates of the same registers are a data race).
// Accesses: copy reads its source and writes its destination (copy.sum / copy.max *reduce* into it);
// call: a built-in leaf op's tensor arguments are read or written as ir/leaf_ops.h says (ReadWrite = write).
// Legal overlaps: reads with reads; reducing copies of the same kind (sum with sum, max with max:
// they commute, ir.h); and two accesses through *different replicas* of a replicated row piece
// (a WARP-held mma partition of a rank-1 tensor, docs/language.md section 5: each lane of a quad
// holds its own replica of its rows, so lanes writing "the same" entries write different
// registers) — an access through such a piece is tagged with the piece's lane index, and one not
// through one touches every replica. Loops and joins access nothing.
// Method (close to FastTrack; src/exec/races.{h,cpp}): each element keeps two lists of accesses, writes/reductions and
// reads, since the last write that covered them. A read checks the first list, a write or reduction
// both; the instances of the conflicting entries must all be ancestors of the accessing instance,
// which one breadth-first search over recorded predecessors settles (pruned at nodes that completed
// before the oldest of them: they cannot descend from it; stopped once all are found; a reference
// to many records, e.g. `%E[:, :, :]` from every processor's instance, goes through one shared hub
// node). A write then drops the entries it covers (an ancestor's access that any later conflicting
// access would also conflict with the write). Cost: about +25% time on the property tests; memory
// of one 12-byte entry per element per reader between writes (a shared tile read by 64 lanes).
// Buffers are the executor's: shared-memory slot reuse (resource allocation) is not modeled, and an
// alloc in a loop body is a fresh buffer per iteration.
//
// Test: tests/unit/executor_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "exec/host_tensor.h"
#include "ir/ir.h"

namespace loom::exec {

// One argument of the function, in the order of f.params: a view for tensor params (the executor
// reads and writes the caller's buffer through it), a number for index and float params.
using ExecArg = std::variant<View, double>;

// One event edge of the IR, by its position in the tree: `op_path` is the op's index in the
// function body, then its index in that op's loop body, and so on (loops have one body).
struct EdgeId {
  enum class Kind { After, Carried, Yield };
  Kind kind = Kind::After;
  std::vector<int> op_path;  // the op holding the edge (for Carried/Yield: the loop)
  int index = 0;             // After: index into op.after; Carried: which carried event (0 = %c); Yield: 0
  bool operator==(const EdgeId&) const = default;
};

// Every droppable edge of `f` in program order: each `after` entry of each asynchronous op, each
// carried event of each `for` that its body refers to, and the yield of each loop body that has one.
std::vector<EdgeId> list_edges(const ir::Function& f);

// "after[1] of copy at 2.0.3 (gemm_block: copy-in A)" — for reports.
std::string describe_edge(const ir::Function& f, const EdgeId& e);

struct ExecOptions {
  int64_t max_instances = 2'000'000;
  int64_t max_element_ops = 50'000'000;
  std::optional<EdgeId> skip_edge;
  // Processors per parent for vectorized IR (see PROCESSORS above), e.g. {WARP: 4, THREAD: 32};
  // entries override the function's own ir::Function::proc_extents.
  std::map<ProcKind, int64_t> proc_extents;
  bool trace = false;  // record one line per instance run in ExecResult::trace
  // Fail on a data race (see RACES above): two instances that access a common element, at least one
  // writing, with no chain of events between them.
  bool detect_races = false;
};

struct ExecResult {
  bool ok = false;
  std::string error;          // empty when ok
  int64_t instances = 0;      // op and block instances created
  int64_t ops_run = 0;        // asynchronous instances run
  int64_t element_ops = 0;
  bool race = false;               // the error is a data race (ExecOptions::detect_races)
  std::vector<std::string> trace;  // with ExecOptions::trace
};

// Runs `f` on `args`. Never throws for problems of the IR or its data: they come back in the result.
ExecResult execute(const ir::Function& f, const std::vector<ExecArg>& args, uint64_t seed,
                   const ExecOptions& opt = {});

}  // namespace loom::exec

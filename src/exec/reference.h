// The sequential reference interpreter: runs the source task program as written, from the entry
// instance, on host tensors (src/exec/host_tensor.h). This is the meaning the compiler must preserve;
// the event-IR executor's outputs are compared with it.
//
// What it does, statement by statement, exactly as docs/language.md defines the constructs:
//   - a launch goes to the instance the mapping dispatches it to (call(...) by label first, then by
//     task name); the callee runs that instance's variant with its tunables, and its dimension names
//     are bound to the actual extents of the arguments (run-time extents everywhere, so edge tiles
//     are the clipped pieces, not the static tile sizes);
//   - sub-tasks operate directly on the caller's views: pieces alias their parent, nothing is copied;
//   - scalar expressions: integers, numbers, + - * / % (integer division truncates), cdiv, min, max,
//     rows, cols, dim, pieces, names (scalar parameters, dimensions, tunables, loop variables,
//     bindings);
//   - partitions: blocks (edge pieces clipped; an index past the last piece is an empty piece),
//     slices, mma (holder = the processor level of the instance running the variant; a clipped tile
//     is partitioned as if padded, see host_tensor.cpp);
//   - tensor(...) makes a fresh poisoned (NaN) buffer, once per execution of the binding;
//   - srange and prange are plain nested loops, first variable outermost, iterations in order;
//   - replicated row pieces (a rank-1 mma partition held by a WARP: the 4 lanes of a quad get the
//     same entries): a prange launch whose tensor arguments are *all* replicated row pieces runs once
//     per distinct set of pieces ("the rows are updated as if once", docs/language.md section 4),
//     i.e. once per quad; a `red(sum)` / `red(max)` launch into them runs for every lane, which on
//     the shared entries is the quad reduction;
//   - leaf bodies run their built-in ops with run_leaf_op; an extern leaf body cannot run on the CPU
//     and is an error naming the variant and instance.
// Memories, warp specialization and pipelining are irrelevant here. Errors are std::runtime_error with
// the variant, instance and source line. Test: tests/unit/reference_test.cpp.
#pragma once

#include <cstdint>

#include "exec/inputs.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom::exec {

struct ReferenceStats {
  int64_t launches = 0;           // task launches executed (the entry included)
  int64_t leaf_ops = 0;           // built-in leaf ops executed
  int64_t replicated_skips = 0;   // launches on replicated row pieces run once per quad instead
};

// Runs `p` (checked: `tree` is its instantiated tree) from its entry instance on `args` (from
// make_inputs), in place.
ReferenceStats run_reference(const Program& p, const TaskTree& tree, Args& args);

}  // namespace loom::exec

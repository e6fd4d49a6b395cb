// The event IR (Cypress section 4.1, Fig. 7) — what the middle end transforms.
//
// SEMANTICS. A Function is a Block of operations in SSA form: every value is defined once, before
// its uses in program order, and a value defined inside a region is visible only in that region.
// Values have five types:
//   index   — a 64-bit integer (extents, loop variables, processor indices, tile offsets);
//   float   — a run-time floating-point scalar (a task's f32 argument, a constant like -1e30);
//   tensor  — a reference to elements: an allocation, or a piece of one (`piece`), with an element
//             type, a memory, and run-time extents;
//   event   — the completion of one asynchronous operation;
//   events  — an event array, one event per iteration of a `pfor`, whose dimensions are annotated
//             with the processor kind of the loop that made them (e.g. events[WARP]).
// Index operations (const, fconst, arith, dim, proc_index) and tensor-view operations (alloc, piece) are
// *immediate*: they take effect when reached and produce no event. `alloc` creates a fresh buffer
// whose contents are undefined (the CPU executor poisons them).
// Asynchronous operations (copy, call, join, for, pfor) each take a list of precondition events (`after`)
// and produce one event (pfor: an event array). An asynchronous operation may start once all of its
// preconditions have completed, in any order relative to other ready operations: the IR imposes no
// order besides its events. That is the whole synchronization contract — every pass must keep every
// dependence it does not prove redundant, and the CPU executor (src/exec/) runs ready operations in
// a seeded random order to check it.
//   copy %src -> %dst    elementwise; shapes equal, element types equal;
//   copy.sum / copy.max  a reducing copy: dst = dst + src (max(dst, src)) elementwise — the copy-out
//                        of a red(sum) / red(max) argument; reducing copies into the same elements
//                        commute, so parallel ones need no order between them;
//   call NAME(args)      a leaf: a built-in leaf op (src/lang/ops.h) or an extern leaf variant;
//   join                 completes when all of its preconditions have completed (no work);
//   for %k in [0, %n) iter(%c) { ...; yield %x }
//                        sequential loop. Every iteration's body may start once the loop's
//                        preconditions have completed; the order between iterations is only the
//                        carried event: in iteration k the block argument %c is the event iteration
//                        k-1 yielded (for k = 0, an event that completes with the loop's
//                        preconditions). Operations that do not wait on %c (e.g. copies of the next
//                        K tile) may therefore run ahead — that is what pipelining exploits. An
//                        alloc inside a body is a fresh buffer per iteration. The loop's event
//                        completes when every iteration's yield has completed (at once, after its
//                        preconditions, when %n = 0);
//   pfor PROC %p in [0, %n) { ...; yield %x }
//                        parallel loop over processors of kind PROC: all iterations may run at once;
//                        its result is an event array; E[%p] is one iteration's yield, E[:] all.
// Event references in `after` lists: %e (an event), %E[%i, ...] (one element of an array, one index
// per dimension), %E[:, %i] (`:` = broadcast: all elements along that dimension).
// After vectorization, `proc_index PROC` names the executing processor's index and pfor loops over
// WARPGROUP, WARP and THREAD are gone (their event arrays stay, indexed by processor indices).
// VECTORIZED OPS. A copy, call, join or for whose result has type events[P1, ..., Pn] (processor
// kinds WARPGROUP/WARP/THREAD, outermost first, each at most once) runs once per processor tuple
// (i1, ..., in); element [i1, ..., in] is that processor's completion (src/exec/executor.h,
// PROCESSORS). Function::proc_extents records how many processors of each kind there are (per
// parent processor), filled by the vectorization pass from the flattened loops' constant trip counts.
//
// Printer: ir_printer.cpp (stable text for goldens). Verifier: ir_verifier.cpp, run after every pass
// in test builds. Tests: tests/unit/ir_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "layout/partition.h"
#include "loom/diagnostics.h"
#include "loom/machine.h"

namespace loom::ir {

using ValueId = int32_t;  // index into Function::values; -1 = none
constexpr ValueId kNone = -1;

enum class Type { Index, Float, Tensor, Event, Events };

struct ValueInfo {
  Type type = Type::Index;
  std::string name;                 // printing hint, e.g. "C1", "k"; unique names are made by the printer
  DType dtype = DType::F32;         // tensors
  MemKind mem = MemKind::None;      // tensors
  int rank = 0;                     // tensors
  std::vector<ProcKind> event_dims;  // events arrays: one processor kind per dimension
};

// A reference to an event, or to (some elements of) an event array.
struct EventRef {
  ValueId value = kNone;
  // For an event array: one entry per dimension, an index value or kNone for broadcast `:`.
  std::vector<ValueId> indices;
  bool operator==(const EventRef&) const = default;
};

enum class OpKind {
  Const,      // %x = const IVAL
  FConst,     // %x = fconst FVAL
  Arith,      // %x = ARITH %a, %b          (arith: add sub mul div mod cdiv min max)
  Dim,        // %x = dim %t, D
  ProcIndex,  // %x = proc_index PROC
  Alloc,      // %t = alloc MEM DTYPE [%e0, ...]
  Piece,      // %t = piece %src PARTITION [%i, ...]
  Copy,       // %e = copy %src -> %dst after [...]
  Call,       // %e = call NAME(%args...) after [...]
  Join,       // %e = join after [...]
  For,        // %e = for %k in [0, %n) iter(%c = REF) after [...] { ... yield REF }
  PFor,       // %E = pfor PROC %p in [0, %n) after [...] { ... yield REF }
};

// Whether ops of kind `k` are asynchronous (take preconditions and produce an event or events).
inline bool is_async(OpKind k) {
  return k == OpKind::Copy || k == OpKind::Call || k == OpKind::Join || k == OpKind::For || k == OpKind::PFor;
}

// How a `piece` cuts its source (see src/layout/partition.h).
struct PartitionSpec {
  enum class Kind { Blocks, Slices, Mma } kind = Kind::Blocks;
  std::vector<ValueId> block;  // Blocks: block size per dimension (kNone = whole dimension `*`)
  int dim = 0;                 // Slices: the dimension removed
  MmaRole role = MmaRole::Acc; // Mma
  std::string instr;           // Mma: "wgmma" | "mma_sync"
  int64_t m = 0, n = 0, k = 0; // Mma: instruction shape
  ProcKind holder = ProcKind::Warpgroup;  // Mma: level holding the tile (pieces go one level down)
  bool operator==(const PartitionSpec&) const = default;
};

struct Block;

struct Op {
  OpKind kind = OpKind::Const;
  ValueId result = kNone;
  std::vector<ValueId> operands;  // Arith: a, b; Dim: t; Alloc: extents; Piece: src, indices...;
                                  // Copy: src, dst; Call: arguments; For/PFor: trip count
  std::vector<EventRef> after;    // asynchronous ops: preconditions
  int64_t ival = 0;               // Const: value; Dim: dimension
  double fval = 0;                // FConst: value
  std::string name;               // Arith: operator; Call: leaf name; Copy: "" or reduction sum|max
  DType dtype = DType::F32;       // Alloc
  MemKind mem = MemKind::None;    // Alloc
  ProcKind proc = ProcKind::Thread;  // ProcIndex, PFor
  PartitionSpec part;             // Piece
  std::vector<Block> regions;     // For/PFor: one body
  SourceLoc loc;                  // the source statement this op comes from
  std::string origin;             // e.g. "gemm_block: clear(Acc)" for comments in printed IR / CUDA
};

struct Block {
  std::vector<ValueId> args;  // For: induction variable, carried event; PFor: induction variable
  std::vector<Op> ops;
  EventRef yield;             // For/PFor bodies: the iteration's completion event
};

struct Function {
  std::string name;
  std::vector<ValueInfo> values;
  std::vector<ValueId> params;  // the entry's tensor and scalar arguments
  Block body;
  EventRef result;              // completion of the whole function
  // Processors per parent processor for vectorized ops (see VECTORIZED OPS), e.g. {WARP: 4,
  // THREAD: 32}; empty before vectorization. The CPU executor uses it (ExecOptions overrides).
  std::map<ProcKind, int64_t> proc_extents;

  ValueId add_value(ValueInfo v);
  const ValueInfo& info(ValueId v) const { return values.at(static_cast<size_t>(v)); }
};

// Stable, readable text: one op per line, regions indented, values named %name or %name.N.
std::string print(const Function& f);

// The printed name of every value ("%C", "%C.1", ... in definition order; "%0", "%1", ... for
// unnamed values), indexed by ValueId; "" for values not reachable from the function. Messages that
// mention values (executor errors, test reports) use it so they match the printed IR.
std::vector<std::string> value_names(const Function& f);

// Structural checks (SSA dominance, operand types, event-reference shapes, region arguments).
// Returns "" when valid, otherwise one message per problem (an internal error: passes produce IR).
std::string verify(const Function& f);

}  // namespace loom::ir

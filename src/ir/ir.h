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
//   call NAME(args)      a leaf: a built-in leaf op (src/ir/leaf_ops.h) or an extern leaf variant;
//                        a binary op with a rank-1 B broadcasts it along D's rows, or, printed
//                        `broadcast(cols)` (Op::broadcast_dim = 1), along D's columns;
//   join                 completes when all of its preconditions have completed (no work);
//   for %k in [0, %n) iter(%c1, ..., %cm distance d_m) { ...; yield %x }
//                        sequential loop. Every iteration's body may start once the loop's
//                        preconditions have completed; the order between iterations is only the
//                        carried events (m >= 1 block arguments after %k, each with a distance
//                        d_j >= 1, printed only when it is not 1): in iteration k, %cj is the event
//                        iteration k - d_j yielded (the body's single yield), or, for k < d_j, an
//                        event that completes with the loop's preconditions. %c (distance 1) orders
//                        iteration k after k-1; a carried event of distance D orders it after k-D
//                        only — e.g. the write-after-read edge of a D-slot ring buffer: the copy
//                        into slot k mod D waits for iteration k-D, whose ops read that slot.
//                        Operations that do not wait on a distance-1 event (e.g. copies of the
//                        next K tile) may therefore run ahead — that is what pipelining exploits.
//                        An alloc inside a body is a fresh buffer per iteration. The loop's event
//                        completes when every iteration's yield has completed (at once, after its
//                        preconditions, when %n = 0). Mapping annotations, printed after iter(...):
//                        `pipeline(D)` (D > 1) and `warpspecialize` — what the mapping asked of the
//                        loop (src/passes/warp_specialize.h acts on them);
//   pfor PROC %p in [0, %n) { ...; yield %x }
//                        parallel loop over processors of kind PROC: all iterations may run at once;
//                        its result is an event array; E[%p] is one iteration's yield, E[:] all.
// Event references in `after` lists: %e (an event), %E[%i, ...] (one element of an array, one index
// per dimension), %E[:, %i] (`:` = broadcast: all elements along that dimension).
// After vectorization, `proc_index PROC` names the executing processor's index and pfor loops over
// WARPGROUP, WARP and THREAD are gone (their event arrays stay, indexed by processor indices).
// WARP SPECIALIZATION (src/passes/warp_specialize.h, Cypress 4.2.5). Inside a block whose loops
// are warp-specialized, every asynchronous op has a role: `role(dma)` — a global -> shared copy,
// issued by the producer warpgroup (TMA) — or `role(compute)` — everything else, run by the
// consumer warpgroups; a loop holding both has no role (both run it), and ops outside such blocks
// have none. A reference `cross(%e)` in an `after` list crosses roles: the waiting op's role is not
// (only) the one that produces %e, so the back end lowers it to an mbarrier wait instead of
// in-role program order. Roles and `cross` change no semantics: the executor ignores them.
// Function::warp_roles (printed `warp_roles(dma: W x R regs, compute: W x R regs)` in the header)
// records how many warpgroups each role has and the registers per thread each gets (setmaxnreg).
// VECTORIZED OPS. A copy, call, join or for whose result has type events[P1, ..., Pn] (processor
// kinds WARPGROUP/WARP/THREAD, outermost first, each at most once) runs once per processor tuple
// (i1, ..., in); element [i1, ..., in] is that processor's completion (src/exec/executor.h,
// PROCESSORS). Function::proc_extents records how many processors of each kind there are (per
// parent processor), filled by the vectorization pass from the flattened loops' constant trip counts.
//
// Printer: ir_printer.cpp (stable text for goldens). Verifier: ir_verifier.cpp, run after every pass
// in test builds. Tests: tests/unit/ir_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
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
  // The producer's and the consumer's warp roles differ (see WARP SPECIALIZATION); printed
  // `cross(%e)`. Set by warp specialization; no effect on semantics.
  bool cross = false;
  bool operator==(const EventRef&) const = default;
};

// Which warps run an asynchronous op of a warp-specialized block (see WARP SPECIALIZATION).
enum class Role { Any, Dma, Compute };
const char* role_name(Role r);  // "any", "dma", "compute"

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
  bool transposed = false;     // Mma: the instruction computes C^T = B^T A^T (layout/partition.h)
  bool operator==(const PartitionSpec&) const = default;
};

// Alloc of a SHARED tile: the element order and swizzle the mapping's `layout(...)` gave the tensor
// (e.g. `layout(A: row_major swizzle128)`), printed after the alloc as `layout(row_major swizzle128)`.
// The back end lays the tile out in slices of `swizzle` bytes along its contiguous dimension (the
// TMA box / wgmma canonical layout, runtime/loom/runtime.cuh). Not given: row-major, no swizzle.
struct TileLayout {
  bool given = false;
  bool col_major = false;
  int swizzle = 0;  // bytes: 0 (none), 32, 64 or 128
  bool operator==(const TileLayout&) const = default;
};
std::string layout_text(const TileLayout& l);  // "row_major swizzle128"

// The elements one physical row (along the contiguous dimension) of a shared tile occupies: `row`
// rounded up to whole swizzle spans. The TMA boxes and the wgmma descriptors address a swizzled
// tile in slices of one span, so a 224-column bf16 tile in the 128-byte swizzle takes four 64-column
// slices, the last one half used (its columns are loaded and never read). Unswizzled: `row`.
inline int64_t padded_row(const TileLayout& l, int64_t row, int64_t elem_bytes) {
  if (l.swizzle <= 0 || elem_bytes <= 0 || row <= 0) return row;
  const int64_t per_span = std::max<int64_t>(1, l.swizzle / elem_bytes);
  return (row + per_span - 1) / per_span * per_span;
}

struct Block;
struct Op;

// The distance of carried event j (0-based: body argument j + 1) of a `for`.
int64_t carried_distance(const Op& for_op, size_t j);

struct Op {
  OpKind kind = OpKind::Const;
  ValueId result = kNone;
  std::vector<ValueId> operands;  // Arith: a, b; Dim: t; Alloc: extents; Piece: src, indices...;
                                  // Copy: src, dst; Call: arguments; For/PFor: trip count
  std::vector<EventRef> after;    // asynchronous ops: preconditions
  int64_t ival = 0;               // Const: value; Dim: dimension
  double fval = 0;                // FConst: value
  std::string name;               // Arith: operator; Call: leaf name; Copy: "" or reduction sum|max;
                                  // Alloc: the mapping instance that chose its memory (not printed)
  DType dtype = DType::F32;       // Alloc
  MemKind mem = MemKind::None;    // Alloc
  ProcKind proc = ProcKind::Thread;  // ProcIndex, PFor
  PartitionSpec part;             // Piece
  std::vector<Block> regions;     // For/PFor: one body
  std::vector<int64_t> distances; // For: one per carried event (body args 1..m); empty = all 1
  int64_t pipeline_depth = 1;     // For: the mapping's pipeline(D) (1 = not pipelined)
  bool warp_specialize = false;   // For: the mapping's warpspecialize
  bool pingpong = false;          // For: the mapping's pingpong (compute warpgroups take turns on
                                  // the tensor cores; src/codegen/pingpong.cpp)
  bool pingpong_double_buffer = false;  // For: pingpong(double_buffer): the deferred mma's register
                                        // operands in two copies by iteration parity
  int64_t split_k = 1;            // For: the mapping's splitk(S): S blocks of a cluster share the
                                  // iterations, each a contiguous share, and add their partial
                                  // sums (1 = not split; the loop's meaning is unchanged, only the
                                  // order of its sum: src/codegen/splitk.cpp)
  bool stream_k = false;          // For: the mapping's streamk: the iterations of all tiles are
                                  // shared equally by persistent blocks; a tile cut between blocks
                                  // is summed in iteration order (src/codegen/streamk.cpp)
  int64_t multicast = 1;          // For: the mapping's multicast(S): the kernel's blocks run in
                                  // clusters of S neighbouring tiles, and the loop's TMA loads
                                  // that do not move between them are multicast (1 = none; only
                                  // the loads change: src/codegen/multicast.cpp)
  int64_t multicast_n = 1;        // For: T of multicast(S, T): clusters of S x T tiles, the loads
                                  // that do not move with the inner block index shared by T blocks
  int64_t alternate = 1;          // For: the mapping's alternate(T): the compute warpgroups form T
                                  // teams that take the block's tiles in turn, each tile one
                                  // team's (1 = every warpgroup works on every tile; only who runs
                                  // a tile changes: src/codegen/alternate.cpp)
  int64_t k_teams = 1;            // For: the mapping's kteams(T): the compute warpgroups form T
                                  // teams that share every tile, team t running the iterations
                                  // whose ring positions are t mod T into its own accumulator
                                  // (1 = none; the partial sums are added in a fixed order after
                                  // the loop: src/codegen/kteams.cpp)
  int64_t dma_regs = 0;           // For: the mapping's regs(P, C): the registers per thread of the
  int64_t compute_regs = 0;       // DMA warpgroup and of each compute warpgroup (setmaxnreg; 0 = the
                                  // rule of src/passes/warp_specialize.h); regs_loc is the clause
  SourceLoc regs_loc;
  int broadcast_dim = 0;          // Call of a binary leaf op whose B has rank 1 and D rank 2: the
                                  // dimension of D that B runs along — 0: one value per row
                                  // (D[i, j] = A[i, j] op B[i]), 1: one value per column (B[j]);
                                  // printed `broadcast(cols)` when 1
  Role role = Role::Any;          // asynchronous ops: which warps run it (warp specialization)
  TileLayout layout;              // Alloc: the mapping's layout(...) (see TileLayout)
  bool distinct = false;          // Alloc: must keep storage of its own, never coalesced with the
                                  // tensor it is copied from (a replicated-row snapshot, read while
                                  // the original is written)
  ValueId holds = kNone;          // Alloc: the piece whose elements this allocation holds, in the
                                  // same coordinates — a launch's copy of its argument (dependence
                                  // analysis), a REGISTER conduit of a NONE tensor's piece (copy
                                  // elimination 4c). Printed `holds(%v)`; what a position-dependent
                                  // leaf (mask_above) needs to find an element's coordinates in the
                                  // tensor the program cut it from. Not an operand: the piece may be
                                  // gone after copy elimination (then the executor ignores it).
  SourceLoc loc;                  // the source statement this op comes from
  std::string origin;             // e.g. "gemm_block: clear(Acc)" for comments in printed IR / CUDA
};

struct Block {
  std::vector<ValueId> args;  // For: induction variable, carried events; PFor: induction variable
  std::vector<Op> ops;
  EventRef yield;             // For/PFor bodies: the iteration's completion event
};

// SHARED MEMORY (resource allocation, Cypress 4.2.4; src/passes/resource_allocation.h). The thread
// block's budget comes from the mapping (dependence analysis sets it); the allocation pass gives
// every SHARED `alloc` a slot, printed after the op as `@smem[offset, offset + bytes)`. Two slots
// may overlap only when every access of one tensor happens before every access of the other (the
// pass proves it from the events and adds the write-after-read edges explicitly). A SHARED tensor
// that the back end keeps in registers (passes/register_residents.h: row vectors in the accumulator
// layout, forwarded wgmma A tiles) gets a slot marked `registers`, with no bytes, printed
// `@registers`.
// Alignment of a slot (of each copy in it) for a tensor of `rank` and `bytes` per copy: 1024 bytes
// for a tile that may hold a swizzle atom (rank >= 2 and at least 1024 bytes: a 128-byte-swizzle
// atom is 8 rows x 128 B, addressed from 1024-aligned bits); 16 bytes otherwise (vectors and small
// fragments are never swizzled; 16 B for 128-bit accesses).
constexpr int64_t kSmemTileAlignment = 1024;
constexpr int64_t kSmemMinAlignment = 16;
inline int64_t smem_alignment(int rank, int64_t bytes) {
  return rank >= 2 && bytes >= kSmemTileAlignment ? kSmemTileAlignment : kSmemMinAlignment;
}

struct SmemBudget {
  int64_t bytes = 0;        // per thread block; 0 = none known (no BLOCK instance)
  int64_t machine_max = 0;  // the machine's per-block maximum (what smem(...) may be raised to)
  std::string instance;     // the BLOCK instance it comes from (the kernel's)
  std::string clause;       // "smem(227KB)" as written, or "" when the machine's maximum is used
  SourceLoc loc;            // the smem(...) clause, else the instance's name
};

// One SHARED allocation's bytes [offset, offset + bytes) in its thread block's shared memory.
// `copies` > 1 when the alloc is evaluated once per processor (its extents depend on a
// proc_index) or per iteration of an enclosing parallel loop: the slot holds the copies one after
// another, each bytes / copies long — a multiple of the alignment, so every copy is aligned —
// (processor indices outermost first, row-major).
struct SmemSlot {
  int64_t offset = 0;
  int64_t bytes = 0;
  int64_t copies = 1;
  bool registers = false;  // kept in registers by the back end (passes/register_residents.h): no bytes
  bool operator==(const SmemSlot&) const = default;
};

// The warp roles of a warp-specialized kernel (see WARP SPECIALIZATION): the producer (DMA)
// warpgroups and the consumer (compute) warpgroups, and the registers per thread each role keeps
// after `setmaxnreg` (0 = no per-role register split on this machine). Formula:
// src/passes/warp_specialize.h.
struct WarpRoles {
  int64_t dma_warpgroups = 1;
  int64_t compute_warpgroups = 1;  // all teams' (teams x the warpgroups a tile takes)
  int64_t dma_regs = 0;
  int64_t compute_regs = 0;
  int64_t teams = 1;  // the pipelined loop's alternate(T) or kteams(T): teams of compute warpgroups
  bool k_split = false;  // kteams(T): the teams share each tile's K loop (else they take whole tiles in turn)
  bool operator==(const WarpRoles&) const = default;
};

// THE ENTRY SIGNATURE. What the entry task declares about its parameters beyond their values'
// types (element type, memory, rank): the task's name, and each parameter's name, privilege and
// dimension names (tensors) or declared type (scalars). The generated C ABI, its argument checks
// and its metadata are made of them (docs/artifact.md). Dependence analysis fills
// Function::entry from the task declaration; no pass changes it. Not printed: no op's semantics
// depends on it.
enum class ParamPrivilege { Read, Write, ReadWrite, ReduceSum, ReduceMax };
const char* privilege_name(ParamPrivilege p);  // as declared: "r", "w", "rw", "red(sum)", "red(max)"

struct EntryParam {
  std::string name;                                 // as declared (also its value's name)
  ParamPrivilege privilege = ParamPrivilege::Read;  // tensors
  std::vector<std::string> dims;                    // tensors: dimension names, outermost first
  std::string scalar_type;                          // scalars: "f32", "i32" or "index", as declared
};

struct EntrySignature {
  std::string task;                // the entry task's name (the C ABI's loom_<task>)
  std::vector<EntryParam> params;  // one per Function::params, in the same order
};

// A SPECIALIZED MAPPING's condition `when(LHS CMP RHS)` (docs/mapping.md, "Specialized
// mappings"): integer expressions over the entry's dimension names and SMS (the device's
// multiprocessor count), which the generated launcher evaluates on each call's extents to pick
// the mapping; or `when(fastest)`, a candidate the launcher's cost model weighs against the default
// and the other candidates (codegen/estimate.cpp). Dependence analysis fills Function::when from the
// mapping; not printed.
struct SizeExpr {
  enum class Kind { Int, Name, Neg, Binary, Call } kind = Kind::Int;
  int64_t value = 0;            // Int
  std::string name;             // Name: a dimension name or SMS; Call: cdiv, min or max
  char op = 0;                  // Binary: + - * / %
  std::vector<SizeExpr> args;   // Neg: 1; Binary, Call: 2
};

struct LaunchCondition {
  SizeExpr lhs;
  std::string cmp;  // <, <=, > or >=
  SizeExpr rhs;
  bool fastest = false;  // when(fastest): no condition; the launcher's cost model chooses (lhs/rhs empty)
};

// What schedule(optimal) did for one instance's loop (src/passes/schedule_optimal.h): the solver's
// schedule in words and the settings the compiler derived from it. `loom compile --emit=schedule`
// prints it; a non-empty warning is printed at the clause when the kernel is compiled.
struct ScheduleNote {
  std::string instance;
  SourceLoc loc;         // the schedule(optimal) clause
  std::string report;    // the solver's schedule: II, length, stage and warp group per op, proof, time
  std::string realized;  // the settings applied: warp specialization, pipeline depth, turns, and why
  std::string warning;   // the budget ran out (the rule-based settings were used), or empty
  std::string svg;       // the solved schedule drawn as `loom schedule --svg` draws it; empty without one
  // The solved schedule's facts the settings are read from (for tests and tools; empty/0 without one):
  std::vector<std::string> node_ops;  // per graph node: its op ("tma_load", "mma", "exp2", ...)
  std::vector<int> node_warp;         // per graph node: its warp group in the schedule
  double ii_cycles = 0;               // the initiation interval in machine cycles (also the fallback's bound)
  int64_t depth_wanted = 0;           // ceil(load latency / II) + 1, clipped to [2, 8]
  int64_t teams = 1;                  // teams taking the tiles in turn: written alternate(T), or the tile loop's schedule's
  std::vector<std::string> tile_graphs;  // the tile loop's graphs solved for 1, 2, ... teams (JSON), in order
  std::string tile_svg;                  // the chosen teams' tile schedule drawn; empty for one team
  // Turns (pingpong chosen): the loop solved again as one sub-tile team per compute warpgroup
  // (subtile_schedule_graph), the schedule the turns realize; 0 / empty when not solved that way.
  int64_t subtiles = 0;                 // the sub-tile teams solved (the compute warpgroups taking turns)
  bool subtile_turns = false;           // its schedule is the turns: each team on a group of its own, one turn each on the tensor core
  std::vector<std::string> subtile_nodes;  // the sub-tile graph's nodes (NODE#c; the loads shared)
  std::vector<int> subtile_warp;           // ... their warp groups in its schedule
  std::string subtile_svg;                 // that schedule drawn
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
  SmemBudget smem;                         // see SHARED MEMORY
  std::map<ValueId, SmemSlot> smem_slots;  // SHARED alloc result -> its slot (resource allocation)
  std::optional<WarpRoles> warp_roles;     // set when some loop is warp-specialized
  // The entry instance's `layout(...)` of a tensor parameter, when it gives one (dependence
  // analysis): `col_major` means the last two dimensions are stored transposed (the next-to-last
  // is contiguous). Printed after the parameter's type. Semantics do not depend on it (the CPU
  // executor works on logical indices); the back end's TMA maps and C ABI strides do.
  std::map<ValueId, TileLayout> param_layouts;
  std::optional<EntrySignature> entry;  // see THE ENTRY SIGNATURE (absent in IR built by hand)
  std::optional<LaunchCondition> when;  // see SPECIALIZED MAPPING; absent for the default mapping
  std::vector<ScheduleNote> schedule_notes;  // schedule(optimal) instances, in mapping order

  ValueId add_value(ValueInfo v);
  const ValueInfo& info(ValueId v) const { return values.at(static_cast<size_t>(v)); }
};

// Walks: apply `fn` to every op of `b` at any depth (pre-order), or to every event reference of
// `b` at any depth (`after` lists and loop-body yields, `b`'s own yield included). ir_walk.cpp.
void for_each_op(Block& b, const std::function<void(Op&)>& fn);
void for_each_ref(Block& b, const std::function<void(EventRef&)>& fn);

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

// loom/ast.h — the syntax tree of a .loom program: tasks, variants, and the mapping.
//
// A program has two parts (Cypress section 3): a *logical description* (tasks with privileges on
// their tensor arguments, and variants that implement them — inner variants partition tensors and
// launch sub-tasks, leaf variants compute on tensor data), and a *mapping* (instances that bind a
// variant to a processor level, each tensor argument to a memory, tunables to values, and each
// child launch to another instance). The tree is plain data with value semantics: the parser, the
// C++ builder (loom/builder.h) and the printer (`loom fmt`) all meet here. Names are resolved by the
// checker (src/lang/check.h), not stored as pointers. docs/language.md describes every construct.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loom/diagnostics.h"

namespace loom {

// A name as written, with where it was written.
struct Ident {
  std::string name;
  SourceLoc loc;
};

// ---- Scalar and tensor expressions ----------------------------------------------------------------
//
// One node type covers index arithmetic (`cdiv(M, U) * 2`), tensor references (`Cp[i, j]`), partition
// operators (`blocks(C, [U, *])`) and local tensor creation (`tensor(f32, [M, N])`); the checker gives
// each its meaning from the position it appears in.
enum class ExprKind {
  Int,     // 42
  Float,   // 0.5, 1e-3 (spelling kept in `name` so printing is exact)
  Name,    // U, i, C, f32, acc
  Star,    // `*` inside a blocks() size list: the whole extent
  Unary,   // -x                      (op = '-')
  Binary,  // a + b, a - b, a * b, a / b, a % b
  Call,    // name(args...)           builtin functions and partition operators
  Index,   // base[args...]           indexing a partition
  List,    // [a, b, ...]
};

struct Expr {
  ExprKind kind = ExprKind::Int;
  SourceLoc loc;
  int64_t ival = 0;
  std::string name;  // Name: the identifier; Call: the callee; Float: the spelling
  char op = 0;       // Unary / Binary operator
  std::vector<Expr> args;  // Unary: 1; Binary: 2; Call/List: arguments; Index: base then indices

  static Expr integer(int64_t v, SourceLoc loc = {});
  static Expr floating(std::string spelling, SourceLoc loc = {});
  static Expr ident(std::string n, SourceLoc loc = {});
  static Expr star(SourceLoc loc = {});
  static Expr unary(char op, Expr a, SourceLoc loc = {});
  static Expr binary(char op, Expr a, Expr b, SourceLoc loc = {});
  static Expr call(std::string callee, std::vector<Expr> args, SourceLoc loc = {});
  static Expr index(Expr base, std::vector<Expr> indices, SourceLoc loc = {});
  static Expr list(std::vector<Expr> items, SourceLoc loc = {});
};

// ---- Tasks -------------------------------------------------------------------------------------------

// r: read; w: write (old contents are not read); rw: both; red(sum) / red(max): reduce — the task
// only combines values into the tensor with that reduction (rowsum / rowmax), so parallel launches
// may reduce into overlapping pieces and the result does not depend on their order.
enum class Privilege { Read, Write, ReadWrite, ReduceSum, ReduceMax };
const char* privilege_spelling(Privilege p);  // "r", "w", "rw", "red(sum)", "red(max)"
inline bool is_reduce(Privilege p) { return p == Privilege::ReduceSum || p == Privilege::ReduceMax; }
inline bool reads(Privilege p) { return p != Privilege::Write; }   // the result depends on old contents
inline bool writes(Privilege p) { return p != Privilege::Read; }   // changes the contents
// Whether a task holding `have` on a tensor may launch a sub-task with `want` on it.
// A task holding `w` may also pass `red(op)` on: the tensor then starts at the reduction's identity
// (0 or -inf) when the task starts (its old contents are still not read), so its launches reduce into
// a defined value (docs/language.md, cross-launch reductions).
inline bool may_delegate(Privilege have, Privilege want) {
  if (have == Privilege::ReadWrite) return true;
  if (have == Privilege::Write && is_reduce(want)) return true;
  return want == have;
}

// A task parameter: a tensor `C: rw f32[M, N]` (element type may be a task type parameter, each dim
// name is bound to the argument's run-time extent inside variants), or a scalar `scale: f32`.
struct Param {
  Ident name;
  bool is_tensor = true;
  Privilege priv = Privilege::Read;  // tensors only
  Ident elem;                        // tensor element type or type parameter; scalar type
  std::vector<Ident> dims;           // tensors only; rank = dims.size()
};

// `task gemm<T, E>(C: rw T[M, N], A: r E[M, K], B: r E[K, N]);`
struct TaskDecl {
  Ident name;
  std::vector<Ident> type_params;
  std::vector<Param> params;
  std::vector<std::string> comments;  // leading `//` lines, kept by `loom fmt`
  std::string trailing_comment;       // after the ';' on the same line
};

// ---- Variants ----------------------------------------------------------------------------------------

enum class StmtKind {
  Bind,    // name = expr;              scalar, partition or local tensor
  Call,    // [label:] callee(args);    a task launch (inner) or a built-in leaf op (leaf)
  Loop,    // prange/srange vars in extents { body }
};

struct Stmt {
  StmtKind kind = StmtKind::Call;
  SourceLoc loc;
  Ident target;             // Bind: bound name; Call: callee
  Ident label;              // Call: optional launch label (empty name when absent)
  Expr value;               // Bind: right-hand side
  std::vector<Expr> args;   // Call: arguments
  bool parallel = false;    // Loop: prange (true) or srange (false)
  std::vector<Ident> vars;  // Loop: induction variables
  std::vector<Expr> extents;  // Loop: one extent per variable; the iteration space is [0, extent)
  std::vector<Stmt> body;     // Loop body
  std::vector<std::string> comments;
  std::vector<std::string> closing_comments;  // Loop: comments before the closing '}'
  std::string trailing_comment;               // after the ';' (or a loop's '{') on the same line
};

enum class VariantKind { Inner, Leaf };

// A variant param may restate the task's privilege: `(C: rw, A, B)`.
struct VariantParam {
  Ident name;
  std::optional<Privilege> priv;
  SourceLoc priv_loc;
};

// `variant gemm_host of gemm(C, A, B): inner tunables(U, V) { ... }`
// `variant silu_thread of silu(Y, X): leaf on(THREAD) extern %{ ...CUDA C++... %}`
struct VariantDecl {
  Ident name;
  Ident task;
  std::vector<VariantParam> params;
  VariantKind kind = VariantKind::Inner;
  SourceLoc kind_loc;
  std::vector<Ident> tunables;
  std::vector<Ident> processors;  // `on(...)`: levels this variant may run on; empty = any legal
  std::vector<Stmt> body;
  bool is_extern = false;
  std::string extern_code;  // text between %{ and %}
  SourceLoc extern_loc;
  std::vector<std::string> comments;
  std::vector<std::string> closing_comments;  // comments before the body's closing '}'
  std::string trailing_comment;               // after the header's '{' on the same line
};

// ---- Mapping -----------------------------------------------------------------------------------------

struct TuneValue {
  Ident name;
  Expr value;
};

struct Dispatch {
  Ident key;       // a task name or a launch label
  Ident instance;  // the instance that launch dispatches to
};

struct TypeBinding {
  Ident name;  // task type parameter
  Ident type;  // element type
};

struct LayoutSpec {
  Ident arg;                 // tensor argument name
  std::vector<Ident> attrs;  // row_major | col_major | swizzle32 | swizzle64 | swizzle128 | noswizzle
};

// `instance gemm_block = gemm_block on BLOCK mem(GLOBAL, GLOBAL, GLOBAL) tune(W=64) warpspecialize
//  pipeline(3) smem(227KB) call(gemm: gemm_tile);`
struct Instance {
  Ident name;
  Ident variant;
  Ident processor;
  SourceLoc mem_loc;
  std::vector<Ident> mems;  // one per tensor parameter, in order: GLOBAL | SHARED | REGISTER | NONE
  std::vector<TuneValue> tunes;
  std::vector<Dispatch> calls;
  bool entry = false;
  SourceLoc entry_loc;
  std::vector<TypeBinding> entry_types;
  std::optional<bool> warp_specialize;  // `warpspecialize` / `nowarpspecialize`
  SourceLoc ws_loc;
  std::optional<int64_t> pipeline;
  SourceLoc pipeline_loc;
  bool pingpong = false;  // `pingpong`: the compute warpgroups take turns issuing tensor-core work
  SourceLoc pingpong_loc;
  // `pingpong(double_buffer)`: and a rotated loop's deferred mma reads register operands that the
  // next iteration writes into a second copy (docs/codegen.md, "Double-buffered turns").
  bool pingpong_double_buffer = false;
  // `splitk(S)`: a cluster of S blocks per output tile, each running a contiguous share of the
  // srange loop's iterations; their partial sums are added over distributed shared memory.
  std::optional<int64_t> splitk;
  SourceLoc splitk_loc;
  // `streamk`: a persistent block per SM, each running an equal share of all tiles' srange
  // iterations (stream-K); a tile cut between blocks is finished by the block that ran its first
  // iteration, adding the others' partial sums from a global workspace.
  bool streamk = false;
  SourceLoc streamk_loc;
  // `multicast(S)`: the blocks run in clusters of S that take S neighbouring tiles of the kernel's
  // next-to-innermost block loop; each pipelined TMA load whose box does not move with that index
  // is loaded once per cluster, a share by each block, and multicast to all S.
  // `multicast(S, T)`: clusters of S x T blocks on S x T neighbouring tiles of the two innermost
  // block loops; a load that does not move with the outer index is shared by the S blocks of one
  // inner index, one that does not move with the inner index by the T blocks of one outer index.
  std::optional<int64_t> multicast;
  std::optional<int64_t> multicast_n;  // T of multicast(S, T); unset: multicast(S)
  SourceLoc multicast_loc;
  // `alternate(T)`: the block's compute warpgroups form T teams that take its tiles in turn (the
  // ping-pong GEMM kernel): one team's epilogue runs while the next team's main loop has the
  // tensor cores. The DMA role serves the teams from one ring, in tile order.
  std::optional<int64_t> alternate;
  SourceLoc alternate_loc;
  // `kteams(T)`: the block's compute warpgroups form T teams that share every tile: team t runs the
  // srange loop's iterations whose ring positions are t modulo T (its own accumulator), and the T
  // partial sums are added in a fixed order through shared memory before team 0 runs the epilogue.
  // Two accumulator chains of one tile keep the tensor cores busy where one would wait.
  std::optional<int64_t> kteams;
  SourceLoc kteams_loc;
  // `schedule(optimal)`: the compiler solves the srange loop's schedule (src/sched) and chooses the
  // warp specialization, the pipeline depth and the turns of the compute warpgroups from it
  // (src/passes/schedule_optimal.h) instead of `warpspecialize pipeline(D) pingpong` by hand.
  bool schedule_optimal = false;
  SourceLoc schedule_loc;
  // `schedule(optimal, budget=B)`: the search's deterministic budget, B million Z3 resource units
  // (kDefaultScheduleBudget when not given, at most kMaxScheduleBudget; a million is about a
  // quarter second of solver work on a 2-core machine).
  static constexpr int64_t kDefaultScheduleBudget = 4;
  static constexpr int64_t kMaxScheduleBudget = 1000;
  std::optional<int64_t> schedule_budget;
  SourceLoc schedule_budget_loc;
  // `regs(P, C)`: the registers per thread of the DMA warpgroup (P) and of each compute warpgroup
  // (C) of a warp-specialized block, set with setmaxnreg (without it: 40 for the DMA role, the rest
  // shared by the compute warpgroups; src/passes/warp_specialize.h). schedule(optimal) derives it
  // from the solved schedule.
  std::optional<std::pair<int64_t, int64_t>> regs;
  SourceLoc regs_loc;
  std::optional<int64_t> smem_bytes;
  std::string smem_spelling;  // as written, e.g. "227KB"
  SourceLoc smem_loc;
  std::vector<LayoutSpec> layouts;
  std::vector<std::string> comments;
  std::string trailing_comment;  // after the ';' on the same line
};

// `when(lhs CMP rhs)` on a specialized mapping: a condition on the entry task's run-time extents
// (its dimension names) and `SMS` (the device's multiprocessor count), CMP one of < <= > >=.
// `when(fastest)`: no condition; the launcher's cost model picks, per call, the cheapest of the
// default and every `when(fastest)` mapping (lhs, cmp and rhs are then empty).
struct MappingCondition {
  SourceLoc loc;
  bool fastest = false;
  Expr lhs;
  std::string cmp;
  Expr rhs;
};

// The first mapping block is the default; each later one (a *specialization*) has a `when(...)`,
// names the same target and lists only the instances it replaces (by name) or adds; the others come
// from the default. The generated launcher runs, per call, the first specialization whose condition
// holds, else the default (docs/mapping.md, "Specialized mappings").
struct Mapping {
  SourceLoc loc;
  Ident target;  // machine: sm_90a (hopper) or sm_80 (ampere)
  std::optional<MappingCondition> when;
  std::vector<Instance> instances;
  std::vector<std::string> comments;
  std::vector<std::string> closing_comments;  // comments before the mapping's closing '}'
};

// ---- Program -----------------------------------------------------------------------------------------

struct Program {
  enum class ItemKind { Task, Variant };
  struct Item {
    ItemKind kind;
    size_t index;
  };
  std::vector<TaskDecl> tasks;
  std::vector<VariantDecl> variants;
  std::vector<Item> order;  // declaration order of tasks and variants, for printing
  std::optional<Mapping> mapping;          // the default mapping
  std::vector<Mapping> specializations;    // later mapping blocks, each with `when(...)`
  std::vector<std::string> trailing_comments;
  // Comments the canonical form has no place for (inside an expression or between clauses);
  // `loom fmt` refuses to drop them silently.
  std::vector<SourceLoc> misplaced_comments;

  void add(TaskDecl t);
  void add(VariantDecl v);
  const TaskDecl* find_task(const std::string& name) const;
  const VariantDecl* find_variant(const std::string& name) const;
};

// The tensors (parameter or local names, through partitions) that variant v passes on with a
// red(op) privilege somewhere in its body, with the first such reduction. A parameter the task holds
// `w` on and reduces into starts at the reduction's identity (may_delegate; docs/language.md).
std::map<std::string, Privilege> reduced_tensors(const Program& p, const VariantDecl& v);

// The program as specialization `i` of p.specializations sees it: the default mapping with the
// specialization's instances replacing those of the same name (and the others appended), and no
// specializations of its own.
Program specialized(const Program& p, size_t i);

// The dimension of the output D along which the rank-1 operand B of an element-wise leaf op `s`
// (add, sub, mul, div, max with D of rank 2) in a leaf of task `t` runs (docs/language.md, section
// 6): 1 — one value per column, D[i, j] = A[i, j] op B[j] — when B's dimension name is D's second
// dimension name and not its first; 0 — one value per row, D[i, j] = A[i, j] op B[i] — otherwise.
// Also 0 when `s` is no such op or its operands are not parameters of `t`.
int leaf_broadcast_dim(const TaskDecl& t, const Stmt& s);

}  // namespace loom

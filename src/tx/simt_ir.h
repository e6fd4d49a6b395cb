// The SIMT kernel IR: a tensor-expression statement group that is not a tensor-core contraction
// (pointwise maps, transposes, row reductions such as softmax and layernorm), with its logical
// `par` loops bound to CUDA blocks, warps and lanes (docs/tensor-expressions.md, "Thread mapping").
// The mapping pass (src/tx/thread_map.h) builds it, the CUDA emitter (src/tx/simt_cuda.h) prints
// it, and the evaluator (src/tx/simt_eval.h) runs it on the CPU over its (block, thread) space.
//
// Semantics. Every kernel computes exactly what its .tx statements compute (the interpreter,
// src/tx/interp.h), up to the reassociation of a sum across threads. Its parameters are the
// program's `in` and `out` tensors it touches (row-major views with run-time extents and strides)
// and the size symbols. Two shapes exist:
//
//   Map   a perfect nest of `par` loops around pointwise assignments. A block owns a 32 x 32 tile
//         of (row_loop, lane_loop): lane l of warp w handles lane_loop = tile + l and row_loop =
//         tile + w + 8 s for s = 0..3; the other loops of the nest are enumerated by the block
//         index. With `staged`, the one assignment runs in two phases around a shared tile: the
//         value is computed with lanes along lane_loop (the reads' contiguous loop) and stored in
//         the tile, then, after a barrier, lanes along row_loop (the write's contiguous loop) store
//         it to global memory. The tile's layout (a padded row or an xor swizzle) makes both
//         phases' shared accesses conflict-free.
//   Rows  an outer `par` row loop whose body holds per-row scalars (`new` f32[1] buffers, kept in
//         registers), row-level scalar assignments, and inner loops over the row's columns, each
//         either a reduction into a scalar (`s[0] += e`, `s[0] = max(s[0], e)`, `min`) or a
//         pointwise write of an `out` tensor. A row runs on a warp (row length <= warp_max_len)
//         or on a block of block_threads threads, chosen per call from the run-time row length;
//         thread t handles columns t, t + T, ... (or 16-byte vectors of them when `vector_elems`
//         > 1 and the launcher finds the pointers and strides aligned), keeps a partial of each
//         reduction, and the row's threads combine the partials (xor shuffles; across warps
//         through shared memory) so that every thread holds the row's value. A read that several
//         inner loops make at the same index (softmax's X[i, j], three times) is `cached`: on the
//         vector path, when the row fits in cache_chunks vectors per thread, the first loop
//         loads it into registers and the later ones read it there (one pass over the row in
//         memory instead of one per loop; the values and their order are the same). A division
//         by a column-independent divisor divides through the divisor's reciprocal, prepared once
//         per row, with the correctly rounded result (`divisions`).
#pragma once

#include <string>
#include <vector>

#include "tx/check.h"

namespace loom::tx {

// A kernel parameter: an `in` or `out` tensor of the program.
struct SimtTensor {
  int tensor = -1;  // Model::tensors index
  bool written = false;
};

enum class Combine { Sum, Max, Min };
const char* combine_name(Combine c);  // "sum", "max", "min"

struct SimtStmt {
  enum class Kind {
    Assign,  // target[index] = value: a global `out` element (Map, or a Rows inner loop) or a per-row scalar
    Reduce,  // scalar = combine(scalar, term) over every column of `loop` (Rows)
  };
  Kind kind = Kind::Assign;
  const Stmt* src = nullptr;  // the .tx assignment (its location is printed next to the code)
  int assign = -1;            // Model::assigns index
  int loop = -1;              // Rows: the inner loop it runs under (-1: at row level, once per row)
  int target = -1;            // the written tensor
  Combine op = Combine::Sum;  // Reduce
  const Expr* value = nullptr;  // Assign: the value; Reduce: the term combined into the scalar
  // Rows inner loops: the largest subexpressions of `value` that do not depend on the column
  // (row scalars, sizes, the row index, constants: `rsqrt(var[0] + 1e-05)`), computed once per
  // row before the loop. The same fp32 operations as in the loop, so the same values.
  std::vector<const Expr*> invariants;
  // Rows inner loops: the divisions `x / d` of `value` whose divisor d does not depend on the
  // column (`X[i, j] / f32(N)`, `exp(..) / s[0]`). d's reciprocal is prepared once per row and
  // each element divides through it (src/tx/invariant_div.h: the correctly rounded quotient, the
  // value `x / d` itself, where it is proven; the code divides where it is not).
  std::vector<const Expr*> divisions;
};

// The staged tile's layout: word (r, c) of the 32 x 32 tile (r along row_loop, c along lane_loop) is
// at r * 32 + c (Plain), r * 33 + c (Padded) or r * 32 + (c xor r) (Xor).
enum class SmemLayout { Plain, Padded, Xor };
const char* smem_layout_name(SmemLayout l);  // "plain", "padded", "xor"
int64_t smem_word(SmemLayout l, int64_t r, int64_t c);

struct SimtKernel {
  enum class Shape { Map, Rows };
  std::string name;
  SourceLoc loc;  // the kernel's outermost loop
  Shape shape = Shape::Map;
  std::vector<SimtTensor> params;  // in declaration order
  std::vector<SimtStmt> stmts;     // in program order

  // Map
  std::vector<int> nest;  // the par loops, outermost first
  int lane_loop = -1;     // walked by consecutive lanes (when reading, if staged)
  int row_loop = -1;      // walked by the warps (and by the lanes when writing, if staged); -1: a one-loop nest
  bool staged = false;
  SmemLayout layout = SmemLayout::Padded;
  static constexpr int kTile = 32;
  static constexpr int kWarps = 8;

  // Rows
  int rows_loop = -1;             // the row loop
  std::vector<int> scalars;       // per-row scalar tensors, in declaration order
  bool rows_by_lanes = true;      // false: a row per thread, columns in sequence (when lanes along rows cost less)
  const Expr* row_length = nullptr;  // the run-time length the warp/block choice reads (an inner loop's extent)
  int warp_max_len = 1024;
  int block_threads = 256;
  int rows_per_warp_block = 8;    // rows (warps) per block when a row runs on a warp
  int vector_elems = 1;           // elements per 16-byte vector of the widest-typed access; 1: no vector path
  std::vector<const Expr*> cached;  // reads kept in registers across the inner loops (first occurrence of each)
  int cache_chunks = 0;             // vectors per thread the register cache holds (32 / vector_elems: a warp's 1024 columns)
};

// The SIMT IR in text (`--emit=mapping` prints it after the mapping's reasons).
std::string print_simt(const Model& m, const SimtKernel& k);

}  // namespace loom::tx

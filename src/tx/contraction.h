// The meeting point of the tensor-expression front end (issue 13): what the polyhedral analysis
// recognizes in a loop nest, and what the lowering turns into a task program plus a default
// mapping. The analysis (src/tx/ analysis files) fills a ContractionKernel from a checked program;
// the lowering (src/tx/lower_*.cpp) reads only this struct, never the syntax tree.
//
// One kernel computes, for every batch index b and output element (i, j):
//
//   out[b, i, j] = epilogue( sum_k pro_a(A[b, i, k]) * pro_b(B[b, k, j])
//                            [ + sum_k2 pro_c(C[b, i, k2]) * pro_d(D[b, k2, j]) ]   (second term)
//                            [ + bias[j] ] [ + residual[b, i, j] ] )
//
// with fp32 accumulation. Each operand's index order is stated, so a transposed operand
// (A[k, i]) is a layout, not a different kernel.
#pragma once

#include "loom/machine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::tx {

// Pointwise functions the front end can fuse into the operand path (prologue) or after the sum
// (epilogue). Identity means "nothing".
enum class Pointwise { Identity, Relu, Gelu, Silu, Sigmoid, Exp, Neg };

const char* pointwise_name(Pointwise p);

// A source location in the .tx file (1-based), for diagnostics about the recognized kernel.
struct TxLoc {
  std::string file;
  int line = 0;
  int col = 0;
  uint32_t source_file = 0;  // the file's index in the caller's SourceManager (for CompileError)
};

// One tensor operand of a contraction: its name in the tensor-expression program, element type,
// and whether its two innermost index positions are swapped relative to the canonical form
// (A as [i, k], B as [k, j]): a column-major operand.
struct TxOperand {
  std::string name;
  DType dtype = DType::BF16;
  bool transposed = false;
  Pointwise prologue = Pointwise::Identity;  // applied to each element before the multiply
};

struct TxTerm {  // sum over `k` of a[i, k] * b[k, j]
  TxOperand a, b;
  std::string k;  // the reduction dimension's name (its extent symbol)
};

struct ContractionKernel {
  std::string name;                 // the kernel's (entry task's) name
  TxLoc loc;                        // the statement it was recognized from
  std::vector<std::string> batch;   // batch dimension names, outermost first (empty: plain GEMM)
  std::string m, n;                 // the output's row and column dimension names
  std::vector<TxTerm> terms;        // one or two contractions added into one accumulator
  std::optional<TxOperand> bias;    // a length-n vector added after the sum
  std::optional<TxOperand> residual;  // an m x n tensor added after the sum (scaled by 1)
  Pointwise activation = Pointwise::Identity;  // applied last
  TxOperand out;                    // the output tensor (its prologue is unused)
  // Tile sizes chosen by the cost model (or the user): block tile u x v, K step w. 0 = not chosen.
  int u = 0, v = 0, w = 0;
};

// A one-paragraph, human-readable statement of the kernel (for --emit and diagnostics).
std::string describe(const ContractionKernel& k);

}  // namespace loom::tx

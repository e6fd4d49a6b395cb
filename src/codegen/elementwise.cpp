// Element-wise leaves on a thread's registers: `fill`, and `convert`, unary, binary, scale and axpy leaves
// as per-thread loops over a fragment's registers, with row vectors (rows.cpp) broadcast along the
// fragment's rows, and global inputs (operands.cpp: a column vector broadcast along the columns, a
// global tile's fragment) read in place; or over a row vector's 2 registers when every operand is
// one (stores to global memory go to epilogue.cpp).
#include "codegen/cuda_gen.h"

namespace loom::codegen::detail {

void CudaGen::emit_fill(Stream& s, const Op& op) {
  ValueId x = op.operands[0];
  auto d = def_.find(x);
  if (d == def_.end() || d->second->kind != OpKind::Alloc || d->second->mem != MemKind::Register)
    cannot(&op, "fill of a tensor that is not a whole register array");
  int64_t n = register_count(*d->second);
  s.line("#pragma unroll");
  s.line("for (int r = 0; r < " + std::to_string(n) + "; ++r) " + var(x) + "[r] = " + var(op.operands[1]) + ";");
}

// The C++ expression of one element of an element-wise leaf (docs/language.md semantics), given
// the expression of each input element. exp2 runs on the MUFU (ex2.approx), and exp as
// ex2(x * log2 e); sigmoid, silu and gelu as runtime.cuh's MUFU forms (one ex2 and a fast
// reciprocal: a few units in the last place of fp32, far below the 16-bit outputs they feed);
// gelu_fast with one tanh.approx (absolute error about 2^-11 of tanh: what cuBLASLt's GELU epilogue
// computes, bench/results/2026-12-04-h200-gelu-fast.md).
std::string CudaGen::elementwise_value(const Op& op, const std::vector<std::string>& in) {
  const std::string& n = op.name;
  auto one = [&]() { return in.at(0); };
  if (n == "convert" || n == "copy") return one();
  if (n == "exp") return "loom::rt::ex2_approx((" + one() + ") * 1.44269504088896341f)";
  if (n == "exp2") return "loom::rt::ex2_approx(" + one() + ")";
  if (n == "relu") return "fmaxf(" + one() + ", 0.0f)";
  if (n == "sigmoid") return "loom::rt::sigmoid_fast(" + one() + ")";
  if (n == "tanh") return "tanhf(" + one() + ")";
  if (n == "silu") return "loom::rt::silu_fast(" + one() + ")";
  if (n == "gelu") return "loom::rt::gelu_tanh(" + one() + ")";
  if (n == "gelu_fast") return "loom::rt::gelu_fast(" + one() + ")";
  if (n == "scale") return "(" + in.at(0) + " * " + in.at(1) + ")";
  if (n == "axpy") return "fmaf(" + in.at(0) + ", " + in.at(1) + ", " + in.at(2) + ")";
  if (n == "add") return "(" + in.at(0) + " + " + in.at(1) + ")";
  if (n == "sub") return "(" + in.at(0) + " - " + in.at(1) + ")";
  if (n == "mul") return "(" + in.at(0) + " * " + in.at(1) + ")";
  if (n == "div") return "(" + in.at(0) + " / " + in.at(1) + ")";
  if (n == "max") return "fmaxf(" + in.at(0) + ", " + in.at(1) + ")";
  cannot(&op, "the leaf `" + n + "`");
}

// What one element of an element-wise leaf costs as elementwise_value lowers it: special-function
// unit operations (ex2.approx, the fast reciprocal of runtime.cuh's MUFU forms) and FP32 ALU
// operations (a conversion, a max, a multiply-add each one). The launcher's cost model reads them
// (estimate.cpp); tanhf and the IEEE division are library sequences, counted as such roughly.
CudaGen::ElementWork CudaGen::element_work(const std::string& n) {
  if (n == "exp") return {1, 1};                      // ex2(x * log2 e)
  if (n == "exp2") return {1, 0};
  if (n == "sigmoid" || n == "silu") return {2, 2};   // ex2, reciprocal; the scale and the add
  if (n == "gelu") return {2, 5};                     // ex2, reciprocal; the cubic's multiplies, the add
  if (n == "gelu_fast") return {1, 5};                // tanh.approx; the cubic's multiplies, 0.5 x (1 + t)
  if (n == "tanh") return {2, 10};                    // tanhf
  if (n == "div") return {1, 4};                      // reciprocal and its refinement
  return {0, 1};                                      // convert, copy, relu, scale, axpy, add, sub, mul, max
}

void CudaGen::record_work(const Op& op, int64_t per_thread) {
  const ElementWork w = element_work(op.name);
  const int64_t n = per_thread * 128 * team_wgs();  // the tile's elements: 128 threads in each of its compute warpgroups
  work_of_[&op] = {w.sfu * n, w.alu * n};
}

// An element-wise leaf D = f(X, ...) on a thread's registers. Every tensor input is a register
// array holding an accumulator fragment of the same tile (one element per register, the wgmma
// order), or a row vector (rows.cpp: register r of the fragment reads row half (r >> 1) & 1). D is
// such a fragment too, or the thread's fragment of a global tile (a store, converted to D's
// element type and clipped at the tile's extents). Without a fragment operand, every operand is a
// row vector and the loop runs over its 2 registers.
void CudaGen::emit_elementwise(Stream& s, const Op& op) {
  const LeafOp* lo = find_leaf_op(op.name);
  if (!lo || !is_elementwise(lo->family)) cannot(&op, "the leaf `" + op.name + "`");
  std::optional<Frag> frag, global_frag;
  std::map<size_t, std::string> rows;     // operand index -> row vector array
  std::map<size_t, GlobalInput> globals;  // operand index -> a global input (operands.cpp)
  for (size_t i = 1; i < op.operands.size(); ++i) {
    if (f_.info(op.operands[i]).type != ir::Type::Tensor) continue;
    if (auto r = row_array(op.operands[i])) {
      rows[i] = *r;
      continue;
    }
    if (auto g = global_input(op, i)) {
      globals[i] = *g;
      const View& w = view(op.operands[i]);
      if (!w.cols) {
        if (global_frag && tile_static(*global_frag, &op) != tile_static(*w.frag, &op))
          cannot(&op, "`" + op.name + "` on fragments of different tiles");
        global_frag = w.frag;
      }
      continue;
    }
    auto xf = register_frag(op.operands[i]);
    if (!xf) cannot(&op, "`" + op.name + "` on something other than accumulator fragments or row vectors in registers");
    if (frag && (tile_static(*frag, &op) != tile_static(*xf, &op) || frag->transposed != xf->transposed))
      cannot(&op, "`" + op.name + "` on fragments of different tiles");
    frag = xf;
  }
  if (frag && !rows.empty()) untransposed(*frag, &op, "a row vector of `" + op.name + "`");
  for (auto& [i, g] : globals)  // a column vector cut for the other orientation reads other entries
    if (frag && view(op.operands[i]).cols && view(op.operands[i]).frag->transposed != frag->transposed)
      cannot(&op, "`" + op.name + "` of a column vector and an accumulator fragment of different mma orientations",
             "give the column vector the accumulator's partition: mma(b, rhs, ..., transposed) with a transposed accumulator");
  if (global_frag) {
    if (frag && tile_static(*frag, &op) != tile_static(*global_frag, &op))
      cannot(&op, "`" + op.name + "` on fragments of different tiles");
    if (!frag) frag = global_frag;
  }
  if (frag && !rows.empty()) {
    one_row_block(*frag, &op, "a row vector broadcast along the rows of `" + op.name + "`");
    for (auto& [i, r] : rows)
      if (row_entries(op.operands[i]) != 2) cannot(&op, "`" + op.name + "` of a row vector cut for other warpgroup rows than its fragment's");
  }
  const ValueId dv = op.operands[0];
  if (!frag && !globals.empty()) cannot(&op, "`" + op.name + "` of a column vector without an accumulator fragment");
  if (!frag) {
    auto dr = row_array(dv);
    if (!dr && (op.name == "copy" || op.name == "convert") && rows.count(1)) {
      // A row vector stored into its piece of a row vector in shared or global memory (rows.cpp).
      if (auto dm = row_memory(dv)) {
        if (row_entries(op.operands[1]) != dm->entries)
          cannot(&op, "`" + op.name + "` of a row vector into memory cut for other warpgroup rows");
        emit_row_memory_copy(s, op, op.name + " " + names_[static_cast<size_t>(op.operands[1])] + " -> " +
                                        names_[static_cast<size_t>(dv)], rows[1], std::nullopt, std::nullopt, dm, "");
        return;
      }
    }
    if (rows.empty() || !dr) cannot(&op, "`" + op.name + "` without a fragment or row vector input and output in registers");
    const int64_t entries = row_entries(dv);
    for (auto& [i, r] : rows)
      if (row_entries(op.operands[i]) != entries) cannot(&op, "`" + op.name + "` on row vectors of different warpgroup rows");
    record_work(op, entries);
    std::vector<std::string> in;
    for (size_t i = 1; i < op.operands.size(); ++i)
      in.push_back(rows.count(i) ? rows[i] + "[r]" : var(op.operands[i]));
    s.line("#pragma unroll");
    s.line("for (int r = 0; r < " + std::to_string(entries) + "; ++r) " + *dr + "[r] = " + elementwise_value(op, in) + ";  // row vector");
    return;
  }
  bool interior = false;  // inside the branch where every global input with an `interior` test passes it
  const int64_t frag_n = frag ? frag_regs(*frag, &op) : 0;
  record_work(op, frag_n);
  std::function<std::string(const std::string&)> value = [&](const std::string& idx) {
    std::vector<std::string> in;
    for (size_t i = 1; i < op.operands.size(); ++i) {
      if (globals.count(i)) {
        const GlobalInput& g = globals[i];
        const std::string gi = g.period && frag_n > g.period ? "(" + idx + ") % " + std::to_string(g.period) : idx;
        in.push_back(interior && g.interior ? g.value_interior(gi) : g.value(gi));
      } else if (rows.count(i)) in.push_back(rows[i] + "[((" + idx + ") >> 1) & 1]");
      else if (f_.info(op.operands[i]).type == ir::Type::Tensor) {
        // A 16-bit fragment (a tile read from shared memory, smem_fragments.cpp) computes in fp32.
        const DType t = view(op.operands[i]).dtype;
        const std::string e = var(op.operands[i]) + "[" + idx + "]";
        in.push_back(t == DType::BF16 || t == DType::F16 ? "static_cast<float>(" + e + ")" : e);
      }
      else in.push_back(var(op.operands[i]));
    }
    return elementwise_value(op, in);
  };
  // A 16-bit relu of a shared input that feeds the wgmma as its A operand in registers (relu_gemm's
  // prologue; rows.cpp packs the result into the A fragments) also keeps its values as 32-bit pairs:
  // in an interior tile the words the ldmatrix loaded, as they are, and the pack applies the relu to
  // a whole pair at once (relu_pair: one HMNMX2 per A fragment word) instead of unpacking, a max per
  // element and repacking; in an edge tile the loaded words with their halves past the extents
  // masked to 0 (one AND a word: a per-element select, max and repack there made an edge tile's K
  // loop the call's critical path where a wave holds few tiles). The max runs in the pack, after the
  // wait for the earlier wgmmas: a value that defines an A fragment register before that wait makes
  // ptxas serialize the wgmmas (C7513). Measured on relu_gemm (H200, 2048^3 to 8192^3,
  // bench/results/2026-11-28-h200-relu-gemm.md).
  std::string pairs;
  if (auto df0 = register_frag(dv); df0 && op.name == "relu" && op.operands.size() == 2 && globals.count(1) &&
                                    globals[1].value16 && globals[1].pair16_interior && globals[1].pair16 && globals[1].interior) {
    const DType dt = view(dv).dtype;
    if ((dt == DType::BF16 || dt == DType::F16) && view(op.operands[1]).dtype == dt && frag_regs(*df0, &op) % 2 == 0)
      for (auto& [a, src] : forwarded_)
        if (var(src) == var(dv)) pairs = var(dv) + "_w";
    if (!pairs.empty())
      s.line("uint32_t " + pairs + "[" + std::to_string(frag_regs(*df0, &op) / 2) + "];  // " + names_[static_cast<size_t>(dv)] +
             " in pairs, as the wgmma's A fragments take them; the relu of each pair is applied where rows.cpp packs them");
  }
  // The global inputs' pointers and extents, declared once in a scope around the leaf.
  if (!globals.empty()) {
    s.line("{  // global inputs of `" + op.name + "`, read once per tile");
    s.indent += 2;
    const int64_t regs = frag_regs(*frag, &op);
    for (auto& [i, g] : globals) {
      for (const std::string& d : g.decls) s.line(d);
      if (g.preload)
        for (const std::string& d : g.preload(regs)) s.line(d);
    }
  }
  if (auto df = register_frag(dv)) {
    if (tile_static(*df, &op) != tile_static(*frag, &op) || df->transposed != frag->transposed)
      cannot(&op, "`" + op.name + "` between fragments of different tiles");
    const DType dt = view(dv).dtype, st = view(op.operands[1]).dtype;
    if (op.name == "convert" && globals.empty() && st == DType::F32 && (dt == DType::BF16 || dt == DType::F16)) {
      // Two floats per conversion (cvt.rn.bf16x2.f32): registers 2j and 2j + 1 are one pair of
      // the fragment (adjacent columns of one row), which is also how an A fragment packs them,
      // so a later pack of these registers folds away. (A global input is read through its own
      // expression, below.)
      s.line("#pragma unroll");
      s.line("for (int r = 0; r < " + std::to_string(frag_regs(*df, &op)) + "; r += 2) loom::rt::convert_pair(" +
             var(dv) + "[r], " + var(dv) + "[r + 1], " + var(op.operands[1]) + "[r], " + var(op.operands[1]) + "[r + 1]);");
    } else {
      const int64_t regs = frag_regs(*df, &op);
      const std::string loop = "for (int r = 0; r < " + std::to_string(regs) + "; ++r) " + var(dv) + "[r] = ";
      // relu of a 16-bit input into the same 16-bit type is exact there (max(x, 0) rounds nothing, NaN
      // gives 0 as fmaxf does): computed on the 16-bit values, it skips two conversions per element.
      // Measured on relu_gemm (H100, 4096^3): 617 -> 670 TFLOP/s with the edge branch below.
      const bool exact16 = op.name == "relu" && op.operands.size() == 2 && globals.count(1) && globals[1].value16 &&
                           (dt == DType::BF16 || dt == DType::F16) && view(op.operands[1]).dtype == dt;
      if (exact16)
        value = [&](const std::string& idx) {
          const GlobalInput& g = globals[1];
          return "__hmax(" + (interior && g.interior ? g.value16_interior(idx) : g.value16(idx)) + ", static_cast<" + cpp_type(dt) +
                 ">(0.0f))";
        };
      std::string cond;  // the inputs' interior tests: when all pass, the loop reads without extents tests
      for (auto& [i, g] : globals)
        if (g.interior) cond += (cond.empty() ? "" : " && ") + g.interior(regs);
      if (cond.empty()) {
        s.line("#pragma unroll");
        s.line(loop + value("r") + ";");
      } else {
        // With `pairs`, each branch also fills the pair array: the loaded words as they are, or
        // masked past the extents. (The element array stays for any other reader; unread, it is dead.)
        const std::string P = var(dv), words = std::to_string(regs / 2);
        s.line("if (" + cond + ") {  // an interior tile: every register inside the extents" +
               (pairs.empty() ? "" : "; the loaded pairs as they are"));
        interior = true;
        s.line("  #pragma unroll");
        s.line("  " + loop + value("r") + ";");
        interior = false;
        if (!pairs.empty()) {
          s.line("  #pragma unroll");
          s.line("  for (int p = 0; p < " + words + "; ++p) " + pairs + "[p] = " + globals[1].pair16_interior("p") + ";");
        }
        s.line("} else {");
        s.line("  #pragma unroll");
        s.line("  " + loop + value("r") + ";");
        if (!pairs.empty()) {
          s.line("  #pragma unroll");
          s.line("  for (int p = 0; p < " + words + "; ++p) " + pairs + "[p] = " + globals[1].pair16("p") + ";");
          s.line("  (void)" + P + "[0];  // the wgmma reads the pairs; the elements are for any other reader (else dead)");
          packed_pairs_[P] = {pairs, "loom::rt::relu_pair<" + cpp_type(dt) + ">("};
        }
        s.line("}");
      }
    }
  } else {
    emit_store(s, op, *frag, value);
  }
  if (!globals.empty()) {
    s.indent -= 2;
    s.line("}");
  }
}

// mask_above(D, d) on a thread's accumulator fragment: -inf where column - row > d, with row and
// column the element's coordinates in D's root (the tile's offsets there plus the fragment's
// acc_row / acc_col). A uniform branch skips the loop for a tile that lies wholly on or below the
// diagonal (its largest column - row, width - 1, is <= d), so only the tiles the diagonal crosses
// pay for the compare.
void CudaGen::emit_mask(Stream& s, const Op& op) {
  const ValueId dv = op.operands[0];
  auto df = register_frag(dv);
  if (!df || df->role != MmaRole::Acc) cannot(&op, "`mask_above` on something other than an accumulator fragment in registers");
  const View& t = view(df->tile);
  if (t.dims.size() != 2 || t.dims[0] != 0 || t.dims[1] != 1 || t.off.size() != 2)
    cannot(&op, "`mask_above` on a tile that is not a rank-2 piece of a rank-2 tensor");
  one_row_block(*df, &op, "`mask_above`");
  untransposed(*df, &op, "`mask_above`");
  const std::vector<int64_t> ext = tile_static(*df, &op);
  const std::string d = var(op.operands[1]);
  s.line("{  // mask_above: -inf where column - row > " + d + " (coordinates in " + names_[static_cast<size_t>(t.root)] + ")");
  s.line("  const int64_t lim = (" + d + ") - ((" + t.off[1] + ") - (" + t.off[0] + "));  // in the tile's own coordinates");
  s.line("  if (lim < " + std::to_string(ext[1] - 1) + ") {  // the diagonal crosses this tile");
  s.line("    const int tid = loom::rt::thread_in_warpgroup();");
  s.line("    #pragma unroll");
  s.line("    for (int r = 0; r < " + std::to_string(ext[1] / 2) + "; ++r) if (loom::rt::acc_col(tid, r) - loom::rt::acc_row(tid, r) > lim) " +
         var(dv) + "[r] = -INFINITY;");
  s.line("  }");
  s.line("}");
}

}  // namespace loom::codegen::detail

// The CUDA emitter of SIMT kernels. See simt_cuda.h.
#include "tx/simt_cuda.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace loom::tx {
namespace {

const char* ctype(DType t) {
  switch (t) {
    case DType::BF16: return "__nv_bfloat16";
    case DType::F16: return "__half";
    default: return "float";
  }
}
const char* abi_dtype(DType t) {
  switch (t) {
    case DType::BF16: return "LOOM_BF16";
    case DType::F16: return "LOOM_F16";
    default: return "LOOM_F32";
  }
}
int elem_bytes(DType t) { return t == DType::F32 ? 4 : 2; }

std::string float_literal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s + "f";
}

// The device and host helpers every SIMT artifact carries (small; kept beside the kernel so the
// .cu needs only the CUDA toolkit and loom/abi.h).
const char* kPrelude = R"(namespace {

// Floor division and non-negative remainder by a positive constant (the .tx index semantics).
__host__ __device__ __forceinline__ int64_t loom_floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
__host__ __device__ __forceinline__ int64_t loom_floormod(int64_t a, int64_t b) { return a - b * loom_floordiv(a, b); }
__host__ __device__ __forceinline__ int64_t loom_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Element loads and stores: values are fp32 in registers, rounded to the tensor's type when stored.
__device__ __forceinline__ float loom_f32(float v) { return v; }
__device__ __forceinline__ float loom_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float loom_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ void loom_from_f32(float& d, float v) { d = v; }
__device__ __forceinline__ void loom_from_f32(__nv_bfloat16& d, float v) { d = __float2bfloat16(v); }
__device__ __forceinline__ void loom_from_f32(__half& d, float v) { d = __float2half(v); }
template <typename T> __device__ __forceinline__ float loom_ld(const T* p, int64_t o) { return loom_f32(p[o]); }
template <typename T> __device__ __forceinline__ void loom_st(T* p, int64_t o, float v) { loom_from_f32(p[o], v); }

// V consecutive elements in one aligned vector access (V * sizeof(T) bytes: 16 for the widest type).
template <int kBytes> struct LoomVec;
template <> struct LoomVec<16> { using type = uint4; };
template <> struct LoomVec<8> { using type = uint2; };
template <> struct LoomVec<4> { using type = uint32_t; };
template <> struct LoomVec<2> { using type = uint16_t; };
template <int V, typename T> __device__ __forceinline__ void loom_ldv(const T* p, float (&o)[V]) {
  using Vec = typename LoomVec<V * sizeof(T)>::type;
  const Vec raw = *reinterpret_cast<const Vec*>(p);
  const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int x = 0; x < V; ++x) o[x] = loom_f32(e[x]);
}
template <int V, typename T> __device__ __forceinline__ void loom_stv(T* p, const float (&v)[V]) {
  using Vec = typename LoomVec<V * sizeof(T)>::type;
  Vec raw;
  T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int x = 0; x < V; ++x) loom_from_f32(e[x], v[x]);
  *reinterpret_cast<Vec*>(p) = raw;
}

// Division by a divisor fixed for the row (src/tx/invariant_div.h has the proof and the CPU copy):
// y = RN(1/c) once, then per element q = RN(x y) and one correction RN(q - RN(q c - x) y), the
// correctly rounded x / c where 2^-60 <= c, |x| <= 2^60 or x = +-0; elsewhere `ok` turns false and
// the caller divides.
struct LoomDivisor { float c, y, hi; };
__device__ __forceinline__ LoomDivisor loom_divisor(float c) {
  return {c, 1.0f / c, c >= 0x1p-60f && c <= 0x1p60f ? 0x1p60f : -1.0f};
}
__device__ __forceinline__ float loom_div(float x, const LoomDivisor& d, bool& ok) {
  ok = ok & (fabsf(x) <= d.hi) & ((fabsf(x) >= 0x1p-60f) | (x == 0.0f));  // no short-circuit: predicates, no branches
  const float q = x * d.y;
  return fmaf(-fmaf(q, d.c, -x), d.y, q);
}

struct LoomSum { __device__ float operator()(float a, float b) const { return a + b; } };
struct LoomMax { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct LoomMin { __device__ float operator()(float a, float b) const { return fminf(a, b); } };

// Combines one value per thread of a row of kT threads (a warp, or the first kT / 32 warps of the
// block) so that every thread of the row gets op over all of them: xor shuffles inside each warp,
// then the warps' values through shared memory, combined in warp order.
template <int kT, typename Op> __device__ __forceinline__ float loom_row_combine(float v, float* red, Op op) {
  if constexpr (kT == 1) {
    return v;
  } else {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    if constexpr (kT > 32) {
      if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
      __syncthreads();
      v = red[0];
#pragma unroll
      for (int w = 1; w < kT / 32; ++w) v = op(v, red[w]);
      __syncthreads();
    }
    return v;
  }
}

}  // namespace
)";

class Emitter {
 public:
  Emitter(const Model& m, const SimtKernel& k, const std::string& source) : m_(m), k_(k), source_(source) {}

  SimtArtifact run() {
    resolve_sizes();
    SimtArtifact a;
    a.entry = k_.name;
    a.header = header();
    std::ostringstream o;
    o << "// Generated by loom from " << source_ << " (SIMT kernel `" << k_.name << "`, line " << k_.loc.line << "). Do not edit: regenerate with\n"
      << "//   loom compile " << source_ << " -o DIR\n";
    o << "// The thread mapping (`loom compile " << source_ << " --emit=mapping` shows why it was chosen):\n";
    std::istringstream ir(print_simt(m_, k_));
    for (std::string line; std::getline(ir, line);) o << "//   " << line << "\n";
    o << "#include <atomic>\n#include <cstdint>\n#include <cmath>\n#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n\n"
      << "#include \"loom/abi.h\"\n#include \"" << k_.name << ".h\"\n\n"
      << "// Index locals a statement does not need (a vector's first column) are left to the compiler to drop.\n#pragma nv_diag_suppress 177\n\n"
      << kPrelude << "\n";
    if (k_.shape == SimtKernel::Shape::Map) map_kernel(o);
    else rows_kernel(o);
    launcher(o);
    info(o);
    a.cu = o.str();
    return a;
  }

 private:
  const Model& m_;
  const SimtKernel& k_;
  std::string source_;
  std::map<std::string, std::pair<int, size_t>> size_source_;  // size -> (tensor, dimension)
  std::map<const Expr*, std::string> vector_names_;            // accesses read from a vector register array
  std::map<int, int> loaded_;                                   // row-cache slot -> the assignment that loads it
  std::map<const Expr*, std::string> hoisted_;                  // row-invariant subexpressions -> their local
  std::map<const Expr*, std::string> divisor_names_;            // the statement's divisions through a row's reciprocal -> its LoomDivisor
  std::map<const Expr*, std::string> divisors_;                 // the same while the fast path is emitted (empty otherwise)

  const TensorInfo& tensor(int t) const { return m_.tensors[static_cast<size_t>(t)]; }
  std::string pname(int t) const { return "p_" + tensor(t).name; }
  std::string stride(int t, size_t d) const { return "s_" + tensor(t).name + "_" + std::to_string(d); }
  static std::string size_name(const std::string& s) { return "n_" + s; }
  std::string loop_name(int l) const { return "v_" + m_.loop_var(l); }

  void resolve_sizes() {
    for (const SimtTensor& p : k_.params) {
      const auto& ext = tensor(p.tensor).decl->extents;
      for (size_t d = 0; d < ext.size(); ++d)
        if (ext[d].kind == Expr::Kind::Name && !size_source_.count(ext[d].name)) size_source_[ext[d].name] = {p.tensor, d};
    }
    for (const std::string& s : m_.sizes)
      if (!size_source_.count(s) && uses_size(s)) {
        Diagnostic d;
        d.loc = k_.loc;
        d.message = "the size '" + s + "' is no tensor extent by itself, so the kernel's launcher cannot read it from its arguments";
        d.hint = "give some tensor of this kernel an extent that is exactly '" + s + "'";
        throw CompileError(d);
      }
  }
  bool uses_size(const std::string& s) const {
    for (const SimtTensor& p : k_.params)
      for (const Expr& e : tensor(p.tensor).decl->extents)
        if (mentions(e, s)) return true;
    for (const SimtStmt& st : k_.stmts) {
      if (mentions(*st.value, s)) return true;
      for (int l : m_.assigns[static_cast<size_t>(st.assign)].loops)
        if (mentions(m_.loops[static_cast<size_t>(l)].stmt->extent, s)) return true;
    }
    return false;
  }
  bool mentions(const Expr& e, const std::string& s) const {
    if (e.kind == Expr::Kind::Name && e.name == s && !m_.loop_of.count(&e)) return true;
    return std::any_of(e.args.begin(), e.args.end(), [&](const Expr& a) { return mentions(a, s); });
  }

  // Integer (index and extent) expressions.
  std::string index(const Expr& e) const {
    if (auto c = constant_value(e)) return std::to_string(*c);
    switch (e.kind) {
      case Expr::Kind::Name: return m_.loop_of.count(&e) ? loop_name(m_.loop_of.at(&e)) : size_name(e.name);
      case Expr::Kind::Neg: return "(-" + index(e.args[0]) + ")";
      case Expr::Kind::Binary: {
        const std::string a = index(e.args[0]), b = index(e.args[1]);
        if (e.op == '/') return "loom_floordiv(" + a + ", " + b + ")";
        if (e.op == '%') return "loom_floormod(" + a + ", " + b + ")";
        return "(" + a + " " + e.op + " " + b + ")";
      }
      default: break;
    }
    LOOM_INTERNAL("not an index expression: " << print_expr(e));
  }
  std::string extent(int loop) const { return index(m_.loops[static_cast<size_t>(loop)].stmt->extent); }
  std::string offset(const Expr& access) const {
    const int t = m_.tensor_of.at(&access);
    std::string off;
    const size_t r = access.args.size();
    for (size_t d = 0; d < r; ++d) {
      const std::string i = index(access.args[d]);
      off += (d ? " + " : "") + (d + 1 < r ? i + " * " + stride(t, d) : i);
    }
    return off;
  }
  bool is_scalar(int t) const { return std::find(k_.scalars.begin(), k_.scalars.end(), t) != k_.scalars.end(); }

  // Value expressions (fp32).
  std::string value(const Expr& e) const {
    if (auto h = hoisted_.find(&e); h != hoisted_.end()) return h->second;
    if (auto d = divisors_.find(&e); d != divisors_.end()) return "loom_div(" + value(e.args[0]) + ", " + d->second + ", ok)";
    switch (e.kind) {
      case Expr::Kind::Int: return float_literal(static_cast<double>(e.ival));
      case Expr::Kind::Float: return float_literal(e.fval);
      case Expr::Kind::Inf: return "INFINITY";
      case Expr::Kind::Name:
        return "static_cast<float>(" + (m_.loop_of.count(&e) ? loop_name(m_.loop_of.at(&e)) : size_name(e.name)) + ")";
      case Expr::Kind::Access: {
        const int t = m_.tensor_of.at(&e);
        if (is_scalar(t)) return "r_" + tensor(t).name;
        if (auto v = vector_names_.find(&e); v != vector_names_.end()) return v->second;
        return "loom_ld(" + pname(t) + ", " + offset(e) + ")";
      }
      case Expr::Kind::Neg: return "(-" + value(e.args[0]) + ")";
      case Expr::Kind::Binary: return "(" + value(e.args[0]) + " " + e.op + " " + value(e.args[1]) + ")";
      case Expr::Kind::Call: {
        const std::string x = value(e.args[0]);
        const std::string& f = e.name;
        if (f == "relu") return "fmaxf(" + x + ", 0.0f)";
        if (f == "gelu") return "(0.5f * " + x + " * (1.0f + erff(" + x + " * 0.70710678118654752f)))";
        if (f == "sigmoid") return "(1.0f / (1.0f + expf(-" + x + ")))";
        if (f == "silu") return "(" + x + " / (1.0f + expf(-" + x + ")))";
        if (f == "exp" || f == "log" || f == "sqrt" || f == "tanh") return f + "f(" + x + ")";
        if (f == "rsqrt") return "rsqrtf(" + x + ")";
        if (f == "abs") return "fabsf(" + x + ")";
        if (f == "max") return "fmaxf(" + x + ", " + value(e.args[1]) + ")";
        if (f == "min") return "fminf(" + x + ", " + value(e.args[1]) + ")";
        if (f == "bf16") return "__bfloat162float(__float2bfloat16(" + x + "))";
        if (f == "f16") return "__half2float(__float2half(" + x + "))";
        if (f == "f32") return x;
        break;
      }
    }
    LOOM_INTERNAL("cannot emit the value " << print_expr(e));
  }

  std::string where(const SimtStmt& s) const {
    return "// " + source_ + ":" + std::to_string(s.src->loc.line) + ": " + print_expr(s.src->lhs) + (s.src->accumulate ? " += " : " = ") +
           print_expr(s.src->rhs) + "\n";
  }

  std::string kernel_params() const {
    std::string p;
    for (const SimtTensor& t : k_.params) {
      const TensorInfo& info = tensor(t.tensor);
      p += std::string(p.empty() ? "" : ", ") + (t.written ? "" : "const ") + ctype(info.dtype) + "* __restrict__ " + pname(t.tensor);
      for (size_t d = 0; d + 1 < info.decl->extents.size(); ++d) p += ", const int64_t " + stride(t.tensor, d);
    }
    for (const auto& [s, src] : size_source_) p += ", const int64_t " + size_name(s);
    return p;
  }
  std::string kernel_args() const {
    std::string p;
    for (const SimtTensor& t : k_.params) {
      const TensorInfo& info = tensor(t.tensor);
      p += std::string(p.empty() ? "" : ", ") + "static_cast<" + (t.written ? "" : "const ") + ctype(info.dtype) + "*>(" + info.name + ".data)";
      for (size_t d = 0; d + 1 < info.decl->extents.size(); ++d) p += ", " + info.name + ".stride[" + std::to_string(d) + "]";
    }
    for (const auto& [s, src] : size_source_) p += ", " + size_name(s);
    return p;
  }

  // ---- Map kernels
  void map_kernel(std::ostream& o) {
    const bool one = k_.row_loop < 0;
    o << "// " << source_ << ":" << k_.loc.line << ": a map over the par nest; " << (k_.staged ? "staged through a shared tile" : "direct") << ".\n";
    o << "__global__ void __launch_bounds__(256) " << k_.name << "_kernel(" << kernel_params();
    for (int l : k_.nest) o << ", const int64_t g_" << m_.loop_var(l);
    o << ") {\n";
    o << "  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n";
    o << "  // the block's place in the nest: (";
    for (size_t x = 0; x < k_.nest.size(); ++x) o << (x ? ", " : "") << "b_" << m_.loop_var(k_.nest[x]);
    o << ") in row-major order over the grid counts g_*\n";
    o << "  int64_t b = blockIdx.x;\n";
    for (size_t x = k_.nest.size(); x-- > 0;) {
      const std::string v = m_.loop_var(k_.nest[x]);
      o << "  const int64_t b_" << v << " = b % g_" << v << ";\n";
      if (x) o << "  b /= g_" << v << ";\n";
    }
    for (int l : k_.nest)
      if (l != k_.lane_loop && l != k_.row_loop) o << "  const int64_t " << loop_name(l) << " = b_" << m_.loop_var(l) << ";\n";
    const std::string lane = loop_name(k_.lane_loop), lv = m_.loop_var(k_.lane_loop);
    if (one) {
      o << "  const int64_t " << lane << " = 256 * b_" << lv << " + 32 * warp + lane;\n";
      o << "  if (" << lane << " < " << extent(k_.lane_loop) << ") {\n";
      for (const SimtStmt& s : k_.stmts) o << "    " << where(s) << "    " << store(s, value(*s.value)) << "\n";
      o << "  }\n}\n\n";
      return;
    }
    const std::string row = loop_name(k_.row_loop), rv = m_.loop_var(k_.row_loop);
    const std::string in_bounds = "if (" + lane + " < " + extent(k_.lane_loop) + " && " + row + " < " + extent(k_.row_loop) + ")";
    if (!k_.staged) {
      o << "  const int64_t " << lane << " = 32 * b_" << lv << " + lane;\n";
      o << "#pragma unroll\n  for (int s = 0; s < 4; ++s) {\n";
      o << "    const int64_t " << row << " = 32 * b_" << rv << " + warp + 8 * s;\n";
      o << "    " << in_bounds << " {\n";
      for (const SimtStmt& s : k_.stmts) o << "      " << where(s) << "      " << store(s, value(*s.value)) << "\n";
      o << "    }\n  }\n}\n\n";
      return;
    }
    const SimtStmt& s = k_.stmts.at(0);
    auto word = [&](const std::string& r, const std::string& c) {
      switch (k_.layout) {
        case SmemLayout::Plain: return "tile[" + r + "][" + c + "]";
        case SmemLayout::Padded: return "tile[" + r + "][" + c + "]";
        case SmemLayout::Xor: return "tile[" + r + "][(" + c + ") ^ (" + r + ")]";
      }
      return std::string();
    };
    o << "  // the " << smem_layout_name(k_.layout) << " tile: row = " << rv << " - 32 * b_" << rv << ", column = " << lv << " - 32 * b_" << lv << "\n";
    o << "  __shared__ float tile[32][" << (k_.layout == SmemLayout::Padded ? 33 : 32) << "];\n";
    o << "  " << where(s);
    o << "  // read phase: lanes along " << lv << " (the reads' contiguous loop)\n";
    o << "#pragma unroll\n  for (int s = 0; s < 4; ++s) {\n";
    o << "    const int64_t " << lane << " = 32 * b_" << lv << " + lane;\n";
    o << "    const int64_t " << row << " = 32 * b_" << rv << " + warp + 8 * s;\n";
    o << "    " << in_bounds << " " << word("warp + 8 * s", "lane") << " = " << value(*s.value) << ";\n";
    o << "  }\n  __syncthreads();\n";
    o << "  // write phase: lanes along " << rv << " (the write's contiguous loop)\n";
    o << "#pragma unroll\n  for (int s = 0; s < 4; ++s) {\n";
    o << "    const int64_t " << row << " = 32 * b_" << rv << " + lane;\n";
    o << "    const int64_t " << lane << " = 32 * b_" << lv << " + warp + 8 * s;\n";
    o << "    " << in_bounds << " " << store(s, word("lane", "warp + 8 * s")) << "\n";
    o << "  }\n}\n\n";
  }

  std::string store(const SimtStmt& s, const std::string& v) const {
    const int t = s.target;
    if (is_scalar(t)) return "r_" + tensor(t).name + " = " + (s.src->accumulate ? "r_" + tensor(t).name + " + " : "") + v + ";";
    return "loom_st(" + pname(t) + ", " + offset(s.src->lhs) + ", " + v + ");";
  }

  // ---- Rows kernels
  // Global accesses of `s` that are contiguous in its loop (vector candidates): the loop variable
  // alone in the innermost index.
  std::vector<const Expr*> vector_accesses(const SimtStmt& s) const {
    std::vector<const Expr*> out;
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
      if (e.kind == Expr::Kind::Access && !is_scalar(m_.tensor_of.at(&e))) {
        const Expr& last = e.args.back();
        if (last.kind == Expr::Kind::Name && m_.loop_of.count(&last) && m_.loop_of.at(&last) == s.loop) out.push_back(&e);
      }
      for (const Expr& a : e.args) walk(a);
    };
    walk(*s.value);
    return out;
  }

  // The row-cache slot of the access `e`, or -1.
  int cache_slot(const Expr& e) const {
    for (size_t ci = 0; ci < k_.cached.size(); ++ci)
      if (same(*k_.cached[ci], e)) return static_cast<int>(ci);
    return -1;
  }

  // `dest = value` of statement `s` for the current element(s): with divisions through a row's
  // reciprocal, first the fast quotients (clearing `ok` outside their proven range), then, only
  // where `ok` fell, the same values again with IEEE divisions. `each` wraps a line into the
  // per-element loop of a vector ("" for one element).
  void element_values(std::ostream& o, const SimtStmt& s, const std::string& ind, const std::string& dest,
                      const std::function<void(std::ostream&, const std::string&, const std::string&)>& each) {
    if (s.divisions.empty()) {
      each(o, ind, dest + " = " + value(*s.value) + ";");
      return;
    }
    o << ind << "bool ok = true;  // every quotient of the fast path proven correctly rounded\n";
    divisors_ = divisor_names_;
    each(o, ind, dest + " = " + value(*s.value) + ";");
    divisors_.clear();
    o << ind << "if (!ok) {  // a dividend or divisor outside the reciprocal's proven range: divide\n";
    each(o, ind + "  ", dest + " = " + value(*s.value) + ";");
    o << ind << "}\n";
  }

  // One vector of columns [c, c + V) of statement `s`: a load per contiguous access (or the
  // register row cache, loaded before, when `cached` and the access is cached), the elements in
  // order, and the vector store of a pointwise statement.
  void vector_body(std::ostream& o, const SimtStmt& s, const std::string& ind, bool cached) {
    const int V = k_.vector_elems;
    const std::string j = loop_name(s.loop);
    const bool reduce = s.kind == SimtStmt::Kind::Reduce;
    const char* op = s.op == Combine::Sum ? "LoomSum" : s.op == Combine::Max ? "LoomMax" : "LoomMin";
    o << ind << "const int64_t " << j << " = c;  // the vector's first column\n";
    std::vector<const Expr*> vecs = vector_accesses(s);
    for (size_t x = 0; x < vecs.size(); ++x) {
      const int slot = cached ? cache_slot(*vecs[x]) : -1;
      if (slot >= 0) {
        vector_names_[vecs[x]] = "rc" + std::to_string(slot) + "[q][e]";
        continue;
      }
      const std::string a = "a" + std::to_string(x);
      o << ind << "float " << a << "[" << V << "];\n";
      o << ind << "loom_ldv<" << V << ">(" << pname(m_.tensor_of.at(vecs[x])) << " + " << offset(*vecs[x]) << ", " << a << ");\n";
      vector_names_[vecs[x]] = a + "[e]";
    }
    auto each = [&](std::ostream& os, const std::string& in, const std::string& line) {
      os << "#pragma unroll\n" << in << "for (int e = 0; e < " << V << "; ++e) {\n";
      os << in << "  const int64_t " << j << " = c + e;  // this element's column\n";
      os << in << "  " << line << "\n" << in << "}\n";
    };
    if (!reduce) {
      o << ind << "float out[" << V << "];\n";
      element_values(o, s, ind, "out[e]", each);
    } else if (s.divisions.empty()) {
      each(o, ind, "part = " + std::string(op) + "{}(part, " + value(*s.value) + ");");
    } else {
      o << ind << "float term[" << V << "];\n";
      element_values(o, s, ind, "term[e]", each);
      o << "#pragma unroll\n" << ind << "for (int e = 0; e < " << V << "; ++e) part = " << op << "{}(part, term[e]);\n";
    }
    vector_names_.clear();
    if (!reduce) o << ind << "loom_stv<" << V << ">(" << pname(s.target) << " + " << offset(s.src->lhs) << ", out);\n";
  }

  void rows_kernel(std::ostream& o) {
    const int V = k_.vector_elems;
    const std::string i = loop_name(k_.rows_loop);
    o << "// " << source_ << ":" << k_.loc.line << ": row kernel. A row of " << m_.loop_var(k_.rows_loop)
      << " runs on kT threads (1: a row per thread; 32: a warp; more: a block), kRows rows per block;\n"
      << "// thread t takes columns t, t + kT, ...";
    if (V > 1) o << " (kVec: vectors of " << V << " columns, t * " << V << ", t * " << V << " + kT * " << V << ", ...)";
    o << ".\n";
    if (!k_.cached.empty()) o << "// kCache > 0: the row's cached reads stay in registers, kCache vectors per thread (rows up to kT * kCache * " << V << ").\n";
    o << "template <int kT, int kRows, bool kVec, int kCache>\n";
    o << "__global__ void __launch_bounds__(kT * kRows) " << k_.name << "_rows(" << kernel_params() << ") {\n";
    o << "  __shared__ float red[kT > 32 ? kT / 32 : 1];  // the warps' partials of a block-wide row\n";
    o << "  const int t = kT == 1 ? 0 : static_cast<int>(threadIdx.x % kT);\n";
    o << "  const int64_t " << i << " = static_cast<int64_t>(blockIdx.x) * kRows + threadIdx.x / kT;\n";
    o << "  if (" << i << " >= " << extent(k_.rows_loop) << ") return;  // the row's threads leave together\n";
    for (size_t ci = 0; ci < k_.cached.size(); ++ci)
      o << "  float rc" << ci << "[kCache > 0 ? kCache : 1][" << V << "];  // the register row cache of " << print_expr(*k_.cached[ci]) << "\n";
    for (int s : k_.scalars) o << "  float r_" << tensor(s).name << " = 0.0f;  // `new " << tensor(s).name << "` starts at zero\n";
    for (const SimtStmt& s : k_.stmts) {
      o << "  " << where(s);
      if (s.loop < 0) {
        const bool global = !is_scalar(s.target);
        o << "  " << (global ? "if (t == 0) " : "") << store(s, value(*s.value)) << "\n";
        continue;
      }
      const std::string j = loop_name(s.loop);
      const std::string n = extent(s.loop);
      const bool reduce = s.kind == SimtStmt::Kind::Reduce;
      const char* op = s.op == Combine::Sum ? "LoomSum" : s.op == Combine::Max ? "LoomMax" : "LoomMin";
      const std::string identity = s.op == Combine::Sum ? "0.0f" : s.op == Combine::Max ? "-INFINITY" : "INFINITY";
      o << "  {\n";
      hoisted_.clear();
      for (size_t x = 0; x < s.invariants.size(); ++x) {
        const std::string h = "h" + std::to_string(x);
        o << "    const float " << h << " = " << value(*s.invariants[x]) << ";  // once per row: " << print_expr(*s.invariants[x]) << "\n";
        hoisted_[s.invariants[x]] = h;
      }
      divisor_names_.clear();
      std::vector<const Expr*> divisors;  // distinct divisors, in order
      for (const Expr* d : s.divisions) {
        size_t x = 0;
        while (x < divisors.size() && !same(*divisors[x], d->args[1])) ++x;
        if (x == divisors.size()) {
          divisors.push_back(&d->args[1]);
          o << "    const LoomDivisor d" << x << " = loom_divisor(" << value(d->args[1]) << ");  // once per row: the reciprocal of "
            << print_expr(d->args[1]) << "\n";
        }
        divisor_names_[d] = "d" + std::to_string(x);
      }
      if (reduce) o << "    float part = " << identity << ";\n";
      if (V > 1 && !k_.cached.empty()) {
        // The cached vector path: the thread's kCache vectors of the row, unrolled so the cache
        // stays in registers. The first loop that reads a cached access loads all its vectors
        // before it computes, so that they are in flight together.
        o << "    if constexpr (kVec && kCache > 0) {\n";
        for (const Expr* x : vector_accesses(s)) {
          const int slot = cache_slot(*x);
          if (slot < 0 || loaded_.count(slot)) continue;
          loaded_[slot] = s.assign;
          o << "#pragma unroll\n      for (int q = 0; q < kCache; ++q) {  // load the row cache of " << print_expr(*x) << ": every vector in flight at once\n";
          o << "        const int64_t c = (static_cast<int64_t>(t) + static_cast<int64_t>(q) * kT) * " << V << ";\n";
          o << "        const int64_t " << j << " = c;\n";
          o << "        if (c < " << n << ") loom_ldv<" << V << ">(" << pname(m_.tensor_of.at(x)) << " + " << offset(*x) << ", rc" << slot << "[q]);\n";
          o << "      }\n";
        }
        o << "#pragma unroll\n      for (int q = 0; q < kCache; ++q) {\n";
        o << "        const int64_t c = (static_cast<int64_t>(t) + static_cast<int64_t>(q) * kT) * " << V << ";\n";
        o << "        if (c < " << n << ") {\n";
        vector_body(o, s, "          ", true);
        o << "        }\n      }\n    } else ";
      }
      if (V > 1) {
        // The vector path: one aligned load per contiguous access, then the elements in order.
        o << (k_.cached.empty() ? "    " : "") << "if constexpr (kVec) {\n";
        o << "      for (int64_t c = static_cast<int64_t>(t) * " << V << "; c < " << n << "; c += static_cast<int64_t>(kT) * " << V << ") {\n";
        vector_body(o, s, "        ", false);
        o << "      }\n    } else {\n";
      }
      const std::string ind = V > 1 ? "      " : "    ";
      o << ind << "for (int64_t " << j << " = t; " << j << " < " << n << "; " << j << " += kT)";
      if (s.divisions.empty()) {
        o << "\n";
        if (reduce) o << ind << "  part = " << op << "{}(part, " << value(*s.value) << ");\n";
        else o << ind << "  " << store(s, value(*s.value)) << "\n";
      } else {
        o << " {\n" << ind << "  float v;\n";
        element_values(o, s, ind + "  ", "v", [](std::ostream& os, const std::string& in, const std::string& line) { os << in << line << "\n"; });
        if (reduce) o << ind << "  part = " << op << "{}(part, v);\n";
        else o << ind << "  " << store(s, "v") << "\n";
        o << ind << "}\n";
      }
      if (V > 1) o << "    }\n";
      if (reduce) {
        o << "    part = loom_row_combine<kT>(part, red, " << op << "{});\n";
        o << "    r_" << tensor(s.target).name << " = " << op << "{}(r_" << tensor(s.target).name << ", part);\n";
      }
      hoisted_.clear();
      divisor_names_.clear();
      o << "  }\n";
    }
    o << "}\n\n";
  }

  // ---- launcher, header, metadata
  std::string signature() const {
    std::string p;
    for (const SimtTensor& t : k_.params) p += "loom_tensor " + tensor(t.tensor).name + ", ";
    return "int loom_" + k_.name + "(" + p + "cudaStream_t stream)";
  }

  std::string header() const {
    std::string guard = "LOOM_GENERATED_" + k_.name + "_H";
    for (char& c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::ostringstream o;
    o << "/* Generated by loom from " << source_ << " (SIMT kernel `" << k_.name << "`). Do not edit. */\n";
    o << "#ifndef " << guard << "\n#define " << guard << "\n\n#include <cuda_runtime_api.h>\n\n#include \"loom/abi.h\"\n\n";
    o << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    o << "/* " << k_.name << "(";
    for (size_t p = 0; p < k_.params.size(); ++p) {
      const TensorInfo& t = tensor(k_.params[p].tensor);
      o << (p ? ", " : "") << t.name << ": " << (k_.params[p].written ? "w " : "r ") << dtype_name(t.dtype) << "[";
      for (size_t d = 0; d < t.decl->extents.size(); ++d) o << (d ? ", " : "") << print_expr(t.decl->extents[d]);
      o << "]";
    }
    o << ")\n   Returns LOOM_OK (0) or a LOOM_ERR_* code; launches on `stream` (asynchronous). */\n";
    o << signature() << ";\n\n";
    o << "/* Arguments, element types, alignment and threads of the kernel. */\nconst loom_kernel_info* loom_" << k_.name << "_info(void);\n\n";
    o << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    return o.str();
  }

  void launcher(std::ostream& o) {
    o << "// Checks every argument, reads the sizes from the extents, and launches.\n";
    o << "extern \"C\" " << signature() << " {\n";
    for (const SimtTensor& p : k_.params) {
      const TensorInfo& t = tensor(p.tensor);
      const std::string& n = t.name;
      const size_t r = t.decl->extents.size();
      o << "  if (" << n << ".data == nullptr) return LOOM_ERR_NULL;\n";
      o << "  if (" << n << ".rank != " << r << ") return LOOM_ERR_RANK;\n";
      o << "  if (" << n << ".dtype != " << abi_dtype(t.dtype) << ") return LOOM_ERR_DTYPE;\n";
      o << "  for (int d = 0; d < " << r << "; ++d) if (" << n << ".shape[d] < 0) return LOOM_ERR_SHAPE;\n";
      o << "  if (" << n << ".stride[" << r - 1 << "] != 1) return LOOM_ERR_STRIDE;\n";
      if (r > 1) o << "  for (int d = 0; d < " << r - 1 << "; ++d) if (" << n << ".stride[d] <= 0) return LOOM_ERR_STRIDE;\n";
      o << "  if (reinterpret_cast<uintptr_t>(" << n << ".data) % " << elem_bytes(t.dtype) << " != 0) return LOOM_ERR_ALIGN;  // not element-aligned\n";
    }
    for (const auto& [s, src] : size_source_)
      o << "  const int64_t " << size_name(s) << " = " << tensor(src.first).name << ".shape[" << src.second << "];\n";
    for (const SimtTensor& p : k_.params) {
      const TensorInfo& t = tensor(p.tensor);
      for (size_t d = 0; d < t.decl->extents.size(); ++d)
        o << "  if (" << t.name << ".shape[" << d << "] != " << index(t.decl->extents[d]) << ") return LOOM_ERR_SHAPE;  // "
          << print_expr(t.decl->extents[d]) << "\n";
    }
    o << "  int device = 0;\n  if (cudaGetDevice(&device) != cudaSuccess) return LOOM_ERR_DEVICE;\n";
    o << "  static std::atomic<int> checked[64];  // per device: 0 unknown, 1 sm_90, 2 another architecture\n";
    o << "  if (device < 0 || device >= 64) return LOOM_ERR_DEVICE;\n";
    o << "  if (checked[device] == 0) {\n    int major = 0, minor = 0;\n"
      << "    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);\n"
      << "    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);\n"
      << "    checked[device] = major == 9 && minor == 0 ? 1 : 2;\n  }\n";
    o << "  if (checked[device] != 1) return LOOM_ERR_DEVICE;\n";
    if (k_.shape == SimtKernel::Shape::Map) map_launch(o);
    else rows_launch(o);
    o << "  if (cudaGetLastError() != cudaSuccess) return LOOM_ERR_LAUNCH;\n  return LOOM_OK;\n}\n\n";
  }

  void map_launch(std::ostream& o) {
    o << "  int64_t blocks = 1;\n";
    for (int l : k_.nest) {
      const std::string g = "g_" + m_.loop_var(l);
      if (l == k_.lane_loop) o << "  const int64_t " << g << " = loom_cdiv(" << extent(l) << ", " << (k_.row_loop < 0 ? 256 : 32) << ");\n";
      else if (l == k_.row_loop) o << "  const int64_t " << g << " = loom_cdiv(" << extent(l) << ", 32);\n";
      else o << "  const int64_t " << g << " = " << extent(l) << ";\n";
      o << "  blocks *= " << g << ";\n";
    }
    o << "  if (blocks == 0) return LOOM_OK;  // an empty output: nothing to launch\n";
    o << "  if (blocks > 2147483647) return LOOM_ERR_SHAPE;\n";
    o << "  " << k_.name << "_kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(256), 0, stream>>>(" << kernel_args();
    for (int l : k_.nest) o << ", g_" << m_.loop_var(l);
    o << ");\n";
  }

  void rows_launch(std::ostream& o) {
    const std::string rows = extent(k_.rows_loop);
    o << "  const int64_t rows = " << rows << ";\n";
    o << "  const int64_t row_length = " << index(*k_.row_length) << ";\n";
    o << "  if (rows == 0) return LOOM_OK;  // an empty output: nothing to launch\n";
    const int V = k_.vector_elems;
    if (V > 1) {
      // Every vectorized access needs its base and row pitch aligned to its vector, and whole vectors per row.
      std::set<int> vt;
      for (const SimtStmt& s : k_.stmts)
        if (s.loop >= 0) {
          for (const Expr* e : vector_accesses(s)) vt.insert(m_.tensor_of.at(e));
          if (s.kind == SimtStmt::Kind::Assign) vt.insert(s.target);
        }
      o << "  // the 16-byte vector path: whole vectors per row, every vectorized pointer and row pitch aligned\n";
      o << "  bool vec = row_length % " << V << " == 0;\n";
      for (int t : vt) {
        const TensorInfo& info = tensor(t);
        const int bytes = V * elem_bytes(info.dtype);
        o << "  vec = vec && reinterpret_cast<uintptr_t>(" << info.name << ".data) % " << bytes << " == 0";
        for (size_t d = 0; d + 1 < info.decl->extents.size(); ++d) o << " && " << info.name << ".stride[" << d << "] % " << V << " == 0";
        o << ";\n";
      }
    } else {
      o << "  const bool vec = false;  // no vector path: some column access is not contiguous\n";
    }
    auto launch = [&](int kt, int krows, bool v, int cache) {
      std::ostringstream l;
      l << k_.name << "_rows<" << kt << ", " << krows << ", " << (v ? "true" : "false") << ", " << cache << "><<<dim3(static_cast<unsigned>(loom_cdiv(rows, "
        << krows << "))), dim3(" << kt * krows << "), 0, stream>>>(" << kernel_args() << ");";
      return l.str();
    };
    o << "  if (rows > 2147483647) return LOOM_ERR_SHAPE;  // the grid\n";
    if (!k_.rows_by_lanes) {
      o << "  (void)vec; (void)row_length;\n";
      o << "  // a row per thread (the mapping found lanes along the rows cheaper)\n  " << launch(1, 256, false, 0) << "\n";
      return;
    }
    const int C = k_.cache_chunks;
    auto branch = [&](int kt, int krows) {
      if (C > 0) {
        o << "    if (vec && row_length <= " << int64_t{kt} * C * V << ") " << launch(kt, krows, true, C) << "  // row cached in registers\n";
        o << "    else if (vec) " << launch(kt, krows, true, 0) << "\n";
      } else {
        o << "    if (vec) " << launch(kt, krows, true, 0) << "\n";
      }
      o << "    else " << launch(kt, krows, false, 0) << "\n";
    };
    o << "  if (row_length <= " << k_.warp_max_len << ") {  // a row per warp, " << k_.rows_per_warp_block << " rows per block\n";
    branch(32, k_.rows_per_warp_block);
    o << "  } else {  // a row per block of " << k_.block_threads << " threads\n";
    branch(k_.block_threads, 1);
    o << "  }\n";
  }

  void info(std::ostream& o) {
    o << "extern \"C\" const loom_kernel_info* loom_" << k_.name << "_info(void) {\n  static const loom_arg_info args[] = {\n";
    for (const SimtTensor& p : k_.params) {
      const TensorInfo& t = tensor(p.tensor);
      o << "      {\"" << t.name << "\", LOOM_ARG_TENSOR, " << abi_dtype(t.dtype) << ", " << t.decl->extents.size() << ", {";
      for (size_t d = 0; d < 5; ++d) {
        o << (d ? ", " : "");
        if (d < t.decl->extents.size()) o << "\"" << print_expr(t.decl->extents[d]) << "\"";
        else o << "nullptr";
      }
      o << "}, " << elem_bytes(t.dtype) << ", " << (p.written ? "LOOM_PRIV_W" : "LOOM_PRIV_R") << "},\n";
    }
    const int threads = k_.shape == SimtKernel::Shape::Map ? 256 : k_.rows_by_lanes ? k_.block_threads : 256;
    const int smem = k_.shape == SimtKernel::Shape::Map ? (k_.staged ? 32 * (k_.layout == SmemLayout::Padded ? 33 : 32) * 4 : 0)
                                                        : 4 * (k_.block_threads / 32);
    o << "  };\n  static const loom_kernel_info info = {\"" << k_.name << "\", " << k_.params.size() << ", args, " << smem << ", " << threads
      << "};\n  return &info;\n}\n";
  }
};

}  // namespace

SimtArtifact emit_simt_cuda(const Model& m, const SimtKernel& k, const std::string& source) { return Emitter(m, k, source).run(); }

}  // namespace loom::tx

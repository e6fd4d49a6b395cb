// The PyTorch operator of an entry, from its C ABI signature (torch_ext.h). The generated file
// holds only what is particular to the entry — its argument table, schemas and the order of the
// calls — and leaves the checks themselves to runtime/loom/torch.h.
#include "codegen/torch_ext.h"

#include <set>
#include <sstream>

#include "codegen/cuda_gen.h"  // abi_dtype
#include "loom/machine.h"

namespace loom::codegen {
namespace {

constexpr const char* kNs = "loom::torch_ext::";

std::string aten_dtype(DType t) {
  switch (t) {
    case DType::BF16: return "at::kBFloat16";
    case DType::F16: return "at::kHalf";
    case DType::F32: return "at::kFloat";
    case DType::I32: return "at::kInt";
  }
  return "at::ScalarType::Undefined";
}

// How the operator sees each argument.
enum class Role {
  Input,   // a tensor the kernel only reads
  InOut,   // a tensor the kernel reads and writes: an argument of both forms, mutated in place
  Output,  // written only: allocated by the functional form, passed to the .out form
  Scalar,
};

Role role_of(const AbiArg& a) {
  if (!a.is_tensor) return Role::Scalar;
  if (a.written_only()) return Role::Output;
  return a.written() ? Role::InOut : Role::Input;
}

class TorchGen {
 public:
  TorchGen(const AbiSignature& sig, std::string source) : sig_(sig), source_(std::move(source)) {
    std::set<std::string> names;
    for (const AbiArg& a : sig_.args) {
      names.insert(a.name);
      if (role_of(a) == Role::Output) outputs_.push_back(&a);
    }
    // A single output is passed as `out` (torch's convention), unless an argument has that name.
    single_out_ = outputs_.size() == 1 && !names.count("out");
    functional_ = can_allocate();
  }

  std::string run() {
    std::ostringstream o;
    prologue(o);
    o << "namespace {\n\n"
      << "constexpr const char* kOp = \"loom." << entry() << "\";\n\n";
    arg_table(o);
    check_function(o);
    launch_function(o);
    if (functional_) functional(o, /*meta=*/false);
    if (!outputs_.empty()) out_form(o, /*meta=*/false);
    if (functional_) functional(o, /*meta=*/true);
    if (!outputs_.empty()) out_form(o, /*meta=*/true);
    o << "}  // namespace\n\n";
    registration(o);
    return o.str();
  }

 private:
  const std::string& entry() const { return sig_.entry; }
  std::string table(const AbiArg& a) const { return a.name + "_arg"; }
  // The keyword a caller passes an output by in the .out form.
  std::string keyword(const AbiArg& a) const { return single_out_ && role_of(a) == Role::Output ? "out" : a.name; }

  // The functional form allocates outputs from the inputs' named dimensions: every dimension of an
  // output must be a dimension of some tensor the caller passes.
  bool can_allocate() {
    std::set<std::string> known;
    bool any_tensor = false;
    for (const AbiArg& a : sig_.args)
      if (a.is_tensor && role_of(a) != Role::Output) {
        any_tensor = true;
        known.insert(a.dims.begin(), a.dims.end());
      }
    for (const AbiArg* out : outputs_)
      for (const std::string& d : out->dims)
        if (!known.count(d)) {
          why_no_functional_ = "the output " + out->name + " has dimension " + d + ", which no input has";
          return false;
        }
    if (!outputs_.empty() && !any_tensor) {
      why_no_functional_ = "no input tensor to allocate the outputs like";
      return false;
    }
    return true;
  }

  // ---- text pieces ------------------------------------------------------------------------------

  std::string declared(const AbiArg& a) const {
    if (!a.is_tensor) return a.name + ": " + (a.scalar_type == "float" ? "f32" : "int");
    std::string s = a.name + ": " + ir::privilege_name(a.privilege) + " " + dtype_name(a.dtype) + "[";
    for (size_t d = 0; d < a.dims.size(); ++d) s += (d ? ", " : "") + a.dims[d];
    s += "]";
    if (a.col_major) s += " column-major";
    return s;
  }

  // The schema of one form: the functional form (outputs allocated) or the .out form.
  std::string schema(bool out_form) const {
    std::string s = entry() + (out_form ? ".out(" : "(");
    std::string sep;
    char alias = 'a';
    for (const AbiArg& a : sig_.args) {
      switch (role_of(a)) {
        case Role::Input: s += sep + "Tensor " + a.name; break;
        case Role::InOut: s += sep + "Tensor(" + std::string(1, alias++) + "!) " + a.name; break;
        case Role::Scalar: s += sep + (a.scalar_type == "float" ? "float " : "int ") + a.name; break;
        case Role::Output: continue;
      }
      sep = ", ";
    }
    if (out_form) {
      s += sep + "*";
      for (const AbiArg* a : outputs_) s += ", Tensor(" + std::string(1, alias++) + "!) " + keyword(*a);
      return s + ") -> ()";
    }
    s += ") -> ";
    if (outputs_.empty()) return s + "()";
    if (outputs_.size() == 1) return s + "Tensor";
    s += "(";
    for (size_t i = 0; i < outputs_.size(); ++i) s += std::string(i ? ", " : "") + "Tensor";
    return s + ")";
  }

  // The C++ parameter list of a form's kernels, as its schema orders them.
  std::string params(bool out_form) const {
    std::string s, sep;
    for (const AbiArg& a : sig_.args) {
      if (role_of(a) == Role::Output) continue;
      s += sep + (a.is_tensor ? "const at::Tensor& " : a.scalar_type == "float" ? "double " : "int64_t ") + a.name;
      sep = ", ";
    }
    if (out_form)
      for (const AbiArg* a : outputs_) {
        s += sep + "const at::Tensor& " + keyword(*a);
        sep = ", ";
      }
    return s;
  }

  std::string return_type() const {
    if (outputs_.empty()) return "void";
    if (outputs_.size() == 1) return "at::Tensor";
    std::string s = "std::tuple<";
    for (size_t i = 0; i < outputs_.size(); ++i) s += std::string(i ? ", " : "") + "at::Tensor";
    return s + ">";
  }

  // The first tensor the caller passes (outputs are allocated like it).
  const AbiArg* first_passed() const {
    for (const AbiArg& a : sig_.args)
      if (a.is_tensor && role_of(a) != Role::Output) return &a;
    return nullptr;
  }

  // ---- sections -----------------------------------------------------------------------------------

  void prologue(std::ostringstream& o) const {
    o << "// Generated by loom from " << source_ << " (entry task `" << entry() << "`). Do not edit.\n"
      << "//\n"
      << "// torch.ops.loom." << entry() << ": a PyTorch operator around loom_" << entry() << " (" << entry()
      << ".h; docs/pytorch.md).\n";
    if (functional_) o << "//   " << schema(false) << "\n";
    if (!outputs_.empty()) o << "//   " << schema(true) << "\n";
    if (!functional_) o << "// No functional form: " << why_no_functional_ << ".\n";
    o << "// task " << entry() << "(";
    for (size_t i = 0; i < sig_.args.size(); ++i) o << (i ? ", " : "") << declared(sig_.args[i]);
    o << ")\n";
    for (const AbiArg* a : outputs_)
      if (a->privilege != ir::ParamPrivilege::Write)
        o << "// " << a->name << " is declared " << ir::privilege_name(a->privilege)
          << " but the compiled kernel never reads it: it is an output.\n";
    o << "//\n"
      << "// Every argument is checked before the launch (runtime/loom/torch.h: device, dtype, rank, strides,\n"
      << "// alignment, named dimensions, overlap; the messages name the argument); the kernel runs on the\n"
      << "// current CUDA stream of the arguments' device; a LOOM_ERR_* status raises a Python exception with\n"
      << "// the ABI's message. The Meta kernels (same checks and allocation, no launch) serve torch.compile.\n"
      << "// Build with " << entry() << ".cu (nvcc, sm_90a) and loom's runtime/ on the include path; load with\n"
      << "// torch.ops.load_library (the Python package `loom` does both).\n"
      << "#include <ATen/cuda/CUDAContext.h>\n"
      << "#include <c10/cuda/CUDAGuard.h>\n"
      << "#include <torch/library.h>\n\n"
      << "#include <tuple>\n\n"
      << "#include \"" << entry() << ".h\"\n"
      << "#include \"loom/torch.h\"\n\n";
  }

  void arg_table(std::ostringstream& o) const {
    o << "// The tensor arguments: {op, name, keyword, dtype, loom dtype, rank, dimensions, column-major, alignment}.\n";
    for (const AbiArg& a : sig_.args) {
      if (!a.is_tensor) continue;
      const bool renamed = keyword(a) != a.name;
      o << "const " << kNs << "TensorArg " << table(a) << "{kOp, \"" << a.name << "\", "
        << (renamed ? "\"" + keyword(a) + "\"" : std::string("nullptr")) << ", " << aten_dtype(a.dtype) << ", "
        << detail::abi_dtype(a.dtype) << ", " << a.rank() << ", {";
      for (size_t d = 0; d < a.dims.size(); ++d) o << (d ? ", " : "") << "\"" << a.dims[d] << "\"";
      o << "}, " << (a.col_major ? "true" : "false") << ", " << a.align_bytes << "};\n";
    }
    o << "\n";
  }

  // check_<entry>: every tensor's layout and the named dimensions; outputs when passed.
  void check_function(std::ostringstream& o) const {
    o << "// Element types, ranks, strides and named dimensions of every tensor (an output only when passed).\n"
      << kNs << "Dims check_" << entry() << "(";
    std::string sep;
    for (const AbiArg& a : sig_.args) {
      if (!a.is_tensor) continue;
      o << sep << "const at::Tensor" << (role_of(a) == Role::Output ? "* " : "& ") << a.name;
      sep = ", ";
    }
    o << ") {\n  " << kNs << "Dims loom_dims(kOp);\n";
    for (const AbiArg& a : sig_.args)
      if (a.is_tensor && role_of(a) != Role::Output)
        o << "  " << kNs << "check_layout(" << a.name << ", " << table(a) << ", loom_dims);\n";
    for (const AbiArg* a : outputs_)
      o << "  if (" << a->name << ") " << kNs << "check_layout(*" << a->name << ", " << table(*a) << ", loom_dims);\n";
    o << "  return loom_dims;\n}\n\n";
  }

  // The call to check_<entry> of a form: outputs by address, or nullptr when allocated.
  std::string check_call(bool out_form) const {
    std::string s = "check_" + entry() + "(", sep;
    for (const AbiArg& a : sig_.args) {
      if (!a.is_tensor) continue;
      s += sep + (role_of(a) != Role::Output ? a.name : out_form ? "&" + keyword(a) : "nullptr");
      sep = ", ";
    }
    return s + ")";
  }

  // launch_<entry>: device, overlap and emptiness checks, then loom_<entry> on the current stream.
  void launch_function(std::ostringstream& o) const {
    o << "// Device, alignment and overlap of the checked arguments, then loom_" << entry()
      << " on the current CUDA stream.\nvoid launch_" << entry() << "(";
    std::string sep;
    for (const AbiArg& a : sig_.args) {
      o << sep << (a.is_tensor ? "const at::Tensor& " : a.scalar_type == "float" ? "double " : "int64_t ") << a.name;
      sep = ", ";
    }
    // The tensors the caller passes first, so that a CPU input is named before an output
    // allocated like it.
    o << ") {\n  const c10::Device loom_device = " << kNs << "common_device(kOp, {";
    sep = "";
    for (bool outputs : {false, true})
      for (const AbiArg& a : sig_.args)
        if (a.is_tensor && (role_of(a) == Role::Output) == outputs) {
          o << sep << "{&" << a.name << ", &" << table(a) << "}";
          sep = ", ";
        }
    o << "});\n";
    std::vector<const AbiArg*> written, read;
    for (const AbiArg& a : sig_.args) {
      if (a.written()) written.push_back(&a);
      if (a.is_tensor && a.read_by_kernel) read.push_back(&a);
    }
    for (const AbiArg* w : written)
      for (const AbiArg& x : sig_.args)
        if (x.is_tensor && &x != w)
          o << "  " << kNs << "check_no_overlap(" << w->name << ", " << table(*w) << ", " << x.name << ", " << table(x) << ");\n";
    if (!written.empty()) {
      o << "  if (";
      for (size_t i = 0; i < written.size(); ++i) o << (i ? " && " : "") << written[i]->name << ".numel() == 0";
      o << ") return;  // nothing to write\n";
    }
    for (const AbiArg* r : read) o << "  " << kNs << "check_not_empty(" << r->name << ", " << table(*r) << ");\n";
    o << "  const c10::cuda::CUDAGuard loom_guard(loom_device);\n"
      << "  const cudaStream_t loom_stream = at::cuda::getCurrentCUDAStream(loom_device.index()).stream();\n"
      << "  const int loom_status = loom_" << entry() << "(\n";
    for (const AbiArg& a : sig_.args) {
      if (a.is_tensor) o << "      " << kNs << "descriptor(" << a.name << ", " << table(a) << "),\n";
      else if (a.scalar_type == "float") o << "      static_cast<float>(" << a.name << "),\n";
      else o << "      " << a.name << ",\n";
    }
    o << "      loom_stream);\n"
      << "  " << kNs << "check_status(loom_status, kOp, \"loom_" << entry() << "\");\n}\n\n";
  }

  // The functional form (and its Meta kernel): allocate the outputs, launch, return them.
  void functional(std::ostringstream& o, bool meta) const {
    const AbiArg* like = first_passed();
    o << (meta ? "// Meta: the checks and the outputs (shapes, strides, dtypes) without a launch.\n"
               : "// " + schema(false) + "\n")
      << return_type() << " " << entry() << (meta ? "_meta(" : "(") << params(false) << ") {\n";
    o << "  " << (outputs_.empty() ? "" : "const " + std::string(kNs) + "Dims loom_dims = ") << check_call(false) << ";\n";
    for (const AbiArg* a : outputs_) {
      o << "  " << (meta && outputs_.size() == 1 ? "return " : "at::Tensor " + a->name + " = ") << kNs << "allocate("
        << table(*a) << ", {";
      for (size_t d = 0; d < a->dims.size(); ++d) o << (d ? ", " : "") << "loom_dims.at(\"" << a->dims[d] << "\")";
      o << "}, " << like->name << ".options());\n";
    }
    if (!meta) {
      o << "  launch_" << entry() << "(";
      for (size_t i = 0; i < sig_.args.size(); ++i) o << (i ? ", " : "") << sig_.args[i].name;
      o << ");\n";
    }
    if (outputs_.size() == 1 && !meta) o << "  return " << outputs_[0]->name << ";\n";
    if (outputs_.size() > 1) {
      o << "  return {";
      for (size_t i = 0; i < outputs_.size(); ++i) o << (i ? ", " : "") << outputs_[i]->name;
      o << "};\n";
    }
    o << "}\n\n";
  }

  // The .out form (and its Meta kernel): the caller's outputs, checked like every argument.
  void out_form(std::ostringstream& o, bool meta) const {
    o << (meta ? "// Meta: the checks only.\n" : "// " + schema(true) + "\n")
      << "void " << entry() << (meta ? "_out_meta(" : "_out(") << params(true) << ") {\n"
      << "  " << check_call(true) << ";\n";
    if (!meta) {
      o << "  launch_" << entry() << "(";
      for (size_t i = 0; i < sig_.args.size(); ++i) o << (i ? ", " : "") << keyword(sig_.args[i]);
      o << ");\n";
    }
    o << "}\n\n";
  }

  void registration(std::ostringstream& o) const {
    // needs_fixed_stride_order: torch.compile hands the operator tensors laid out as in eager mode.
    o << "TORCH_LIBRARY_FRAGMENT(loom, m) {\n";
    if (functional_) o << "  m.def(\"" << schema(false) << "\", {at::Tag::needs_fixed_stride_order});\n";
    if (!outputs_.empty()) o << "  m.def(\"" << schema(true) << "\", {at::Tag::needs_fixed_stride_order});\n";
    o << "}\n\n";
    struct Key {
      const char* key;
      const char* why;
      bool meta;
    };
    for (const Key& k : {Key{"CUDA", "The kernel.", false},
                         Key{"CPU", "CPU tensors reach the device check, which names the argument.", false},
                         Key{"Meta", "Shapes only, for torch.compile (fake tensors).", true}}) {
      o << "// " << k.why << "\nTORCH_LIBRARY_IMPL(loom, " << k.key << ", m) {\n";
      if (functional_) o << "  m.impl(\"" << entry() << "\", &" << entry() << (k.meta ? "_meta" : "") << ");\n";
      if (!outputs_.empty())
        o << "  m.impl(\"" << entry() << ".out\", &" << entry() << (k.meta ? "_out_meta" : "_out") << ");\n";
      o << "}\n" << (k.meta ? "" : "\n");
    }
  }

  const AbiSignature& sig_;
  std::string source_;
  std::vector<const AbiArg*> outputs_;
  bool single_out_ = false;
  bool functional_ = true;
  std::string why_no_functional_;
};

}  // namespace

std::string generate_torch_extension(const AbiSignature& sig, const std::string& source) {
  return TorchGen(sig, source).run();
}

std::string torch_extension_file(const AbiSignature& sig) { return sig.entry + "_torch.cpp"; }

}  // namespace loom::codegen

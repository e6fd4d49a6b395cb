// loom/torch.h — what every generated PyTorch operator shares (`loom compile --emit=torch`,
// DIR/<entry>_torch.cpp; docs/pytorch.md). The generated file states one entry's arguments as
// TensorArg tables and calls these helpers; they check a tensor against the C ABI's requirements
// (runtime/loom/abi.h, docs/artifact.md) before the launch, so that a refused call names the
// argument instead of returning a bare LOOM_ERR_* code, and turn the status that comes back into a
// Python exception.
//
// Exceptions (c10 -> Python): a wrong element type raises TypeError (TORCH_CHECK_TYPE); a wrong
// rank, extent, stride, alignment, device or overlap raises ValueError (TORCH_CHECK_VALUE); a
// LOOM_ERR_* status from loom_<entry> raises TypeError (DTYPE), ValueError (NULL, RANK, SHAPE,
// ALIGN, STRIDE) or RuntimeError (TENSOR_MAP, LAUNCH, SMEM, DEVICE, unknown codes), each with
// loom_error_string()'s message.
//
// Shapes are read as SymInts, so that the same checks and the same allocation serve the CUDA kernel
// and the Meta kernel that torch.compile traces with (fake tensors, symbolic shapes).
//
// Host C++17 only; needs the PyTorch headers (ATen, c10/cuda). Tests: tests/unit/torch_ext_test.cpp
// (goldens of generated operators), scripts/torch_ext_compile_check.sh (compiles them against the
// PyTorch headers), tests/gpu/torch_ops.sh (runs them).
#pragma once

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <c10/core/SymInt.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "loom/abi.h"

namespace loom::torch_ext {

// Numbers in messages are turned into text here (std::to_string, show()) and never streamed:
// formatting a number into the ostringstream that c10::str builds in this extension crashed
// (H100, torch 2.11 wheel, extension built by the system g++: a segmentation fault in
// c10::operator<<(ostream&, const SymInt&) -> std::ostream::_M_insert<long>, inside the message of
// a refused stride), the wheel's C++ library and this extension's disagreeing on the stream's
// number facet. Strings and names stream fine.
inline std::string show(const c10::SymInt& v) {
  if (auto i = v.maybe_as_int()) return std::to_string(*i);
  return v.toSymNodeImplUnowned()->str();
}
inline std::string show(c10::SymIntArrayRef vs) {
  std::string s = "[";
  for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + show(vs[i]);
  return s + "]";
}

// One tensor argument of an entry, as the generated header declares it.
struct TensorArg {
  const char* op;           // "loom.gemm": how messages name the operator
  const char* name;         // the task's parameter name: "C"
  const char* keyword;      // the keyword a caller passes it by when it differs ("out"), else nullptr
  at::ScalarType dtype;     // at::kBFloat16
  int loom_dtype;           // LOOM_BF16
  int rank;
  const char* dims[LOOM_MAX_RANK];  // dimension names, outermost first
  bool col_major;           // dimension rank - 2 is the contiguous one (layout(X: col_major))
  int64_t align_bytes;      // base pointer and outer strides (16 for TMA operands)

  // "argument 'A'", or "argument 'out' (C)" for a tensor passed under another keyword.
  std::string label() const {
    std::string s = std::string("argument '") + (keyword ? keyword : name) + "'";
    return keyword ? s + " (" + name + ")" : s;
  }
  int contiguous_dim() const { return col_major ? rank - 2 : rank - 1; }
  int64_t element_bytes() const { return static_cast<int64_t>(c10::elementSize(dtype)); }
};

// The named dimensions of one call: the first tensor with a dimension fixes its extent, every later
// one must agree (as the C ABI requires).
class Dims {
 public:
  explicit Dims(const char* op) : op_(op) {}
  void bind(const char* dim, const c10::SymInt& extent, const std::string& where) {
    for (const Entry& e : entries_)
      if (e.dim == dim) {
        TORCH_CHECK_VALUE(e.extent == extent, op_, ": dimension ", dim, " disagrees: ", e.where, " = ", show(e.extent),
                          " but ", where, " = ", show(extent));
        return;
      }
    entries_.push_back({dim, extent, where});
  }
  c10::SymInt at(const char* dim) const {
    for (const Entry& e : entries_)
      if (e.dim == dim) return e.extent;
    TORCH_CHECK(false, op_, ": internal error: dimension ", dim, " is not bound (a bug in loom's generated operator)");
  }

 private:
  struct Entry {
    std::string dim;
    c10::SymInt extent;
    std::string where;
  };
  const char* op_;
  std::vector<Entry> entries_;
};

// Device kind (CUDA, or meta under torch.compile), element type, rank and strides (the kernel's
// layout: stride 1 along the contiguous dimension, every other stride positive and a multiple of
// align_bytes), then the named dimensions. The stride of an extent-1 dimension is ignored, as
// torch's is_contiguous() ignores it. Works on meta and fake tensors.
inline void check_layout(const at::Tensor& t, const TensorArg& a, Dims& dims) {
  // The device first: a CPU tensor is refused as such, not for the strides its copy got.
  TORCH_CHECK_VALUE(t.is_cuda() || t.is_meta(), a.op, ": ", a.label(), " must be a CUDA tensor, got one on ",
                    t.device().str());
  TORCH_CHECK_TYPE(t.scalar_type() == a.dtype, a.op, ": ", a.label(), " must have dtype ", a.dtype, ", got ",
                   t.scalar_type());
  TORCH_CHECK_VALUE(t.dim() == a.rank, a.op, ": ", a.label(), " must have rank ", std::to_string(a.rank),
                    ", got shape ", show(t.sym_sizes()));
  // The contiguous dimension first: a transposed operand is refused as such.
  const int inner = a.contiguous_dim();
  TORCH_CHECK_VALUE(t.sym_size(inner) == 1 || t.sym_stride(inner) == 1, a.op, ": ", a.label(),
                    " must be contiguous along dimension ", std::to_string(inner), " (", a.dims[inner],
                    a.col_major ? ", column-major" : "", "): stride 1, got strides ", show(t.sym_strides()),
                    a.col_major ? "; pass the transpose of a row-major tensor" : "; call .contiguous()");
  for (int d = 0; d < a.rank; ++d) {
    if (d == inner || t.sym_size(d) == 1) continue;
    const c10::SymInt stride = t.sym_stride(d);
    TORCH_CHECK_VALUE(stride > 0, a.op, ": ", a.label(), " must have positive strides, got ", show(t.sym_strides()));
    TORCH_CHECK_VALUE((stride * a.element_bytes()) % a.align_bytes == 0, a.op, ": ", a.label(), " has stride ",
                      show(stride), " along dimension ", std::to_string(d), " (", a.dims[d], "), not a multiple of ",
                      std::to_string(a.align_bytes), " bytes; pad the contiguous dimension to a multiple of ",
                      std::to_string(a.align_bytes / a.element_bytes()), " elements");
  }
  for (int d = 0; d < a.rank; ++d)
    dims.bind(a.dims[d], t.sym_size(d), std::string(a.keyword ? a.keyword : a.name) + ".shape[" + std::to_string(d) + "]");
}

// A read tensor must hold at least one element (the C ABI refuses a NULL data pointer).
inline void check_not_empty(const at::Tensor& t, const TensorArg& a) {
  TORCH_CHECK_VALUE(t.sym_numel() != 0, a.op, ": ", a.label(), " has no elements (shape ", show(t.sym_sizes()),
                    "); loom kernels need at least one element in every tensor they read");
}

// Every tensor on one CUDA device, each base pointer aligned. Returns the device.
inline c10::Device common_device(const char* op, std::initializer_list<std::pair<const at::Tensor*, const TensorArg*>> ts) {
  const std::pair<const at::Tensor*, const TensorArg*>* first = nullptr;
  for (const auto& p : ts) {
    const at::Tensor& t = *p.first;
    TORCH_CHECK_VALUE(t.is_cuda(), op, ": ", p.second->label(), " must be a CUDA tensor, got one on ", t.device().str());
    if (!first) first = &p;
    TORCH_CHECK_VALUE(t.device() == first->first->device(), op, ": ", p.second->label(), " is on ", t.device().str(),
                      " but ", first->second->label(), " is on ", first->first->device().str());
    TORCH_CHECK_VALUE(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % static_cast<std::uintptr_t>(p.second->align_bytes) == 0,
                      op, ": ", p.second->label(), " starts at an address that is not a multiple of ",
                      std::to_string(p.second->align_bytes), " bytes (a view with storage offset ", std::to_string(t.storage_offset()),
                      "); pass an aligned view or a .clone()");
  }
  TORCH_CHECK(first != nullptr, op, ": internal error: no tensor argument");
  return first->first->device();
}

// A written tensor must not share memory with any other argument (the kernel reads and writes in
// any order).
// ATen answers TooHard for any tensor that is not dense (a padded output, a transposed operand)
// before it looks at the storages; then two tensors of different storages do not overlap, and two
// of one storage are compared by the byte ranges they span (conservative: a strided tensor's gaps
// count as its own).
inline void check_no_overlap(const at::Tensor& written, const TensorArg& w, const at::Tensor& other, const TensorArg& o) {
  at::MemOverlapStatus s = at::get_overlap_status(written, other);
  if (s == at::MemOverlapStatus::TooHard) {
    auto span = [](const at::Tensor& t) {
      int64_t last = 0;  // the offset of the last element, in elements
      for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
      const char* b = static_cast<const char*>(t.data_ptr());
      return std::make_pair(b, b + (last + 1) * static_cast<int64_t>(t.element_size()));
    };
    s = at::MemOverlapStatus::No;
    if (written.numel() > 0 && other.numel() > 0 && written.storage().is_alias_of(other.storage())) {
      const auto a = span(written), b = span(other);
      if (a.first < b.second && b.first < a.second) s = at::MemOverlapStatus::Partial;
    }
  }
  TORCH_CHECK_VALUE(s == at::MemOverlapStatus::No, w.op, ": ", w.label(), " overlaps ", o.label(),
                    " in memory; a tensor the kernel writes must not share memory with another argument");
}

// A fresh tensor laid out as the kernel wants it: contiguous along the contiguous dimension, that
// dimension padded to a multiple of align_bytes so that every outer stride is aligned (a 129 x 257
// bf16 C has strides {264, 1}: a view of padded storage; .contiguous() packs it). The same code
// allocates on CUDA and on the meta device, so fake tensors have the real strides.
inline at::Tensor allocate(const TensorArg& a, std::vector<c10::SymInt> sizes, const at::TensorOptions& like) {
  std::vector<int> order;  // physical order, innermost first
  order.push_back(a.contiguous_dim());
  if (a.col_major) order.push_back(a.rank - 1);
  for (int d = a.rank - (a.col_major ? 3 : 2); d >= 0; --d) order.push_back(d);
  std::vector<c10::SymInt> strides(sizes.size(), c10::SymInt(1));
  const int64_t pad = a.align_bytes / a.element_bytes();
  c10::SymInt next(1);
  for (size_t i = 0; i < order.size(); ++i) {
    const int d = order[i];
    strides[static_cast<size_t>(d)] = next;
    c10::SymInt extent = sizes[static_cast<size_t>(d)];
    if (i == 0) extent = (extent + pad - 1) / pad * pad;
    next = next * extent;
  }
  return at::empty_strided_symint(sizes, strides, like.dtype(a.dtype));
}

// The C ABI descriptor of a checked tensor. The stride of an extent-1 dimension is replaced by one
// the kernel accepts (1 along the contiguous dimension, align_bytes otherwise): it is never used to
// address an element.
inline loom_tensor descriptor(const at::Tensor& t, const TensorArg& a) {
  loom_tensor d{};
  d.data = t.data_ptr();
  d.rank = a.rank;
  d.dtype = a.loom_dtype;
  for (int i = 0; i < a.rank; ++i) {
    d.shape[i] = t.size(i);
    d.stride[i] = t.size(i) != 1 ? t.stride(i) : i == a.contiguous_dim() ? 1 : a.align_bytes / a.element_bytes();
  }
  return d;
}

// The name of a status code of runtime/loom/abi.h.
inline const char* status_name(int status) {
  switch (status) {
    case LOOM_OK: return "LOOM_OK";
    case LOOM_ERR_NULL: return "LOOM_ERR_NULL";
    case LOOM_ERR_RANK: return "LOOM_ERR_RANK";
    case LOOM_ERR_DTYPE: return "LOOM_ERR_DTYPE";
    case LOOM_ERR_SHAPE: return "LOOM_ERR_SHAPE";
    case LOOM_ERR_ALIGN: return "LOOM_ERR_ALIGN";
    case LOOM_ERR_STRIDE: return "LOOM_ERR_STRIDE";
    case LOOM_ERR_TENSOR_MAP: return "LOOM_ERR_TENSOR_MAP";
    case LOOM_ERR_LAUNCH: return "LOOM_ERR_LAUNCH";
    case LOOM_ERR_SMEM: return "LOOM_ERR_SMEM";
    case LOOM_ERR_DEVICE: return "LOOM_ERR_DEVICE";
    case LOOM_ERR_MAPPING: return "LOOM_ERR_MAPPING";
    default: return "an unknown loom status";
  }
}

// Raises the Python exception for what loom_<entry> returned (nothing for LOOM_OK).
inline void check_status(int status, const char* op, const char* function) {
  if (status == LOOM_OK) return;
  switch (status) {
    case LOOM_ERR_DTYPE:
      TORCH_CHECK_TYPE(false, op, ": ", function, " returned ", status_name(status), " (", std::to_string(status), "): ",
                       loom_error_string(status));
    case LOOM_ERR_NULL:
    case LOOM_ERR_RANK:
    case LOOM_ERR_SHAPE:
    case LOOM_ERR_ALIGN:
    case LOOM_ERR_STRIDE:
      TORCH_CHECK_VALUE(false, op, ": ", function, " returned ", status_name(status), " (", std::to_string(status), "): ",
                        loom_error_string(status));
    default:  // LOOM_ERR_TENSOR_MAP, LOOM_ERR_LAUNCH, LOOM_ERR_SMEM, LOOM_ERR_DEVICE, LOOM_ERR_MAPPING, unknown codes
      TORCH_CHECK(false, op, ": ", function, " returned ", status_name(status), " (", std::to_string(status), "): ",
                  loom_error_string(status));
  }
}

}  // namespace loom::torch_ext

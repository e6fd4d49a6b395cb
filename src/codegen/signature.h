// The entry's C ABI signature as data: what loom_<entry> takes (docs/artifact.md), built from the
// same facts the generated header and launcher print — the final event IR's parameters (element
// types, ranks, the entry instance's layouts) and the entry's signature in the IR (names, dimension
// names, privileges) — plus one fact about the compiled kernel: whether it reads a tensor's
// contents at all. Bindings are generated from it (the PyTorch extension, torch_ext.h), never from
// a program's or a task's name.
//
// `read_by_kernel` is false when no operation of the final IR reads the tensor (through any view):
// no copy from it, no leaf call that reads it, no reducing copy into it. gemm declares its
// `C: rw` (its inner levels accumulate into their tile of C) but the compiled kernel only writes
// C, so a binding may hand it fresh, uninitialized memory. With several mappings a tensor is read
// when any mapping's kernel reads it.
//
// Tests: tests/unit/torch_ext_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace loom::codegen {

struct AbiArg {
  std::string name;                // as declared: "C"
  bool is_tensor = true;
  // Tensors.
  DType dtype = DType::F32;        // element type (the loom_dtype of the C ABI)
  std::vector<std::string> dims;   // dimension names, outermost first: {"M", "N"}
  ir::ParamPrivilege privilege = ir::ParamPrivilege::Read;  // as the entry task declares it
  bool col_major = false;          // layout(X: col_major): dimension rank - 2 is the contiguous one
  bool read_by_kernel = true;      // see above
  int align_bytes = 16;            // base pointer and outer strides (loom_arg_info::align_bytes)
  // Scalars: the C type, "float" (f32) or "int64_t" (integer types).
  std::string scalar_type;

  int rank() const { return static_cast<int>(dims.size()); }
  // Whether the kernel writes the tensor (w, rw, red(...)).
  bool written() const { return is_tensor && privilege != ir::ParamPrivilege::Read; }
  // An output a binding may allocate: written, and its old contents never read by the kernel.
  bool written_only() const { return written() && !read_by_kernel; }
};

struct AbiSignature {
  std::string entry;          // loom_<entry>
  std::vector<AbiArg> args;   // in C ABI order (the stream follows them)
};

// The signature of the kernel compiled from `f` (the final event IR of one mapping; its entry
// signature gives the names, dimension names and privileges).
AbiSignature abi_signature(const ir::Function& f);

// Another mapping's signature of the same entry: the same arguments (InternalError otherwise); a
// tensor either kernel reads counts as read.
void merge_signature(AbiSignature& into, const AbiSignature& other);

}  // namespace loom::codegen

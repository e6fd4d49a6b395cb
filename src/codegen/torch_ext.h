// The PyTorch operator of an entry (`loom compile FILE --emit=torch -o DIR` writes it beside the
// .cu and .h as DIR/<entry>_torch.cpp; docs/pytorch.md). Generated from the entry's C ABI
// signature alone (signature.h):
//
//   torch.ops.loom.<entry>(inputs..., scalars...) -> outputs
//       allocates every written-only tensor (see AbiSignature: written, never read by the kernel)
//       and returns it; a tensor the kernel reads and writes is an argument, mutated in place;
//   torch.ops.loom.<entry>.out(inputs..., scalars..., *, out) -> ()
//       the caller passes the outputs (keyword `out` for a single one, else the task's names).
//
// Both check every argument before the launch through runtime/loom/torch.h (device, dtype, rank,
// strides, alignment, named dimensions, overlap; messages name the argument), launch loom_<entry>
// on the current CUDA stream of the arguments' device, and turn a LOOM_ERR_* status into a Python
// exception. A Meta kernel of each (the same checks and allocation, no launch) makes the operator
// traceable by torch.compile without graph breaks. When an output has a dimension no input has,
// only the .out form exists (nothing to allocate it from).
//
// Tests: tests/unit/torch_ext_test.cpp (goldens tests/golden/torch/<example>_torch.cpp,
// FileCheck-style facts), scripts/torch_ext_compile_check.sh (compiles against the PyTorch
// headers), tests/gpu/torch_ops.sh (runs on the GPU).
#pragma once

#include <string>

#include "codegen/signature.h"

namespace loom::codegen {

// DIR/<entry>_torch.cpp for `sig`; `source` is the .loom file name for the comments.
std::string generate_torch_extension(const AbiSignature& sig, const std::string& source);

// The file name the CLI writes it under: "<entry>_torch.cpp".
std::string torch_extension_file(const AbiSignature& sig);

}  // namespace loom::codegen

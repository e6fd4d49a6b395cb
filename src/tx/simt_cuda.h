// The CUDA emitter of SIMT kernels (simt_ir.h): a self-contained .cu (CUDA toolkit headers and
// loom/abi.h only) and its C header, with the launcher `int loom_<kernel>(loom_tensor..., stream)`
// and `loom_<kernel>_info()` of docs/artifact.md. Tensors come with run-time extents and strides;
// the launcher checks them (LOOM_ERR_NULL, _RANK, _DTYPE, _SHAPE, _STRIDE, _ALIGN, _DEVICE) and,
// for a row kernel, picks the warp- or block-per-row instance from the row length and the 16-byte
// vector instance when every vectorized pointer and row pitch is aligned. Every statement's code is
// preceded by a comment naming its .tx line. Test: tests/unit/tx_simt_test.cpp (goldens under
// tests/golden/tx/*.cu), scripts/tx_simt_compile_check.sh (nvcc), tests/gpu/e2e/tx_simt.sh (GPU).
#pragma once

#include <string>

#include "tx/simt_ir.h"

namespace loom::tx {

struct SimtArtifact {
  std::string entry;   // the kernel's name: loom_<entry>()
  std::string cu;      // <entry>.cu
  std::string header;  // <entry>.h
};

// `source` is the .tx file's name as the comments show it. Throws CompileError (located at the
// kernel) for a size symbol that no tensor extent gives by itself.
SimtArtifact emit_simt_cuda(const Model& m, const SimtKernel& k, const std::string& source);

}  // namespace loom::tx

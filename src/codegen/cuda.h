// The Hopper back end (Cypress section 4.2.6): CUDA C++ from the final event IR.
//
// INPUT. The IR after the whole middle end (src/passes/pipeline.h): vectorized, copies eliminated,
// warp-specialized and pipelined, shared memory allocated (every SHARED alloc has a slot). The
// generator reads only the IR — the argument names, dimension names and privileges of the C ABI
// come from its entry signature (Function::entry), a specialization's condition from
// Function::when; it includes nothing of the front end. Nothing is selected by program or task
// name.
//
// OUTPUT. One .cu file (kernel + host launcher) and one C header (runtime/loom/abi.h contract,
// docs/artifact.md):
//   int loom_<entry>(loom_tensor ..., scalars..., cudaStream_t);
//   const loom_kernel_info* loom_<entry>_info(void);
// Everything else in the .cu has internal linkage, so several generated kernels link into one
// program.
//
// HOW THE IR MAPS TO CUDA (docs/codegen.md has the full table):
//   * the nested `pfor HOST` / `pfor BLOCK` loops of the function body are the grid: every
//     iteration tuple is a tile; the kernel is persistent (at most one block per SM, each runs tile
//     after tile) and walks the tiles in a grouped order (8 tiles of the next-to-innermost loop
//     take the innermost loop's tiles together, so the operands they share stay in L2); a loop's
//     ring slots and barrier phases follow a running count of its iterations across tiles;
//   * index ops are `const int64_t` locals, recomputed where they are needed; views (`piece`) are
//     offsets into their root tensor plus clipped extents;
//   * SHARED allocs live at their resource-allocation slot in dynamic shared memory, laid out as
//     the mapping's layout(...) says (slices of the swizzle width along the contiguous dimension);
//     REGISTER allocs are per-thread arrays of their static size (an accumulator fragment in the
//     wgmma register order);
//   * warp roles: the DMA role is one elected thread of the producer warpgroup (setmaxnreg down),
//     the compute role is the consumer warpgroups (setmaxnreg up); proc_index WARPGROUP / WARP /
//     THREAD are the consumer warpgroup, the warp in it and the lane;
//   * ops: a global -> shared copy is a TMA load (one box per swizzle slice) completing on an
//     mbarrier with expect-tx bytes; `mma` on wgmma fragments is a warpgroup's wgmma.mma_async
//     sequence over the tile's K (descriptors from the smem layout); `fill`, `convert` and other
//     element-wise leaves on fragments are per-thread loops, stores to global memory clipped at
//     the view's extents;
//   * events: see EVENTS in cuda_gen.h (the back end's private header, which also lists the file
//     of each concept) — mbarrier waits for TMA copies (phase = iteration / ring size), wgmma waits
//     for tensor-core calls, mbarrier arrivals from the consumer warps for events that cross into
//     the DMA role (their ring indexed by the iteration), nothing for program order within a thread.
// Anything outside what the generator handles is a CompileError at the op's source location
// ("the CUDA back end cannot ... yet"), never wrong code.
//
// Tests: tests/unit/codegen_test.cpp (goldens of generated CUDA, nvcc compile in CI);
// tests/gpu/gemm_correctness.cu and bench/ on the GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/signature.h"
#include "loom/diagnostics.h"
#include "ir/ir.h"

namespace loom::codegen {

struct CudaArtifact {
  std::string entry;   // the C ABI name: loom_<entry>
  std::string cu;      // DIR/<entry>.cu
  std::string header;  // DIR/<entry>.h
  AbiSignature signature;  // what loom_<entry> takes, as data (for bindings: torch_ext.h)
};

// `f` must have its entry signature (dependence analysis fills it); `source` is the .loom file
// name for comments.
CudaArtifact generate_cuda(const ir::Function& f, const std::string& source);

// A program with specialized mappings (docs/mapping.md): one kernel per mapping, the default first
// (its function has no `when`), then the specializations in file order (each function's `when` is
// its condition). The .cu holds each kernel and its
// launcher in a namespace of its own and a launch_<entry> that evaluates the conditions on the
// call's extents; the C ABI is the same as with one mapping (loom_<entry>_info reports the largest
// shared memory and thread count).
struct MappingKernel {
  const ir::Function* function = nullptr;
  std::string when_text;  // "when(...)" as written, with its file:line for comments
};
CudaArtifact generate_cuda(const std::vector<MappingKernel>& kernels, const std::string& source);

// How the back end takes f's turns on the tensor cores (`pingpong`): whether it refuses them to a
// loop, and why (its diagnostic), else the mmas it defers into the next iteration of a rotated loop
// (their result values' names without the '%', as the scheduling graph names its nodes:
// "mma:e.37" is the op of e.37). What schedule(optimal) asks before it realizes a schedule with
// turns, and reports against the schedule's stages. Any other problem with f is left to
// generate_cuda to report (neither refused nor deferred).
struct TurnsReport {
  std::optional<Diagnostic> refused;
  std::vector<std::string> deferred;
};
TurnsReport turns_report(const ir::Function& f);

}  // namespace loom::codegen

// Stream-K atoms (a mapping's `streamk`; src/codegen/streamk.cpp): the flags with which a block
// hands a tile's partial sums, written to a global workspace, to the block that finishes the tile.
// A flag holds the launch's epoch (runtime/loom/streamk.h), so flags need no clearing between
// launches. Included by loom/runtime.cuh.
#pragma once

#include <cstdint>

namespace loom::rt {

// The partial sums this thread (and, through the barrier before it, its warpgroup) stored are
// visible at GPU scope before the flag reads `epoch`: a fence, then a release store.
__device__ __forceinline__ void streamk_flag_release(std::uint32_t* flag, std::uint32_t epoch) {
  asm volatile("fence.acq_rel.gpu;\nst.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(epoch) : "memory");
}

// Spins until the flag reads `epoch` (acquire at GPU scope: the writer's partial sums are visible
// to this thread, and to its warpgroup after a barrier).
__device__ __forceinline__ void streamk_flag_wait(const std::uint32_t* flag, std::uint32_t epoch) {
  std::uint32_t v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v != epoch);
}

// 16 bytes of the workspace, past L1 (another SM wrote them).
__device__ __forceinline__ float4 streamk_load(const float4* p) { return __ldcg(p); }
__device__ __forceinline__ void streamk_store(float4* p, float4 v) { __stcg(p, v); }

}  // namespace loom::rt

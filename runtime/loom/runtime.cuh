// loom/runtime.cuh: the device atoms that loom-generated Hopper (sm_90a) kernels are made of.
//
// Generated kernels include only this header and the CUDA toolkit. Every atom is one short inline
// PTX statement with a comment naming the instruction and the HOPPER-FACTS.md section it relies on
// (shared/design/HOPPER-FACTS.md; "F5" below means its section 5). Each atom has a GPU test under
// tests/gpu/ (run by tests/gpu/run.sh on a lent H100/H200).
//
// Conventions:
//  * Everything is in namespace loom::rt, __device__ __forceinline__.
//  * Shared-memory pointers are ordinary generic pointers into __shared__ memory; atoms convert
//    them with __cvta_generic_to_shared.
//  * An mbarrier is a uint64_t in shared memory, 8-byte aligned.
//  * Tensor maps are kernel parameters declared `const __grid_constant__ CUtensorMap tm`, passed
//    to the atoms as `&tm`; built on the host by loom/host.h.
//  * TMA coordinates are int32 element indices, innermost (contiguous) dimension first.
//  * Blocks are one-dimensional (threadIdx.y == threadIdx.z == 0) in the warp/warpgroup helpers;
//    warp_id, warpgroup_index, warp_in_warpgroup and elect_one_sync need the whole warp active.
//  * Named barrier 0 is __syncthreads; generated code uses ids 1..15.
//  * asm statements that order memory carry a "memory" clobber; all are volatile.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "loom/swizzle.h"
#include "loom/wgmma_gen.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "loom/runtime.cuh needs sm_90a: build with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace loom::rt {

using loom::Swizzle;

// The 32-bit shared-window address of a generic pointer into shared memory (what PTX's
// .shared operands take).
__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------------------------
// Threads, warps, warpgroups
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x % 32); }

// Warp index in the block, made warp-uniform with a shuffle so the compiler can branch on it
// without divergence.
__device__ __forceinline__ int warp_id() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0);
}

// Warpgroup = 4 consecutive warps starting at a warp index divisible by 4 (F1).
__device__ __forceinline__ int warpgroup_index() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
}
__device__ __forceinline__ int warp_in_warpgroup() {
  return __shfl_sync(0xffffffffu, static_cast<int>((threadIdx.x / 32) % 4), 0);
}
__device__ __forceinline__ int thread_in_warpgroup() { return static_cast<int>(threadIdx.x % 128); }

// True in exactly one lane of the (fully active) warp: elect.sync with a full member mask. Use it
// to issue TMA and single-thread mbarrier operations.
__device__ __forceinline__ bool elect_one_sync() {
  std::uint32_t elected = 0;
  asm volatile(
      "{\n"
      ".reg .b32 leader;\n"
      ".reg .pred is_leader;\n"
      "elect.sync leader|is_leader, %1;\n"
      "selp.u32 %0, 1, 0, is_leader;\n"
      "}\n"
      : "=r"(elected)
      : "r"(0xffffffffu));
  return elected != 0;
}

// ---------------------------------------------------------------------------------------------
// Fences
// ---------------------------------------------------------------------------------------------

// fence.proxy.async.shared::cta: orders this thread's generic-proxy shared-memory accesses
// (st.shared, stmatrix, ld.shared) against later async-proxy accesses (TMA, wgmma) (F8.1). Run it
// in every writing thread, before the barrier that hands the data to the TMA/wgmma issuer.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// fence.mbarrier_init.release.cluster: makes mbarrier.init visible to the async proxy and to the
// cluster; follow it with __syncthreads (1-CTA cluster) or a cluster barrier (F5, "After init").
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// ---------------------------------------------------------------------------------------------
// mbarrier (F5)
// ---------------------------------------------------------------------------------------------
//
// Phase convention: a barrier starts in phase 0. A phase completes when the pending arrival count
// reaches 0 and the transaction count is 0; its parity then flips. wait(bar, parity) returns once
// the phase with that parity has completed. Over a ring of S stages each barrier is reused every
// S iterations, so a waiter flips the parity it waits for each time its stage index wraps; see
// PipeState. Consumers wait on "full" starting at parity 0; producers wait on "empty" starting at
// parity 1, which passes at once on a fresh barrier (every slot starts empty).
namespace mbarrier {

// mbarrier.init.shared::cta.b64: phase 0, `count` arrivals pending, tx count 0. count in
// [1, 2^20-1]. One thread inits; then fence_barrier_init() and a block barrier.
__device__ __forceinline__ void init(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count)
               : "memory");
}

// mbarrier.inval.shared::cta.b64: before the barrier's memory is reused for anything else.
__device__ __forceinline__ void inval(std::uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(smem_u32(bar)) : "memory");
}

// mbarrier.arrive.shared::cta.b64 (release, CTA scope): one arrival. Releases only the calling
// thread's prior writes: when several threads wrote, have each arrive (count = threads) or
// synchronize them first (F5, classic bug 4).
__device__ __forceinline__ void arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

// mbarrier.arrive.expect_tx.shared::cta.b64: one arrival, and the current phase also waits for
// `bytes` bytes of async transactions (TMA complete_tx). bytes = the full box size, OOB fill
// included (F4).
__device__ __forceinline__ void arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}

// mbarrier.expect_tx.relaxed.cta.shared::cta.b64: raise the transaction count without arriving
// (several TMA issuers feeding one barrier; the arrival comes separately).
__device__ __forceinline__ void expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}

// mbarrier.try_wait.parity.shared::cta.b64 (acquire, CTA scope), one probe: true once the phase of
// parity `parity` has completed. The hardware may suspend the thread for a while before answering
// false.
__device__ __forceinline__ bool try_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  asm volatile(
      "{\n"
      ".reg .pred complete;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
      "selp.u32 %0, 1, 0, complete;\n"
      "}\n"
      : "=r"(done)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

// Block until the phase of parity `parity` has completed (try_wait loop). A successful wait makes
// TMA-written data visible to both generic loads and wgmma (F8.3).
__device__ __forceinline__ void wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!try_wait(bar, parity)) {
  }
}

}  // namespace mbarrier

// Position in a ring of `Stages` pipeline slots: the slot to use and the parity to wait for on its
// barrier. advance() moves to the next slot and flips the parity when the index wraps to 0.
//   auto full_state  = PipeState<S>::consumer_start();  // waits on "full" barriers, parity 0
//   auto empty_state = PipeState<S>::producer_start();  // waits on "empty" barriers, parity 1
template <int Stages>
struct PipeState {
  static_assert(Stages >= 1, "a pipeline has at least one stage");
  int stage;
  std::uint32_t phase;

  __device__ __forceinline__ static PipeState consumer_start() { return PipeState{0, 0u}; }
  __device__ __forceinline__ static PipeState producer_start() { return PipeState{0, 1u}; }
  __device__ __forceinline__ void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

// ---------------------------------------------------------------------------------------------
// TMA: cp.async.bulk.tensor (F4)
// ---------------------------------------------------------------------------------------------
//
// Loads: global -> shared, the box at coordinates (c0 innermost, ...), completing `bytes` on the
// mbarrier via .mbarrier::complete_tx::bytes. Out-of-bounds elements (coordinates may be negative
// or past the end) are written as zeros, and the whole box counts toward the transaction bytes.
// dst must be 128-byte aligned (1024 for 128B swizzle, so the pattern starts on its repeat). Issue
// from one thread (elect_one_sync()).
//
// The innermost coordinate c0 times the element size must be a multiple of 16 bytes (loads and
// stores): on H100 a load with c0 = 180 bf16 (360 bytes) raised cudaErrorIllegalInstruction
// (tests/gpu/tma_load_test.cu; other coordinates are free, negative ones included).
//
// Stores: shared -> global, bulk-group completion. OOB elements are skipped, but only down to
// 16-byte granularity: when globalDim[0] * size is not a multiple of 16, a box clipped at the row
// end may also write the row padding up to the next 16-byte boundary (observed on H100,
// tests/gpu/tma_store_test.cu). The box origin must be >= 0. Before a store: every writing thread runs fence_proxy_async_shared(), then a barrier,
// then one thread issues the store, tma_store_commit(), and later tma_store_wait<N>() before the
// smem is overwritten.

__device__ __forceinline__ std::uint64_t tensor_map_u64(const CUtensorMap* map) {
  return reinterpret_cast<std::uint64_t>(map);
}

// prefetch.tensormap: pull the (grid-constant) tensor map into the descriptor cache early.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tensor_map_u64(map)) : "memory");
}

__device__ __forceinline__ void tma_load_1d(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                            std::int32_t c0) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3}], [%2];" ::"r"(smem_u32(dst)),
      "l"(tensor_map_u64(map)), "r"(smem_u32(bar)), "r"(c0)
      : "memory");
}

__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                            std::int32_t c0, std::int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_u32(dst)),
      "l"(tensor_map_u64(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                            std::int32_t c0, std::int32_t c1, std::int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_u32(dst)),
      "l"(tensor_map_u64(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                            std::int32_t c0, std::int32_t c1, std::int32_t c2,
                                            std::int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(smem_u32(dst)),
      "l"(tensor_map_u64(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

__device__ __forceinline__ void tma_load_5d(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                            std::int32_t c0, std::int32_t c1, std::int32_t c2,
                                            std::int32_t c3, std::int32_t c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(smem_u32(dst)),
      "l"(tensor_map_u64(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
}

__device__ __forceinline__ void tma_store_1d(const CUtensorMap* map, const void* src,
                                             std::int32_t c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];" ::"l"(
                   tensor_map_u64(map)),
               "r"(smem_u32(src)), "r"(c0)
               : "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src,
                                             std::int32_t c0, std::int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   tensor_map_u64(map)),
               "r"(smem_u32(src)), "r"(c0), "r"(c1)
               : "memory");
}

__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* src,
                                             std::int32_t c0, std::int32_t c1, std::int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
          tensor_map_u64(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, const void* src,
                                             std::int32_t c0, std::int32_t c1, std::int32_t c2,
                                             std::int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
          tensor_map_u64(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

__device__ __forceinline__ void tma_store_5d(const CUtensorMap* map, const void* src,
                                             std::int32_t c0, std::int32_t c1, std::int32_t c2,
                                             std::int32_t c3, std::int32_t c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];" ::
          "l"(tensor_map_u64(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
      : "memory");
}

// cp.async.bulk.commit_group: closes the bulk group of this thread's stores issued so far.
__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// cp.async.bulk.wait_group.read N: at most N of this thread's store groups are still reading
// their shared-memory source; the others' smem may be overwritten.
template <int N>
__device__ __forceinline__ void tma_store_wait() {
  static_assert(N >= 0, "tma_store_wait<N>: N >= 0");
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// cp.async.bulk.wait_group N: at most N store groups pending, the others' writes to global memory
// done (before the kernel's results are read by a dependent grid without a kernel boundary).
template <int N>
__device__ __forceinline__ void tma_store_wait_complete() {
  static_assert(N >= 0, "tma_store_wait_complete<N>: N >= 0");
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// ---------------------------------------------------------------------------------------------
// wgmma shared-memory matrix descriptors (F2, F3)
// ---------------------------------------------------------------------------------------------

// The 64-bit descriptor: bits 0-13 start address >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 base
// offset (always 0 here: tiles start on their swizzle repeat), 62-63 layout (swizzle) code, which
// is NOT the TMA code (desc_swizzle_code).
__host__ __device__ constexpr std::uint64_t encode_smem_desc(std::uint32_t smem_addr, Swizzle sw,
                                                             std::uint32_t lbo_bytes,
                                                             std::uint32_t sbo_bytes) {
  return (static_cast<std::uint64_t>((smem_addr & 0x3FFFFu) >> 4)) |
         (static_cast<std::uint64_t>((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
         (static_cast<std::uint64_t>((sbo_bytes & 0x3FFFFu) >> 4) << 32) |
         (static_cast<std::uint64_t>(desc_swizzle_code(sw)) << 62);
}
static_assert(encode_smem_desc(0x400u, Swizzle::B128, 16u, 1024u) ==
                  ((1ull << 62) | (64ull << 32) | (1ull << 16) | 0x40ull),
              "descriptor bit layout (HOPPER-FACTS section 2)");
static_assert(encode_smem_desc(0u, Swizzle::B32, 0u, 0u) == (3ull << 62),
              "32B swizzle is descriptor code 3");

__device__ __forceinline__ std::uint64_t make_smem_desc(const void* smem_ptr, Swizzle sw,
                                                        std::uint32_t lbo_bytes,
                                                        std::uint32_t sbo_bytes) {
  return encode_smem_desc(smem_u32(smem_ptr), sw, lbo_bytes, sbo_bytes);
}

// The descriptor of the same operand `bytes` further on (a multiple of 16): only the start address
// field moves. The k16 steps of one tile share its base descriptor (computed once: one address
// conversion per tile, not per step) and each adds a constant to the low word. No carry leaves
// the 14-bit field: the advanced address is still a shared-memory address (< 2^18 bytes).
__device__ __forceinline__ std::uint64_t desc_advance(std::uint64_t d, std::uint32_t bytes) {
  const std::uint32_t lo = static_cast<std::uint32_t>(d) + (bytes >> 4);
  return (d & 0xFFFFFFFF00000000ull) | lo;
}

// Canonical operand tiles of 16-bit elements (bf16/f16), as loom lays them out.
//
// A tile is stored as "slices" along its contiguous dimension. A slice is span = 128/64/32 bytes
// wide (16 bytes for Swizzle::None) and holds that many bytes of every row; slices are stored back
// to back. Within a slice row r is at r * span bytes, then the swizzle XOR applies
// (swizzle_offset).
// This is exactly what one TMA box {span/2, rows} per slice writes, boxes placed contiguously, and
// it is the wgmma canonical layout (F2): with swizzle, one slice of 8 rows is one swizzle atom;
// without, 8 rows x 16 bytes is one core matrix.
//
// K-major tile (A as M x K, or B stored N x K; wgmma flag t = 0): `rows` = M or N extent, slices
// run along K (span/2 elements of K each). Needs rows % 8 == 0.
// MN-major tile (B stored K x N, or A stored K x M; t = 1): `rows` = K extent of the tile, slices
// run along M/N. Needs rows % 8 == 0 and, with swizzle, the M/N extent a multiple of span/2.
// The tile base must be aligned to swizzle_repeat_bytes(sw). With a compile-time `sw` the
// descriptor helpers fold to a few integer ops; with a run-time one, compute all descriptors
// before the first wgmma, since branches between wgmmas make ptxas serialize them (C7519).

// Byte offset of element (row, k) of a K-major tile (rows x K), swizzle applied.
__host__ __device__ constexpr std::uint32_t k_major_offset(Swizzle sw, int rows, int row, int k) {
  const std::uint32_t span = swizzle_span_bytes(sw);
  const std::uint32_t per_slice = span / 2;
  const std::uint32_t off = (static_cast<std::uint32_t>(k) / per_slice) * rows * span +
                            static_cast<std::uint32_t>(row) * span +
                            (static_cast<std::uint32_t>(k) % per_slice) * 2;
  return swizzle_offset(sw, off);
}

// Byte offset of element (k, mn) of an MN-major tile (rows = K extent, M/N contiguous).
__host__ __device__ constexpr std::uint32_t mn_major_offset(Swizzle sw, int rows, int k, int mn) {
  const std::uint32_t span = swizzle_span_bytes(sw);
  const std::uint32_t per_slice = span / 2;
  const std::uint32_t off = (static_cast<std::uint32_t>(mn) / per_slice) * rows * span +
                            static_cast<std::uint32_t>(k) * span +
                            (static_cast<std::uint32_t>(mn) % per_slice) * 2;
  return swizzle_offset(sw, off);
}

// Descriptor of the k16 step starting at element k0 (a multiple of 16) of a K-major tile.
//  swizzled: SBO = 8 * span (next 8-row group), LBO unused (16); k0 moves the start inside the
//            slice (+32 bytes per k16 step), or to the next slice.
//  none:     LBO = rows * 16 (next 8-element K chunk = next slice), SBO = 128 (next 8 rows).
__device__ __forceinline__ std::uint64_t desc_k_major(const void* tile, Swizzle sw, int rows,
                                                      int k0) {
  const std::uint32_t span = swizzle_span_bytes(sw);
  const std::uint32_t per_slice = span / 2;
  const std::uint32_t start = (static_cast<std::uint32_t>(k0) / per_slice) * rows * span +
                              (static_cast<std::uint32_t>(k0) % per_slice) * 2;
  const std::uint64_t d = sw == Swizzle::None
                              ? make_smem_desc(tile, sw, static_cast<std::uint32_t>(rows) * 16u, 128u)
                              : make_smem_desc(tile, sw, 16u, 8u * span);
  return desc_advance(d, start);
}

// Descriptor of the k16 step starting at element k0 (a multiple of 16) of an MN-major tile with
// `rows` = K extent.
//  swizzled: LBO = rows * span (next M/N slice), SBO = 8 * span (next 8 K-rows).
//  none:     LBO = 128 (next 8 K-rows: the next core matrix), SBO = rows * 16 (next M/N slice).
// k0 moves the start by k0 rows (k0 * span bytes, a multiple of the swizzle repeat).
__device__ __forceinline__ std::uint64_t desc_mn_major(const void* tile, Swizzle sw, int rows,
                                                       int k0) {
  const std::uint32_t span = swizzle_span_bytes(sw);
  const std::uint64_t d =
      sw == Swizzle::None
          ? make_smem_desc(tile, sw, 128u, static_cast<std::uint32_t>(rows) * 16u)
          : make_smem_desc(tile, sw, static_cast<std::uint32_t>(rows) * span, 8u * span);
  return desc_advance(d, static_cast<std::uint32_t>(k0) * span);
}

// ---------------------------------------------------------------------------------------------
// wgmma.mma_async (F1)
// ---------------------------------------------------------------------------------------------
//
// Issue order inside a consumer warpgroup (all 128 threads execute each call):
//   wgmma_fence();                               // before the first wgmma touching d
//   for k: wgmma_m64nNk16<N, T, 0, tB>(d, da, db, k > 0);
//   wgmma_commit();
//   wgmma_wait<0>();                             // before reading d or releasing the smem
//   wgmma_fence_operand(d);                      // keeps the compiler from moving d accesses

// wgmma.fence.sync.aligned: orders prior register accesses (accumulators, A fragment) before the
// next wgmma. Not a shared-memory fence (F1, F8.2).
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

// wgmma.commit_group.sync.aligned: closes the group of this warpgroup's uncommitted wgmmas.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// wgmma.wait_group.sync.aligned N: at most N groups still pending. Needed before reading the
// accumulators or A registers, and before releasing the smem a group reads (F1, F8.5).
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma_wait<N>: N in 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// An empty asm that "reads and writes" each register, so the compiler keeps accesses to them on
// their side of the surrounding fence/wait (CUTLASS's warpgroup_fence_operand idea, F1 Codegen).
template <int K>
__device__ __forceinline__ void wgmma_fence_operand(float (&d)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int K>
__device__ __forceinline__ void wgmma_fence_operand(std::uint32_t (&r)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

template <class T>
inline constexpr bool is_wgmma_16bit_v =
    std::is_same<T, __nv_bfloat16>::value || std::is_same<T, __half>::value;

// D(64 x N, f32) (+)= A(64 x 16) * B(16 x N), A and B from shared-memory descriptors.
// T = __nv_bfloat16 or __half. TransA/TransB: 0 = K-major, 1 = MN-major (B stored K x N row-major
// is MN-major: TransB = 1; B stored N x K is K-major: TransB = 0). scale_d = 0 overwrites D,
// nonzero accumulates. d holds this thread's N/2 accumulators: register i is element
// (acc_row(i), acc_col(i)) of D.
template <int N, class T, int TransA, int TransB>
__device__ __forceinline__ void wgmma_m64nNk16(float (&d)[N / 2], std::uint64_t desc_a,
                                               std::uint64_t desc_b, int scale_d) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16: N in 8..256, multiple of 8");
  static_assert(is_wgmma_16bit_v<T>, "wgmma m64nNk16: T is __nv_bfloat16 or __half");
  static_assert((TransA == 0 || TransA == 1) && (TransB == 0 || TransB == 1),
                "wgmma transpose flags are 0 (K-major) or 1 (MN-major)");
  detail::WgmmaSS<N, T, TransA, TransB>::run(d, desc_a, desc_b, scale_d);
}

// Same with A from registers: a[4] is this thread's k16 A fragment (8 halves, two per register,
// low half first), laid out like the accumulator with column -> k: register j holds elements
// (acc_row(2j), acc_col(2j)) and (acc_row(2j), acc_col(2j) + 1) of the 64 x 16 A tile. A packed
// accumulator (pack_bf16x2 of d[2j], d[2j+1]) is directly an A fragment (F1).
template <int N, class T, int TransB>
__device__ __forceinline__ void wgmma_m64nNk16_rs(float (&d)[N / 2], const std::uint32_t (&a)[4],
                                                  std::uint64_t desc_b, int scale_d) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16: N in 8..256, multiple of 8");
  static_assert(is_wgmma_16bit_v<T>, "wgmma m64nNk16: T is __nv_bfloat16 or __half");
  static_assert(TransB == 0 || TransB == 1, "wgmma transpose flag is 0 (K-major) or 1 (MN-major)");
  detail::WgmmaRS<N, T, TransB>::run(d, a, desc_b, scale_d);
}

// Accumulator fragment of an m64nN f32 wgmma (F1): thread t of the warpgroup (t in 0..127) holds
// register i at row 16*(t/32) + (t%32)/4 + 8*((i>>1)&1), column 8*(i>>2) + 2*(t%4) + (i&1).
__host__ __device__ constexpr int acc_row(int thread_in_wg, int i) {
  return 16 * (thread_in_wg / 32) + (thread_in_wg % 32) / 4 + 8 * ((i >> 1) & 1);
}
__host__ __device__ constexpr int acc_col(int thread_in_wg, int i) {
  return 8 * (i >> 2) + 2 * (thread_in_wg % 4) + (i & 1);
}

// The folded order of an index with n values (src/codegen/tile_order.cpp): positions 0, 1, 2, 3, ...
// give n - 1, 0, n - 2, 1, ... Used by the kernel's tile decode and by the launcher's fold_tiles,
// which must walk the same order.
__host__ __device__ constexpr std::int64_t fold_index(std::int64_t pos, std::int64_t n) {
  return (pos & 1) ? (pos >> 1) : n - 1 - (pos >> 1);
}

// ---------------------------------------------------------------------------------------------
// Named barriers (F6)
// ---------------------------------------------------------------------------------------------
//
// bar.sync / bar.arrive on barrier `id` with `threads` participants (a multiple of 32, the same
// in every participant). Id 0 is __syncthreads: generated code uses ids 1..15 only.

// bar.sync id, threads: arrive and wait for all `threads`. Orders the participants' memory
// accesses around the barrier.
__device__ __forceinline__ void named_barrier_sync(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// bar.arrive id, threads: arrive without waiting (a producer signalling waiters that bar.sync).
__device__ __forceinline__ void named_barrier_arrive(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---------------------------------------------------------------------------------------------
// setmaxnreg (F6)
// ---------------------------------------------------------------------------------------------
//
// setmaxnreg.{inc,dec}.sync.aligned.u32 R: every warp of a warpgroup executes the same one; the
// kernel needs a register cap at entry (__launch_bounds__(threads, 1)). Producers dec, consumers
// inc (e.g. 1 producer + 2 consumer warpgroups: 40 / 232). inc blocks until the registers are
// free; the new registers start undefined.

template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: R in [24, 256], multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: R in [24, 256], multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}

// ---------------------------------------------------------------------------------------------
// ldmatrix / stmatrix (m8n8, 16-bit elements)
// ---------------------------------------------------------------------------------------------
//
// Warp-collective. For .xK, lanes 8j..8j+7 give the row addresses (16-byte aligned, 16 bytes per
// row) of matrix j, rows 0..7 in lane order. Register j of lane l holds row l/4, columns 2*(l%4)
// and 2*(l%4)+1 of matrix j (low half = lower column). With .trans the matrix is transposed on the
// way: register j holds column l/4, rows 2*(l%4) and 2*(l%4)+1. The accumulator fragment packed to
// 16 bits (pack_bf16x2(d[4c], d[4c+1]), pack_bf16x2(d[4c+2], d[4c+3])) is exactly the non-trans
// fragment of the 8x8 blocks (rows 0-7 / 8-15 of the warp's 16 rows, columns 8c..8c+7).

__device__ __forceinline__ void ldmatrix_x1(const void* row, std::uint32_t& r0) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
               : "=r"(r0)
               : "r"(smem_u32(row))
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x2(const void* row, std::uint32_t& r0, std::uint32_t& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_u32(row))
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(const void* row, std::uint32_t& r0, std::uint32_t& r1,
                                            std::uint32_t& r2, std::uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_u32(row))
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x1_trans(const void* row, std::uint32_t& r0) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
               : "=r"(r0)
               : "r"(smem_u32(row))
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x2_trans(const void* row, std::uint32_t& r0,
                                                  std::uint32_t& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(r0), "=r"(r1)
               : "r"(smem_u32(row))
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(const void* row, std::uint32_t& r0,
                                                  std::uint32_t& r1, std::uint32_t& r2,
                                                  std::uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_u32(row))
               : "memory");
}

__device__ __forceinline__ void stmatrix_x1(void* row, std::uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(smem_u32(row)), "r"(r0)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x2(void* row, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(smem_u32(row)),
               "r"(r0), "r"(r1)
               : "memory");
}
// ldmatrix.x4 (non-transposed): the inverse of stmatrix_x4: lane l gives the address of row
// l & 7 of matrix l >> 3; w[m] receives the lane's pair of adjacent elements of matrix m (row
// lane / 4, columns 2 (lane % 4) and + 1), the accumulator fragment's order.
__device__ __forceinline__ void ldmatrix_x4(const void* row, std::uint32_t (&w)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
               : "r"(smem_u32(row))
               : "memory");
}
__device__ __forceinline__ void stmatrix_x4(void* row, std::uint32_t r0, std::uint32_t r1,
                                            std::uint32_t r2, std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   smem_u32(row)),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x1_trans(void* row, std::uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(smem_u32(row)),
               "r"(r0)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x2_trans(void* row, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(
                   smem_u32(row)),
               "r"(r0), "r"(r1)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x4_trans(void* row, std::uint32_t r0, std::uint32_t r1,
                                                  std::uint32_t r2, std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   smem_u32(row)),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// movmatrix.sync.aligned.m8n8.trans.b16: the warp's 8 x 8 matrix of 16-bit values, held as in an
// ldmatrix fragment (lane l: row l / 4, columns 2 (l % 4) and + 1, low half first), transposed in
// registers: lane l gets row l / 4 of the transpose. The direct store of a transposed accumulator
// (src/codegen/epilogue.cpp) turns its register pairs (two rows of one column) into row pairs.
__device__ __forceinline__ std::uint32_t movmatrix_trans(std::uint32_t r) {
  std::uint32_t t;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t) : "r"(r));
  return t;
}

// A transposition inside each quad of lanes (lanes 4 k .. 4 k + 3) of packed pairs: lane q's
// pairs[t] is its pair of chunk t; afterwards lane q's mine[p] is lane p's pair of chunk q, so
// mine[0..3] is chunk q's 8 consecutive 16-bit values. Four shuffles; every lane of the warp
// takes part (no divergence before it).
__device__ __forceinline__ void quad_gather(const std::uint32_t (&pairs)[4], std::uint32_t (&mine)[4]) {
  const int lane = lane_id(), q = lane & 3;
#pragma unroll
  for (int p = 0; p < 4; ++p) mine[p] = 0u;
#pragma unroll
  for (int step = 0; step < 4; ++step) {  // lane q sends its pair of chunk (q + step) % 4
    const int send = (q + step) & 3, from = (q - step) & 3;
    std::uint32_t v = send == 0 ? pairs[0] : send == 1 ? pairs[1] : send == 2 ? pairs[2] : pairs[3];
    v = __shfl_sync(0xffffffffu, v, (lane & ~3) | from);
#pragma unroll
    for (int p = 0; p < 4; ++p) mine[p] = p == from ? v : mine[p];
  }
}

// ---------------------------------------------------------------------------------------------
// Packing (epilogues, RS-form A fragments)
// ---------------------------------------------------------------------------------------------

// cvt.rn.bf16x2.f32: two floats to a bf16x2, round to nearest even; `lo` lands in bits 0..15
// (the lower column / lower address).
__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// cvt.rn.f16x2.f32: the same for half precision.
__device__ __forceinline__ std::uint32_t pack_half2(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Pack for element type T (__nv_bfloat16 or __half).
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  static_assert(is_wgmma_16bit_v<T>, "pack2<T>: T is __nv_bfloat16 or __half");
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return pack_bf16x2(lo, hi);
  } else {
    return pack_half2(lo, hi);
  }
}

// lo, hi = T(a), T(b), converted together (one cvt.rn.{bf16,f16}x2.f32 where two cvt.rn.*.f32
// would be needed one by one). Generated code converts a float fragment to a 16-bit one this way.
template <class T>
__device__ __forceinline__ void convert_pair(T& lo, T& hi, float a, float b) {
  static_assert(is_wgmma_16bit_v<T>, "convert_pair<T>: T is __nv_bfloat16 or __half");
  const std::uint32_t w = pack2<T>(a, b);
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    lo = __ushort_as_bfloat16(static_cast<unsigned short>(w & 0xFFFFu));
    hi = __ushort_as_bfloat16(static_cast<unsigned short>(w >> 16));
  } else {
    lo = __ushort_as_half(static_cast<unsigned short>(w & 0xFFFFu));
    hi = __ushort_as_half(static_cast<unsigned short>(w >> 16));
  }
}

// Two 16-bit values (already T) into one b32, `lo` in bits 0..15: an A-fragment register of an
// RS-form wgmma built from a thread's accumulator-ordered 16-bit registers (F1).
template <class T>
__device__ __forceinline__ std::uint32_t pack_pair(T lo, T hi) {
  static_assert(is_wgmma_16bit_v<T>, "pack_pair<T>: T is __nv_bfloat16 or __half");
  std::uint16_t l, h;
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    l = __bfloat16_as_ushort(lo);
    h = __bfloat16_as_ushort(hi);
  } else {
    l = __half_as_ushort(lo);
    h = __half_as_ushort(hi);
  }
  return static_cast<std::uint32_t>(l) | (static_cast<std::uint32_t>(h) << 16);
}

// The inverse of pack_pair: the low and high 16-bit halves of w as two T.
template <class T>
__device__ __forceinline__ void unpack_pair(std::uint32_t w, T& lo, T& hi) {
  static_assert(is_wgmma_16bit_v<T>, "unpack_pair<T>: T is __nv_bfloat16 or __half");
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    lo = __ushort_as_bfloat16(static_cast<unsigned short>(w & 0xffffu));
    hi = __ushort_as_bfloat16(static_cast<unsigned short>(w >> 16));
  } else {
    lo = __ushort_as_half(static_cast<unsigned short>(w & 0xffffu));
    hi = __ushort_as_half(static_cast<unsigned short>(w >> 16));
  }
}

// The mask that keeps the halves of a packed pair at columns col and col + 1 that lie before
// column n (the rest become +0): the columns of a clipped operand tile past the tensor's edge.
__device__ __forceinline__ std::uint32_t pair_mask(int col, std::int64_t n) {
  return (col < n ? 0x0000ffffu : 0u) | (col + 1 < n ? 0xffff0000u : 0u);
}

// max(x, 0) of both 16-bit halves of w at once (HMNMX2): the relu of a packed pair, as exact as the
// scalar __hmax (NaN gives 0, as fmaxf does). Used where a relu's input and output are both pairs
// of a 16-bit fragment (an ldmatrix word in, a wgmma A fragment word out; elementwise.cpp).
template <class T>
__device__ __forceinline__ std::uint32_t relu_pair(std::uint32_t w) {
  static_assert(is_wgmma_16bit_v<T>, "relu_pair<T>: T is __nv_bfloat16 or __half");
  using Pair = typename std::conditional<std::is_same<T, __nv_bfloat16>::value, __nv_bfloat162, __half2>::type;
  const std::uint32_t zeros = 0u;  // +0 in both halves, in either type
  Pair x, z;
  __builtin_memcpy(&x, &w, 4);
  __builtin_memcpy(&z, &zeros, 4);
  const Pair y = __hmax2(x, z);
  std::uint32_t r;
  __builtin_memcpy(&r, &y, 4);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Fast math (softmax)
// ---------------------------------------------------------------------------------------------

// ex2.approx.ftz.f32: 2^x on the MUFU unit (one instruction; max relative error about 2^-22,
// subnormal results flushed to 0, ex2(-inf) = 0, ex2(+inf) = +inf). Generated code lowers the
// leaves exp2 (and exp, as ex2(x * log2 e)) to it.
__device__ __forceinline__ float ex2_approx(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// 1 / (1 + 2^(-x log2 e)) with one ex2.approx and a fast division (__fdividef: 2 ulp; 0 when the
// denominator overflows). Errors of a few fp32 ulp, far below the 16-bit outputs these feed.
// sigmoid(x) = 1 / (1 + e^-x); -> 0 for large negative x, 1 for large positive x.
__device__ __forceinline__ float sigmoid_fast(float x) {
  return __fdividef(1.0f, 1.0f + ex2_approx(-1.4426950408889634f * x));
}

// silu(x) = x sigmoid(x) = x / (1 + e^-x): -0 for large negative x, x for large positive x.
__device__ __forceinline__ float silu_fast(float x) {
  return __fdividef(x, 1.0f + ex2_approx(-1.4426950408889634f * x));
}

// GELU in its tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed as the equal
// x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (0.5 (1 + tanh u) = sigmoid(2u)): one ex2.approx and
// one fast division (two MUFU operations), accurate to a few fp32 ulp (tanh.approx would be one MUFU
// op, but its 2^-11 absolute error becomes a large relative error of 1 + tanh u for negative x:
// gelu_fast below). -0 for large negative x, x for large positive x. The leaf `gelu` lowers to it.
__device__ __forceinline__ float gelu_tanh(float x) {
  const float u = 1.5957691216057308f * x * fmaf(0.044715f, x * x, 1.0f);
  return __fdividef(x, 1.0f + ex2_approx(-1.4426950408889634f * u));
}

// The same GELU with one MUFU operation: h + h tanh.approx(u), h = x / 2, u = sqrt(2/pi) (x + 0.044715
// x^3). tanh.approx.f32's absolute error (about 2^-11) is a small relative error where x > 0 and a
// large one where 1 + tanh u is small (x below about -2: the result's magnitude is below 0.05 there).
// On an H200 it runs 12.6 elements per SM clock against gelu_tanh's 7.4, and its bf16 results are as
// far from the exact ones as those of cuBLASLt's bias + GELU epilogue (the same share off the exact
// bf16 value, the same largest error: bench/results/2026-12-03-h200-epilogue.md). The leaf
// `gelu_fast` lowers to it: a program asks for this accuracy by name; `gelu` never gets it.
__device__ __forceinline__ float gelu_fast(float x) {
  const float u = 0.7978845608028654f * x * fmaf(0.044715f, x * x, 1.0f);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
  const float h = 0.5f * x;
  return fmaf(h, t, h);
}

// Two 16-bit values packed in a 32-bit word (lo in the low half), as fp32.
template <class T>
__device__ __forceinline__ void unpack_f32(std::uint32_t w, float& lo, float& hi) {
  static_assert(is_wgmma_16bit_v<T>, "unpack_f32<T>: T is __nv_bfloat16 or __half");
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    lo = __uint_as_float(w << 16);
    hi = __uint_as_float(w & 0xffff0000u);
  } else {
    lo = __half2float(__ushort_as_half(static_cast<unsigned short>(w & 0xffffu)));
    hi = __half2float(__ushort_as_half(static_cast<unsigned short>(w >> 16)));
  }
}

// Entries c and c + 1 of a vector p[k * stride] (c even), as fp32 into lo and hi; an entry at or past
// e reads 0 and is not loaded. One 32-bit load through the read-only path when the pair is two
// adjacent, 4-byte aligned 16-bit values; else one load per entry.
template <class T>
__device__ __forceinline__ void ldg_pair(const T* p, std::int64_t c, std::int64_t stride, std::int64_t e, float& lo,
                                         float& hi) {
  if constexpr (sizeof(T) == 2) {
    const T* q = p + c;
    if (stride == 1 && c + 1 < e && (reinterpret_cast<std::uintptr_t>(q) & 3) == 0) {
      unpack_f32<T>(__ldg(reinterpret_cast<const unsigned int*>(q)), lo, hi);
      return;
    }
  }
  lo = c < e ? static_cast<float>(__ldg(p + c * stride)) : 0.0f;
  hi = c + 1 < e ? static_cast<float>(__ldg(p + (c + 1) * stride)) : 0.0f;
}

// A thread's entries of a column vector p[k * stride] broadcast along the columns of a 64 x 8N
// accumulator fragment (a bias): v[2j + h] = p[acc_col(t, 4j) + h] for j < N, h < 2, 0 at or past
// e. When the vector is contiguous, 4-byte aligned and covers all 8N columns, the N 32-bit loads
// are issued back to back with no test between them and converted afterwards, so their latency is
// paid once per tile; else each pair goes through ldg_pair (a branch per pair, whose conversion
// waits for its load: N round trips, which the tile's edge pays). Measured on gemm_bias_act (H100,
// 8192 x 8192 x 1024, 128 x 256 tiles, identity): 0.268 ms pair by pair, 0.205 ms this way.
template <int N, class T>
__device__ __forceinline__ void ldg_col_pairs(const T* p, int t, std::int64_t stride, std::int64_t e, float (&v)[2 * N]) {
  if constexpr (sizeof(T) == 2) {
    if (stride == 1 && e >= 8 * N && (reinterpret_cast<std::uintptr_t>(p) & 3) == 0) {
      std::uint32_t w[N];
#pragma unroll
      for (int j = 0; j < N; ++j) w[j] = __ldg(reinterpret_cast<const unsigned int*>(p + acc_col(t, 4 * j)));
#pragma unroll
      for (int j = 0; j < N; ++j) unpack_f32<T>(w[j], v[2 * j], v[2 * j + 1]);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < N; ++j) ldg_pair(p, acc_col(t, 4 * j), stride, e, v[2 * j], v[2 * j + 1]);
}

// A thread's pairs of a global rank-2 tile distributed like a 64 x 4N accumulator fragment (a
// residual): v[2j + h] = p[acc_row(t, 2j) * rs + (acc_col(t, 2j) + h) * cs] for j < N, h < 2, 0
// outside e0 x e1. An interior tile of a 16-bit, unit-stride tile whose rows stay 4-byte aligned
// issues its N 32-bit loads back to back and converts afterwards (ldg_col_pairs says why); else
// pair by pair.
template <int N, class T>
__device__ __forceinline__ void ldg_frag_pairs(const T* p, int t, std::int64_t rs, std::int64_t cs, std::int64_t e0, std::int64_t e1,
                                               float (&v)[2 * N]) {
  if constexpr (sizeof(T) == 2) {
    if (cs == 1 && rs % 2 == 0 && e0 >= 64 && e1 >= 4 * N && (reinterpret_cast<std::uintptr_t>(p) & 3) == 0) {
      std::uint32_t w[N];
#pragma unroll
      for (int j = 0; j < N; ++j) w[j] = __ldg(reinterpret_cast<const unsigned int*>(p + acc_row(t, 2 * j) * rs + acc_col(t, 2 * j)));
#pragma unroll
      for (int j = 0; j < N; ++j) unpack_f32<T>(w[j], v[2 * j], v[2 * j + 1]);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const bool in_rows = acc_row(t, 2 * j) < e0;
    ldg_pair(p + (in_rows ? acc_row(t, 2 * j) * rs : 0), acc_col(t, 2 * j), cs, in_rows ? e1 : 0, v[2 * j], v[2 * j + 1]);
  }
}

}  // namespace loom::rt

// The producer atoms of the async-copy variant (cp.async into the swizzled tiles TMA would fill).
#include "loom/async_copy.cuh"
#include "loom/cluster.cuh"
#include "loom/streamk.cuh"

// loom/async_copy.cuh: the producer atoms of a kernel's async-copy variant, the one the launcher
// runs when the TMA cannot address a tensor (a row stride or base address that is not a multiple
// of 16 bytes; docs/codegen.md, "The async-copy variant"). Included by loom/runtime.cuh.
//
// async_copy_tile fills the same swizzled shared tile that the TMA boxes of a copy fill (slices of
// one swizzle span per row, 16-byte chunks XORed with the row, F3), with the same zero fill past
// the tensor's edge, using cp.async (16-, 8- or 4-byte chunks, the widest the tensor's alignment
// allows) or, for a tensor aligned only to its element size, ordinary loads and shared stores. All
// `Threads` producer threads take part; each then arrives once on the copy's mbarrier, which was
// initialized with a count of `Threads`: async_copy_arrive arrives when the thread's copies have
// landed (cp.async.mbarrier.arrive.noinc), or at once after the plain stores (release).
//
// The writes are generic-proxy writes: a consumer that reads the tile with wgmma (async proxy)
// runs fence_proxy_async_shared() after its mbarrier wait and before the wgmma (F8.1-2).
// GPU test: tests/gpu/async_copy_test.cu.
#pragma once

#include <cstdint>

namespace loom::rt {

// cp.async of `Bytes` (4, 8 or 16) from global `src` to shared `dst`, reading `valid` of them and
// zero-filling the rest (valid = 0: no global read; src must still be a valid address).
template <int Bytes>
__device__ __forceinline__ void cp_async_zfill(void* dst, const void* src, std::uint32_t valid) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_u32(dst)), "l"(src), "r"(valid) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(smem_u32(dst)), "l"(src), "n"(Bytes), "r"(valid)
                 : "memory");
}

// The widest chunk (16, 8, 4 bytes, else the element size) that divides the address `src`, the
// row stride in bytes and the address `safe` that chunks reading nothing are given (cp.async wants
// its source aligned to the chunk even then): what async_copy_tile copies a tile at `src` with.
__host__ __device__ __forceinline__ int async_copy_chunk(const void* src, const void* safe, std::int64_t row_stride,
                                                         int elem_bytes) {
  const std::uint64_t a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(src)) |
                          static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(safe)) |
                          static_cast<std::uint64_t>(row_stride) * static_cast<std::uint64_t>(elem_bytes) | 16u;
  const int chunk = static_cast<int>(a & (~a + 1));  // the lowest set bit, at most 16
  return chunk < elem_bytes ? elem_bytes : chunk;
}

namespace detail {

// One chunk width: thread `t` of `Threads` copies chunks t, t + Threads, ... of the Outer x Inner
// tile (row-major over chunks), row r of the slice s at byte s * Outer * Span + swizzle(r * Span + b).
template <class T, Swizzle SW, int Outer, int Inner, int Threads, int Chunk>
__device__ __forceinline__ void async_copy_tile_chunks(T* tile, const T* src, std::int64_t row_stride,
                                                       std::int64_t rows_valid, std::int64_t cols_valid,
                                                       const T* safe, int t) {
  constexpr int kSpan = static_cast<int>(swizzle_span_bytes(SW));
  constexpr int kRowBytes = Inner * static_cast<int>(sizeof(T));
  constexpr int kPerRow = kRowBytes / Chunk;
  constexpr int kChunks = Outer * kPerRow;
  static_assert(kRowBytes % kSpan == 0 && kSpan % Chunk == 0, "rows are whole swizzle spans of whole chunks");
  uint8_t* const base = reinterpret_cast<uint8_t*>(tile);
  const std::int64_t valid_row_bytes = cols_valid * static_cast<std::int64_t>(sizeof(T));
#pragma unroll 1  // the producer runs at 40 registers or fewer (setmaxnreg): no unrolling, no spills
  for (int q = t; q < kChunks; q += Threads) {
    const int r = q / kPerRow, b = (q % kPerRow) * Chunk;
    uint8_t* const dst = base + (b / kSpan) * (Outer * kSpan) +
                         swizzle_offset(SW, static_cast<std::uint32_t>(r * kSpan + b % kSpan));
    std::int64_t valid = r < rows_valid ? valid_row_bytes - b : 0;
    valid = valid < 0 ? 0 : valid > Chunk ? Chunk : valid;
    const uint8_t* g = valid ? reinterpret_cast<const uint8_t*>(src + r * row_stride) + b
                             : reinterpret_cast<const uint8_t*>(safe);
    if constexpr (Chunk >= 4) {
      cp_async_zfill<Chunk>(dst, g, static_cast<std::uint32_t>(valid));
    } else {
      static_assert(Chunk == 2 && sizeof(T) == 2, "a chunk narrower than 4 bytes is one 16-bit element");
      *reinterpret_cast<std::uint16_t*>(dst) = valid ? *reinterpret_cast<const std::uint16_t*>(g) : std::uint16_t{0};
    }
  }
}

}  // namespace detail

// Copies the Outer x Inner tile whose element (0, 0) is at `src` (rows `row_stride` elements apart,
// elements contiguous) into `tile`, laid out as TMA boxes of one swizzle span each would lay it out;
// rows at or past `rows_valid` and elements at or past `cols_valid` of a row read as 0. `safe` is
// any readable address (given to cp.async for chunks that read nothing). Run by every one of the
// `Threads` producer threads (t = 0 .. Threads - 1), then async_copy_arrive with the chunk width
// returned (the same in every thread: it depends only on src, safe and row_stride).
template <class T, Swizzle SW, int Outer, int Inner, int Threads>
__device__ __forceinline__ int async_copy_tile(T* tile, const T* src, std::int64_t row_stride, std::int64_t rows_valid,
                                               std::int64_t cols_valid, const T* safe, int t) {
  const int chunk = async_copy_chunk(src, safe, row_stride, static_cast<int>(sizeof(T)));
  if (chunk == 16)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 16>(tile, src, row_stride, rows_valid, cols_valid, safe, t);
  else if (chunk == 8)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 8>(tile, src, row_stride, rows_valid, cols_valid, safe, t);
  else if (chunk == 4 || sizeof(T) >= 4)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 4>(tile, src, row_stride, rows_valid, cols_valid, safe, t);
  else if constexpr (sizeof(T) == 2)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 2>(tile, src, row_stride, rows_valid, cols_valid, safe, t);
  return chunk;
}

// This thread's arrival on the copy's mbarrier once its part of async_copy_tile has landed: an
// arrive triggered by the completion of its cp.async copies (.noinc: the arrival is one of the
// barrier's `Threads`), or, after plain stores (chunk = 2), a proxy fence (the writer's half of
// F8.2) and an ordinary arrive (release).
__device__ __forceinline__ void async_copy_arrive(std::uint64_t* bar, int chunk) {
  if (chunk >= 4) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar)) : "memory");
  } else {
    fence_proxy_async_shared();
    mbarrier::arrive(bar);
  }
}

}  // namespace loom::rt

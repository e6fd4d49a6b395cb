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

// cp.async of `Bytes` (4, 8 or 16) from global `src` to the shared address `dst` (smem_u32),
// reading `valid` of them and zero-filling the rest (valid = 0: no global read; src must still be
// a valid address).
template <int Bytes>
__device__ __forceinline__ void cp_async_zfill(std::uint32_t dst, const void* src, std::uint32_t valid) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(valid) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(Bytes), "r"(valid) : "memory");
}

// The widest chunk (16, 8, 4 bytes, else the element size) that divides both the address `src` and
// the row stride in bytes: what async_copy_tile copies a tile at `src` with.
__host__ __device__ __forceinline__ int async_copy_chunk(const void* src, std::int64_t row_stride, int elem_bytes) {
  const std::uint64_t a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(src)) |
                          static_cast<std::uint64_t>(row_stride) * static_cast<std::uint64_t>(elem_bytes) | 16u;
  const int chunk = static_cast<int>(a & (~a + 1));  // the lowest set bit, at most 16
  return chunk < elem_bytes ? elem_bytes : chunk;
}

namespace detail {

// One chunk width: thread t of `Threads` copies chunks t, t + Threads, ... of the Outer x Inner tile
// (row-major over chunks), row r of the slice s at byte s * Outer * Span + swizzle(r * Span + b).
// (A thread walking one chunk column down the rows with a pointer step needs more registers than
// the producer's 40: ptxas spilled it.)
template <class T, Swizzle SW, int Outer, int Inner, int Threads, int Chunk>
__device__ __forceinline__ void async_copy_tile_chunks(T* tile, const T* src, std::int64_t row_stride,
                                                       std::int64_t rows_valid, std::int64_t cols_valid, int t) {
  constexpr int kSpan = static_cast<int>(swizzle_span_bytes(SW));
  constexpr int kRowBytes = Inner * static_cast<int>(sizeof(T));
  constexpr int kPerRow = kRowBytes / Chunk;
  static_assert(kRowBytes % kSpan == 0 && kSpan % Chunk == 0, "rows are whole swizzle spans of whole chunks");
  const std::uint32_t base = smem_u32(tile);
  const std::int64_t valid_row_bytes = cols_valid * static_cast<std::int64_t>(sizeof(T));
  const std::int64_t stride_bytes = row_stride * static_cast<std::int64_t>(sizeof(T));
  auto copy = [&](std::uint32_t dst, const uint8_t* g, std::uint32_t valid) {
    if constexpr (Chunk >= 4) {
      cp_async_zfill<Chunk>(dst, valid ? g : reinterpret_cast<const uint8_t*>(src), valid);  // src: aligned, readable
    } else {
      static_assert(Chunk == 2 && sizeof(T) == 2, "a chunk narrower than 4 bytes is one 16-bit element");
      const std::uint16_t x = valid ? *reinterpret_cast<const std::uint16_t*>(g) : std::uint16_t{0};
      asm volatile("st.shared.u16 [%0], %1;" ::"r"(dst), "h"(x) : "memory");
    }
  };
  {
#pragma unroll 1  // the producer runs at 40 registers or fewer (setmaxnreg): no unrolling, no spills
    for (int q = t; q < Outer * kPerRow; q += Threads) {
      const int r = q / kPerRow, b = (q % kPerRow) * Chunk;
      std::int64_t valid = r < rows_valid ? valid_row_bytes - b : 0;
      valid = valid < 0 ? 0 : valid > Chunk ? Chunk : valid;
      copy(base + static_cast<std::uint32_t>((b / kSpan) * (Outer * kSpan)) +
               swizzle_offset(SW, static_cast<std::uint32_t>(r * kSpan + b % kSpan)),
           reinterpret_cast<const uint8_t*>(src) + r * stride_bytes + b, static_cast<std::uint32_t>(valid));
    }
  }
}

}  // namespace detail

// Copies the Outer x Inner tile whose element (0, 0) is at `src` (rows `row_stride` elements apart,
// elements contiguous) into `tile`, laid out as TMA boxes of one swizzle span each would lay it out;
// rows at or past `rows_valid` and elements at or past `cols_valid` of a row read as 0. `src` must
// be readable (a tile with no element inside the tensor passes the tensor's base): chunks that
// read nothing give it to cp.async. Run by every one of the `Threads` producer threads
// (t = 0 .. Threads - 1), then async_copy_arrive with the chunk width returned (the same in every
// thread: it depends only on src and row_stride).
template <class T, Swizzle SW, int Outer, int Inner, int Threads>
__device__ __forceinline__ int async_copy_tile(T* tile, const T* src, std::int64_t row_stride, std::int64_t rows_valid,
                                               std::int64_t cols_valid, int t) {
  const int chunk = async_copy_chunk(src, row_stride, static_cast<int>(sizeof(T)));
  if (chunk == 16)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 16>(tile, src, row_stride, rows_valid, cols_valid, t);
  else if (chunk == 8)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 8>(tile, src, row_stride, rows_valid, cols_valid, t);
  else if (chunk == 4 || sizeof(T) >= 4)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 4>(tile, src, row_stride, rows_valid, cols_valid, t);
  else if constexpr (sizeof(T) == 2)
    detail::async_copy_tile_chunks<T, SW, Outer, Inner, Threads, 2>(tile, src, row_stride, rows_valid, cols_valid, t);
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

// Stores 16 bytes (w0..w3, lowest address first) at `p`, which need only be 2-byte aligned: one
// 16-byte store where p allows it, else two 8-byte, four 4-byte or eight 2-byte stores (the
// async-copy variant's epilogue, whose output rows need not start on 16 bytes).
__device__ __forceinline__ void store_16_bytes(void* p, std::uint32_t w0, std::uint32_t w1, std::uint32_t w2, std::uint32_t w3) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if ((a & 15) == 0) {
    *reinterpret_cast<uint4*>(p) = make_uint4(w0, w1, w2, w3);
  } else if ((a & 7) == 0) {
    reinterpret_cast<uint2*>(p)[0] = make_uint2(w0, w1);
    reinterpret_cast<uint2*>(p)[1] = make_uint2(w2, w3);
  } else if ((a & 3) == 0) {
    std::uint32_t* q = reinterpret_cast<std::uint32_t*>(p);
    q[0] = w0, q[1] = w1, q[2] = w2, q[3] = w3;
  } else {
    std::uint16_t* q = reinterpret_cast<std::uint16_t*>(p);
    const std::uint32_t w[4] = {w0, w1, w2, w3};
#pragma unroll
    for (int i = 0; i < 8; ++i) q[i] = static_cast<std::uint16_t>(w[i / 2] >> (16 * (i & 1)));
  }
}

}  // namespace loom::rt

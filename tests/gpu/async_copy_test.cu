// async_copy_test: loom::rt::async_copy_tile / async_copy_arrive (runtime/loom/async_copy.cuh).
// A 16-bit tensor of R x W elements (row stride S elements, base `shift` elements past a 256-byte
// boundary) holds distinct values (row * 4096 + column + 1, mod 2^16 and never 0); one block of
// 128 producer threads copies the tile whose element (0, 0) is at (r0, c0) — Outer = 64 rows,
// Inner = 128 elements, 128-byte swizzle (two 64-element slices), as the TMA would with two boxes —
// into shared memory poisoned with 0xEEEE, and arrives on an mbarrier of count 128; a 129th thread
// waits on it and writes the raw tile out. Every shared element is checked against the swizzled
// position TMA gives it (slice s at s * 64 * 128 bytes, byte o of the slice at swizzle_offset(o)):
// the tensor's value inside it, 0 past its edge. Cases cover the four chunk widths (row strides of
// 16-, 8-, 4- and 2-byte multiples, shifted bases) and tiles clipped on both edges, and a 64-byte
// swizzle (Inner = 64: two 32-element slices). Then store_16_bytes (the variant's epilogue store) at
// every 2-byte offset of a 32-byte line: the 8 elements land in order, the rest stays poisoned.
#include <vector>

#include "gpu_test.cuh"
#include "loom/runtime.cuh"

using gputest::fail;

namespace {

constexpr int kOuter = 64, kInner = 128;

template <loom::Swizzle SW, int Inner>
__global__ void copy_kernel(const __nv_bfloat16* src, std::int64_t stride, std::int64_t rows_in, std::int64_t cols_in,
                            std::uint16_t* out, int* chunk_out) {
  __shared__ alignas(1024) std::uint16_t tile[kOuter * Inner];
  __shared__ alignas(8) std::uint64_t bar;
  for (int i = threadIdx.x; i < kOuter * Inner; i += blockDim.x) tile[i] = 0xEEEE;
  if (threadIdx.x == 0) {
    loom::rt::mbarrier::init(&bar, 128);
    loom::rt::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    const int chunk = loom::rt::async_copy_tile<__nv_bfloat16, SW, kOuter, Inner, 128>(
        reinterpret_cast<__nv_bfloat16*>(tile), src, stride, rows_in, cols_in, static_cast<int>(threadIdx.x));
    loom::rt::async_copy_arrive(&bar, chunk);
    if (threadIdx.x == 0) *chunk_out = chunk;
  } else {
    loom::rt::mbarrier::wait(&bar, 0);
    for (int i = threadIdx.x - 128; i < kOuter * Inner; i += 32) out[i] = tile[i];
  }
}

__global__ void store_kernel(std::uint16_t* line, int offset) {
  loom::rt::store_16_bytes(line + offset, 0x00020001u, 0x00040003u, 0x00060005u, 0x00080007u);
}

void check_store_16_bytes() {
  gputest::DeviceBuffer<std::uint16_t> line(32);
  for (int offset = 0; offset < 16; ++offset) {
    line.poison();
    store_kernel<<<1, 1>>>(line.ptr, offset);
    LAUNCH_CHECK();
    const std::vector<std::uint16_t> got = line.download();
    for (int i = 0; i < 32; ++i) {
      const std::uint16_t want = i >= offset && i < offset + 8 ? static_cast<std::uint16_t>(i - offset + 1) : 0xFFFF;
      if (got[static_cast<size_t>(i)] != want)
        fail("store_16_bytes at element offset %d: element %d is 0x%04x, expected 0x%04x", offset, i, got[static_cast<size_t>(i)], want);
    }
  }
  std::printf("  ok: store_16_bytes at 16 offsets\n");
}

std::uint16_t value(std::int64_t r, std::int64_t c) {
  const std::uint32_t v = static_cast<std::uint32_t>((r * 4096 + c) % 65535 + 1);
  return static_cast<std::uint16_t>(v);
}

template <loom::Swizzle SW, int Inner>
void run_case(std::int64_t R, std::int64_t W, std::int64_t S, std::int64_t shift, std::int64_t r0, std::int64_t c0, int want_chunk) {
  std::vector<std::uint16_t> host(static_cast<size_t>(R * S + 64), 0x7777);
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t c = 0; c < W; ++c) host[static_cast<size_t>(shift + r * S + c)] = value(r, c);
  gputest::DeviceBuffer<std::uint16_t> d(host.size());
  d.upload(host);
  gputest::DeviceBuffer<std::uint16_t> out(kOuter * Inner);
  gputest::DeviceBuffer<int> chunk(1);
  out.poison();
  const __nv_bfloat16* first = reinterpret_cast<const __nv_bfloat16*>(d.ptr + shift + r0 * S + c0);
  copy_kernel<SW, Inner><<<1, 160>>>(first, S, R - r0, W - c0, out.ptr, chunk.ptr);
  LAUNCH_CHECK();
  const std::vector<std::uint16_t> got = out.download();
  const int c = chunk.download()[0];
  if (c != want_chunk) fail("R=%lld W=%lld S=%lld shift=%lld: chunk %d, expected %d", (long long)R, (long long)W, (long long)S, (long long)shift, c, want_chunk);
  constexpr int span = static_cast<int>(loom::swizzle_span_bytes(SW)), per = span / 2;
  for (int r = 0; r < kOuter; ++r)
    for (int e = 0; e < Inner; ++e) {
      const std::uint32_t byte = static_cast<std::uint32_t>((e / per) * kOuter * span) +
                                 loom::swizzle_offset(SW, static_cast<std::uint32_t>(r * span + (e % per) * 2));
      const std::int64_t gr = r0 + r, gc = c0 + e;
      const std::uint16_t want = gr < R && gc < W ? value(gr, gc) : 0;
      const std::uint16_t have = got[byte / 2];
      if (have != want)
        fail("R=%lld W=%lld S=%lld shift=%lld tile (%lld, %lld): element (%d, %d) at byte %u is 0x%04x, expected 0x%04x",
             (long long)R, (long long)W, (long long)S, (long long)shift, (long long)r0, (long long)c0, r, e, byte, have, want);
    }
  std::printf("  ok: R=%lld W=%lld stride=%lld shift=%lld tile at (%lld, %lld), chunk %d bytes\n", (long long)R, (long long)W,
              (long long)S, (long long)shift, (long long)r0, (long long)c0, c);
}

}  // namespace

int main() {
  gputest::begin("async_copy_test");
  using loom::Swizzle;
  // Whole tiles, each chunk width.
  run_case<Swizzle::B128, kInner>(200, 300, 304, 0, 64, 128, 16);  // 608-byte rows
  run_case<Swizzle::B128, kInner>(200, 300, 300, 0, 64, 128, 8);   // 600-byte rows
  run_case<Swizzle::B128, kInner>(200, 300, 302, 0, 64, 128, 4);
  run_case<Swizzle::B128, kInner>(200, 300, 301, 0, 64, 128, 2);
  run_case<Swizzle::B128, kInner>(200, 300, 304, 1, 64, 128, 2);   // base 2 bytes off
  run_case<Swizzle::B128, kInner>(200, 300, 304, 4, 64, 128, 8);   // base 8 bytes off
  // Clipped on both edges (rows past R, elements past W read 0); partial chunks at the row's end.
  run_case<Swizzle::B128, kInner>(100, 201, 204, 0, 64, 128, 8);
  run_case<Swizzle::B128, kInner>(100, 203, 203, 0, 64, 128, 2);
  run_case<Swizzle::B128, kInner>(70, 133, 136, 0, 64, 0, 16);
  run_case<Swizzle::B128, kInner>(64, 150, 150, 0, 0, 128, 4);     // only 22 columns inside
  // 64-byte swizzle.
  run_case<Swizzle::B64, 64>(100, 90, 92, 0, 64, 64, 8);
  run_case<Swizzle::B64, 64>(100, 90, 96, 0, 0, 0, 16);
  check_store_16_bytes();
  return gputest::pass();
}

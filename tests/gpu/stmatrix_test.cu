// stmatrix_test: stmatrix_x1/x2/x4 and ldmatrix_x1/x2/x4, plain and .trans, the pack helpers, and
// the accumulator-to-smem epilogue pattern.
//  1. One warp stores K (1, 2, 4) 8x8 matrices from known fragments into a padded tile (row pitch
//     32 bytes, the 16-byte gaps poisoned), then loads known matrices back; every element and gap
//     is checked against the fragment layout (lane l: row l/4, columns 2(l%4), 2(l%4)+1; .trans
//     transposes).
//  2. One warpgroup holds an m64n32 f32 accumulator (values set through acc_row/acc_col), packs it
//     to bf16 / f16 (pack2<T>) and writes it with stmatrix_x4 to a row-major 64x32 tile and with
//     stmatrix_x4_trans to a 32x64 (transposed) tile, as a TMA-store epilogue does.
#include "gpu_test.cuh"
#include "loom/runtime.cuh"

using namespace loom::rt;
using gputest::fail;

namespace {

constexpr int kPitch = 16;  // elements (32 bytes) per tile row: 8 used, 8 gap

__host__ __device__ std::uint16_t frag_value(int matrix, int lane, int half) {
  return static_cast<std::uint16_t>(0x1000 * (matrix + 1) + lane * 2 + half);
}
__host__ __device__ std::uint16_t tile_value(int matrix, int row, int col) {
  return static_cast<std::uint16_t>(0x100 * (matrix + 1) + row * 8 + col + 1);
}
constexpr std::uint16_t kGap = 0xEEEE;

// Stores: out_st gets the tile (K matrices x 8 rows x kPitch). Loads: out_ld[lane * 4 + j].
template <int K, bool Trans>
__global__ void matrix_kernel(std::uint16_t* out_st, std::uint32_t* out_ld) {
  __shared__ alignas(128) std::uint16_t tile[4 * 8 * kPitch];
  const int lane = lane_id();
  // Row address of this lane: matrix lane/8, row lane%8 (lanes past 8K repeat, their address is
  // ignored).
  const int m = (lane % (8 * K)) / 8;
  std::uint16_t* row = tile + (m * 8 + lane % 8) * kPitch;

  // 1a. stmatrix
  for (int i = lane; i < K * 8 * kPitch; i += 32) tile[i] = kGap;
  __syncwarp();
  std::uint32_t r[4];
  for (int j = 0; j < 4; ++j)
    r[j] = frag_value(j, lane, 0) | static_cast<std::uint32_t>(frag_value(j, lane, 1)) << 16;
  if constexpr (K == 1) {
    if constexpr (Trans) stmatrix_x1_trans(row, r[0]); else stmatrix_x1(row, r[0]);
  } else if constexpr (K == 2) {
    if constexpr (Trans) stmatrix_x2_trans(row, r[0], r[1]); else stmatrix_x2(row, r[0], r[1]);
  } else {
    if constexpr (Trans) stmatrix_x4_trans(row, r[0], r[1], r[2], r[3]);
    else stmatrix_x4(row, r[0], r[1], r[2], r[3]);
  }
  __syncwarp();
  for (int i = lane; i < K * 8 * kPitch; i += 32) out_st[i] = tile[i];
  __syncwarp();

  // 1b. ldmatrix
  for (int i = lane; i < K * 8 * kPitch; i += 32) {
    const int mm = i / (8 * kPitch), rr = (i / kPitch) % 8, cc = i % kPitch;
    tile[i] = cc < 8 ? tile_value(mm, rr, cc) : kGap;
  }
  __syncwarp();
  std::uint32_t v[4] = {0, 0, 0, 0};
  if constexpr (K == 1) {
    if constexpr (Trans) ldmatrix_x1_trans(row, v[0]); else ldmatrix_x1(row, v[0]);
  } else if constexpr (K == 2) {
    if constexpr (Trans) ldmatrix_x2_trans(row, v[0], v[1]); else ldmatrix_x2(row, v[0], v[1]);
  } else {
    if constexpr (Trans) ldmatrix_x4_trans(row, v[0], v[1], v[2], v[3]);
    else ldmatrix_x4(row, v[0], v[1], v[2], v[3]);
  }
  for (int j = 0; j < K; ++j) out_ld[lane * 4 + j] = v[j];
}

template <int K, bool Trans>
void test_matrix() {
  const char* name = Trans ? ".trans" : "";
  gputest::DeviceBuffer<std::uint16_t> st(K * 8 * kPitch);
  gputest::DeviceBuffer<std::uint32_t> ld(32 * 4);
  st.poison();
  ld.poison();
  matrix_kernel<K, Trans><<<1, 32>>>(st.ptr, ld.ptr);
  LAUNCH_CHECK();
  const std::vector<std::uint16_t> tile = st.download();
  for (int m = 0; m < K; ++m) {
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < kPitch; ++c) {
        std::uint16_t want = kGap;
        if (c < 8) {
          want = Trans ? frag_value(m, c * 4 + r / 2, r % 2) : frag_value(m, r * 4 + c / 2, c % 2);
        }
        const std::uint16_t got = tile[(m * 8 + r) * kPitch + c];
        if (got != want)
          fail("first bad element: stmatrix.x%d%s matrix %d row %d col %d: got %04x, want %04x%s",
               K, name, m, r, c, got, want, c >= 8 ? " (gap, must stay untouched)" : "");
      }
    }
  }
  const std::vector<std::uint32_t> regs = ld.download();
  for (int lane = 0; lane < 32; ++lane) {
    for (int j = 0; j < K; ++j) {
      const int a = lane / 4, b = 2 * (lane % 4);
      const std::uint32_t want =
          Trans ? (tile_value(j, b, a) | static_cast<std::uint32_t>(tile_value(j, b + 1, a)) << 16)
                : (tile_value(j, a, b) | static_cast<std::uint32_t>(tile_value(j, a, b + 1)) << 16);
      if (regs[lane * 4 + j] != want)
        fail("first bad element: ldmatrix.x%d%s lane %d register %d: got %08x, want %08x", K,
             name, lane, j, regs[lane * 4 + j], want);
    }
  }
}

// ---- 2. accumulator epilogue --------------------------------------------------------------

constexpr int kN = 32;

__host__ __device__ float acc_value(int row, int col) {
  return static_cast<float>((row * kN + col) % 251 - 125);  // integers: exact in bf16 and f16
}

template <class T, bool Trans>
__global__ void epilogue_kernel(std::uint16_t* out) {
  __shared__ alignas(128) std::uint16_t tile[64 * kN];
  const int t = thread_in_warpgroup();
  const int w = t / 32, l = t % 32;
  for (int i = t; i < 64 * kN; i += 128) tile[i] = kGap;
  __syncthreads();
  float d[kN / 2];
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) d[i] = acc_value(acc_row(t, i), acc_col(t, i));
  const int m = l / 8, i = l % 8;
  const int row_off = (m & 1) * 8, col_off = (m >> 1) * 8;
#pragma unroll
  for (int c = 0; c < kN / 16; ++c) {
    const std::uint32_t r0 = pack2<T>(d[8 * c + 0], d[8 * c + 1]);
    const std::uint32_t r1 = pack2<T>(d[8 * c + 2], d[8 * c + 3]);
    const std::uint32_t r2 = pack2<T>(d[8 * c + 4], d[8 * c + 5]);
    const std::uint32_t r3 = pack2<T>(d[8 * c + 6], d[8 * c + 7]);
    if constexpr (!Trans) {
      stmatrix_x4(tile + (16 * w + row_off + i) * kN + 16 * c + col_off, r0, r1, r2, r3);
    } else {
      stmatrix_x4_trans(tile + (16 * c + col_off + i) * 64 + 16 * w + row_off, r0, r1, r2, r3);
    }
  }
  __syncthreads();
  for (int k = t; k < 64 * kN; k += 128) out[k] = tile[k];
}

template <class T, bool Trans>
void test_epilogue() {
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  gputest::DeviceBuffer<std::uint16_t> out(64 * kN);
  out.poison();
  epilogue_kernel<T, Trans><<<1, 128>>>(out.ptr);
  LAUNCH_CHECK();
  const std::vector<std::uint16_t> got = out.download();
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < kN; ++c) {
      const float v = acc_value(r, c);
      const std::uint16_t want = kBf16 ? gputest::bf16_bits(v) : gputest::f16_bits(v);
      const std::uint16_t g = Trans ? got[c * 64 + r] : got[r * kN + c];
      if (g != want)
        fail("first bad element: epilogue %s stmatrix_x4%s D[%d][%d]: got %04x, want %04x (%g)",
             kBf16 ? "bf16" : "f16", Trans ? "_trans" : "", r, c, g, want, static_cast<double>(v));
    }
  }
}

}  // namespace

int main() {
  gputest::begin("stmatrix_test");
  test_matrix<1, false>();
  test_matrix<2, false>();
  test_matrix<4, false>();
  test_matrix<1, true>();
  test_matrix<2, true>();
  test_matrix<4, true>();
  std::printf("  stmatrix / ldmatrix x1 x2 x4, plain and .trans: ok\n");
  test_epilogue<__nv_bfloat16, false>();
  test_epilogue<__nv_bfloat16, true>();
  test_epilogue<__half, false>();
  test_epilogue<__half, true>();
  std::printf("  m64n32 accumulator -> bf16/f16 tile, row-major and transposed: ok\n");
  return gputest::pass();
}

// loom/swizzle.h: the shared-memory swizzle modes, usable from host and device code.
//
// One enum for the four modes and the translations that differ between users of it: the TMA
// tensor-map enum, the wgmma matrix-descriptor code, and the byte-address XOR. Included by
// runtime.cuh (device) and host.h (host launcher), so both agree on what "B128" means.
// HOPPER-FACTS.md section 3 is the source for every number here.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define LOOM_HOST_DEVICE __host__ __device__
#else
#define LOOM_HOST_DEVICE
#endif

namespace loom {

// A swizzle mode, named by the width of its row in bytes. Never cast the enum to a hardware code:
// TMA and the wgmma descriptor number the modes differently (use the two translators below).
enum class Swizzle : std::uint8_t { None, B32, B64, B128 };

// Bytes of one swizzled row: the width one smem "slice" of a tile occupies along its contiguous
// dimension. None gives 16, the row width of a wgmma core matrix (8 rows x 16 bytes).
LOOM_HOST_DEVICE constexpr std::uint32_t swizzle_span_bytes(Swizzle s) {
  return s == Swizzle::B128 ? 128u : s == Swizzle::B64 ? 64u : s == Swizzle::B32 ? 32u : 16u;
}

// Bytes after which the XOR pattern repeats; a swizzled tile must start on this boundary so that
// the descriptor's base offset is 0 (and TMA's and wgmma's view of the pattern agree). None needs
// only the TMA destination alignment of 128 bytes.
LOOM_HOST_DEVICE constexpr std::uint32_t swizzle_repeat_bytes(Swizzle s) {
  return s == Swizzle::B128 ? 1024u : s == Swizzle::B64 ? 512u : s == Swizzle::B32 ? 256u : 128u;
}

// Where the byte at unswizzled offset `off` (from a repeat-aligned base) lands: the 16-byte chunk
// index (bits 4..6) is XORed with the 128-byte row index (bits 7..9), masked to the mode's width.
// 128B: bits[4:6] ^= bits[7:9]; 64B: bits[4:5] ^= bits[7:8]; 32B: bit4 ^= bit7. The map is its own
// inverse.
LOOM_HOST_DEVICE constexpr std::uint32_t swizzle_offset(Swizzle s, std::uint32_t off) {
  const std::uint32_t mask = swizzle_span_bytes(s) / 16u - 1u;  // 7, 3, 1; 0 for None
  return off ^ (((off >> 7) & mask) << 4);
}

// CUtensorMapSwizzle value (CU_TENSOR_MAP_SWIZZLE_NONE/32B/64B/128B = 0/1/2/3).
LOOM_HOST_DEVICE constexpr std::uint32_t tma_swizzle_code(Swizzle s) {
  return s == Swizzle::B128 ? 3u : s == Swizzle::B64 ? 2u : s == Swizzle::B32 ? 1u : 0u;
}

// wgmma matrix-descriptor layout type, bits 62..63 (none 0, 128B 1, 64B 2, 32B 3).
LOOM_HOST_DEVICE constexpr std::uint32_t desc_swizzle_code(Swizzle s) {
  return s == Swizzle::B128 ? 1u : s == Swizzle::B64 ? 2u : s == Swizzle::B32 ? 3u : 0u;
}

}  // namespace loom

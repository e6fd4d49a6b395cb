// tests/gpu/tma_cases.cuh: host-side model of a TMA box, shared by tma_load_test and
// tma_store_test. A TmaCase is a global tensor (any rank, padded rows) and a box shape; the model
// says where each box element lands in shared memory (HOPPER-FACTS.md section 3, written out here
// independently of loom/swizzle.h) and whether it is in bounds.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gpu_test.cuh"
#include "loom/host.h"

namespace tmatest {

using loom::Swizzle;
using loom::host::TmaDtype;

using Coord = std::array<int, 5>;

// The swizzle table of HOPPER-FACTS section 3, byte address bits.
inline std::uint32_t model_swizzle(Swizzle sw, std::uint32_t off) {
  switch (sw) {
    case Swizzle::B128: return off ^ (((off >> 7) & 7u) << 4);  // bits[4:6] ^= bits[7:9]
    case Swizzle::B64: return off ^ (((off >> 7) & 3u) << 4);   // bits[4:5] ^= bits[7:8]
    case Swizzle::B32: return off ^ (((off >> 7) & 1u) << 4);   // bit4 ^= bit7
    case Swizzle::None: return off;
  }
  return off;
}

inline const char* swizzle_name(Swizzle sw) {
  switch (sw) {
    case Swizzle::B128: return "128B";
    case Swizzle::B64: return "64B";
    case Swizzle::B32: return "32B";
    case Swizzle::None: return "none";
  }
  return "?";
}

struct TmaCase {
  const char* name;
  TmaDtype dtype;
  int rank;
  std::array<std::uint64_t, 5> dims;  // innermost first
  std::array<std::uint32_t, 5> box;   // innermost first
  Swizzle swizzle;
  std::uint32_t row_pad_bytes;        // extra bytes after each innermost row (multiple of 16)
  std::vector<Coord> coords;          // box origins to try

  std::uint32_t elem_bytes() const { return loom::host::tma_dtype_bytes(dtype); }

  // Byte strides of every dimension (stride[0] = element size).
  std::array<std::uint64_t, 5> strides() const {
    std::array<std::uint64_t, 5> s{};
    s[0] = elem_bytes();
    std::uint64_t row = dims[0] * elem_bytes();
    row = (row + 15) / 16 * 16 + row_pad_bytes;
    for (int d = 1; d < 5; ++d) s[d] = d == 1 ? row : s[d - 1] * dims[d - 1];
    return s;
  }
  std::uint64_t global_bytes() const { return strides()[rank - 1] * dims[rank - 1] + 16; }
  std::uint32_t box_elems() const {
    std::uint32_t n = 1;
    for (int d = 0; d < rank; ++d) n *= box[d];
    return n;
  }
  std::uint32_t box_bytes() const { return box_elems() * elem_bytes(); }

  loom::host::TensorMapSpec spec(const void* global) const {
    loom::host::TensorMapSpec s;
    s.dtype = dtype;
    s.rank = rank;
    s.global_address = global;
    const auto st = strides();
    for (int d = 0; d < rank; ++d) {
      s.global_dims[d] = dims[d];
      s.box_dims[d] = box[d];
      if (d >= 1) s.global_strides[d - 1] = st[d];
    }
    s.swizzle = swizzle;
    return s;
  }

  // Box element `linear` (innermost fastest) as a multi-index.
  Coord unflatten(std::uint32_t linear) const {
    Coord idx{};
    for (int d = 0; d < rank; ++d) {
      idx[d] = static_cast<int>(linear % box[d]);
      linear /= box[d];
    }
    return idx;
  }

  // Global byte offset of origin + idx, or -1 when any coordinate is out of bounds.
  long long global_offset(const Coord& origin, const Coord& idx) const {
    const auto st = strides();
    long long off = 0;
    for (int d = 0; d < rank; ++d) {
      const long long g = static_cast<long long>(origin[d]) + idx[d];
      if (g < 0 || g >= static_cast<long long>(dims[d])) return -1;
      off += g * static_cast<long long>(st[d]);
    }
    return off;
  }

  // Global byte offset of origin + idx when the element is out of bounds ONLY in dimension 0 and
  // lies before the next 16-byte boundary after the row's last element (globalDim[0] * size
  // rounded up to 16), else -1. TMA stores write whole 16-byte chunks, so such an element may be
  // written into the row padding (observed on H100: "2d f32 sw128", 45 floats = 180 bytes per
  // row, element 45 was written). Bytes past that boundary must never be written.
  long long store_slack_offset(const Coord& origin, const Coord& idx) const {
    const std::int64_t g0 = static_cast<std::int64_t>(origin[0]) + idx[0];
    const std::int64_t end0 = static_cast<std::int64_t>(dims[0]);
    const std::int64_t chunk_end = static_cast<std::int64_t>(
        (dims[0] * elem_bytes() + 15) / 16 * 16 / elem_bytes());
    if (g0 < end0 || g0 >= chunk_end) return -1;
    const auto st = strides();
    long long off = g0 * static_cast<long long>(elem_bytes());
    for (int d = 1; d < rank; ++d) {
      const long long g = static_cast<long long>(origin[d]) + idx[d];
      if (g < 0 || g >= static_cast<long long>(dims[d])) return -1;
      off += g * static_cast<long long>(st[d]);
    }
    return off;
  }

  // Every origin's innermost coordinate must start on a 16-byte boundary (c0 * size % 16 == 0):
  // on H100 a TMA load whose inner start is not 16-byte aligned dies with an illegal instruction
  // (first run: "2d bf16 sw64" at c0 = 180, 360 bytes). A case breaking this is a test bug.
  void check_origins() const {
    for (const Coord& o : coords) {
      const long long b = static_cast<long long>(o[0]) * elem_bytes();
      if (b % 16 != 0)
        gputest::fail("%s: origin c0 = %d is %lld bytes, not a multiple of 16 (TMA needs that)",
                      name, o[0], b);
    }
  }

  // Shared-memory byte offset of box element `linear`.
  std::uint32_t smem_offset(std::uint32_t linear) const {
    return model_swizzle(swizzle, linear * elem_bytes());
  }
};

inline std::string coord_text(const TmaCase& c, const Coord& x) {
  std::string s = "(";
  for (int d = 0; d < c.rank; ++d) {
    if (d) s += ", ";
    s += std::to_string(x[d]);
  }
  return s + ")";
}

// Random element bits that are never 0 (so zero fill is visible) and never a NaN/Inf pattern.
inline void fill_random(std::vector<std::uint8_t>& bytes, TmaDtype dtype, gputest::Rng& rng) {
  const std::uint32_t es = loom::host::tma_dtype_bytes(dtype);
  for (std::size_t i = 0; i + es <= bytes.size(); i += es) {
    if (es == 2) {
      const std::uint16_t v =
          static_cast<std::uint16_t>((1 + rng.below(0x6FFF)) | (rng.below(2) << 15));
      std::memcpy(&bytes[i], &v, 2);
    } else {
      const float f = static_cast<float>(1 + rng.below(1u << 22)) * (rng.below(2) ? 1.0f : -1.0f);
      std::memcpy(&bytes[i], &f, 4);
    }
  }
}

}  // namespace tmatest

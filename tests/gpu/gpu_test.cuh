// tests/gpu/gpu_test.cuh: the small harness every GPU test program shares.
//
// A test program calls begin("name"), checks every CUDA call with CUDA_CHECK and every launch with
// LAUNCH_CHECK, reports a wrong result with fail(...) (prints "FAIL <name>: ..." and exits 1), and
// ends with `return pass();` (prints "PASS <name>"). Inputs come from a seeded generator whose seed
// is printed (set LOOM_SEED to replay); LOOM_TEST_QUICK=1 asks for a smaller run (sanitizers).
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace gputest {

inline const char*& test_name() {
  static const char* name = "unnamed";
  return name;
}

[[noreturn]] inline void fail(const char* fmt, ...) {
  std::fflush(stdout);
  std::printf("FAIL %s: ", test_name());
  va_list args;
  va_start(args, fmt);
  std::vprintf(fmt, args);
  va_end(args);
  std::printf("\n");
  std::fflush(stdout);
  std::exit(1);
}

inline int pass() {
  std::printf("PASS %s\n", test_name());
  std::fflush(stdout);
  return 0;
}

inline bool quick_mode() {
  const char* q = std::getenv("LOOM_TEST_QUICK");
  return q != nullptr && q[0] != '\0' && std::strcmp(q, "0") != 0;
}

// splitmix64: small, seedable, good enough for test data.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
  // A random multiple of 1/64 in [-1, 1]: exact in bf16 and f16, exact products and sums in f32.
  float small_exact() { return (static_cast<int>(below(129)) - 64) / 64.0f; }
};

inline std::uint64_t seed() {
  static std::uint64_t s = [] {
    const char* env = std::getenv("LOOM_SEED");
    std::uint64_t v = env != nullptr ? std::strtoull(env, nullptr, 0)
                                     : static_cast<std::uint64_t>(std::time(nullptr));
    return v;
  }();
  return s;
}

#define CUDA_CHECK(expr)                                                                     \
  do {                                                                                       \
    const cudaError_t err_ = (expr);                                                         \
    if (err_ != cudaSuccess)                                                                 \
      ::gputest::fail("%s:%d: %s returned %s (%s)", __FILE__, __LINE__, #expr,             \
                      cudaGetErrorName(err_), cudaGetErrorString(err_));                     \
  } while (0)

// After every launch: the launch itself, then the kernel's execution.
#define LAUNCH_CHECK()                      \
  do {                                      \
    CUDA_CHECK(cudaGetLastError());         \
    CUDA_CHECK(cudaDeviceSynchronize());    \
  } while (0)

// Names the test, prints the seed, and requires a compute-capability 9.x device.
inline void begin(const char* name) {
  test_name() = name;
  std::printf("%s: seed %llu (LOOM_SEED to replay)%s\n", name,
              static_cast<unsigned long long>(seed()), quick_mode() ? " quick" : "");
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count == 0) fail("no CUDA device");
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: device %s (sm_%d%d)\n", name, prop.name, prop.major, prop.minor);
  if (prop.major != 9) fail("needs a Hopper (sm_90) device, found sm_%d%d", prop.major, prop.minor);
}

// Host conversions through the CUDA headers' host implementations (round to nearest even).
inline std::uint16_t bf16_bits(float f) {
  const __nv_bfloat16_raw r = static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(f));
  return r.x;
}
inline std::uint16_t f16_bits(float f) {
  const __half_raw r = static_cast<__half_raw>(__float2half_rn(f));
  return r.x;
}
inline float bf16_value(std::uint16_t bits) {
  __nv_bfloat16_raw r;
  r.x = bits;
  return __bfloat162float(__nv_bfloat16(r));
}
inline float f16_value(std::uint16_t bits) {
  __half_raw r;
  r.x = bits;
  return __half2float(__half(r));
}

// A device buffer that frees itself; filled with `poison` bytes (0xFF: NaN for floats) on request.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr), n * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void poison(int byte = 0xFF) { CUDA_CHECK(cudaMemset(ptr, byte, count * sizeof(T))); }
  void upload(const std::vector<T>& host) {
    CUDA_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

}  // namespace gputest

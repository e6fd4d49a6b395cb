// tune_test: the pieces of runtime/loom/tune.h that loom_<entry>_tune is made of, on stand-in
// "mappings" whose speed is known (a spin kernel of a set duration each):
//   1. measured_choice picks the fastest of four candidates (spins of 60, 40, 90 and 50 us) whatever
//      the model's pick is, keeps the model's pick when it is within kTuneMargin of the fastest (a
//      candidate 1% faster does not replace it), leaves out a candidate that fails (and still
//      chooses), and returns -1 with the first failing status when none runs;
//   2. ScratchTensor: same extents and strides, base at the same offset modulo 256 as the original,
//      its contents copied when asked; descriptors every launcher refuses (NULL data, a zero extent)
//      are kept as they are;
//   3. TuneTable / TuneKey: a key of other strides or of a base off 16 bytes is another key.
#include <cstdio>
#include <vector>

#include "gpu_test.cuh"
#include "loom/tune.h"

namespace {

__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

}  // namespace

int main() {
  gputest::begin("tune");
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // 1. The choice. Mapping i spins us[i] microseconds; 9 fails (LOOM_ERR_SMEM), as a mapping that
  //    cannot run a call would.
  const std::vector<unsigned long long> us = {60, 40, 90, 50, 0, 0, 0, 0, 0, 0, 40};
  auto launch = [&](int i) {
    if (i == 9) return static_cast<int>(LOOM_ERR_SMEM);
    spin<<<1, 1, 0, s>>>(us[static_cast<size_t>(i)] * 1000ull);
    return cudaGetLastError() == cudaSuccess ? static_cast<int>(LOOM_OK) : static_cast<int>(LOOM_ERR_LAUNCH);
  };
  int failed = -1;
  int got = loom::host::measured_choice({0, 1, 2, 3}, 0, launch, s, &failed);
  if (got != 1 || failed != LOOM_OK) gputest::fail("fastest of 60/40/90/50 us: got %d (failed %d), want 1", got, failed);
  got = loom::host::measured_choice({2, 3, 1, 0}, 2, launch, s, &failed);
  if (got != 1) gputest::fail("the order of the candidates or the model's pick changed the choice: got %d", got);
  got = loom::host::measured_choice({0, 9, 3}, 0, launch, s, &failed);
  if (got != 3 || failed != LOOM_ERR_SMEM) gputest::fail("a failing candidate: got %d (failed %d), want 3 (%d)", got, failed, LOOM_ERR_SMEM);
  got = loom::host::measured_choice({9}, 9, launch, s, &failed);
  if (got != -1 || failed != LOOM_ERR_SMEM) gputest::fail("no candidate runs: got %d (failed %d), want -1 (%d)", got, failed, LOOM_ERR_SMEM);
  // Within the margin: 1 (40 us) against 10 (40 us + a little), the model's pick 10 stays.
  got = loom::host::measured_choice({1, 10}, 10, launch, s, &failed);
  if (got != 10) gputest::fail("two equal candidates: got %d, want the model's pick 10", got);
  const float t40 = loom::host::time_launch_ms([&] { return launch(1); }, s);
  if (t40 < 0.039f || t40 > 0.060f) gputest::fail("a 40 us spin timed at %.4f ms", t40);

  // 2. Scratch copies.
  const int64_t rows = 37, cols = 50, ld = 64;
  gputest::DeviceBuffer<char> buffer(static_cast<size_t>(rows * ld * 2 + 512));
  char* base = buffer.ptr;
  void* data = base + 48;  // 16-byte aligned, not 256
  std::vector<uint16_t> host(static_cast<size_t>(rows * ld));
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint16_t>(i * 7 + 1);
  CUDA_CHECK(cudaMemcpy(data, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  const loom_tensor t = loom_tensor_2d(data, LOOM_BF16, rows, cols, ld);
  {
    loom::host::ScratchTensor sc;
    if (sc.make(t, true, s) != LOOM_OK) gputest::fail("ScratchTensor::make failed");
    CUDA_CHECK(cudaStreamSynchronize(s));
    const loom_tensor& c = sc.tensor();
    if (c.data == t.data) gputest::fail("the scratch copy is the original");
    if (reinterpret_cast<uintptr_t>(c.data) % 256 != reinterpret_cast<uintptr_t>(t.data) % 256)
      gputest::fail("the scratch base is at %zu mod 256, the original at %zu", reinterpret_cast<uintptr_t>(c.data) % 256,
                    reinterpret_cast<uintptr_t>(t.data) % 256);
    for (int d = 0; d < 2; ++d)
      if (c.shape[d] != t.shape[d] || c.stride[d] != t.stride[d] || c.rank != t.rank || c.dtype != t.dtype)
        gputest::fail("the scratch descriptor differs from the original's");
    // Its contents: every element up to the last one (rows - 1) * ld + cols - 1.
    const size_t n = static_cast<size_t>((rows - 1) * ld + cols);
    std::vector<uint16_t> back(n);
    CUDA_CHECK(cudaMemcpy(back.data(), c.data, n * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
      if (back[i] != host[i]) gputest::fail("scratch element %zu is %u, the original's %u", i, back[i], host[i]);
  }
  for (int which = 0; which < 2; ++which) {
    loom_tensor bad = t;
    if (which == 0) bad.data = nullptr;
    else bad.shape[0] = 0;
    loom::host::ScratchTensor sc;
    if (sc.make(bad, true, s) != LOOM_OK || sc.tensor().data != bad.data)
      gputest::fail("a %s descriptor was not kept as it is", which == 0 ? "NULL" : "empty");
  }

  // 3. Keys.
  loom::host::TuneTable table;
  if (!table.empty() || table.find(loom::host::TuneKey()) != -1) gputest::fail("a new table is not empty");
  auto key_of = [](const loom_tensor& x) {
    loom::host::TuneKey k;
    k.add(x);
    return k;
  };
  table.put(key_of(t), 5);
  loom_tensor other_ld = loom_tensor_2d(data, LOOM_BF16, rows, cols, ld + 8);
  loom_tensor off16 = loom_tensor_2d(base + 50, LOOM_BF16, rows, cols, ld);
  if (table.empty() || table.find(key_of(t)) != 5) gputest::fail("the remembered mapping is not found");
  if (table.find(key_of(other_ld)) != -1) gputest::fail("another row stride found the same key");
  if (table.find(key_of(off16)) != -1) gputest::fail("a base off 16 bytes found the same key");
  CUDA_CHECK(cudaStreamDestroy(s));
  std::printf("measured_choice, ScratchTensor and TuneTable behave; a 40 us spin timed at %.4f ms\n", t40);
  return gputest::pass();
}

// loom/tune.h: the measured choice of a mapping, for a program with several (docs/artifact.md,
// "Tuning"). loom_<entry>_tune(...) times the mappings the cost model ranks near its own pick on
// the caller's arguments and remembers the fastest for calls like it (the same device, extents,
// strides and base alignment: the key); loom_<entry>() and loom_<entry>_pick() then use it. With
// LOOM_TUNE=1 in the environment, loom_<entry>() tunes itself on the first call of each key.
//
// What tuning touches: the read tensors are the caller's; every written tensor is replaced by a
// scratch copy (same extents and strides, its base at the same offset modulo 256 bytes, so the
// launcher takes the same path, and for an `rw` tensor the caller's contents), so an output that
// aliases an input, or a reduction into an output, sees exactly one launch: the caller's own.
// Tuning synchronizes the stream; on a stream that is being captured into a CUDA graph it
// measures nothing (the model's pick stays; LOOM_TUNE retries on the next call).
// Tested by tests/gpu/tune_test.cu (the choice, scratch copies, keys), tests/gpu/gemm_correctness.cu
// (tuning leaves the caller's output untouched; the tuned call is right) and the nvcc compile of
// every example in CI.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include <cuda_runtime.h>

#include "loom/abi.h"

namespace loom::host {

// Mappings whose estimate is within this factor of the model's pick are timed.
constexpr double kTuneSpread = 1.5;
// A measured mapping replaces the model's pick only when it is faster by more than this fraction:
// closer than that, two mappings are within the measurement's noise (run-to-run and the GPU's
// power state: bench/results/2026-12-03-h200-tune.md), and the model's rank stands.
constexpr double kTuneMargin = 0.03;
// Each candidate runs this long untimed before its timed batches, so that it is timed in the power
// state it keeps the GPU in, not the one the previous candidate left (a kernel timed right after a
// lighter one ran up to 15% faster on an H200).
constexpr double kTuneSettleMs = 20.0;

// Whether LOOM_TUNE=1 asks loom_<entry>() to tune on the first call of each key (read once).
inline bool tune_from_env() {
  static const bool on = [] {
    const char* v = std::getenv("LOOM_TUNE");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return on;
}

// The key of a call: the device, then per tensor its rank, extents, strides and whether its base
// is 16-byte aligned (TMA or the async-copy variant).
class TuneKey {
 public:
  TuneKey() {
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
    v_.push_back(device);
  }
  void add(const loom_tensor& t) {
    v_.push_back(t.rank);
    for (int d = 0; d < t.rank && d < LOOM_MAX_RANK; ++d) {
      v_.push_back(t.shape[d]);
      v_.push_back(t.stride[d]);
    }
    v_.push_back(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.data) % 16 == 0));
  }
  const std::vector<int64_t>& values() const { return v_; }

 private:
  std::vector<int64_t> v_;
};

// key -> the mapping measured fastest; one per generated entry, shared by all threads.
class TuneTable {
 public:
  // Whether nothing was tuned yet (the dispatcher's fast path).
  bool empty() const { return !any_.load(std::memory_order_acquire); }
  // The remembered mapping, or -1.
  int find(const TuneKey& k) const {
    if (!any_.load(std::memory_order_acquire)) return -1;
    std::lock_guard<std::mutex> lock(m_);
    auto it = t_.find(k.values());
    return it == t_.end() ? -1 : it->second;
  }
  void put(const TuneKey& k, int mapping) {
    std::lock_guard<std::mutex> lock(m_);
    t_[k.values()] = mapping;
    any_.store(true, std::memory_order_release);
  }

 private:
  mutable std::mutex m_;
  std::map<std::vector<int64_t>, int> t_;
  std::atomic<bool> any_{false};
};

// Whether work on `stream` is being captured into a graph (no synchronization allowed then).
inline bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &st) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;  // cannot tell: do not synchronize
  }
  return st != cudaStreamCaptureStatusNone;
}

// A device copy of a written tensor for timing: the same extents and strides, its base at the same
// offset modulo 256 bytes as the original's; `copy` fills it with the original's contents.
class ScratchTensor {
 public:
  ScratchTensor() = default;
  ScratchTensor(const ScratchTensor&) = delete;
  ScratchTensor& operator=(const ScratchTensor&) = delete;
  ~ScratchTensor() {
    if (raw_ != nullptr) (void)cudaFree(raw_);
  }
  // LOOM_OK, or LOOM_ERR_LAUNCH when the memory cannot be had. A descriptor every launcher refuses
  // (NULL data, a rank out of range, an extent below 1, a stride below 1) or an empty one is kept as
  // it is: no launch writes through it, and the launch reports what is wrong.
  int make(const loom_tensor& of, bool copy, cudaStream_t stream) {
    t_ = of;
    if (of.data == nullptr || of.rank < 1 || of.rank > LOOM_MAX_RANK) return LOOM_OK;
    size_t elems = 1;  // the elements from the base to the last one, plus one
    for (int d = 0; d < of.rank; ++d) {
      if (of.shape[d] < 1 || of.stride[d] < 1) return LOOM_OK;
      elems += static_cast<size_t>(of.shape[d] - 1) * static_cast<size_t>(of.stride[d]);
    }
    const size_t bytes = elems * static_cast<size_t>(loom_dtype_size(of.dtype));
    const size_t offset = reinterpret_cast<uintptr_t>(of.data) % 256;
    if (cudaMalloc(&raw_, bytes + offset) != cudaSuccess) {
      (void)cudaGetLastError();
      raw_ = nullptr;
      return LOOM_ERR_LAUNCH;
    }
    t_.data = static_cast<char*>(raw_) + offset;
    if (copy && cudaMemcpyAsync(t_.data, of.data, bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return LOOM_ERR_LAUNCH;
    }
    return LOOM_OK;
  }
  const loom_tensor& tensor() const { return t_; }

 private:
  void* raw_ = nullptr;
  loom_tensor t_{};
};

// Milliseconds per launch of `launch` (returns a loom status) on `stream`: one launch to warm up
// and to size the batches, kTuneSettleMs of untimed launches, then the best of two batches of at
// least ~1 ms. -1 when a launch fails (that mapping cannot run the call: it is left out) or the
// events do.
template <class Launch>
float time_launch_ms(Launch&& launch, cudaStream_t stream) {
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    (void)cudaGetLastError();
    if (e0) (void)cudaEventDestroy(e0);
    return -1;
  }
  float best = -1;
  int reps = 1, settle = 0;
  for (int round = 0; round < 3; ++round) {  // round 0 warms up and sizes the batches
    bool ok = true;
    for (int r = 0; ok && r < settle; ++r) ok = launch() == LOOM_OK;
    settle = 0;
    ok = ok && cudaEventRecord(e0, stream) == cudaSuccess;
    for (int r = 0; ok && r < reps; ++r) ok = launch() == LOOM_OK;
    ok = ok && cudaEventRecord(e1, stream) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess;
    float ms = 0;
    ok = ok && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess;
    if (!ok) {
      (void)cudaGetLastError();
      best = -1;
      break;
    }
    const float per = ms / static_cast<float>(reps);
    if (round == 0) {
      reps = std::clamp(static_cast<int>(1.0f / std::max(per, 1e-3f)), 3, 200);
      settle = std::clamp(static_cast<int>(static_cast<float>(kTuneSettleMs) / std::max(per, 1e-3f)), 1, 2000);
    } else
      best = best < 0 ? per : std::min(best, per);
  }
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  return best;
}

// The measured choice among `candidates` (mapping indices; `rule` is the model's pick, among them):
// each timed twice, in order and then in reverse (so that no candidate always follows the same
// one), its best time kept; the fastest, unless the rule's pick is within kTuneMargin of it. -1
// when no candidate ran; `failed` then holds the first failing status. `launch(i)` launches mapping
// i on the tuning arguments and returns its status.
template <class LaunchMapping>
int measured_choice(const std::vector<int>& candidates, int rule, LaunchMapping&& launch, cudaStream_t stream, int* failed) {
  const size_t n = candidates.size();
  std::vector<float> ms(n, -1.0f);
  *failed = LOOM_OK;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t k = 0; k < n; ++k) {
      const size_t j = pass == 0 ? k : n - 1 - k;
      if (pass == 1 && ms[j] < 0) continue;  // it could not run the call
      int status = LOOM_OK;
      const float t = time_launch_ms([&] { return status = launch(candidates[j]); }, stream);
      if (t < 0) {
        if (*failed == LOOM_OK) *failed = status != LOOM_OK ? status : LOOM_ERR_LAUNCH;
        if (pass == 1) ms[j] = -1.0f;
        continue;
      }
      ms[j] = ms[j] < 0 ? t : std::min(ms[j], t);
    }
  int best = -1;
  float rule_ms = -1.0f;
  for (size_t j = 0; j < n; ++j) {
    if (ms[j] < 0) continue;
    if (candidates[j] == rule) rule_ms = ms[j];
    if (best < 0 || ms[j] < ms[static_cast<size_t>(best)]) best = static_cast<int>(j);
  }
  if (best < 0) return -1;
  if (rule_ms >= 0 && rule_ms <= ms[static_cast<size_t>(best)] * (1.0 + kTuneMargin)) return rule;
  return candidates[static_cast<size_t>(best)];
}

}  // namespace loom::host

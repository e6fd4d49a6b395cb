// loom/streamk.h: the host side of a mapping's `streamk` (src/codegen/streamk.cpp): how a call's
// tiles and K iterations are shared between persistent blocks, and the global workspace in which
// a block hands a cut tile's partial sums to the block that finishes it.
//
// Workspace: one per (device, stream), grown on demand, allocated and freed in stream order
// (cudaMallocAsync / cudaFreeAsync), so no call synchronizes and a call on another stream never
// shares it. Each launch gets a new epoch; a flag is "set" when it holds the launch's epoch, so the
// flags are cleared once, when allocated. Concurrent calls from several host threads are safe
// (a mutex guards the table). A call inside CUDA graph capture must not be the stream's first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <cuda_runtime.h>

#include "loom/streamk_plan.h"

namespace loom::host {

// The workspace of (device, stream), at least `bytes` of partial sums and `flags` flags.
struct StreamKWorkspace {
  void* partials = nullptr;
  std::uint32_t* flags = nullptr;
  std::uint32_t epoch = 0;
};
inline cudaError_t streamk_workspace(int device, cudaStream_t stream, std::size_t bytes, std::size_t flags, StreamKWorkspace* out) {
  struct Entry {
    int device;
    cudaStream_t stream;
    void* partials;
    std::size_t bytes;
    std::uint32_t* flags;
    std::size_t nflags;
    std::uint32_t epoch;
  };
  static std::mutex mu;
  static std::vector<Entry> table;
  std::lock_guard<std::mutex> lock(mu);
  Entry* e = nullptr;
  for (Entry& t : table)
    if (t.device == device && t.stream == stream) e = &t;
  if (!e) {
    table.push_back(Entry{device, stream, nullptr, 0, nullptr, 0, 0});
    e = &table.back();
  }
  if (e->bytes < bytes) {
    if (e->partials) cudaFreeAsync(e->partials, stream);
    e->partials = nullptr;
    e->bytes = 0;
    cudaError_t st = cudaMallocAsync(&e->partials, bytes, stream);
    if (st != cudaSuccess) return st;
    e->bytes = bytes;
  }
  if (e->nflags < flags) {
    if (e->flags) cudaFreeAsync(e->flags, stream);
    e->flags = nullptr;
    e->nflags = 0;
    void* f = nullptr;
    cudaError_t st = cudaMallocAsync(&f, flags * sizeof(std::uint32_t), stream);
    if (st != cudaSuccess) return st;
    st = cudaMemsetAsync(f, 0, flags * sizeof(std::uint32_t), stream);  // epoch 0 is never a launch's
    if (st != cudaSuccess) return st;
    e->flags = static_cast<std::uint32_t*>(f);
    e->nflags = flags;
  }
  if (++e->epoch == 0) e->epoch = 1;
  out->partials = e->partials;
  out->flags = e->flags;
  out->epoch = e->epoch;
  return cudaSuccess;
}

}  // namespace loom::host

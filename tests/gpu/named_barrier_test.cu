// named_barrier_test: named_barrier_sync / named_barrier_arrive, as generated producer/consumer
// code uses them. 256 threads form two independent groups of 4 warps; in each, warps 0-1 produce a
// 64-word slot and bar.arrive on "full", warps 2-3 bar.sync on "full", check the words (each one
// written by another thread), and bar.arrive on "empty", which the producers bar.sync on before
// the next write. Group 0 uses ids 1/2, group 1 ids 3/4, concurrently; then each group syncs its
// own warpgroup (ids 5/6) and the block meets at __syncthreads (id 0). A barrier that did not
// block would let a consumer read a stale or a future value.
#include "gpu_test.cuh"
#include "loom/runtime.cuh"

using namespace loom::rt;
using gputest::fail;

namespace {

__host__ __device__ unsigned slot_value(int iter, int group, int word, unsigned salt) {
  return (static_cast<unsigned>(iter) * 2246822519u) ^ (static_cast<unsigned>(word) * 3266489917u) ^
         (static_cast<unsigned>(group) << 31) ^ salt;
}

struct Errors {
  unsigned count;
  int iter, group, word;
  unsigned got, want;
};

__global__ void named_barrier_kernel(int iters, unsigned salt, Errors* errors, unsigned* done) {
  __shared__ unsigned slots[2][64];
  const int warp = warp_id();
  const int group = warp / 4;
  const bool producer = (warp % 4) < 2;
  const std::uint32_t full = group == 0 ? 1 : 3;
  const std::uint32_t empty = group == 0 ? 2 : 4;
  unsigned* slot = slots[group];
  const int word = static_cast<int>(threadIdx.x % 64);
  if (producer) {
    for (int it = 0; it < iters; ++it) {
      if (it > 0) named_barrier_sync(empty, 128);  // consumers are done with the slot
      slot[word] = slot_value(it, group, word, salt);
      named_barrier_arrive(full, 128);
    }
    named_barrier_sync(empty, 128);  // matches the consumers' last arrival
  } else {
    const int other = (word + 17) % 64;  // written by a thread of the other producer warp
    for (int it = 0; it < iters; ++it) {
      named_barrier_sync(full, 128);
      const unsigned got = slot[other];
      const unsigned want = slot_value(it, group, other, salt);
      if (got != want && atomicAdd(&errors->count, 1u) == 0) {
        errors->iter = it;
        errors->group = group;
        errors->word = other;
        errors->got = got;
        errors->want = want;
      }
      named_barrier_arrive(empty, 128);
    }
  }
  named_barrier_sync(5 + group, 128);  // this group's warpgroup
  __syncthreads();
  if (threadIdx.x == 0) *done = 1;
}

}  // namespace

int main() {
  gputest::begin("named_barrier_test");
  const int iters = gputest::quick_mode() ? 200 : 20000;
  const unsigned salt = static_cast<unsigned>(gputest::seed());
  gputest::DeviceBuffer<Errors> errors(1);
  gputest::DeviceBuffer<unsigned> done(1);
  errors.poison(0);
  done.poison(0);
  named_barrier_kernel<<<1, 256>>>(iters, salt, errors.ptr, done.ptr);
  LAUNCH_CHECK();
  const Errors e = errors.download()[0];
  if (e.count != 0)
    fail("first bad element: %u stale reads; first at iteration %d, group %d, word %d: got %08x, "
         "want %08x",
         e.count, e.iter, e.group, e.word, e.got, e.want);
  if (done.download()[0] != 1) fail("the block did not reach its end");
  std::printf("  2 groups x %d handoffs over ids 1-4, warpgroup ids 5-6: ok\n", iters);
  return gputest::pass();
}

// NOTE (first H100 run): racecheck reported a read/write hazard on slot[] in ring_kernel (consumer
// read vs. the producer's next write). The consumers released a slot with __syncwarp() and ONE
// lane's mbarrier arrive; racecheck does not carry the other lanes' reads through that arrive (an
// mbarrier arrive releases only the caller's accesses, HOPPER-FACTS section 5). Every consumer
// thread now arrives on "empty" itself (count 64), the pattern that needs no cumulativity argument.
// mbarrier_test: the mbarrier atoms and the PipeState phase convention.
//  1. parity semantics on one thread: try_wait on fresh / completed / pending phases, counts > 1.
//  2. a ring of 4 stages, one producer warp and two consumer warps, generic stores, thousands of
//     phase flips: every value a consumer reads must be the one produced for that iteration.
//  3. a ring of 3 stages fed by TMA (arrive_expect_tx, and expect_tx + arrive on alternate
//     iterations), a box partly out of bounds, checked element by element by 4 consumer warps.
#include "gpu_test.cuh"
#include "loom/host.h"
#include "loom/runtime.cuh"

using namespace loom::rt;
using gputest::fail;

namespace {

// ---- 1. parity semantics ----------------------------------------------------------------------

constexpr int kParityProbes = 10;
// What each probe below must return.
constexpr int kParityExpected[kParityProbes] = {0, 1, 1, 0, 0, 1, 0, 0, 1, 0};

__global__ void parity_kernel(int* out) {
  __shared__ std::uint64_t one;    // count 1
  __shared__ std::uint64_t three;  // count 3
  if (threadIdx.x != 0) return;
  mbarrier::init(&one, 1);
  mbarrier::init(&three, 3);
  fence_barrier_init();
  int k = 0;
  out[k++] = mbarrier::try_wait(&one, 0);  // phase 0 pending: false
  out[k++] = mbarrier::try_wait(&one, 1);  // the phase "before" 0 counts as complete: true
  mbarrier::arrive(&one);                  // completes phase 0
  out[k++] = mbarrier::try_wait(&one, 0);  // true
  out[k++] = mbarrier::try_wait(&one, 1);  // phase 1 pending: false
  mbarrier::arrive(&one);                  // completes phase 1; phase 2 (parity 0) pending
  out[k++] = mbarrier::try_wait(&one, 0);  // false
  out[k++] = mbarrier::try_wait(&one, 1);  // true
  mbarrier::arrive(&three);
  mbarrier::arrive(&three);
  out[k++] = mbarrier::try_wait(&three, 0);  // 2 of 3 arrivals: false
  mbarrier::expect_tx(&three, 0);            // no transaction bytes: changes nothing
  out[k++] = mbarrier::try_wait(&three, 0);  // still false
  mbarrier::arrive(&three);
  out[k++] = mbarrier::try_wait(&three, 0);  // true
  out[k++] = mbarrier::try_wait(&three, 1);  // phase 1 pending: false
  mbarrier::inval(&one);
  mbarrier::inval(&three);
}

// ---- 2. generic producer/consumer ring --------------------------------------------------------

constexpr int kStages = 4;

__host__ __device__ unsigned ring_value(int iter, int lane, unsigned salt) {
  return (static_cast<unsigned>(iter) * 2654435761u) ^ (static_cast<unsigned>(lane) * 40503u) ^
         salt;
}

struct Errors {
  unsigned count;
  int iter, warp, lane;
  unsigned got, want;
};

__device__ void record(Errors* e, int iter, int warp, int lane, unsigned got, unsigned want) {
  if (atomicAdd(&e->count, 1u) == 0) {
    e->iter = iter;
    e->warp = warp;
    e->lane = lane;
    e->got = got;
    e->want = want;
  }
}

// Warp 0 produces one value per lane per iteration; warps 1 and 2 consume every slot.
__global__ void ring_kernel(int iters, unsigned salt, Errors* errors,
                            unsigned long long* sums) {
  __shared__ std::uint64_t full[kStages];
  __shared__ std::uint64_t empty[kStages];
  __shared__ unsigned slot[kStages][32];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier::init(&full[s], 32);  // every producer lane arrives after its own store
      mbarrier::init(&empty[s], 64);  // one arrival per consumer thread (2 warps x 32)
    }
    fence_barrier_init();
  }
  __syncthreads();
  const int warp = warp_id();
  const int lane = lane_id();
  if (warp == 0) {
    auto st = PipeState<kStages>::producer_start();
    for (int it = 0; it < iters; ++it) {
      mbarrier::wait(&empty[st.stage], st.phase);
      slot[st.stage][lane] = ring_value(it, lane, salt);
      mbarrier::arrive(&full[st.stage]);
      st.advance();
    }
  } else {
    auto st = PipeState<kStages>::consumer_start();
    unsigned long long sum = 0;
    for (int it = 0; it < iters; ++it) {
      mbarrier::wait(&full[st.stage], st.phase);
      const unsigned v = slot[st.stage][lane];
      const unsigned want = ring_value(it, lane, salt);
      if (v != want) record(errors, it, warp, lane, v, want);
      sum += v;
      mbarrier::arrive(&empty[st.stage]);  // each reader releases its own read
      st.advance();
    }
    sums[(warp - 1) * 32 + lane] = sum;
  }
}

// ---- 3. TMA-fed ring --------------------------------------------------------------------------

constexpr int kTmaStages = 3;
constexpr int kTile = 64;                          // 64 x 64 bf16, 128B swizzle
constexpr std::uint32_t kTileBytes = kTile * kTile * 2;
constexpr int kConsumerWarps = 4;

__global__ void tma_ring_kernel(const __grid_constant__ CUtensorMap tm, const std::uint16_t* g,
                                int rows, int ntiles, int iters, Errors* errors) {
  extern __shared__ std::uint8_t raw[];
  __shared__ std::uint64_t full[kTmaStages];
  __shared__ std::uint64_t empty[kTmaStages];
  std::uint8_t* base = raw + ((1024 - (smem_u32(raw) & 1023)) & 1023);  // 1024-aligned stages
  if (threadIdx.x == 0) {
    for (int s = 0; s < kTmaStages; ++s) {
      mbarrier::init(&full[s], 1);
      mbarrier::init(&empty[s], kConsumerWarps);
    }
    fence_barrier_init();
  }
  __syncthreads();
  const int warp = warp_id();
  if (warp == 0) {
    prefetch_tensormap(&tm);
    if (elect_one_sync()) {
      auto st = PipeState<kTmaStages>::producer_start();
      for (int it = 0; it < iters; ++it) {
        mbarrier::wait(&empty[st.stage], st.phase);
        std::uint8_t* dst = base + st.stage * kTileBytes;
        const int tile = it % ntiles;
        if (it % 2 == 0) {
          mbarrier::arrive_expect_tx(&full[st.stage], kTileBytes);
          tma_load_2d(dst, &tm, &full[st.stage], 0, tile * kTile);
        } else {
          mbarrier::expect_tx(&full[st.stage], kTileBytes);
          tma_load_2d(dst, &tm, &full[st.stage], 0, tile * kTile);
          mbarrier::arrive(&full[st.stage]);
        }
        st.advance();
      }
    }
  } else {
    const int t = static_cast<int>(threadIdx.x) - 32;
    auto st = PipeState<kTmaStages>::consumer_start();
    for (int it = 0; it < iters; ++it) {
      mbarrier::wait(&full[st.stage], st.phase);
      const std::uint8_t* src = base + st.stage * kTileBytes;
      const int tile = it % ntiles;
      for (int e = t; e < kTile * kTile; e += kConsumerWarps * 32) {
        const int r = e / kTile, c = e % kTile;
        const std::uint32_t off = loom::swizzle_offset(Swizzle::B128, (r * kTile + c) * 2);
        const unsigned got = *reinterpret_cast<const std::uint16_t*>(src + off);
        const int grow = tile * kTile + r;
        const unsigned want = grow < rows ? g[grow * kTile + c] : 0u;
        if (got != want) record(errors, it, r, c, got, want);
      }
      fence_proxy_async_shared();  // generic reads before the TMA refill of this stage (F8.5)
      __syncwarp();
      if (lane_id() == 0) mbarrier::arrive(&empty[st.stage]);
      st.advance();
    }
  }
}

void test_parity() {
  gputest::DeviceBuffer<int> out(kParityProbes);
  out.poison();
  parity_kernel<<<1, 32>>>(out.ptr);
  LAUNCH_CHECK();
  const std::vector<int> got = out.download();
  for (int i = 0; i < kParityProbes; ++i) {
    if (got[i] != kParityExpected[i])
      fail("parity probe %d: try_wait returned %d, want %d", i, got[i], kParityExpected[i]);
  }
  std::printf("  parity semantics: ok\n");
}

void test_ring(int iters) {
  const unsigned salt = static_cast<unsigned>(gputest::seed());
  gputest::DeviceBuffer<Errors> errors(1);
  gputest::DeviceBuffer<unsigned long long> sums(64);
  errors.poison(0);
  sums.poison();
  ring_kernel<<<1, 96>>>(iters, salt, errors.ptr, sums.ptr);
  LAUNCH_CHECK();
  const Errors e = errors.download()[0];
  if (e.count != 0)
    fail("generic ring: %u bad reads; first at iteration %d, warp %d, lane %d: got %08x want %08x",
         e.count, e.iter, e.warp, e.lane, e.got, e.want);
  const std::vector<unsigned long long> got = sums.download();
  for (int w = 0; w < 2; ++w) {
    for (int lane = 0; lane < 32; ++lane) {
      unsigned long long want = 0;
      for (int it = 0; it < iters; ++it) want += ring_value(it, lane, salt);
      if (got[w * 32 + lane] != want)
        fail("generic ring: consumer warp %d lane %d sum %llu, want %llu", w + 1, lane,
             got[w * 32 + lane], want);
    }
  }
  std::printf("  generic ring (%d stages, %d iterations): ok\n", kStages, iters);
}

void test_tma_ring(int iters) {
  gputest::Rng rng(gputest::seed() ^ 0x7A);
  const int ntiles = 12;
  const int rows = ntiles * kTile - 13;  // the last tile is partly out of bounds
  std::vector<std::uint16_t> host(static_cast<std::size_t>(rows) * kTile);
  for (auto& v : host) v = static_cast<std::uint16_t>(1 + rng.below(0xFFFE));  // never 0
  gputest::DeviceBuffer<std::uint16_t> g(host.size());
  g.upload(host);
  CUtensorMap tm;
  const int status = loom::host::encode_tensor_map_2d(&tm, loom::host::TmaDtype::BF16, g.ptr, rows,
                                                      kTile, kTile * 2, kTile, kTile,
                                                      loom::Swizzle::B128);
  if (status != loom::host::kTensorMapOk)
    fail("encode_tensor_map_2d: %s", loom::host::describe_tensor_map_status(status));
  gputest::DeviceBuffer<Errors> errors(1);
  errors.poison(0);
  const int smem = kTmaStages * kTileBytes + 1024;
  CUDA_CHECK(cudaFuncSetAttribute(tma_ring_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  smem));
  tma_ring_kernel<<<1, 32 + kConsumerWarps * 32, smem>>>(tm, g.ptr, rows, ntiles, iters,
                                                        errors.ptr);
  LAUNCH_CHECK();
  const Errors e = errors.download()[0];
  if (e.count != 0)
    fail("TMA ring: %u bad elements; first at iteration %d, tile row %d, col %d: got %04x want "
         "%04x",
         e.count, e.iter, e.warp, e.lane, e.got, e.want);
  std::printf("  TMA ring (%d stages, %d iterations, OOB tail): ok\n", kTmaStages, iters);
}

}  // namespace

int main() {
  gputest::begin("mbarrier_test");
  const bool quick = gputest::quick_mode();
  test_parity();
  test_ring(quick ? 64 : 5000);
  test_tma_ring(quick ? 24 : 600);
  return gputest::pass();
}

// cluster_test: the thread-block cluster atoms of runtime/loom/cluster.cuh, as splitk(S) uses them
// (src/codegen/splitk.cpp). A grid of clusters of 4 blocks (cudaLaunchKernelEx with a cluster
// dimension):
//  1. cluster_rank / cluster_id_x / cluster_count_x agree with blockIdx.x for a 1-D cluster;
//  2. cluster_sync orders each block's shared-memory writes before its peers' reads through
//     peer_smem + ld_peer_f32x4 (each block reads the next rank's buffer);
//  3. a hand-over ring over many iterations: block r writes its buffer, every thread arrives on
//     block r+1's `ready` barrier (arrive_peer, release at cluster scope); block r+1 waits
//     (wait_cluster, acquire), reads r's buffer remotely, checks it, and arrives on r's `free`
//     barrier, which r waits for before it writes the next iteration's values.
#include "gpu_test.cuh"
#include "loom/runtime.cuh"

using namespace loom::rt;
using gputest::fail;

namespace {

constexpr int kCluster = 4;
constexpr int kThreads = 128;

__host__ __device__ float value(int cluster, int rank, int iter, int i) {
  return static_cast<float>((cluster * 131 + rank * 17 + iter * 7 + i) % 1000) * 0.5f;
}

__global__ void cluster_kernel(int iters, int* ids, int* errors) {
  __shared__ __align__(16) float buf[kThreads * 4];
  __shared__ std::uint64_t ready, freed;
  const int t = threadIdx.x;
  const int rank = static_cast<int>(cluster_rank());
  const int cid = static_cast<int>(cluster_id_x());
  if (t == 0) {
    ids[3 * blockIdx.x] = rank;
    ids[3 * blockIdx.x + 1] = cid;
    ids[3 * blockIdx.x + 2] = static_cast<int>(cluster_count_x());
    mbarrier::init(&ready, kThreads);
    mbarrier::init(&freed, kThreads);
    fence_barrier_init();
  }
  // 2. Plain DSMEM reads after a cluster barrier.
  for (int i = 0; i < 4; ++i) buf[4 * t + i] = value(cid, rank, -1, 4 * t + i);
  cluster_sync();
  const int next = (rank + 1) % kCluster, prev = (rank + kCluster - 1) % kCluster;
  {
    const float4 v = ld_peer_f32x4(peer_smem(&buf[4 * t], static_cast<std::uint32_t>(next)));
    const float want[4] = {value(cid, next, -1, 4 * t), value(cid, next, -1, 4 * t + 1), value(cid, next, -1, 4 * t + 2),
                           value(cid, next, -1, 4 * t + 3)};
    if (v.x != want[0] || v.y != want[1] || v.z != want[2] || v.w != want[3]) atomicAdd(&errors[0], 1);
  }
  cluster_sync();  // every block has read before anyone rewrites its buffer
  // 3. The hand-over ring: this block writes for `next` to read, and reads what `prev` wrote.
  for (int it = 0; it < iters; ++it) {
    if (it > 0) mbarrier::wait_cluster(&freed, (it - 1) & 1);  // `next` has read iteration it - 1
    for (int i = 0; i < 4; ++i) buf[4 * t + i] = value(cid, rank, it, 4 * t + i);
    mbarrier::arrive_peer(&ready, static_cast<std::uint32_t>(next));
    mbarrier::wait_cluster(&ready, it & 1);  // `prev` has written iteration it
    const float4 v = ld_peer_f32x4(peer_smem(&buf[4 * t], static_cast<std::uint32_t>(prev)));
    if (v.x != value(cid, prev, it, 4 * t) || v.y != value(cid, prev, it, 4 * t + 1) || v.z != value(cid, prev, it, 4 * t + 2) ||
        v.w != value(cid, prev, it, 4 * t + 3))
      atomicAdd(&errors[1], 1);
    mbarrier::arrive_peer(&freed, static_cast<std::uint32_t>(prev));
  }
  if (iters > 0) mbarrier::wait_cluster(&freed, (iters - 1) & 1);
  cluster_sync();  // no block leaves while a peer may still read its shared memory
}

}  // namespace

int main() {
  gputest::begin("cluster_test");
  const int clusters = 8, blocks = clusters * kCluster;
  const int iters = gputest::quick_mode() ? 8 : 2000;
  int* ids = nullptr;
  int* errors = nullptr;
  CUDA_CHECK(cudaMalloc(&ids, sizeof(int) * 3 * blocks));
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int) * 2));
  CUDA_CHECK(cudaMemset(ids, 0xFF, sizeof(int) * 3 * blocks));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int) * 2));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(kThreads);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kCluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, cluster_kernel, iters, ids, errors));
  LAUNCH_CHECK();
  std::vector<int> h(3 * blocks), e(2);
  CUDA_CHECK(cudaMemcpy(h.data(), ids, sizeof(int) * h.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(e.data(), errors, sizeof(int) * 2, cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b)
    if (h[3 * b] != b % kCluster || h[3 * b + 1] != b / kCluster || h[3 * b + 2] != clusters)
      fail("block %d: cluster rank %d, id %d, count %d (want %d, %d, %d)", b, h[3 * b], h[3 * b + 1], h[3 * b + 2],
           b % kCluster, b / kCluster, clusters);
  if (e[0]) fail("%d threads read a wrong value from a peer's shared memory after cluster_sync", e[0]);
  if (e[1]) fail("%d reads of a peer's buffer in the hand-over ring saw another iteration's values", e[1]);
  CUDA_CHECK(cudaFree(ids));
  CUDA_CHECK(cudaFree(errors));
  return gputest::pass();
}

// loom/machine.h — machine models as data (Cypress section 3.1, Fig. 2).
//
// A machine is a list of processor levels from the host down to a thread, the memories and which
// levels can see them, resource limits, and the tensor-core / TMA instruction shapes that the `mma`
// partition operator and later the back end need. Passes ask the model; they never hard-code a
// number. Models: Hopper (sm_90a) and Ampere (sm_80). Test: tests/unit/machine_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom {

enum class ProcKind { Host, Cluster, Block, Warpgroup, Warp, Thread };
enum class MemKind { None, Global, Shared, Register };
enum class DType { F16, BF16, F32, I32 };

const char* proc_name(ProcKind p);  // "HOST", "BLOCK", ...
const char* mem_name(MemKind m);    // "GLOBAL", ..., "NONE"
const char* dtype_name(DType t);    // "f16", "bf16", "f32", "i32"
std::optional<ProcKind> parse_proc(const std::string& s);
std::optional<MemKind> parse_mem(const std::string& s);
std::optional<DType> parse_dtype(const std::string& s);
int dtype_bytes(DType t);
bool is_float(DType t);

struct ProcLevel {
  ProcKind kind;
  // How many of this level one processor of the parent level holds. 0 = chosen at launch (grid).
  // For BLOCK -> WARPGROUP this is the maximum (the number of consumer warpgroups is a mapping choice).
  int per_parent = 0;
  bool fixed_count = true;  // per_parent is exact (4 warps per warpgroup, 32 threads per warp)
  int threads = 0;          // threads in one processor of this level; 0 for HOST / unbounded
  bool device = true;       // runs device code (false for HOST)
};

struct MemorySpace {
  MemKind kind;
  std::vector<ProcKind> visible_from;  // processor levels that may hold a tensor in this memory
  int64_t capacity_bytes = 0;          // per instance of the owning processor; 0 = unbounded here
};

// A tensor-core instruction family, e.g. Hopper wgmma m64nNk16 or Ampere mma.sync m16n8k16.
struct MmaInstr {
  std::string name;     // "wgmma" | "mma_sync"
  ProcKind issued_by;   // WARPGROUP for wgmma, WARP for mma.sync
  int m = 0;            // fixed M
  int n_min = 0, n_max = 0, n_step = 0;  // legal N values: n_min..n_max step n_step
  int k = 0;            // K for 16-bit inputs
  std::vector<DType> input_types;        // A and B (same type)
  std::vector<DType> accumulator_types;  // C
  bool a_from_shared = false;            // A may be read from shared memory (wgmma)
  bool legal_n(int64_t n) const { return n >= n_min && n <= n_max && (n - n_min) % n_step == 0; }
};

// The TMA (bulk tensor copy) limits that a global -> shared copy must respect.
struct TmaLimits {
  bool available = false;
  int max_rank = 5;
  int max_box_extent = 256;     // elements per box dimension
  int global_align_bytes = 16;  // base address alignment
  int stride_align_bytes = 16;  // every stride but the innermost
};

struct Limits {
  int64_t smem_per_block = 0;   // bytes (opt-in maximum)
  int regs_per_thread = 0;
  int64_t regs_per_sm = 0;      // 32-bit registers
  int max_threads_per_block = 0;
  int sm_count = 0;
  // Per-warpgroup register reallocation (Hopper `setmaxnreg`, used by warp specialization): the
  // legal per-thread counts are setmaxnreg_min..setmaxnreg_max in steps of setmaxnreg_step;
  // all 0 = not available.
  int setmaxnreg_min = 0, setmaxnreg_max = 0, setmaxnreg_step = 0;
  // Blocks in a portable thread-block cluster (Hopper: 8, CUDA guide); 0 = no clusters. The
  // mapping's splitk(S) runs a tile on a cluster of S blocks.
  int64_t cluster_blocks = 0;
  // Registers a compute thread holds beyond the values a schedule models (addresses, loop state,
  // wgmma descriptors, barrier phases): schedule(optimal)'s teams count them against the budget.
  int unmodeled_regs = 0;
};

// A coarse per-multiprocessor cost model, for the launcher's choice between `when(fastest)` mappings
// (src/codegen/estimate.cpp, docs/mapping.md "Chosen by the cost model"). Rates per SM and cycle:
// tensor-core multiply-adds with 16-bit inputs (dense), and bytes TMA moves from L2 into shared
// memory while every SM loads (a sustained rate, not the peak of one SM); plus a fixed cost per
// output tile (pipeline fill and drain). All 0: no cost model (when(fastest) is refused).
struct CostModel {
  int64_t mma_fma_per_cycle = 0;
  int64_t fill_bytes_per_cycle = 0;
  int64_t tile_cycles = 0;
  // Bytes an SM reads per cycle from its cluster peers' shared memory (ld.shared::cluster): the
  // split-K reduction of splitk(S) (src/codegen/splitk.cpp); 0 without clusters.
  int64_t dsmem_bytes_per_cycle = 0;
  // A fixed cost per split tile (the hand-over between the blocks of its cluster: two barrier
  // round trips between SMs, the owner's wait for the slowest block; fitted); 0 without clusters.
  int64_t cluster_tile_cycles = 0;
  // Stream-K (src/codegen/streamk.cpp): bytes per SM and cycle a block writes or reads of the
  // global (L2-resident) partial-sum workspace, and a fixed cost per hand-over (the flag's release
  // and acquire between SMs).
  int64_t workspace_bytes_per_cycle = 0;
  int64_t handover_cycles = 0;
  // The latency of a tile load from DRAM under load, in cycles: schedule(optimal) gives a ring of
  // streaming loads ceil(latency / II) + 1 stages, enough to cover it at the schedule's II
  // (src/passes/schedule_optimal.h). 0: no model (depth 2).
  int64_t load_latency_cycles = 0;
  // TMA loads from a tensor whose rows do not start on 32-byte sector boundaries (a row stride or
  // base address that is a multiple of 16 bytes but not of 32: bf16 with an odd multiple of 8
  // elements per row) cost this percent of the fill rate's time: each 128-byte box row spans five
  // sectors instead of four and the loads become L2-bound. 100: no penalty.
  int64_t offsector_fill_percent = 100;
  // A fixed cost per tile of a multicast(S) kernel (src/codegen/multicast.cpp: the blocks of a
  // cluster wait for each other's shares and releases; fitted); 0 without clusters.
  int64_t multicast_tile_cycles = 0;
  // A cost per tile of an alternate(T) kernel (src/codegen/alternate.cpp: the tiles' fixed costs
  // overlap the next tile's main loop, but the teams' main loops meet on the tensor cores at the
  // hand-over; fitted).
  int64_t alternate_tile_cycles = 0;
  // Element-wise work per SM and cycle (src/codegen/estimate.cpp: a tile's bias, activation and
  // conversion outside its loops, which the tensor cores wait for unless another team's main loop
  // runs under it): special-function unit results (ex2, reciprocal) and FP32 ALU operations.
  // 0: not modelled.
  int64_t sfu_ops_per_cycle = 0;
  int64_t alu_ops_per_cycle = 0;
  // Bytes per SM and cycle that can land in one SM's shared memory (src/codegen/estimate.cpp): a
  // multicast(S) copy's fill time counts only the issuing block's share against fill_bytes_per_cycle
  // (the L2 side), but the whole tile lands in every block of the cluster, at most this fast. It
  // bounds multicast kernels whose tiles were fill-bound without multicast (128 x 128: 32 KB a
  // 512-cycle K step); fitted offline on the measured tables of bench/results/2026-12-02-h200-streamk.md.
  // 0: not modelled.
  int64_t intake_bytes_per_cycle = 0;
  // Bytes per SM and cycle of the SM's own shared memory (loads or stores): the hand-over of
  // kteams(T)'s partial sums between the teams of a block (src/codegen/kteams.cpp). 0: not modelled.
  int64_t smem_bytes_per_cycle = 0;
};

struct Machine {
  std::string name;    // "hopper"
  std::string target;  // "sm_90a"
  std::vector<ProcLevel> levels;  // top-down
  std::vector<MemorySpace> memories;
  Limits limits;
  std::vector<MmaInstr> mma;
  TmaLimits tma;
  CostModel cost;

  const ProcLevel* level(ProcKind p) const;
  // The processor level directly below `p` in this machine, if any.
  std::optional<ProcKind> child_level(ProcKind p) const;
  // 0-based depth of `p` (HOST = 0); -1 when the machine has no such level.
  int depth(ProcKind p) const;
  bool visible(MemKind m, ProcKind p) const;
  const MmaInstr* find_mma(const std::string& name) const;
};

const Machine& hopper_machine();
const Machine& ampere_machine();
// Looks up "sm_90a" / "hopper" / "sm_80" / "ampere"; nullptr when unknown.
const Machine* find_machine(const std::string& target);

}  // namespace loom

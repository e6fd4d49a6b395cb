// Hopper and Ampere machine models. Numbers come from the CUDA C++ Programming Guide (compute
// capability 9.0 / 8.0 tables) and the PTX ISA (wgmma.mma_async, mma.sync, cp.async.bulk.tensor);
// ../shared/design/ARCHITECTURE.md and HOPPER-FACTS.md collect them with sources.
#include "loom/machine.h"

namespace loom {

const char* proc_name(ProcKind p) {
  switch (p) {
    case ProcKind::Host: return "HOST";
    case ProcKind::Cluster: return "CLUSTER";
    case ProcKind::Block: return "BLOCK";
    case ProcKind::Warpgroup: return "WARPGROUP";
    case ProcKind::Warp: return "WARP";
    case ProcKind::Thread: return "THREAD";
  }
  return "?";
}

const char* mem_name(MemKind m) {
  switch (m) {
    case MemKind::None: return "NONE";
    case MemKind::Global: return "GLOBAL";
    case MemKind::Shared: return "SHARED";
    case MemKind::Register: return "REGISTER";
  }
  return "?";
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
    case DType::I32: return "i32";
  }
  return "?";
}

std::optional<ProcKind> parse_proc(const std::string& s) {
  for (ProcKind p : {ProcKind::Host, ProcKind::Cluster, ProcKind::Block, ProcKind::Warpgroup, ProcKind::Warp,
                     ProcKind::Thread})
    if (s == proc_name(p)) return p;
  return std::nullopt;
}

std::optional<MemKind> parse_mem(const std::string& s) {
  for (MemKind m : {MemKind::None, MemKind::Global, MemKind::Shared, MemKind::Register})
    if (s == mem_name(m)) return m;
  return std::nullopt;
}

std::optional<DType> parse_dtype(const std::string& s) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::I32})
    if (s == dtype_name(t)) return t;
  return std::nullopt;
}

int dtype_bytes(DType t) { return (t == DType::F16 || t == DType::BF16) ? 2 : 4; }
bool is_float(DType t) { return t != DType::I32; }

const ProcLevel* Machine::level(ProcKind p) const {
  for (const ProcLevel& l : levels)
    if (l.kind == p) return &l;
  return nullptr;
}

std::optional<ProcKind> Machine::child_level(ProcKind p) const {
  for (size_t i = 0; i + 1 < levels.size(); ++i)
    if (levels[i].kind == p) {
      // CLUSTER is optional: a BLOCK under HOST is the usual child.
      if (levels[i + 1].kind == ProcKind::Cluster && i + 2 < levels.size()) return levels[i + 2].kind;
      return levels[i + 1].kind;
    }
  return std::nullopt;
}

int Machine::depth(ProcKind p) const {
  for (size_t i = 0; i < levels.size(); ++i)
    if (levels[i].kind == p) return static_cast<int>(i);
  return -1;
}

bool Machine::visible(MemKind m, ProcKind p) const {
  if (m == MemKind::None) return true;
  for (const MemorySpace& ms : memories)
    if (ms.kind == m)
      for (ProcKind v : ms.visible_from)
        if (v == p) return true;
  return false;
}

const MmaInstr* Machine::find_mma(const std::string& n) const {
  for (const MmaInstr& i : mma)
    if (i.name == n) return &i;
  return nullptr;
}

const Machine& hopper_machine() {
  static const Machine m = [] {
    Machine h;
    h.name = "hopper";
    h.target = "sm_90a";
    h.levels = {
        {ProcKind::Host, 0, false, 0, false},
        {ProcKind::Cluster, 0, false, 0, true},     // room for clusters; up to 8 (16 non-portable) blocks
        {ProcKind::Block, 0, false, 1024, true},    // grid size chosen at launch
        {ProcKind::Warpgroup, 4, false, 128, true}, // up to 4 consumer warpgroups besides the DMA warp
        {ProcKind::Warp, 4, true, 32, true},        // a warpgroup is 4 consecutive warps
        {ProcKind::Thread, 32, true, 1, true},
    };
    const std::vector<ProcKind> device = {ProcKind::Block, ProcKind::Warpgroup, ProcKind::Warp, ProcKind::Thread};
    h.memories = {
        {MemKind::Global, {ProcKind::Host, ProcKind::Cluster, ProcKind::Block, ProcKind::Warpgroup, ProcKind::Warp,
                           ProcKind::Thread}, 0},
        {MemKind::Shared, device, 227 * 1024},  // 227 KB opt-in per block (CUDA guide, CC 9.0)
        {MemKind::Register, {ProcKind::Thread}, 255 * 4},
    };
    // setmaxnreg.{inc,dec}.sync.aligned.u32: 24..256 registers per thread, a multiple of 8.
    // Clusters: at most 8 blocks portably (CUDA guide, thread block clusters).
    h.limits = {227 * 1024, 255, 65536, 1024, 132, 24, 256, 8, 8};
    // Beyond the scheduled values (measured, not derived): ptxas fits examples/gemm's 128 x 256 kernel
    // (128 accumulator registers a thread) and gemm_reduce's ping-pong kernel (128 accumulators and 4
    // row sums) in the 168 a thread of three warpgroups gets at launch, and wanted 122-130 registers
    // for 64-104 accumulator registers in kernels of five warpgroups, which get 96
    // (bench/results/2026-12-04-h200-teams.md, r3): 33 to 36 is consistent with all of them.
    h.limits.unmodeled_regs = 36;
    // wgmma.mma_async.sync.aligned.m64nNk16 for f16/bf16: N in 8..256 step 8 (PTX ISA 9.7.15).
    h.mma.push_back({"wgmma", ProcKind::Warpgroup, 64, 8, 256, 8, 16, {DType::F16, DType::BF16},
                     {DType::F32, DType::F16}, true});
    // mma.sync.aligned.m16n8k16 is still available on Hopper at warp level.
    h.mma.push_back({"mma_sync", ProcKind::Warp, 16, 8, 8, 8, 16, {DType::F16, DType::BF16},
                     {DType::F32, DType::F16}, false});
    h.tma = {true, 5, 256, 16, 16};
    // H100 SXM: 989 dense bf16 TFLOP/s = 132 SMs x 1.83 GHz x 2048 FMA (whitepaper). The fill rate
    // is not a published number: 48 B per SM and cycle is what makes the model rank examples/gemm's
    // three tile shapes as they ran on an H100 (bench/results/2026-11-25-h100-gemm-sweep-tiles.md);
    // the ranking is the same for any value from 32 to 56.
    // The distributed-shared-memory read rate is not published either: 32 B per SM and cycle (a
    // quarter of the local shared-memory bandwidth) is an assumption; an H200 read one peer's 32 KB
    // in about 0.75 us with the hand-over's barriers (about 22 B per cycle; pushing it is no faster:
    // bench/results/2026-11-28-h200-splitk-latency.md). 8000 cycles per split tile is fitted: the
    // split kernels measured on an H100 cost about 4-6 us more per tile than the model's other terms
    // said (bench/results/2026-11-25-h100-gemm-splitk.md); probes on the H200 put most of it in the
    // hand-over (0.75 us a level, more at S = 4 with two warpgroups) and the cluster barriers of
    // setup and exit (about 0.3 us each), and with 8000 the model picks split-K only where it gained.
    // Stream-K's workspace rate is measured: a block's 128 KB of partial sums took about 5 us to
    // write and 4 us to read back at 1.5 GHz (ncu, bench/results/2026-11-27-h100-gemm-streamk.md),
    // 16-20 B per SM and cycle; the fixed cost per hand-over (flag release, spin, barrier) is assumed.
    // A DRAM tile load takes about 0.8 us under load (1500 cycles at 1.83 GHz; an estimate, not
    // measured here): the ring depth schedule(optimal) gives streaming loads.
    // Rows off the 32-byte sectors: examples/gemm's 128 x 256 tiles at 5264 x 7640 x 7224 took
    // 1216 us with its bf16 row strides as given (16 x odd bytes) and 872 us with them padded to
    // 128 bytes; 192 x 192 tiles 1086 / 886 us (bench/results/2026-11-27-h100-gemm-offsector.md):
    // 140% reproduces both with the model's fill term (1.39x, 1.23x); cuBLAS did not change.
    // Multicast kernels cost 1-3 us more per tile than the same mapping without it on small and
    // mid-sized calls (0.8 us per tile at 2440 x 1960 x 73, 2.7 us at 505 x 2856 x 1048: the blocks
    // of a cluster wait for each other): 3000 cycles per tile, fitted to those measurements.
    // Element-wise throughput per SM and clock for compute capability 9.0 (CUDA C++ Programming
    // Guide, arithmetic instructions): 16 results of exp2 / reciprocal (the special-function
    // units), 128 FP32 add / multiply / multiply-add.
    h.cost = {2048, 48, 500, 32, 8000, 16, 2000, 1500, 140, 3000, 0, 16, 128, 56};
    // Shared memory: 32 banks of 4 bytes a cycle (CUDA C++ Programming Guide, compute capability 9.0).
    h.cost.smem_bytes_per_cycle = 128;
    return h;
  }();
  return m;
}

const Machine& ampere_machine() {
  static const Machine m = [] {
    Machine a;
    a.name = "ampere";
    a.target = "sm_80";
    a.levels = {
        {ProcKind::Host, 0, false, 0, false},
        {ProcKind::Block, 0, false, 1024, true},
        {ProcKind::Warp, 32, false, 32, true},  // up to 32 warps per block
        {ProcKind::Thread, 32, true, 1, true},
    };
    a.memories = {
        {MemKind::Global, {ProcKind::Host, ProcKind::Block, ProcKind::Warp, ProcKind::Thread}, 0},
        {MemKind::Shared, {ProcKind::Block, ProcKind::Warp, ProcKind::Thread}, 163 * 1024},  // A100: 163 KB
        {MemKind::Register, {ProcKind::Thread}, 255 * 4},
    };
    a.limits = {163 * 1024, 255, 65536, 1024, 108};
    a.mma.push_back({"mma_sync", ProcKind::Warp, 16, 8, 8, 8, 16, {DType::F16, DType::BF16},
                     {DType::F32, DType::F16}, false});
    a.tma = {false, 0, 0, 16, 16};
    a.cost = {1024, 32, 500};  // A100: 312 dense bf16 TFLOP/s = 108 SMs x 1.41 GHz x 1024 FMA; fill rate a guess
    return a;
  }();
  return m;
}

const Machine* find_machine(const std::string& target) {
  if (target == "sm_90a" || target == "hopper") return &hopper_machine();
  if (target == "sm_80" || target == "ampere") return &ampere_machine();
  return nullptr;
}

}  // namespace loom

#include "sched/machine.h"

#include <nlohmann/json.hpp>

#include "sched/diagnostic.h"

namespace loom::sched {

int Machine::unit_index(const std::string& n) const {
  for (std::size_t i = 0; i < units.size(); ++i)
    if (units[i].name == n) return static_cast<int>(i);
  return -1;
}

int Machine::memory_index(const std::string& n) const {
  for (std::size_t i = 0; i < memories.size(); ++i)
    if (memories[i].name == n) return static_cast<int>(i);
  return -1;
}

namespace {

// Units are SM-wide: a tile-level operation occupies the whole SM's tensor cores, MUFU or FP32
// pipes for its duration (the granularity of the Twill document, section 3.1).
Machine hopper() {
  Machine m;
  m.name = "hopper";
  m.units = {{"tc", 1}, {"mufu", 1}, {"alu", 1}, {"tma", 1}, {"lsu", 1}};
  // 227 KB: maximum dynamic shared memory per block on sm_90 (CUDA C++ Programming Guide,
  // "Compute Capabilities", table of technical specifications).
  m.memories = {{"smem", 232448}};
  // 64K 32-bit registers per SM = 512 registers per thread over 4 warp groups of 128 threads;
  // 255 per thread architecturally, 240 per consumer group after setmaxnreg as in FA3.
  m.warps = 4;
  m.reg_limit = 240;
  m.reg_file = 512;
  // Cross-warp hand-off: store + load of a register tile through shared memory at 128 B/clock/SM
  // (32 banks x 4 B) is 2 * 128 threads * 4 B / 128 B = 8 cycles per register per thread; at least
  // 64 cycles for small values (named-barrier round trip plus shared-memory latency, estimate).
  m.cross_warp_min = 64;
  m.cross_warp_per_reg = 8;
  // wgmma: 989 dense bf16 TFLOP/s at 1.83 GHz on 132 SMs (H100 SXM datasheet) = 2048 FMA/clock/SM,
  // so a 128x128x128 tile GEMM is 1024 cycles. Accumulators are read after wgmma.wait_group.
  m.ops["gemm"] = {"tc", 2048, false, true, "989 TFLOP/s bf16 / (2 * 132 SMs * 1.83 GHz)"};
  // MUFU.EX2: 16 results per clock per SM (CUDA Programming Guide, arithmetic instruction throughput,
  // cc 9.0), so exp over a 128x128 tile is 1024 cycles: the same as the GEMM (why FA3 pipelines).
  m.ops["exp"] = {"mufu", 16, false, false, "16 ex2/clock/SM (CUDA guide throughput table, cc 9.0)"};
  // FP32 add/mul/fma and min/max: 128 results per clock per SM (same table). Row reductions and
  // rescaling are charged one op per element.
  m.ops["alu"] = {"alu", 128, false, false, "128 FP32 results/clock/SM (CUDA guide, cc 9.0)"};
  // Register <-> shared memory copies: 128 B/clock/SM; cost per 4-byte element = 1/32 clock.
  m.ops["copy"] = {"lsu", 32, false, false, "128 B/clock/SM shared memory bandwidth, 4-byte elements"};
  // TMA tile loads from global memory: latency varies by more than 10x (L2 hit vs HBM), so they are
  // variable-latency operations (document section 3.2); 3.35 TB/s HBM3 / 132 SMs / 1.83 GHz is about
  // 14 B/clock/SM, used only when a load is not streaming.
  m.ops["tma_load"] = {"tma", 14, true, false, "3.35 TB/s / (132 SMs * 1.83 GHz) bytes/clock/SM"};
  return m;
}

Machine blackwell() {
  Machine m;
  m.name = "blackwell";
  m.units = {{"tc", 1}, {"mufu", 1}, {"alu", 1}, {"tma", 1}, {"tmem", 1}, {"lsu", 1}};
  // 227 KB shared memory per block (CUDA guide, cc 10.0); 256 KB tensor memory per SM
  // (128 lanes x 512 columns x 4 B, PTX ISA "Tensor Memory").
  m.memories = {{"smem", 232448}, {"tmem", 262144}};
  // FA4-style kernels run 4 warp groups plus one load warp and one MMA warp: we model 6 groups of
  // at most 255 registers per thread (the architectural limit). The register-file total is not
  // modelled here (reg_file = 0) because the groups differ in size.
  m.warps = 6;
  m.reg_limit = 255;
  m.reg_file = 0;
  m.cross_warp_min = 64;
  m.cross_warp_per_reg = 8;
  // tcgen05.mma: 2.25 dense bf16 PFLOP/s on 148 SMs at ~1.86 GHz (B200 datasheet) ~ 4096
  // FMA/clock/SM: twice Hopper, a 128x128x128 GEMM is 512 cycles. Results land in tensor memory.
  m.ops["gemm"] = {"tc", 4096, false, false, "2.25 PFLOP/s bf16 / (2 * 148 SMs * 1.86 GHz)"};
  // MUFU.EX2 is unchanged at 16/clock/SM: exp over 128x128 is 1024 cycles, now twice the GEMM.
  m.ops["exp"] = {"mufu", 16, false, false, "16 ex2/clock/SM (CUDA guide, cc 10.0)"};
  m.ops["alu"] = {"alu", 128, false, false, "128 FP32 results/clock/SM (CUDA guide, cc 10.0)"};
  m.ops["copy"] = {"lsu", 32, false, false, "128 B/clock/SM shared memory bandwidth, 4-byte elements"};
  // tcgen05.ld / tcgen05.st between tensor memory and registers: estimate 128 4-byte elements per
  // clock per SM (32 lanes x 32 bit per sub-partition per clock, 4 sub-partitions); reading a
  // result needs tcgen05.wait::ld plus the MMA's mbarrier: blocking synchronization (doc, 6.2.2).
  m.ops["tmem_load"] = {"tmem", 128, false, true, "estimate: 4 sub-partitions x 32 lanes x 32 bit/clock"};
  m.ops["tmem_store"] = {"tmem", 128, false, false, "estimate: as tmem_load"};
  m.ops["tma_load"] = {"tma", 16, true, false, "8 TB/s HBM3e / (148 SMs * 1.86 GHz) bytes/clock/SM"};
  return m;
}

template <class T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw UserError(std::string("machine field '") + key + "' has the wrong type");
  }
}

}  // namespace

bool is_builtin_machine(const std::string& name) { return name == "hopper" || name == "blackwell"; }

Machine builtin_machine(const std::string& name) {
  if (name == "hopper") return hopper();
  if (name == "blackwell") return blackwell();
  throw UserError("unknown machine '" + name + "' (built-in machines: hopper, blackwell)");
}

Machine machine_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw UserError("machine must be a name or an object");
  Machine m;
  // An object may start from a built-in model and override fields.
  if (auto base = j.find("base"); base != j.end()) {
    if (!base->is_string()) throw UserError("machine field 'base' must be a string");
    m = builtin_machine(base->get<std::string>());
  }
  m.name = get_or<std::string>(j, "name", m.name.empty() ? "custom" : m.name);
  if (auto u = j.find("units"); u != j.end()) {
    if (!u->is_object()) throw UserError("machine field 'units' must be an object {unit: capacity}");
    for (auto& [k, v] : u->items()) {
      if (!v.is_number_integer() || v.get<long long>() < 0)
        throw UserError("capacity of unit '" + k + "' must be a non-negative integer");
      int idx = m.unit_index(k);
      if (idx >= 0) m.units[idx].capacity = v.get<int>();
      else m.units.push_back({k, v.get<int>()});
    }
  }
  if (auto mem = j.find("memories"); mem != j.end()) {
    if (!mem->is_object()) throw UserError("machine field 'memories' must be an object {name: bytes}");
    for (auto& [k, v] : mem->items()) {
      if (!v.is_number_integer() || v.get<long long>() < 0)
        throw UserError("capacity of memory '" + k + "' must be a non-negative integer");
      int idx = m.memory_index(k);
      if (idx >= 0) m.memories[idx].capacity = v.get<std::int64_t>();
      else m.memories.push_back({k, v.get<std::int64_t>()});
    }
  }
  m.warps = get_or<int>(j, "warps", m.warps);
  m.reg_limit = get_or<int>(j, "reg_limit", m.reg_limit);
  m.reg_file = get_or<int>(j, "reg_file", m.reg_file);
  if (auto cw = j.find("cross_warp"); cw != j.end()) {
    if (cw->is_number_integer()) {
      m.cross_warp_min = cw->get<std::int64_t>();
      m.cross_warp_per_reg = 0;
    } else if (cw->is_object()) {
      m.cross_warp_min = get_or<std::int64_t>(*cw, "min", m.cross_warp_min);
      m.cross_warp_per_reg = get_or<std::int64_t>(*cw, "per_reg", m.cross_warp_per_reg);
    } else {
      throw UserError("machine field 'cross_warp' must be an integer or {min, per_reg}");
    }
  }
  if (auto ops = j.find("ops"); ops != j.end()) {
    if (!ops->is_object()) throw UserError("machine field 'ops' must be an object");
    for (auto& [k, v] : ops->items()) {
      if (!v.is_object()) throw UserError("machine op '" + k + "' must be an object");
      OpModel om = m.ops.count(k) ? m.ops[k] : OpModel{};
      om.unit = get_or<std::string>(v, "unit", om.unit);
      om.per_clock = get_or<double>(v, "per_clock", om.per_clock);
      om.variable_latency = get_or<bool>(v, "variable_latency", om.variable_latency);
      om.blocking_consumers = get_or<bool>(v, "blocking", om.blocking_consumers);
      om.note = get_or<std::string>(v, "note", om.note);
      if (om.per_clock <= 0) throw UserError("machine op '" + k + "': per_clock must be positive");
      m.ops[k] = om;
    }
  }
  // (An SM holds at most 16 warp groups on Hopper and Blackwell; 64 leaves room for other models
  // while keeping the warp variables of the joint query bounded: 100,000 ran it past any budget.)
  if (m.warps < 1 || m.warps > 64) throw UserError("machine must have 1 to 64 warp groups, found " + std::to_string(m.warps));
  if (m.reg_limit < 0 || m.reg_file < 0) throw UserError("register limits must be non-negative");
  if (m.cross_warp_min < 0 || m.cross_warp_per_reg < 0)
    throw UserError("machine field 'cross_warp' must be non-negative (cycles for a value handed to another warp group)");
  for (auto& [k, om] : m.ops)
    if (m.unit_index(om.unit) < 0) throw UserError("machine op '" + k + "' uses unknown unit '" + om.unit + "'");
  return m;
}

}  // namespace loom::sched

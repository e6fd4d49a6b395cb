// machine.h — machine models for the scheduler: functional units with capacities, warp groups and
// their register limits, on-chip memories, cross-warp communication cost, and a per-operation cost
// model (tile-level op kind -> unit, throughput, variable latency, blocking consumers).
//
// Built-in models: "hopper" (H100 SXM, sm_90a) and "blackwell" (B200, sm_100a); each number says
// where it comes from in machine.cpp. A model may also be given as a JSON object (see
// docs/schedule.md). Tested by tests/sched/graph_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace loom::sched {

struct Unit {
  std::string name;
  int capacity = 1;  // instances usable in the same cycle
};

struct Memory {
  std::string name;
  std::int64_t capacity = 0;  // bytes
};

// Cost of a tile-level operation kind: cycles = ceil(product(shape) / per_clock).
struct OpModel {
  std::string unit;
  double per_clock = 1;            // elements (or FMAs) retired per SM clock
  bool variable_latency = false;   // TMA and other memory transfers
  bool blocking_consumers = false; // consumers of the result need blocking synchronization
  std::string note;                // where the number comes from
};

struct Machine {
  std::string name;
  std::vector<Unit> units;
  std::vector<Memory> memories;
  int warps = 1;          // warp groups available, including the variable-latency group
  int reg_limit = 255;    // registers per thread for one warp group
  int reg_file = 0;       // registers per thread summed over all warp groups (0 = unlimited)
  // Cycles to hand a register value to another warp group through shared memory:
  // max(cross_warp_min, cross_warp_per_reg * regs). Values with regs = 0 live in shared or tensor
  // memory already and cost nothing to share.
  std::int64_t cross_warp_min = 0;
  std::int64_t cross_warp_per_reg = 0;
  std::map<std::string, OpModel> ops;

  int unit_index(const std::string& name) const;    // -1 if absent
  int memory_index(const std::string& name) const;  // -1 if absent
};

// "hopper" or "blackwell"; throws UserError for other names.
Machine builtin_machine(const std::string& name);
bool is_builtin_machine(const std::string& name);

// A machine given as a JSON object (fields as in docs/schedule.md). Throws UserError.
Machine machine_from_json(const nlohmann::json& j);

}  // namespace loom::sched

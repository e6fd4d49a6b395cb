// The scheduling graph of a pipelined loop (issue 12, part 1): from the event IR after the middle
// end to the dependence graph that `loom schedule` reads (docs/schedule.md, "Graph format"), so
// that a user can inspect and re-solve the loop's schedule (`loom compile X --emit=schedule-graph`).
//
// WHICH LOOP. The innermost `for` loops the mapping pipelines (pipeline(D) > 1 or warpspecialize),
// in program order; when the mapping marks none, every innermost `for`. pipelined_loops lists them.
//
// NODES. One per asynchronous op of the loop body (copy, call); a `join` is no work and is looked
// through. Each node names its op by the machine's cost model (src/sched/machine.cpp), summed over
// every processor that runs it (a vectorized op runs once per warpgroup, warp or thread):
//   call mma            "gemm", shape [M, N, K]: M x N the accumulator elements of all processors
//                       (N from the wgmma B operand's tile), K the B tile's rows — on Hopper
//                       M*N*K / 2048 tensor-core cycles, i.e. (M/64)(K/16) wgmma m64nNk16 steps of
//                       N/2 cycles each;
//   exp, exp2, tanh, gelu          "exp" (MUFU), one MUFU op per element of the largest operand;
//   sigmoid, silu, div             "exp", two MUFU ops per element (ex2 + rcp);
//   other leaves, copy.sum/max into registers, register -> register copies
//                       "alu", one FP32 op per element of the largest operand;
//   copy GLOBAL -> SHARED          "tma_load", shape [bytes] (a variable-latency TMA load);
//   other copies (shared <-> registers, stores to global)   "copy", shape [4-byte words].
// The footprint of a node's result (what the scheduler counts while the value is live):
//   REGISTER destination  "regs": its 32-bit registers per thread;
//   SHARED destination    "smem": the bytes of the buffer the op fills in this iteration — an alloc
//                         of the body (fresh per iteration) or a ring slot (a piece of a buffer
//                         hoisted before the loop, indexed by a value of the body); 0 for storage
//                         that persists across iterations (row statistics allocated before the
//                         loop), which the loop neither allocates nor multiplies.
// Every node's "comment" gives the op's origin in the program (task, statement, line).
//
// EDGES. From the IR's events: op X waits (in its `after` list) for op Y of the same iteration
// (distance 0), or for a carried event of distance d, i.e. for every op of iteration k - d that the
// body's yield waits for (distance d; carried events inside the yield add their distances). Joins
// are looked through; events from before the loop impose nothing per iteration. Delays are the
// scheduler's default (the latency of the producer), blocking is the machine's default (wgmma
// results). Between two ops, only the smallest distance is kept (it implies the others). An edge
// implied by a path through other ops with at most its distance is dropped (it adds no constraint:
// every delay is >= 0), unless it is a data edge — the consumer reads the buffer the producer writes
// — which the scheduler also needs for the value's lifetime. A data edge is only an ordering edge
// when an op ordered between the two (paths with distances adding up to the edge's) rewrites the
// same tensor view: the consumer reads that op's version (an accumulator updated in place, such as
// attention's rescale between the PV GEMMs of two iterations), so the producer's value dies there.
//
// TILES. The block's tile loop around a pipelined loop (schedule(optimal)'s teams, schedule_optimal.h):
// the ops of the tile body (the pfor BLOCK region that holds the loop: the accumulators' clear
// before it, the epilogue after it) as above, and the loop itself as one node of a given number of
// cycles on the tensor core whose result is the registers a thread holds of the tile's register
// tensors the loop writes (its accumulators, counted there once: the clear that writes them before
// the loop holds none of its own); edges out of it are blocking (the epilogue waits for the loop's
// last wgmma). Tiles are independent but for registers: a team runs its next tile in the same
// registers, so each op that accesses a register tensor of the tile body comes before the team's
// next tile's ops that write it (distance 1). Every node's spill_cost is all of the tiles' work: the
// back end hands no value from one team to another, so no useful schedule may. With `tiles` = T > 1 an iteration holds T
// tiles, copies of every node named "NODE#t", the team edges within each copy, and the loops take
// their turns on the ring in order (loop#t -> loop#t+1, the last to the first at distance 1); the
// machine is the hopper model with T warp groups (the teams) of at most `reg_limit` registers a
// thread. A tile body with another loop, a branch, or a TMA load of its own (attention's Q tile,
// loaded once per tile) cannot be described (CompileError).
//
// SUBTILES. What a kernel whose compute warpgroups each own rows of the tile (pingpong: each runs the
// loop over its own rows, in turns) runs, as a graph: subtile_schedule_graph copies every node but the
// TMA loads (which both read) once per sub-tile ("NODE#c", team "sub<c>": a sub-tile's ops stay on its
// warp group, docs/schedule.md "Graph format") with its first shape extent and shared-memory bytes
// divided by the copies, its registers a thread unchanged, and a hand-off cost for a register result
// of a round trip through shared memory (4 cycles a register); every edge copied per sub-tile (edges
// to and from a load shared). bench/results/2026-12-06-cpu-teams-ilp.md solves it for
// flash_attention_2 into FA3's ping-pong; schedule(optimal) does not use it yet.
//
// Test: tests/sched/from_ir_test.cpp.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ir/ir.h"
#include "loom/machine.h"

namespace loom {

// The loops that can be scheduled (see WHICH LOOP), in program order.
std::vector<const ir::Op*> pipelined_loops(const ir::Function& f);

// The dependence graph of `loop` (one of pipelined_loops(f)) for the machine `m`, in the JSON format
// of `loom schedule`. Throws CompileError when the loop cannot be described (a nested loop in its
// body, a tile without a static size, a machine the scheduler has no model of).
nlohmann::ordered_json schedule_graph(const ir::Function& f, const ir::Op& loop, const Machine& m);

// The graph of the tile loop around `loop` (see TILES): `loop_cycles` the loop's node, `tiles` tiles
// an iteration, `reg_limit` registers a thread per warp group (0: the machine's).
nlohmann::ordered_json tile_schedule_graph(const ir::Function& f, const ir::Op& loop, const Machine& m, int64_t loop_cycles, int tiles,
                                           int reg_limit);

// The loop graph `loop` (schedule_graph's) as `subtiles` sub-tiles (see SUBTILES).
nlohmann::ordered_json subtile_schedule_graph(const nlohmann::ordered_json& loop, int subtiles);

}  // namespace loom

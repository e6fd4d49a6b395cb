// schedule(optimal) (issue 12, part 2; docs/schedule.md, "In the compiler"): a BLOCK instance that
// says `schedule(optimal)` gets its warp specialization, pipeline depth and consumer turns from the
// optimal schedule of its srange loop instead of from `warpspecialize pipeline(D) pingpong` written
// by hand. Before the pass pipeline runs on such a program (pipeline.cpp), for each such instance:
//
//   1. the program is lowered with the instance warp-specialized and pipelined 2 deep (provisional
//      settings: the loop must be pipelined to have ring slots to schedule);
//   2. the loop's scheduling graph (schedule_graph.h, the JSON `loom schedule` reads) is solved by
//      src/sched (search_schedule: optimal II, then length, then fewest warp groups) under a
//      deterministic budget (a Z3 resource limit, 4 M units or the instance's budget=B million; the
//      wall-clock limit is only a backstop);
//   3. the settings are read off the schedule, and the program is lowered with them:
//      - warpspecialize: the solver put the loop's TMA loads on warp groups of their own (the DMA
//        role) — nowarpspecialize when it shares a group between loads and compute;
//      - pipeline(D): TMA loads are streaming operations (variable latency, no cost in the schedule,
//        their depth a tunable: the scheduling document's section 5.3), so the ring is made deep
//        enough to cover the machine's load latency at the schedule's II, D = ceil(latency / II) + 1
//        (CostModel::load_latency_cycles; at least 2, at most 8), and lowered one step at a time
//        while the stages do not fit the shared-memory budget;
//      - pingpong: the solver gives the loop's compute ops two or more warp groups — the back end
//        realizes them as consumer warpgroups taking turns on the tensor cores, with the loop
//        rotated where it can (the body's last mma issued one iteration late, after the next
//        iteration's first: FlashAttention-3's structure; pingpong.cpp). `pingpong` written on the
//        instance is kept;
//      - regs(P, C) (warp-specialized only): the DMA warpgroup gets setmaxnreg's least plus the
//        registers the schedule keeps live on the load groups (sched::peak_pressure; a TMA load's
//        result is in shared memory, so 24: FlashAttention-3's producer), the compute warpgroups
//        the rest of the block's pool (register_pool, warp_specialize.h): 240 each for two.
//      - alternate(T) (teams; docs/schedule.md "Teams"): the block's tile loop, with the loop one node
//        of its II and the epilogue around it (tile_schedule_graph), is solved for T = 2, 3, ... tiles an
//        iteration on T warp groups of the registers a thread of T teams gets; T teams taking the tiles
//        in turn when that beats one team's bound (RecMII through its registers) by more than 2% a
//        tile — not with pingpong, splitk, streamk or an alternate written on the instance.
//   A search that ends without a schedule (budget, or a loop the scheduler cannot model) falls back
//   to the rule-based settings — warpspecialize, the same depth rule at the resource-bound II, the
//   instance's own pingpong — with a warning that says so; a schedule is called optimal only when
//   the search proved it.
//
// What is not realized yet: per-op stages other than the loads' ring and the rotated last mma, and a
// warp assignment other than one DMA group plus the mapping's compute warpgroups times the teams (the
// number of compute warpgroups a tile is the mapping's prange, not the solver's; the register split
// divides the pool among them). The note says which parts of the
// schedule the settings carry. Tests: tests/unit/schedule_optimal_test.cpp.
#pragma once

#include <vector>

#include "ir/ir.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom {

// Whether some instance of the program's mapping says schedule(optimal).
bool has_schedule_optimal(const Program& p);

// The program with each schedule(optimal) instance's settings chosen as above (and the clause
// cleared), and one note per such instance. Throws CompileError for what no setting can lower.
Program realize_optimal_schedules(const Program& p, const TaskTree& tree, std::vector<ir::ScheduleNote>& notes);

}  // namespace loom

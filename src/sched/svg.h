// svg.h — an SVG picture of a schedule: the modular reservation table (units x slots of the steady
// state, each cell labelled with the op and its stage) and the straight-line program Q per warp
// group, one colour per warp group. Tested by tests/sched/cli_test.cpp (well-formedness).
#pragma once

#include <string>

#include "sched/problem.h"
#include "sched/schedule.h"

namespace loom::sched {

std::string schedule_svg(const Problem& p, const Schedule& s, const std::string& title);

}  // namespace loom::sched

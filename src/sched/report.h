// report.h — what `loom schedule` prints: the text report (II, length, per-node cycle / stage /
// warp, the prologue / steady state / epilogue of Q as straight-line text, whether the result is
// proven optimal and why, solver statistics) and the --json object. Tested by tests/sched/cli_test.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sched/problem.h"
#include "sched/search.h"

namespace loom::sched {

std::string text_report(const Problem& p, const SearchResult& r);
nlohmann::json json_report(const Problem& p, const SearchResult& r);

// The straight-line program Q: one line per cycle that issues something, grouped into
// prologue / steady state / epilogue, each op tagged with its iteration and warp group.
std::string straight_line_text(const Problem& p, const Schedule& s);

}  // namespace loom::sched

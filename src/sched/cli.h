// cli.h — `loom schedule GRAPH.json [--machine hopper|blackwell|FILE] [--json] [--svg OUT.svg]
// [--time-limit S] ...`: reads a dependence graph (or "-" for stdin), builds the normalized problem,
// runs the Algorithm-1 search and prints the schedule. Exit code 0: done (including "no schedule",
// which is a result); 1: user error, printed as `file:line:col: error: message`; 2: internal error.
// argv[0] is "schedule". Tested by tests/sched/cli_test.cpp.
#pragma once

namespace loom::sched {

int schedule_main(int argc, char** argv);

}  // namespace loom::sched

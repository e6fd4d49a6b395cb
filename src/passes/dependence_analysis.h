// Dependence analysis (Cypress section 4.2.1): the first pass of the middle end. It lowers the
// instantiated task tree (check_program's TaskTree, walked from the entry instance in program
// order) to the event IR (src/ir/ir.h) with the copy-in/copy-out discipline — a fresh allocation
// per launch argument in the memory the callee's instance maps it to, copies in for what the callee
// reads and out for what it writes — and with events chained by privileges (true, anti and output
// dependences; broadcasts E[:] after parallel groups). See dependence_analysis.cpp for the rules.
// Test: tests/unit/dependence_analysis_test.cpp (goldens under tests/golden/ir/*.dep.txt).
#pragma once

#include "ir/ir.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom {

// `p` and `tree` must come from one successful check_program. Raises an internal error (never a
// user error) when they disagree.
ir::Function dependence_analysis(const Program& p, const TaskTree& tree);

}  // namespace loom

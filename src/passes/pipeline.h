// The middle end's pass pipeline: one linear list of passes from the checked program to the final
// event IR. Each pass has one entry function in its own file under src/passes/. The IR is verified
// after every pass (an invalid IR is an internal error naming the pass); with print_after_all the IR
// is printed after each pass that changed it, and with time_passes each pass is timed.
// Today's pipeline: dependence analysis, vectorization, copy elimination, warp specialization,
// resource allocation. Tests: one per pass under tests/unit/ (dependence_analysis_test.cpp,
// vectorize_test.cpp, ...), and end to end tests/unit/property_test.cpp and mutation_test.cpp.
#pragma once

#include <ostream>
#include <string>

#include "ir/ir.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom {

struct PipelineOptions {
  bool print_after_all = false;  // print the IR after every pass that changed it
  bool time_passes = false;      // print how long each pass took
  std::ostream* log = nullptr;   // where the two above go (required when either is set)
  std::string stop_after;        // "vectorize", "copy-elimination" or "warp-specialize": return the
                                 // IR after that pass
};

// Lowers a checked program (`tree` from check_program) to the final event IR.
ir::Function lower_to_event_ir(const Program& p, const TaskTree& tree, const PipelineOptions& opt = {});

}  // namespace loom

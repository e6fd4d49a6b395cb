// The pass pipeline. See pipeline.h.
#include "passes/pipeline.h"

#include <chrono>
#include <functional>
#include <iomanip>

#include "passes/copy_elimination.h"
#include "passes/dependence_analysis.h"
#include "passes/resource_allocation.h"
#include "passes/schedule_optimal.h"
#include "passes/vectorize.h"
#include "passes/warp_specialize.h"

namespace loom {

namespace {

// Runs one IR-to-IR pass: verifies its output, logs the IR when it changed, and times it.
void run_pass(const char* name, ir::Function& f, const std::function<void(ir::Function&)>& pass,
              const PipelineOptions& opt) {
  std::string before = opt.print_after_all ? ir::print(f) : "";
  auto t0 = std::chrono::steady_clock::now();
  pass(f);
  auto t1 = std::chrono::steady_clock::now();
  std::string problems = ir::verify(f);
  if (!problems.empty()) LOOM_INTERNAL("the IR after " << name << " is invalid:\n" << problems);
  if (opt.time_passes)
    *opt.log << "// time " << std::left << std::setw(24) << name << std::right << std::fixed << std::setprecision(3)
             << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms\n";
  if (opt.print_after_all) {
    std::string after = ir::print(f);
    if (after != before) *opt.log << "// ----- IR after " << name << " -----\n" << after;
  }
}

}  // namespace

ir::Function lower_to_event_ir(const Program& p, const TaskTree& tree, const PipelineOptions& opt) {
  if (has_schedule_optimal(p)) {  // schedule_optimal.h: settings from the solved schedule, then the pipeline
    std::vector<ir::ScheduleNote> notes;
    const Program q = realize_optimal_schedules(p, tree, notes);
    ir::Function f = lower_to_event_ir(q, tree, opt);
    f.schedule_notes = std::move(notes);
    return f;
  }
  ir::Function f;
  run_pass("dependence-analysis", f, [&](ir::Function& g) { g = dependence_analysis(p, tree); }, opt);
  run_pass("vectorize", f, [](ir::Function& g) { vectorize(g); }, opt);
  if (opt.stop_after == "vectorize") return f;
  run_pass("copy-elimination", f, [](ir::Function& g) { eliminate_copies(g); }, opt);
  if (opt.stop_after == "copy-elimination") return f;
  run_pass("warp-specialize", f, [&](ir::Function& g) { warp_specialize(g, *tree.machine); }, opt);
  if (opt.stop_after == "warp-specialize") return f;
  run_pass("resource-allocation", f, [](ir::Function& g) { allocate_resources(g); }, opt);
  return f;
}

}  // namespace loom

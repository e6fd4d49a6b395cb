// loom/check.h — semantic checks and the instantiated task tree.
//
// check_program resolves every name, checks each variant against its task (signature, privileges,
// what inner and leaf variants may do, aliasing writes in prange), checks the mapping against the
// machine model (processors, memory visibility, tunables, dispatch of every child launch), and then
// instantiates the task tree from the entry instance with concrete element types and static tile
// extents, checking element types, ranks, processor-level transitions, mma tile sizes and cycles.
// Every problem is a `file:line:col: error:` diagnostic with notes/hints. Tests: tests/errors/*.loom
// (each states its expected diagnostic) and tests/unit/check_test.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/ast.h"
#include "loom/machine.h"

namespace loom {

// One argument of one node of the instantiated tree.
struct TreeArg {
  std::string name;           // task parameter name
  bool is_tensor = true;
  DType dtype = DType::F32;   // tensors and scalars
  MemKind mem = MemKind::None;
  // Static upper bound of each extent (tile sizes); nullopt for run-time extents.
  std::vector<std::optional<int64_t>> extents;
};

// A node: one instance of one variant at one launch site, with concrete types and extents.
struct TreeNode {
  std::string instance;
  std::string variant;
  std::string task;
  ProcKind proc = ProcKind::Host;
  bool leaf = false;
  std::vector<TreeArg> args;
  std::vector<std::pair<std::string, int64_t>> tunables;
  std::string launch;          // how the parent launched it: "inline", "srange k < 4", "prange g < 2"
  SourceLoc launch_loc;
  std::vector<int> children;   // indices into TaskTree::nodes
};

struct TaskTree {
  const Machine* machine = nullptr;
  std::vector<TreeNode> nodes;  // nodes[0] is the entry
};

// Runs every check. Returns the instantiated tree when the program and mapping are valid; otherwise
// nullopt with diagnostics in `diag`. A program without a mapping is checked on its own (no tree).
std::optional<TaskTree> check_program(const Program& p, DiagnosticEngine& diag);

// The program under each of its mappings (ast.h, Mapping; docs/mapping.md "Specialized mappings"):
// the default first, then each specialization in file order, with its instantiated tree and
// condition (pointing into `p`). Call only after check_program accepted `p` (which checks every
// specialization); `default_tree` is what it returned.
struct MappingUnit {
  Program program;
  TaskTree tree;
  const MappingCondition* when = nullptr;  // nullptr for the default
};
std::vector<MappingUnit> mapping_units(const Program& p, const TaskTree& default_tree);

// Human-readable tree: one line per node, indented by depth.
std::string format_task_tree(const TaskTree& t);

}  // namespace loom

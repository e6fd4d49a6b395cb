// Dependence analysis's private header: the Lowering class (one per run of the pass) and the state
// it keeps while it walks the task tree; its methods are defined one concept per file:
//   dependence_analysis.cpp       — the rules (its opening comment), the entry point, values and ops,
//                                   launches (copy-in / copy-out), leaf calls, variant bodies;
//   dependence_analysis_exprs.cpp — scalar expressions, tensor views and bindings: the immediate ops
//                                   of a variant body (const, arith, dim, piece, local allocs);
//   dependence_analysis_loops.cpp — srange / prange to for / pfor: the roots a body touches, carried
//                                   events, and the snapshots of replicated row pieces.
// Internal to the pass: nothing outside src/passes/dependence_analysis*.cpp includes this header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom::dependence_analysis_detail {

using ir::Block;
using ir::EventRef;
using ir::kNone;
using ir::Op;
using ir::OpKind;
using ir::PartitionSpec;
using ir::Type;
using ir::ValueId;
using ir::ValueInfo;

using Events = std::vector<EventRef>;

inline void add_event(Events& es, const EventRef& e) {
  if (e.value == kNone) return;
  if (std::find(es.begin(), es.end(), e) == es.end()) es.push_back(e);
}

inline void add_events(Events& es, const Events& more) {
  for (const EventRef& e : more) add_event(es, e);
}

// The events of a root tensor: its last write and the reads since.
struct RootState {
  std::string name;
  Events writer;
  Events readers;
};

// A tensor in scope: its IR value and the root it belongs to (index into Frame::roots).
struct TensorVal {
  ValueId value = kNone;
  int root = -1;
};

// A partition in scope: the tensor it cuts and how.
struct PartVal {
  ValueId src = kNone;
  int root = -1;
  PartitionSpec spec;
};

// Names visible at one point of a variant body. Loop bodies get a copy, so values materialized
// inside a region (dims, constants, bindings) never leak out of it.
struct Scope {
  std::map<std::string, ValueId> scalars;
  std::map<std::string, TensorVal> tensors;
  std::map<std::string, PartVal> parts;
  std::map<int64_t, ValueId> consts;
  // Inside a prange body (its own statements only): partition source -> its snapshot taken before
  // the pfor (see "Replicated row pieces" above).
  std::map<ValueId, ValueId> snapshots;
};

// One execution of a variant: a node of the task tree.
struct Frame {
  const TreeNode* node = nullptr;
  const Instance* inst = nullptr;
  const VariantDecl* var = nullptr;
  const TaskDecl* task = nullptr;
  std::map<std::string, int64_t> tunables;
  std::map<std::string, std::pair<ValueId, int>> dims;  // dimension name -> (tensor parameter, d)
  std::vector<RootState> roots;
  size_t next_child = 0;  // launches consume node->children in program order
};

struct Touch {
  bool read = false;
  bool write = false;
};

// The statement as written, for origins ("<instance>: <statement>"; dependence_analysis.cpp).
std::string stmt_text(const Stmt& s);
// Whether `v` is blocks(...), slices(...) or mma(...) (dependence_analysis_exprs.cpp).
bool is_partition_call(const Expr& v);

class Lowering {
 public:
  Lowering(const Program& p, const TaskTree& t) : p_(p), t_(t) {
    LOOM_ASSERT(p.mapping.has_value() && !t.nodes.empty() && t.machine, "dependence analysis needs a checked tree");
    for (const Instance& in : p.mapping->instances) instances_[in.name.name] = &in;
  }

  ir::Function run();

 private:
  struct NodeResult {
    std::vector<RootState> params;  // final state of each parameter (empty for scalars)
    Events completion;              // every root's last write and reads
  };

  // ---- dependence_analysis.cpp: values and ops ------------------------------------------------------
  ValueId tensor_value(DType dt, MemKind mem, int rank, const std::string& name);
  ValueId event_value(const std::string& name = "e") { return f_.add_value(ValueInfo{Type::Event, name}); }
  const ValueInfo& info(ValueId v) const { return f_.info(v); }
  Op& emit(OpKind k, ValueId result, bool with_origin);
  ValueId constant(int64_t v, Scope& sc);
  ValueId arith(const std::string& name, ValueId a, ValueId b, const std::string& hint = "");
  ValueId dim(ValueId t, int d, const std::string& hint);
  EventRef one_event(const Events& es);

  // ---- dependence_analysis_exprs.cpp: scalar expressions, tensors, bindings -------------------------
  std::optional<int64_t> static_eval(const Expr& e) const;
  ValueId name_value(const std::string& name, Scope& sc);
  static std::string arith_name(char op);
  ValueId index(const Expr& e, Scope& sc);
  ValueId pieces(const Expr& e, Scope& sc);
  ValueId scalar(const Expr& e, Scope& sc);
  TensorVal tensor(const Expr& e, Scope& sc, const std::string& hint);
  void partition(const Stmt& s, Scope& sc);
  void bind(const Stmt& s, Scope& sc);

  // ---- dependence_analysis_loops.cpp: loops, the roots they touch, snapshots ------------------------
  int root_of(const Expr& e, const Scope& sc, const std::map<std::string, int>& local) const;
  void scan(const std::vector<Stmt>& body, const Scope& sc, std::map<std::string, int>& local,
            std::map<int, Touch>& out) const;
  Events preconditions(const std::map<int, Touch>& touched) const;
  EventRef completion(const std::map<int, Touch>& touched, size_t first_local, ValueId skip);
  void loop(const Stmt& s, Scope& sc);
  bool overlapping(const PartVal& pv) const;
  void snapshot_shared_rows(const Stmt& s, Scope& sc, const std::map<int, Touch>& touched, const std::string& text);
  void loop_level(const Stmt& s, size_t level, const std::vector<ValueId>& trips, const std::map<int, Touch>& touched,
                  const Scope& sc, ProcKind proc, const std::string& text);

  // ---- dependence_analysis.cpp: launches, leaf bodies, variant bodies -------------------------------
  const Instance* dispatch(const Stmt& s) const;
  ValueId copy(ValueId src, ValueId dst, const Events& after);
  void launch(const Stmt& s, Scope& sc);
  void leaf_call(const Stmt& s, Scope& sc);
  ValueId call(const std::string& name, const std::vector<ValueId>& operands, const std::vector<std::pair<int, bool>>& rw, int broadcast_dim = 0);
  void lower_stmts(const std::vector<Stmt>& body, Scope& sc);
  NodeResult lower_node(int id, const std::vector<ValueId>& params, const std::vector<Events>& init);
  ir::TileLayout tile_layout(const std::string& instance, const std::string& arg) const;

  const Program& p_;
  const TaskTree& t_;
  std::map<std::string, const Instance*> instances_;
  ir::Function f_;
  Block* cur_ = nullptr;
  Frame* fr_ = nullptr;
  SourceLoc loc_;
  std::string origin_;
};

}  // namespace loom::dependence_analysis_detail

// Copy elimination's private header: the CopyEliminator class (one per run of the pass), whose
// rewrites (numbered as in copy_elimination.h) are defined one concept per file:
//   copy_elimination.cpp              — the entry point, the fixed-point driver (the order of the
//                                       rewrites in a round) and the final check for NONE tensors;
//   copy_elimination_index.cpp        — the index (where each value is defined and used) and the
//                                       queries and small edits every rewrite shares;
//   copy_elimination_canonicalize.cpp — 1: dim folding, CSE of immediate ops, loop-invariant hoisting;
//   copy_elimination_spills.cpp       — 2: spill elimination, 2b: overwritten copies, 3: spill hoisting;
//   copy_elimination_coalesce.cpp     — 4: coalescing (self and duplicate copies), 4g: reduction
//                                       forwarding (a temporary replaced by the caller's tensor);
//   copy_elimination_placement.cpp    — NONE locals given a place to live: 4b: NONE forwarding,
//                                       4c: register conduits, 4h: leading pieces, 4d: sinking;
//   copy_elimination_duplicates.cpp   — the same data copied again: 4e: loop-invariant copies,
//                                       4f: duplicate copies;
//   copy_elimination_cleanup.cpp      — 5: dead copies, 6: join forwarding, 7: dead code.
// Internal to the pass: nothing outside src/passes/copy_elimination*.cpp includes this header.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace loom::copy_elimination_detail {

using ir::Block;
using ir::EventRef;
using ir::Function;
using ir::kNone;
using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using ir::for_each_op;
using ir::for_each_ref;

inline bool immediate(OpKind k) {
  return k == OpKind::Const || k == OpKind::FConst || k == OpKind::Arith || k == OpKind::Dim || k == OpKind::ProcIndex ||
         k == OpKind::Piece;
}

// Every value an op reads: operands and partition block sizes.
template <typename F>
void for_each_operand(Op& op, F&& fn) {
  for (ValueId& v : op.operands) fn(v);
  for (ValueId& v : op.part.block) fn(v);
  for (EventRef& r : op.after)
    for (ValueId& i : r.indices)
      if (i != kNone) fn(i);
}

// Where a value is defined: the op-index path from the function body (block arguments: the path of
// their loop followed by -1; parameters: empty).
using Path = std::vector<int>;

// Whether the value defined at `def` is visible at (dominates) the op at `use`.
inline bool dominates(const Path& def, const Path& use) {
  if (def.empty()) return true;
  if (def.size() > use.size()) return false;
  for (size_t i = 0; i + 1 < def.size(); ++i)
    if (def[i] != use[i]) return false;
  return def.back() < use[def.size() - 1];
}

class CopyEliminator {
 public:
  explicit CopyEliminator(Function& f) : f_(f) {}

  // Runs the rewrites to a fixed point, then check_none (copy_elimination.cpp).
  void run();

 private:
  // ---- copy_elimination_index.cpp: the index, shared queries and edits ------------------------------
  // Indexes, rebuilt whenever a rewrite needs them (the IR is small; clarity over incrementality).
  struct Index {
    std::unordered_map<ValueId, Op*> def;       // result -> defining op
    std::unordered_map<ValueId, Path> where;     // result or block argument -> path
    std::unordered_map<const Op*, Path> path;    // op -> path
    std::unordered_map<ValueId, std::vector<Op*>> users;  // value -> ops that read it (operands)
    std::unordered_map<ValueId, int> event_uses;           // event value -> references
  };
  static const Op* find_def(const Index& ix, ValueId v) {
    auto d = ix.def.find(v);
    return d == ix.def.end() ? nullptr : d->second;
  }
  bool is_tensor(ValueId v) const { return f_.info(v).type == Type::Tensor; }
  static bool accesses(const Op& op, ValueId v) { return reads(op, v) || writes(op, v); }
  Index index();
  static ValueId root_of(const Index& ix, ValueId v);
  static std::set<ValueId> family(const Index& ix, ValueId root);
  bool replicated(const Index& ix, ValueId v) const;
  static bool reads(const Op& op, ValueId v);
  static bool writes(const Op& op, ValueId v);
  void replace_values(const std::unordered_map<ValueId, ValueId>& m);
  void drop_self_copies();
  static void to_join(Op& op);
  ValueId add_event_like(ValueId like, const std::string& name);
  bool same_type(ValueId a, ValueId b) const;
  bool same_type_but_mem(ValueId a, ValueId b) const;
  bool same_shape(ValueId a, ValueId b) const;
  static void for_each_op_in(const Op& op, const std::function<void(const Op&)>& fn);
  EventRef ref_at(const Index& ix, ValueId e, const Path& at);
  EventRef full_ref(ValueId e) const;
  static int position_in(const Block& b, const Op* op);
  Block* block_at(const Path& p);

  // ---- copy_elimination_canonicalize.cpp: 1. canonicalize -------------------------------------------
  bool canonicalize();
  static std::string cse_key(const Op& op);
  template <typename Get>
  std::vector<Op> loop_invariants(Block& body, Get&& get);

  // ---- copy_elimination_spills.cpp: 2. spill elimination, 2b. overwritten copies, 3. spill hoisting
  bool spill_eliminate();
  bool candidate_spill(const Index& ix, const Block& b, size_t i, size_t j, std::vector<const Op*>& readers);
  bool overwritten_copies();
  bool spill_hoist();
  bool hoist_one(const Index& ix, Block& parent, size_t li);

  // ---- copy_elimination_coalesce.cpp: 4. coalescing, 4g. reduction forwarding -----------------------
  bool coalesce();
  bool only_overwritten(const Index& ix, ValueId x);
  bool forward_reductions();

  // ---- copy_elimination_placement.cpp: 4b. NONE forwarding, 4c. register conduits, 4h. leading pieces,
  //      4d. sinking
  bool forward_none();
  bool register_conduits();
  std::vector<ValueId> dims_of(ValueId v, int rank, std::vector<Op>& ops);
  void insert_after_def(ValueId v, std::vector<Op> ops);
  static bool leading_cut(const Index& ix, const Op& op);
  std::string chain_key(const Index& ix, ValueId v, ValueId root, bool& has_cut) const;
  bool narrow_to_leading_pieces();
  bool sink_locals();
  bool covers_root(const Index& ix, ValueId w, ValueId root);

  // ---- copy_elimination_duplicates.cpp: 4e. loop-invariant copies, 4f. duplicate copies -------------
  bool hoist_invariant_copies();
  bool hoist_one_copy(const Index& ix, Block& parent, size_t li);
  bool merge_duplicate_copies();
  bool duplicate_copies(const Index& ix, const Block& b, size_t i, size_t j);
  bool only_writer(const Index& ix, ValueId x, const Op& op);
  static bool written_in(const std::set<ValueId>& fam, const Op& scope);

  // ---- copy_elimination_cleanup.cpp: 5. dead copies, 6. join forwarding, 7. dead code ---------------
  bool dead_copies();
  bool written_before(const Index& ix, const std::set<ValueId>& fam, const Op& op);
  bool forward_joins();
  bool dead_code();

  // ---- copy_elimination.cpp: the final check --------------------------------------------------------
  void check_none();

  Function& f_;
};

}  // namespace loom::copy_elimination_detail

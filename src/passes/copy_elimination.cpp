// Copy elimination: the entry point, the fixed-point driver (the order of the rewrites in a round)
// and the final check for NONE tensors. The rewrites: copy_elimination.h; the file of each:
// copy_elimination_internal.h.
#include "passes/copy_elimination.h"

#include <string>
#include <vector>

#include "passes/copy_elimination_internal.h"

namespace loom {
namespace copy_elimination_detail {

void CopyEliminator::run() {
  for (int round = 0; round < 200; ++round) {
    bool changed = false;
    changed |= canonicalize();
    changed |= overwritten_copies();
    changed |= spill_eliminate();
    changed |= spill_hoist();
    changed |= coalesce();
    changed |= forward_none();
    if (!changed) changed |= sink_locals();        // only once nothing simpler applies
    if (!changed) changed |= narrow_to_leading_pieces();
    if (!changed) changed |= register_conduits();
    if (!changed) changed |= hoist_invariant_copies();
    if (!changed) changed |= forward_reductions();
    changed |= merge_duplicate_copies();
    changed |= dead_copies();
    changed |= forward_joins();
    changed |= dead_code();
    if (!changed) break;
  }
  check_none();
}

// A NONE allocation still accessed has no memory to live in: a user error.
void CopyEliminator::check_none() {
  Index ix = index();
  std::vector<const Op*> allocs;
  for_each_op(f_.body, [&](Op& op) {
    if (op.kind == OpKind::Alloc && op.mem == MemKind::None) allocs.push_back(&op);
  });
  std::vector<std::string> names = ir::value_names(f_);
  for (const Op* al : allocs) {
    const Op* user = nullptr;
    for (ValueId v : family(ix, al->result)) {
      auto u = ix.users.find(v);
      if (u == ix.users.end()) continue;
      for (const Op* op : u->second)
        if (accesses(*op, v) && (!user || ix.path.at(op) < ix.path.at(user))) user = op;
    }
    if (!user) continue;
    const std::string& tname = f_.info(al->result).name;
    Diagnostic d;
    d.loc = al->loc;
    d.message = "tensor `" + tname + "` is mapped to NONE" + (al->name.empty() ? "" : " by instance `" + al->name + "`") +
                " but still needs memory after copy elimination";
    d.notes.push_back({Severity::Note, user->loc,
                       std::string(user->kind == OpKind::Copy ? "it is still copied" : "it is still used") + " here (" +
                           user->origin + ")",
                       "",
                       {}});
    d.hint = "map `" + tname + "` (or the launches that use it) to REGISTER or SHARED in the instance's mem(...) so "
             "that it has a place to live";
    throw CompileError(std::move(d));
  }
}

}  // namespace copy_elimination_detail

void eliminate_copies(ir::Function& f) { copy_elimination_detail::CopyEliminator(f).run(); }

}  // namespace loom

// Walks over the event IR. See ir.h.
#include "ir/ir.h"

namespace loom::ir {

void for_each_op(Block& b, const std::function<void(Op&)>& fn) {
  for (Op& op : b.ops) {
    fn(op);
    for (Block& r : op.regions) for_each_op(r, fn);
  }
}

void for_each_ref(Block& b, const std::function<void(EventRef&)>& fn) {
  for (Op& op : b.ops) {
    for (EventRef& r : op.after) fn(r);
    for (Block& r : op.regions) for_each_ref(r, fn);
  }
  if (b.yield.value != kNone) fn(b.yield);
}

}  // namespace loom::ir

// The built-in leaf operation table. See leaf_ops.h.
#include "ir/leaf_ops.h"

namespace loom {

const std::vector<LeafOp>& leaf_ops() {
  static const std::vector<LeafOp> ops = [] {
    const OpArg D{"D", OpArgKind::Tensor, Access::Write};
    const OpArg S{"S", OpArgKind::Tensor, Access::Read};
    std::vector<LeafOp> v = {
        {"mma", OpFamily::Mma,
         {{"C", OpArgKind::Tensor, Access::ReadWrite}, {"A", OpArgKind::Tensor, Access::Read},
          {"B", OpArgKind::Tensor, Access::Read}}},
        {"fill", OpFamily::Fill, {D, {"value", OpArgKind::Scalar, Access::Read}}},
        {"clear", OpFamily::Fill, {D}},
        {"copy", OpFamily::Copy, {D, S}},
        {"convert", OpFamily::Convert, {D, S}},
        {"scale", OpFamily::Scale, {D, S, {"s", OpArgKind::Scalar, Access::Read}}},
        {"axpy", OpFamily::Axpy,
         {D, {"X", OpArgKind::Tensor, Access::Read}, {"a", OpArgKind::Scalar, Access::Read}, {"Y", OpArgKind::Tensor, Access::Read}}},
        {"rowmax", OpFamily::RowReduce, {{"D", OpArgKind::Tensor, Access::ReadWrite}, S}},
        {"rowsum", OpFamily::RowReduce, {{"D", OpArgKind::Tensor, Access::ReadWrite}, S}},
        {"mask_above", OpFamily::Mask,
         {{"D", OpArgKind::Tensor, Access::ReadWrite}, {"d", OpArgKind::Scalar, Access::Read}}},
    };
    for (const char* u : {"exp", "exp2", "relu", "sigmoid", "tanh", "silu", "gelu", "gelu_fast"}) v.push_back({u, OpFamily::Unary, {D, S}});
    for (const char* b : {"add", "sub", "mul", "div", "max"})
      v.push_back({b, OpFamily::Binary, {D, {"A", OpArgKind::Tensor, Access::Read}, {"B", OpArgKind::Tensor, Access::Read}}});
    return v;
  }();
  return ops;
}

const LeafOp* find_leaf_op(const std::string& name) {
  for (const LeafOp& op : leaf_ops())
    if (name == op.name) return &op;
  return nullptr;
}

}  // namespace loom

// The entry's C ABI signature as data (signature.h).
#include "codegen/signature.h"

#include <map>
#include <set>

#include "ir/leaf_ops.h"
#include "loom/diagnostics.h"

namespace loom::codegen {
namespace {

// The tensor parameters whose contents some operation of `f` reads: the source of a copy, the
// destination of a reducing copy (dst = dst + src), an argument a built-in leaf op reads, and every
// tensor argument of an extern leaf (whose accesses loom cannot see). Views are followed to the
// parameter they are pieces of.
std::set<ir::ValueId> read_params(const ir::Function& f) {
  std::map<ir::ValueId, ir::ValueId> piece_of;  // a piece's result -> its source
  auto index = [&](const ir::Block& b, auto&& self) -> void {
    for (const ir::Op& op : b.ops) {
      if (op.kind == ir::OpKind::Piece && !op.operands.empty()) piece_of[op.result] = op.operands[0];
      for (const ir::Block& r : op.regions) self(r, self);
    }
  };
  index(f.body, index);
  auto root = [&](ir::ValueId v) {
    for (auto it = piece_of.find(v); it != piece_of.end(); it = piece_of.find(v)) v = it->second;
    return v;
  };
  std::set<ir::ValueId> out;
  auto read = [&](ir::ValueId v) {
    if (f.info(v).type == ir::Type::Tensor) out.insert(root(v));
  };
  auto visit = [&](const ir::Block& b, auto&& self) -> void {
    for (const ir::Op& op : b.ops) {
      if (op.kind == ir::OpKind::Copy && op.operands.size() == 2) {
        read(op.operands[0]);
        if (!op.name.empty()) read(op.operands[1]);  // copy.sum / copy.max
      } else if (op.kind == ir::OpKind::Call) {
        const LeafOp* leaf = find_leaf_op(op.name);
        for (size_t i = 0; i < op.operands.size(); ++i)
          if (!leaf || i >= leaf->args.size() || leaf->args[i].access != Access::Write) read(op.operands[i]);
      }
      for (const ir::Block& r : op.regions) self(r, self);
    }
  };
  visit(f.body, visit);
  std::set<ir::ValueId> params;
  for (ir::ValueId p : f.params)
    if (out.count(p)) params.insert(p);
  return params;
}

}  // namespace

AbiSignature abi_signature(const ir::Function& f) {
  AbiSignature s;
  if (!f.entry) LOOM_INTERNAL("the IR of " << f.name << " has no entry signature");
  const ir::EntrySignature& entry = *f.entry;
  s.entry = entry.task;
  if (entry.params.size() != f.params.size())
    LOOM_INTERNAL("the entry signature of " << s.entry << " has " << entry.params.size() << " parameters, the IR "
                                            << f.params.size());
  const std::set<ir::ValueId> read = read_params(f);
  for (size_t i = 0; i < f.params.size(); ++i) {
    const ir::ValueId p = f.params[i];
    const ir::ValueInfo& vi = f.info(p);
    const ir::EntryParam* decl = &entry.params[i];
    AbiArg a;
    a.name = vi.name;
    a.is_tensor = vi.type == ir::Type::Tensor;
    if (a.is_tensor) {
      if (static_cast<int>(decl->dims.size()) != vi.rank)
        LOOM_INTERNAL("the IR parameter " << vi.name << " has rank " << vi.rank << ", its declaration " << decl->dims.size());
      a.dtype = vi.dtype;
      a.dims = decl->dims;
      a.privilege = decl->privilege;
      auto layout = f.param_layouts.find(p);
      a.col_major = layout != f.param_layouts.end() && layout->second.col_major;
      a.read_by_kernel = read.count(p) > 0;
    } else {
      a.scalar_type = vi.type == ir::Type::Float ? "float" : "int64_t";
      a.read_by_kernel = true;
      a.align_bytes = 0;
    }
    s.args.push_back(std::move(a));
  }
  return s;
}

void merge_signature(AbiSignature& into, const AbiSignature& other) {
  auto same = [](const AbiArg& a, const AbiArg& b) {
    return a.name == b.name && a.is_tensor == b.is_tensor && a.dtype == b.dtype && a.dims == b.dims &&
           a.privilege == b.privilege && a.col_major == b.col_major && a.scalar_type == b.scalar_type;
  };
  if (into.entry != other.entry || into.args.size() != other.args.size())
    LOOM_INTERNAL("two mappings of " << into.entry << " give different C ABIs");
  for (size_t i = 0; i < into.args.size(); ++i) {
    if (!same(into.args[i], other.args[i]))
      LOOM_INTERNAL("two mappings of " << into.entry << " disagree on argument " << into.args[i].name);
    into.args[i].read_by_kernel = into.args[i].read_by_kernel || other.args[i].read_by_kernel;
  }
}

}  // namespace loom::codegen

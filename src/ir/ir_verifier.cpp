// Verifier for the event IR: SSA (each value defined once, used only where its definition is
// visible), operand types per op kind, event references that match their event array's rank, and
// loop regions with the right arguments (a for: the induction variable, then carried events with
// distances >= 1); vectorized ops (a copy/call/join/for whose result is an event array over
// WARPGROUP/WARP/THREAD, outermost first); warp roles only on asynchronous ops; shared-memory slots
// on SHARED allocs only, aligned and within the budget; an entry signature that matches the
// parameters. See ir.h; runs after every pass in test builds.
#include <set>

#include "ir/ir.h"

namespace loom::ir {
namespace {

class Verifier {
 public:
  explicit Verifier(const Function& f) : f_(f) {}

  std::string run() {
    std::vector<std::set<ValueId>> scopes(1);
    for (ValueId p : f_.params) define(p, scopes);
    block(f_.body, scopes);
    if (f_.result.value != kNone) check_ref(f_.result, scopes, "function result");
    check_smem_slots();
    check_entry();
    return problems_;
  }

 private:
  void problem(const std::string& m) { problems_ += m + "\n"; }

  bool valid(ValueId v) const { return v >= 0 && static_cast<size_t>(v) < f_.values.size(); }

  void define(ValueId v, std::vector<std::set<ValueId>>& scopes) {
    if (!valid(v)) return problem("definition of out-of-range value " + std::to_string(v));
    if (!defined_.insert(v).second) return problem("value " + std::to_string(v) + " (" + f_.info(v).name + ") is defined twice");
    scopes.back().insert(v);
  }

  bool visible(ValueId v, const std::vector<std::set<ValueId>>& scopes) const {
    for (const auto& s : scopes)
      if (s.count(v)) return true;
    return false;
  }

  void use(ValueId v, Type want, const std::vector<std::set<ValueId>>& scopes, const std::string& where) {
    if (!valid(v)) return problem(where + ": use of out-of-range value " + std::to_string(v));
    if (!visible(v, scopes)) return problem(where + ": value " + std::to_string(v) + " (" + f_.info(v).name + ") used where it is not defined");
    if (f_.info(v).type != want) problem(where + ": value " + std::to_string(v) + " (" + f_.info(v).name + ") has the wrong type");
  }

  void check_ref(const EventRef& r, const std::vector<std::set<ValueId>>& scopes, const std::string& where) {
    if (!valid(r.value)) return problem(where + ": event reference to out-of-range value");
    if (!visible(r.value, scopes)) return problem(where + ": event " + f_.info(r.value).name + " used where it is not defined");
    const ValueInfo& i = f_.info(r.value);
    if (i.type == Type::Event) {
      if (!r.indices.empty()) problem(where + ": a single event cannot be indexed");
    } else if (i.type == Type::Events) {
      if (r.indices.size() != i.event_dims.size())
        problem(where + ": event array " + i.name + " has " + std::to_string(i.event_dims.size()) + " dimension(s), indexed with " +
                std::to_string(r.indices.size()));
      for (ValueId x : r.indices)
        if (x != kNone) use(x, Type::Index, scopes, where);
    } else {
      problem(where + ": " + i.name + " is not an event");
    }
  }

  // A vectorized op's event array: WARPGROUP/WARP/THREAD dimensions, outermost first, each once,
  // with a positive processor count where Function::proc_extents records one.
  void check_vectorized(ValueId v, const std::string& where) {
    const std::vector<ProcKind>& dims = f_.info(v).event_dims;
    if (dims.empty()) problem(where + ": an event array needs at least one dimension");
    for (size_t d = 0; d < dims.size(); ++d) {
      ProcKind k = dims[d];
      if (k != ProcKind::Warpgroup && k != ProcKind::Warp && k != ProcKind::Thread)
        problem(where + ": a vectorized op runs over WARPGROUP, WARP or THREAD processors, not " + proc_name(k));
      if (d > 0 && static_cast<int>(k) <= static_cast<int>(dims[d - 1]))
        problem(where + ": the dimensions of a vectorized op's event array go from the outermost processor inward, each once");
      auto e = f_.proc_extents.find(k);
      if (e != f_.proc_extents.end() && e->second <= 0) problem(where + ": processor count of " + proc_name(k) + " is not positive");
    }
  }

  void block(const Block& b, std::vector<std::set<ValueId>>& scopes) {
    for (const Op& op : b.ops) {
      std::string where = "op '" + (op.origin.empty() ? std::to_string(static_cast<int>(op.kind)) : op.origin) + "'";
      for (const EventRef& r : op.after) check_ref(r, scopes, where);
      if (op.role != Role::Any && !is_async(op.kind)) problem(where + ": only an asynchronous op has a warp role");
      switch (op.kind) {
        case OpKind::Const:
        case OpKind::FConst:
        case OpKind::Join:
        case OpKind::ProcIndex: break;
        case OpKind::Arith:
          if (op.operands.size() != 2) problem(where + ": arith takes two operands");
          for (ValueId v : op.operands) use(v, Type::Index, scopes, where);
          break;
        case OpKind::Dim:
          if (op.operands.size() != 1) problem(where + ": dim takes one tensor");
          else use(op.operands[0], Type::Tensor, scopes, where);
          break;
        case OpKind::Alloc:
          for (ValueId v : op.operands) use(v, Type::Index, scopes, where);
          if (op.mem == MemKind::Shared) shared_allocs_.insert(op.result);
          break;
        case OpKind::Piece:
          if (op.operands.empty()) {
            problem(where + ": piece needs a source");
            break;
          }
          use(op.operands[0], Type::Tensor, scopes, where);
          for (size_t i = 1; i < op.operands.size(); ++i) use(op.operands[i], Type::Index, scopes, where);
          for (ValueId v : op.part.block)
            if (v != kNone) use(v, Type::Index, scopes, where);
          break;
        case OpKind::Copy:
          if (op.operands.size() != 2) problem(where + ": copy takes a source and a destination");
          if (!op.name.empty() && op.name != "sum" && op.name != "max") problem(where + ": unknown reducing copy " + op.name);
          for (ValueId v : op.operands) use(v, Type::Tensor, scopes, where);
          break;
        case OpKind::Call:
          for (ValueId v : op.operands)
            if (valid(v) && f_.info(v).type == Type::Event)
              problem(where + ": call arguments are tensors or scalars, not events");
          for (ValueId v : op.operands)
            if (valid(v) && !visible(v, scopes)) problem(where + ": argument used where it is not defined");
          if (op.broadcast_dim != 0 &&
              (op.broadcast_dim != 1 || op.operands.size() != 3 || !valid(op.operands[0]) || !valid(op.operands[2]) ||
               f_.info(op.operands[0]).rank != 2 || f_.info(op.operands[2]).rank != 1))
            problem(where + ": broadcast(cols) needs a rank-2 output and a rank-1 third operand");
          break;
        case OpKind::For:
        case OpKind::PFor: {
          if (op.operands.size() != 1) problem(where + ": a loop takes one trip count");
          else use(op.operands[0], Type::Index, scopes, where);
          if (op.regions.size() != 1) {
            problem(where + ": a loop has one body");
            break;
          }
          const Block& body = op.regions[0];
          if (op.kind == OpKind::For ? body.args.size() < 2 : body.args.size() != 1) {
            problem(where + ": loop body has " + std::to_string(body.args.size()) + " argument(s), expected " +
                    (op.kind == OpKind::For ? "an induction variable and at least one carried event" : "1"));
            break;
          }
          scopes.emplace_back();
          define(body.args[0], scopes);
          if (valid(body.args[0]) && f_.info(body.args[0]).type != Type::Index) problem(where + ": induction variable must be an index");
          if (op.kind == OpKind::For) {
            for (size_t j = 1; j < body.args.size(); ++j) {
              define(body.args[j], scopes);
              if (valid(body.args[j]) && f_.info(body.args[j]).type != Type::Event) problem(where + ": carried value must be an event");
            }
            if (!op.distances.empty() && op.distances.size() != body.args.size() - 1)
              problem(where + ": " + std::to_string(op.distances.size()) + " carried distance(s) for " +
                      std::to_string(body.args.size() - 1) + " carried event(s)");
            for (int64_t d : op.distances)
              if (d < 1) problem(where + ": carried distance " + std::to_string(d) + " is not at least 1");
            if (op.multicast < 1) problem(where + ": multicast " + std::to_string(op.multicast) + " is not at least 1");
            if (op.multicast_n < 1) problem(where + ": multicast_n " + std::to_string(op.multicast_n) + " is not at least 1");
            if (op.alternate < 1) problem(where + ": alternate " + std::to_string(op.alternate) + " is not at least 1");
            if (op.k_teams < 1) problem(where + ": kteams " + std::to_string(op.k_teams) + " is not at least 1");
            if (op.split_k < 1) problem(where + ": split_k " + std::to_string(op.split_k) + " is not at least 1");
            if (op.pipeline_depth < 1) problem(where + ": pipeline depth " + std::to_string(op.pipeline_depth) + " is not at least 1");
            if (op.dma_regs < 0 || op.compute_regs < 0 || (op.dma_regs > 0) != (op.compute_regs > 0))
              problem(where + ": regs(" + std::to_string(op.dma_regs) + ", " + std::to_string(op.compute_regs) +
                      ") is not a register split (both positive, or both 0)");
          }
          if (op.kind != OpKind::For && (!op.distances.empty() || op.pipeline_depth != 1 || op.warp_specialize || op.pingpong || op.pingpong_double_buffer ||
                                    op.split_k != 1 || op.stream_k || op.multicast != 1 || op.multicast_n != 1 || op.alternate != 1 || op.k_teams != 1 || op.dma_regs ||
                                    op.compute_regs))
            problem(where + ": only a for loop has carried distances, a pipeline depth, warp specialization, pingpong, split_k, stream_k, multicast, alternate, kteams or regs");
          if (op.stream_k && op.split_k != 1) problem(where + ": a loop both split (split_k) and streamed (stream_k)");
          if (op.pingpong_double_buffer && !op.pingpong) problem(where + ": pingpong(double_buffer) without pingpong");
          block(body, scopes);
          if (body.yield.value != kNone) check_ref(body.yield, scopes, where + " yield");
          if (body.yield.cross) problem(where + ": a yield is not a wait and cannot cross roles");
          scopes.pop_back();
          break;
        }
      }
      if (op.result != kNone) {
        define(op.result, scopes);
        Type want = Type::Index;
        switch (op.kind) {
          case OpKind::Alloc:
          case OpKind::Piece: want = Type::Tensor; break;
          case OpKind::FConst: want = Type::Float; break;
          case OpKind::Copy:
          case OpKind::Call:
          case OpKind::Join:
          case OpKind::For:
            want = Type::Event;
            if (valid(op.result) && f_.info(op.result).type == Type::Events) {  // vectorized: once per processor
              want = Type::Events;
              check_vectorized(op.result, where);
            }
            break;
          case OpKind::PFor: want = Type::Events; break;
          default: break;
        }
        if (valid(op.result) && f_.info(op.result).type != want) problem(where + ": result has the wrong type");
      } else if (op.kind != OpKind::Const) {
        problem(where + ": op has no result");
      }
    }
  }

  // Resource allocation's slots (ir.h, SHARED MEMORY): SHARED allocs only, aligned, within budget.
  // The entry signature, when there is one, describes the parameters one by one: a tensor's
  // dimension names match its rank, a scalar has its declared type.
  void check_entry() {
    if (!f_.entry) return;
    if (f_.entry->params.size() != f_.params.size())
      return problem("the entry signature has " + std::to_string(f_.entry->params.size()) + " parameter(s), the function " +
                     std::to_string(f_.params.size()));
    for (size_t i = 0; i < f_.params.size(); ++i) {
      if (!valid(f_.params[i])) continue;
      const EntryParam& p = f_.entry->params[i];
      const ValueInfo& vi = f_.info(f_.params[i]);
      if (vi.type == Type::Tensor ? p.dims.size() != static_cast<size_t>(vi.rank) || !p.scalar_type.empty()
                                  : !p.dims.empty() || p.scalar_type.empty())
        problem("entry parameter " + p.name + " does not match its value " + vi.name);
    }
  }

  void check_smem_slots() {
    for (const auto& [v, s] : f_.smem_slots) {
      std::string where = "smem slot of value " + std::to_string(v) + (valid(v) ? " (" + f_.info(v).name + ")" : "");
      if (!shared_allocs_.count(v)) problem(where + ": not the result of a SHARED alloc");
      if (s.registers) {
        if (s.bytes != 0 || s.offset != 0) problem(where + ": kept in registers but given shared bytes");
        continue;
      }
      if (s.offset < 0 || s.bytes < 0 || s.copies <= 0 || s.bytes % s.copies != 0)
        problem(where + ": bad slot [" + std::to_string(s.offset) + ", +" + std::to_string(s.bytes) + ") x" + std::to_string(s.copies));
      const int64_t align = smem_alignment(valid(v) ? f_.info(v).rank : 2, s.copies > 0 ? s.bytes / s.copies : s.bytes);
      if (s.offset % align != 0 || (s.copies > 1 && (s.bytes / s.copies) % align != 0))
        problem(where + ": offset " + std::to_string(s.offset) + " or copy size is not a multiple of " + std::to_string(align));
      if (s.offset + s.bytes > f_.smem.bytes)
        problem(where + ": ends at " + std::to_string(s.offset + s.bytes) + ", past the shared-memory budget of " +
                std::to_string(f_.smem.bytes) + " bytes");
    }
  }

  const Function& f_;
  std::set<ValueId> shared_allocs_;
  std::set<ValueId> defined_;
  std::string problems_;
};

}  // namespace

std::string verify(const Function& f) { return Verifier(f).run(); }

}  // namespace loom::ir

// Turns on the tensor cores (the mapping's `pingpong` on a warp-specialized loop): the compute
// warpgroups issue their wgmmas one warpgroup at a time, in a fixed round (warpgroup 0, 1, ...,
// G - 1, 0, ...), so that while one warpgroup's wgmmas run the others do their element-wise work
// (FlashAttention-3's inter-warpgroup ping-pong). Two mechanisms:
//
//   * Turns. Every wgmma issue of the loop is a turn: `bar.sync` on the warpgroup's turn barrier
//     (named barrier T + g, 256 threads: its own 128 and the 128 of the warpgroup before it, which
//     `bar.arrive`d when its turn ended), the issue, `bar.arrive` on the next warpgroup's barrier.
//     Warpgroup G - 1 arrives on warpgroup 0's barrier once before the tile loop (warpgroup 0 goes
//     first) and warpgroup 0 takes the last hand-over after it. Every warpgroup runs the same
//     loops with the same trip counts (block-level loops), so the turns pair up.
//   * The deferred mma (loop rotation). When the body's last compute op is an mma W that nothing
//     later in the iteration reads, and an earlier mma Q starts the iteration's tensor-core work,
//     W of iteration k is issued in iteration k + 1 in Q's turn, just after Q (and W of the last
//     iteration after the loop). Each iteration then hands the tensor cores one batch (Q(k) and
//     W(k - 1): attention's Q K^T of the next key tile with the P V of the previous one); the
//     first use of Q's result waits for Q's group only (wgmma_wait<1>, events.cpp), so the
//     element-wise work after it overlaps W(k - 1) (intra-warpgroup) and the other warpgroups'
//     batches (inter-warpgroup). What this needs:
//       - W's operands stay valid one iteration longer: register arrays the body allocates that W
//         reads (P, the forwarded A operand) are declared before the loop (hoisted), and a write
//         to them later in the iteration first waits for W(k - 1); shared tiles from the loop's
//         TMA ring keep their slot until W has run, so the ring must be at least 2 deep;
//       - no compute op of the body before Q touches W's operands (they would see W(k - 1) not yet
//         issued);
//       - the same number of wgmma groups in every iteration: in iteration 0 an empty group
//         stands in W(-1)'s place;
//       - the ring slots' release to the DMA role is split (plan_split_release): the tiles W reads
//         on a barrier of their own, once W(k - 1) has run; the others (K) on the loop's barrier
//         as soon as their last reader of iteration k has run, so that the next K tile loads
//         while the softmax runs;
//       - W is emitted in a nested C++ scope that rebinds the loop index to k - 1 (n - 1 after the
//         loop) and recomputes the body's index and view values W uses, so every offset, ring slot
//         and barrier phase is the previous iteration's.
//     If a condition fails the loop is not rotated (each wgmma is then a turn of its own).
#include "codegen/cuda_gen.h"

#include <algorithm>

namespace loom::codegen::detail {

// The first named barrier of the turns: 0 is __syncthreads, 1..G the epilogue's per-warpgroup
// barriers (epilogue.cpp).
int64_t CudaGen::turn_barrier0() const { return 1 + compute_wgs_; }

void CudaGen::turn_begin(Stream& s) {
  s.line("loom::rt::named_barrier_sync(" + std::to_string(turn_barrier0()) +
         " + consumer_wg, 256);  // pingpong: wait for this warpgroup's turn on the tensor cores");
}

void CudaGen::turn_end(Stream& s) {
  s.line("loom::rt::named_barrier_arrive(" + std::to_string(turn_barrier0()) + " + (consumer_wg + 1) % " +
         std::to_string(compute_wgs_) + ", 256);  // pingpong: the next warpgroup's turn");
}

// Whether op writes (a piece of) root: a leaf call's written arguments, a copy's destination.
bool CudaGen::writes_root(const Op& op, ValueId root) const {
  if (op.kind == OpKind::Copy) return op.operands.size() == 2 && root_of(op.operands[1]) == root;
  if (op.kind != OpKind::Call) return false;
  const LeafOp* lo = find_leaf_op(op.name);
  for (size_t i = 0; i < op.operands.size(); ++i) {
    if (f_.info(op.operands[i]).type != ir::Type::Tensor || root_of(op.operands[i]) != root) continue;
    if (!lo || i >= lo->args.size() || lo->args[i].access != Access::Read) return true;
  }
  return false;
}

std::optional<CudaGen::Rotation> CudaGen::plan_rotation(const Op& loop) {
  if (!ws_ || compute_wgs_ < 2 || loop.pipeline_depth < 2) return std::nullopt;
  const ir::Block& body = loop.regions[0];
  std::vector<const Op*> compute;
  for (const Op& o : body.ops) {
    if (o.kind == OpKind::For || o.kind == OpKind::PFor) return std::nullopt;  // flat bodies only
    if (ir::is_async(o.kind) && o.kind != OpKind::Join && o.role != ir::Role::Dma) compute.push_back(&o);
  }
  if (compute.size() < 2 || !is_wgmma(*compute.back())) return std::nullopt;
  Rotation r;
  r.deferred = compute.back();
  for (const Op* o : compute)
    if (is_wgmma(*o)) {
      r.first = o;
      break;
    }
  if (r.first == r.deferred) return std::nullopt;
  // A hand-pipelined loop (examples/flash_attention_3) carries Q's accumulator into the next
  // iteration, whose first ops read it before Q overwrites it. Turns with the rotation miscompute
  // that (H100 2026-11-27, H200 2026-12-05: wrong and run-to-run different outputs; without
  // pingpong correct and sanitizer-clean): ptxas gives the registers of W's A fragments, which W
  // (issued under emit_deferred's guard) may still read, to the element-wise work; issuing W on
  // every path fixes that but makes ptxas serialize the wgmmas (C7513; docs/codegen.md,
  // bench/results/2026-12-05-h200-sched.md). Refuse it.
  // With pingpong(double_buffer) the deferred mma's register operands are never written while it
  // may read them (double_buffer_loop), so the loop is rotated like any other.
  bool carries = false;
  if (ValueId acc = register_origin(r.first->operands[0]); acc != kNone) {
    bool carried = true;
    for (const Op& o : body.ops)
      if (o.result == acc) carried = false;
    for (const Op* o : compute) {
      if (o == r.first || !carried) break;
      if (touches(*o, acc)) carries = true;
    }
  }
  auto refuse = [&] {
    refused_turns_ = true;
    cannot(&loop, "`pingpong` on a loop whose first wgmma (" + r.first->origin +
                      ") overwrites an accumulator that the iteration reads before it (a hand-pipelined loop's scores)",
           "leave `pingpong` off (the loop's own pipelining already overlaps the element-wise work with the next wgmma), or "
           "write `pingpong(double_buffer)`: the deferred mma's register operands in two copies (docs/codegen.md; "
           "correct, but where the loop already holds two score tiles it spills: flash_attention_3 ran at 0.48-0.82x its speed without turns)");
  };
  if (carries && !loop.pingpong_double_buffer) refuse();
  const Op& W = *r.deferred;
  // W's operand roots: defined outside the body, TMA ring tiles, or register arrays of the body
  // (hoisted; a forwarded A tile stands for its register array).
  std::set<const Op*> in_body;
  std::set<ValueId> ring;  // the tiles the body's TMA copies fill
  for (const Op& o : body.ops) {
    in_body.insert(&o);
    if (is_tma_copy(o)) ring.insert(root_of(o.operands[1]));
  }
  std::vector<ValueId> roots;
  for (ValueId v : W.operands) {
    if (f_.info(v).type != ir::Type::Tensor) continue;
    ValueId root = root_of(v);
    if (const View& w = view(v); w.frag) root = root_of(w.frag->tile);
    roots.push_back(root);
    if (ring.count(root)) {  // a ring tile (wherever allocated): released once W has run
      r.late_roots.insert(root);
      continue;
    }
    auto d = def_.find(root);
    if (d == def_.end() || !in_body.count(d->second)) continue;  // outside the loop
    // A register array, or a forwarded A tile (its packed fragments, rows.cpp).
    if (d->second->kind != OpKind::Alloc || (d->second->mem != MemKind::Register && !forwarded_.count(root)))
      return std::nullopt;
    r.hoisted.push_back(d->second);
  }
  r.double_buffer = loop.pingpong_double_buffer && !r.hoisted.empty();
  if (carries && !r.double_buffer) refuse();  // (no register operand of W to double-buffer)
  // Nothing before Q touches W's operands.
  for (const Op* o : compute) {
    if (o == r.first) break;
    for (ValueId root : roots)
      if (touches(*o, root)) return std::nullopt;  // reads or writes it
  }
  // The body's index and view values W uses, in body order (allocs hoisted instead).
  std::set<ValueId> need;
  std::vector<ValueId> work(W.operands.begin(), W.operands.end());
  std::map<ValueId, const Op*> def_in_body;
  for (const Op& o : body.ops)
    if (!ir::is_async(o.kind) && o.result != kNone) def_in_body[o.result] = &o;
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    if (need.count(v) || !def_in_body.count(v)) continue;
    need.insert(v);
    const Op* o = def_in_body[v];
    for (ValueId u : o->operands) work.push_back(u);
    for (ValueId u : o->part.block)  // a piece's block sizes
      if (u != kNone) work.push_back(u);
  }
  for (const Op& o : body.ops) {
    if (ir::is_async(o.kind) || !need.count(o.result)) continue;
    if (std::find(r.hoisted.begin(), r.hoisted.end(), &o) == r.hoisted.end()) r.immediates.push_back(&o);
  }
  r.loop = &loop;
  plan_split_release(r);
  return r;
}

// The early buffers (ring tiles W does not read) are released by their last reader in the body;
// the late ones (W's) once W has run, one iteration later, on a barrier of their own. Without a
// reader of the early buffers (or without a signal to the DMA role) the release is not split.
void CudaGen::plan_split_release(Rotation& r) {
  auto it = signal_of_loop_.find(r.loop);
  if (it == signal_of_loop_.end()) return;
  const ir::Block& body = r.loop->regions[0];
  std::vector<ValueId> early;
  for (const Op& o : body.ops)
    if (is_tma_copy(o) && !r.late_roots.count(root_of(o.operands[1]))) early.push_back(root_of(o.operands[1]));
  if (early.empty()) return;
  for (const Op& o : body.ops) {
    if (&o == r.deferred || o.role == ir::Role::Dma || !ir::is_async(o.kind)) continue;
    for (ValueId root : early)
      if (touches(o, root)) r.early_last = &o;
  }
  if (!r.early_last) return;
  const Barrier& yb = barriers_[static_cast<size_t>(signals_[static_cast<size_t>(it->second)].barrier)];
  Barrier late = yb;
  late.name += "_late";
  std::string names;
  for (const Op& o : body.ops)
    if (is_tma_copy(o) && r.late_roots.count(root_of(o.operands[1])))
      names += (names.empty() ? "" : ", ") + names_[static_cast<size_t>(o.operands[1])];
  late.comment = "compute warps done with " + names + " of iteration k of the loop at line " +
                 std::to_string(r.loop->loc.line) + " (pingpong: read by the deferred mma)";
  barriers_.push_back(late);
  signals_.push_back(Signal{static_cast<int>(barriers_.size() - 1), r.loop, signals_[static_cast<size_t>(it->second)].ring});
  r.late_signal = static_cast<int>(signals_.size() - 1);
}

// W of iteration `k` (a C++ expression) in a scope where the loop index is rebound to it; only
// if `guard` holds, when one is given.
void CudaGen::emit_deferred(Stream& s, const Rotation& r, const std::string& k, const std::string& guard) {
  const Op& W = *r.deferred;
  const std::string kv = var(r.loop->regions[0].args[0]);
  s.line((guard.empty() ? "{" : "if (" + guard + ") {") + "  // " + W.origin + " of iteration " + k +
         " (pingpong: deferred into this turn)  [" + source_ + ":" + std::to_string(W.loc.line) + "]");
  s.indent += 2;
  s.line("const int64_t " + kv + "_deferred = " + k + ";");
  s.line("{");
  s.indent += 2;
  s.line("const int64_t " + kv + " = " + kv + "_deferred;  // the index values below are that iteration's");
  for (const Op* o : r.immediates)
    for (const std::string& l : immediate_lines(*o)) s.line(l);
  const std::set<std::string> saved = s.waited;
  s.waited.clear();
  for (const EventRef& e : W.after) wait(s, W, e, r.loop);
  s.waited = saved;
  emit_call(s, W);
  s.indent -= 2;
  s.line("}");
  s.indent -= 2;
  if (guard.empty()) {
    s.line("}");
  } else {  // the wgmma wait counts after it hold in every iteration
    s.line("} else {");
    s.line("  loom::rt::wgmma_fence();  // (as on the other path: ptxas would inject it)");
    s.line("  loom::rt::wgmma_commit();  // an empty group in W's place: nothing was deferred into the first turn");
    s.line("}");
  }
}

namespace {

std::string trimmed(const std::string& l) {
  const size_t b = l.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : l.substr(b);
}

std::string indent_of(const std::string& l) { return l.substr(0, l.size() - trimmed(l).size()); }

// The line at or after `from` that is `text` at the indentation `ind` (the close of a block
// emit_deferred opened at that indentation).
size_t find_at(const std::vector<std::string>& lines, size_t from, const std::string& ind, const std::string& text) {
  for (size_t i = from; i < lines.size(); ++i)
    if (lines[i] == ind + text) return i;
  throw InternalError("codegen: double_buffer_loop: no `" + text + "` closing a deferred mma's block");
}

// `name` as a whole identifier replaced by `to` (names are v_..., so \b is the identifier's edge).
std::string renamed(const std::string& l, const std::string& name, const std::string& to) {
  std::string out;
  size_t at = 0;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = l.find(name); p != std::string::npos; p = l.find(name, p + 1)) {
    const size_t e = p + name.size();
    if ((p > 0 && ident(l[p - 1])) || (e < l.size() && ident(l[e]))) continue;
    out += l.substr(at, p - at) + to;
    at = e;
  }
  return out + l.substr(at);
}

}  // namespace

// pingpong(double_buffer): the rotated loop `for (k = 0; k < n; ++k) { body }` (lines for_line ..
// close_line of s, the body's deferred mma W(k - 1) under `if (k > 0) { W } else { empty group }`)
// becomes
//
//   if (n > 0) { k = 0: body, the empty group in W's place }           (peeled: nothing deferred)
//   for (k2 = 1; k2 + 1 < n; k2 += 2) { k = k2: body; k = k2 + 1: body }  (W on every path)
//   if (k2 < n) { k = k2: body }                                        (an odd last iteration)
//
// and iteration k writes the hoisted arrays' copy k % 2 (the name; `_odd`) while W(k - 1), in
// its body, reads the other: no register an issued wgmma may still read is written before the
// wgmma_wait that retires it, by the program's text rather than by ptxas's liveness (the guarded
// form leaves ptxas free to give W's registers to the softmax on the path without W, which it
// did: docs/codegen.md "Double-buffered turns"). The tail's W(n - 1) reads copy (n - 1) % 2. Every
// copy's text is the body's, so the stream's bookkeeping (wgmma groups, waits) done for the one
// emission holds for each.
void CudaGen::double_buffer_loop(Stream& s, const Rotation& r, size_t for_line, size_t close_line) {
  const std::string k = var(r.loop->regions[0].args[0]), n = var(r.loop->operands[0]);
  std::vector<std::string> names;
  for (const Op* h : r.hoisted) names.push_back(var(h->result));
  if (for_line >= close_line || trimmed(s.lines[for_line]).rfind("for (int64_t " + k + " = 0; ", 0) != 0)
    throw InternalError("codegen: double_buffer_loop: the rotated loop is not `for (" + k + " = 0; ...)`");
  const std::string ind = indent_of(s.lines[for_line]);
  const std::vector<std::string> body(s.lines.begin() + static_cast<long>(for_line) + 1, s.lines.begin() + static_cast<long>(close_line));
  const std::string guard = "if (" + k + " > 0) {  // ";
  // The body for iteration parity `odd` (peeled: k = 0, the empty group), `extra` more spaces.
  auto copy = [&](bool peeled, bool odd, const std::string& extra) {
    auto rename = [&](std::string l, bool odd_copy) {
      if (odd_copy)
        for (const std::string& a : names) l = renamed(l, a, a + "_odd");
      return extra + l;
    };
    std::vector<std::string> out;
    for (size_t i = 0; i < body.size(); ++i) {
      const std::string& l = body[i];
      if (trimmed(l).rfind(guard, 0) != 0 || l.find("(pingpong: deferred into this turn)") == std::string::npos) {
        out.push_back(rename(l, odd));  // this iteration's arrays
        continue;
      }
      const std::string li = indent_of(l);
      const size_t els = find_at(body, i + 1, li, "} else {"), end = find_at(body, els + 1, li, "}");
      if (peeled) {
        out.push_back(extra + li + "{  // nothing was deferred into iteration 0 (peeled): an empty group in W's place");
        for (size_t j = els + 1; j < end; ++j) out.push_back(rename(body[j], odd));
      } else {
        out.push_back(extra + li + "{  // " + l.substr(li.size() + guard.size()));  // W of iteration k - 1 ...
        for (size_t j = i + 1; j < els; ++j) out.push_back(rename(body[j], !odd));  // W(k - 1): the other copy
      }
      out.push_back(extra + li + "}");
      i = end;
    }
    return out;
  };
  std::string arrays;
  for (const std::string& a : names) arrays += (arrays.empty() ? "" : ", ") + a + " / " + a + "_odd";
  const std::string k2 = k + "_next";
  std::vector<std::string> out = {
      ind + "// pingpong(double_buffer): iteration k writes " + arrays + " by k % 2 and its deferred mma reads the other",
      ind + "if (" + n + " > 0) {  // iteration 0, peeled",
      ind + "  const int64_t " + k + " = 0;"};
  for (std::string& l : copy(true, false, "")) out.push_back(std::move(l));
  out.push_back(ind + "}");
  out.push_back(ind + "int64_t " + k2 + " = 1;");
  out.push_back(ind + "for (; " + k2 + " + 1 < " + n + "; " + k2 + " += 2) {  // two iterations a trip: odd, then even");
  for (bool odd : {true, false}) {
    out.push_back(ind + "  {");
    out.push_back(ind + "    const int64_t " + k + " = " + k2 + (odd ? "" : " + 1") + ";");
    for (std::string& l : copy(false, odd, "  ")) out.push_back(std::move(l));
    out.push_back(ind + "  }");
  }
  out.push_back(ind + "}");
  out.push_back(ind + "if (" + k2 + " < " + n + ") {  // an odd last iteration");
  out.push_back(ind + "  const int64_t " + k + " = " + k2 + ";");
  for (std::string& l : copy(false, true, "")) out.push_back(std::move(l));
  out.push_back(ind + "}");
  // After the loop: W(n - 1) reads the copy the last iteration wrote.
  std::vector<std::string> tail(s.lines.begin() + static_cast<long>(close_line) + 1, s.lines.end());
  size_t w = 0;
  while (w < tail.size() && (trimmed(tail[w]).rfind("{  // ", 0) != 0 || tail[w].find("(pingpong: deferred into this turn)") == std::string::npos))
    ++w;
  if (w == tail.size()) throw InternalError("codegen: double_buffer_loop: no deferred mma after the loop");
  const std::string wi = indent_of(tail[w]);
  const size_t wend = find_at(tail, w + 1, wi, "}");
  std::vector<std::string> t(tail.begin(), tail.begin() + static_cast<long>(w));
  t.push_back(wi + "if (((" + n + " - 1) & 1) == 0) {  // the last iteration wrote the even copy");
  for (size_t j = w; j <= wend; ++j) t.push_back("  " + tail[j]);
  t.push_back(wi + "} else {");
  for (size_t j = w; j <= wend; ++j) {
    std::string l = tail[j];
    for (const std::string& a : names) l = renamed(l, a, a + "_odd");
    t.push_back("  " + l);
  }
  t.push_back(wi + "}");
  t.insert(t.end(), tail.begin() + static_cast<long>(wend) + 1, tail.end());
  s.lines.resize(for_line);
  s.lines.insert(s.lines.end(), out.begin(), out.end());
  s.lines.insert(s.lines.end(), t.begin(), t.end());
}

}  // namespace loom::codegen::detail

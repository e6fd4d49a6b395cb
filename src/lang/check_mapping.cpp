// Stage 2 of checking: the mapping against the machine model and the variants — processors,
// memories and their visibility, tunable values, dispatch of every child launch, entry, and the
// per-instance options (warp specialization, pipeline, shared-memory budget, layouts).
// See include/loom/check.h; tests: tests/errors/mapping_*.loom.
#include <algorithm>

#include "lang/check_internal.h"
#include "loom/frontend.h"

namespace loom::check_detail {

namespace {

// Evaluates a constant integer expression (tunable values); nullopt when it is not one.
std::optional<int64_t> const_int(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int: return e.ival;
    case ExprKind::Unary: {
      auto a = const_int(e.args[0]);
      if (!a || *a == INT64_MIN) return std::nullopt;
      return -*a;
    }
    case ExprKind::Binary: {
      auto a = const_int(e.args[0]), b = const_int(e.args[1]);
      if (!a || !b) return std::nullopt;
      int64_t out = 0;
      switch (e.op) {
        case '+': if (__builtin_add_overflow(*a, *b, &out)) return std::nullopt; return out;
        case '-': if (__builtin_sub_overflow(*a, *b, &out)) return std::nullopt; return out;
        case '*': if (__builtin_mul_overflow(*a, *b, &out)) return std::nullopt; return out;
        case '/': if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt; return *a / *b;
        case '%': if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt; return *a % *b;
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

const char* kLayoutAttrs[] = {"row_major", "col_major", "swizzle32", "swizzle64", "swizzle128", "noswizzle"};

}  // namespace

const Machine* check_mapping(const Program& p, Reporter& r, const std::map<std::string, VariantInfo>& variants) {
  const Mapping& m = *p.mapping;
  const Machine* machine = find_machine(m.target.name);
  if (!machine) {
    auto& d = r.error(m.target.loc, "unknown target machine '" + m.target.name + "'");
    d.hint = "targets are sm_90a (hopper) and sm_80 (ampere)";
    return nullptr;
  }
  std::map<std::string, const Instance*> by_name;
  for (const Instance& in : m.instances) {
    auto [it, fresh] = by_name.emplace(in.name.name, &in);
    if (!fresh) {
      auto& d = r.error(in.name.loc, "duplicate instance '" + in.name.name + "'");
      DiagnosticEngine::note(d, it->second->name.loc, "instance '" + in.name.name + "' is first declared here");
    }
  }
  std::vector<std::string> instance_names, variant_names;
  for (const Instance& in : m.instances) instance_names.push_back(in.name.name);
  for (const VariantDecl& v : p.variants) variant_names.push_back(v.name.name);

  const Instance* entry = nullptr;
  bool any_entry = std::any_of(m.instances.begin(), m.instances.end(), [](const Instance& in) { return in.entry; });
  for (const Instance& in : m.instances) {
    if (by_name[in.name.name] != &in) continue;  // duplicate, already reported
    auto vit = variants.find(in.variant.name);
    if (vit != variants.end() && !vit->second.valid) continue;  // the variant's own error was reported
    if (vit == variants.end()) {
      auto& d = r.error(in.variant.loc, "instance '" + in.name.name + "' uses unknown variant '" + in.variant.name + "'");
      d.hint = did_you_mean(in.variant.name, variant_names);
      continue;
    }
    const VariantInfo& vi = vit->second;
    const VariantDecl& v = *vi.decl;
    const TaskDecl& t = *vi.task;

    // Processor.
    auto proc = parse_proc(in.processor.name);
    if (!proc || machine->depth(*proc) < 0) {
      auto& d = r.error(in.processor.loc, "unknown processor level '" + in.processor.name + "' on " + machine->target);
      std::string levels;
      for (const ProcLevel& l : machine->levels) levels += std::string(levels.empty() ? "" : ", ") + proc_name(l.kind);
      d.hint = machine->target + " has " + levels;
      continue;
    }
    if (!v.processors.empty() &&
        std::none_of(v.processors.begin(), v.processors.end(), [&](const Ident& i) { return i.name == in.processor.name; })) {
      std::string allowed;
      for (const Ident& i : v.processors) allowed += (allowed.empty() ? "" : ", ") + i.name;
      auto& d = r.error(in.processor.loc, "instance '" + in.name.name + "' maps variant '" + v.name.name + "' to " +
                                              in.processor.name + ", but the variant runs only on " + allowed);
      DiagnosticEngine::note(d, v.processors.front().loc, "'" + v.name.name + "' declares where it runs here");
    }
    if (v.kind == VariantKind::Leaf && *proc == ProcKind::Host) {
      auto& d = r.error(in.processor.loc, "leaf variant '" + v.name.name + "' cannot run on HOST: leaf code runs on the device");
      d.hint = "map leaf variants to THREAD (or another device level)";
    }

    // Memories: one per tensor parameter, visible from the processor.
    std::vector<const Param*> tensors;
    for (const Param& prm : t.params)
      if (prm.is_tensor) tensors.push_back(&prm);
    if (in.mems.size() != tensors.size()) {
      std::string names;
      for (const Param* prm : tensors) names += (names.empty() ? "" : ", ") + prm->name.name;
      auto& d = r.error(in.mem_loc.valid() ? in.mem_loc : in.name.loc,
                        "instance '" + in.name.name + "' gives " + std::to_string(in.mems.size()) +
                            " memories but task '" + t.name.name + "' has " + std::to_string(tensors.size()) +
                            " tensor parameters (" + names + ")");
      d.hint = "write one memory per tensor parameter, in order: mem(GLOBAL, SHARED, ...)";
    } else {
      for (size_t i = 0; i < tensors.size(); ++i) {
        const Ident& mid = in.mems[i];
        auto mem = parse_mem(mid.name);
        if (!mem) {
          auto& d = r.error(mid.loc, "unknown memory '" + mid.name + "'");
          d.hint = did_you_mean(mid.name, {"GLOBAL", "SHARED", "REGISTER", "NONE"});
          if (d.hint.empty()) d.hint = "memories are GLOBAL, SHARED, REGISTER and NONE";
          continue;
        }
        if (!machine->visible(*mem, *proc)) {
          auto& d = r.error(mid.loc, std::string(mem_name(*mem)) + " memory is not visible from " + proc_name(*proc) +
                                         " (tensor '" + tensors[i]->name.name + "' of instance '" + in.name.name + "')");
          std::string vis;
          for (const MemorySpace& ms : machine->memories)
            if (machine->visible(ms.kind, *proc)) vis += (vis.empty() ? "" : ", ") + std::string(mem_name(ms.kind));
          d.hint = std::string(proc_name(*proc)) + " sees " + vis + " (or NONE to leave the tensor unmaterialized)";
        }
        if (*mem == MemKind::None && v.kind == VariantKind::Leaf) {
          auto& d = r.error(mid.loc, "leaf instance '" + in.name.name + "' maps '" + tensors[i]->name.name +
                                         "' to NONE, but a leaf variant accesses its data");
          d.hint = "give the tensor a memory the leaf can read (REGISTER, SHARED or GLOBAL)";
        }
      }
    }

    // Tunables.
    std::map<std::string, SourceLoc> given;
    for (const TuneValue& tv : in.tunes) {
      bool declared = std::any_of(v.tunables.begin(), v.tunables.end(), [&](const Ident& i) { return i.name == tv.name.name; });
      if (!declared) {
        std::vector<std::string> names;
        for (const Ident& i : v.tunables) names.push_back(i.name);
        auto& d = r.error(tv.name.loc, "variant '" + v.name.name + "' has no tunable '" + tv.name.name + "'");
        d.hint = names.empty() ? "'" + v.name.name + "' declares no tunables" : did_you_mean(tv.name.name, names);
        DiagnosticEngine::note(d, v.name.loc, "variant '" + v.name.name + "' is declared here");
        continue;
      }
      if (auto [it, fresh] = given.emplace(tv.name.name, tv.name.loc); !fresh) {
        auto& d = r.error(tv.name.loc, "tunable '" + tv.name.name + "' is given twice");
        DiagnosticEngine::note(d, it->second, "'" + tv.name.name + "' is first given here");
        continue;
      }
      auto val = const_int(tv.value);
      if (!val) {
        r.error(tv.value.loc, "the value of tunable '" + tv.name.name + "' must be a constant integer, found '" +
                                  format_expr(tv.value) + "'");
      } else if (*val <= 0) {
        r.error(tv.value.loc, "tunable '" + tv.name.name + "' must be positive, found " + std::to_string(*val));
      }
    }
    for (const Ident& tu : v.tunables) {
      if (!given.count(tu.name)) {
        auto& d = r.error(in.name.loc, "tunable '" + tu.name + "' of variant '" + v.name.name + "' has no value in instance '" +
                                           in.name.name + "'");
        d.hint = "add tune(" + tu.name + "=...) to the instance";
        DiagnosticEngine::note(d, tu.loc, "'" + tu.name + "' is declared here");
      }
    }

    // Dispatch: every launch has an instance; every call(...) key matches a launch.
    if (v.kind == VariantKind::Leaf && !in.calls.empty()) {
      r.error(in.calls.front().key.loc, "leaf variant '" + v.name.name + "' launches no tasks; remove call(...)");
    }
    std::map<std::string, SourceLoc> keys;
    for (const Dispatch& dsp : in.calls) {
      if (auto [it, fresh] = keys.emplace(dsp.key.name, dsp.key.loc); !fresh) {
        auto& d = r.error(dsp.key.loc, "'" + dsp.key.name + "' is dispatched twice");
        DiagnosticEngine::note(d, it->second, "'" + dsp.key.name + "' is first given here");
        continue;
      }
      const LaunchSite* site = nullptr;
      for (const LaunchSite& ls : vi.launches)
        if (ls.label == dsp.key.name || ls.task == dsp.key.name) {
          site = &ls;
          break;
        }
      if (!site && v.kind == VariantKind::Inner) {
        auto& d = r.error(dsp.key.loc, "instance '" + in.name.name + "' dispatches '" + dsp.key.name + "', but variant '" +
                                           v.name.name + "' launches no task or label of that name");
        DiagnosticEngine::note(d, v.name.loc, "variant '" + v.name.name + "' is declared here");
        continue;
      }
      auto target = by_name.find(dsp.instance.name);
      if (target == by_name.end()) {
        auto& d = r.error(dsp.instance.loc, "unknown instance '" + dsp.instance.name + "'");
        d.hint = did_you_mean(dsp.instance.name, instance_names);
        continue;
      }
      auto tv = variants.find(target->second->variant.name);
      if (site && tv != variants.end() && tv->second.valid && tv->second.task->name.name != site->task) {
        auto& d = r.error(dsp.instance.loc, "instance '" + dsp.instance.name + "' runs variant '" + tv->first +
                                                "' of task '" + tv->second.task->name.name + "', but '" + dsp.key.name +
                                                "' launches task '" + site->task + "'");
        DiagnosticEngine::note(d, site->stmt->target.loc, "the launch is here");
      }
    }
    for (const LaunchSite& ls : vi.launches) {
      bool ok = (!ls.label.empty() && keys.count(ls.label)) || keys.count(ls.task);
      if (!ok) {
        auto& d = r.error(in.name.loc, "launch of '" + ls.task + "' in variant '" + v.name.name +
                                           "' has no dispatch in instance '" + in.name.name + "'");
        d.hint = "add call(" + (ls.label.empty() ? ls.task : ls.label) + ": <instance>) to the instance";
        DiagnosticEngine::note(d, ls.stmt->target.loc, "the launch is here");
      }
    }

    // Per-instance options.
    auto block_only = [&](SourceLoc loc, const char* what) {
      if (*proc != ProcKind::Block) {
        auto& d = r.error(loc, std::string(what) + " applies to a BLOCK instance; '" + in.name.name + "' runs on " +
                                   proc_name(*proc));
        d.hint = "move it to the instance that runs the block's task variant";
      }
    };
    if (in.warp_specialize) block_only(in.ws_loc, in.warp_specialize.value() ? "warpspecialize" : "nowarpspecialize");
    if (in.pipeline) {
      block_only(in.pipeline_loc, "pipeline(...)");
      if (*in.pipeline < 1 || *in.pipeline > 16) {
        r.error(in.pipeline_loc, "pipeline depth must be between 1 and 16, found " + std::to_string(*in.pipeline));
      } else if (!vi.has_srange) {
        auto& d = r.error(in.pipeline_loc, "pipeline(" + std::to_string(*in.pipeline) + ") on instance '" + in.name.name +
                                               "', but variant '" + v.name.name + "' has no srange loop to pipeline");
        d.hint = "pipelining applies to the srange loop of a block-level variant";
      }
    }
    if (in.pingpong) {
      block_only(in.pingpong_loc, "pingpong");
      if (!in.warp_specialize.value_or(false) && !in.schedule_optimal) {  // (schedule(optimal) keeps a DMA role for it)
        auto& d = r.error(in.pingpong_loc, "pingpong on instance '" + in.name.name +
                                               "' without warpspecialize: the warpgroups that take turns are the compute role's");
        d.hint = "add warpspecialize (and pipeline(2) or deeper) to the instance, or schedule(optimal)";
      } else if (!vi.has_srange) {
        auto& d = r.error(in.pingpong_loc, "pingpong on instance '" + in.name.name + "', but variant '" + v.name.name +
                                               "' has no srange loop whose tensor-core work could take turns");
        d.hint = "pingpong applies to the srange loop of a block-level variant";
      }
    }
    if (in.splitk) {
      block_only(in.splitk_loc, "splitk(...)");
      const int64_t most = machine->limits.cluster_blocks;
      if (most <= 1) {
        auto& d = r.error(in.splitk_loc, "splitk(" + std::to_string(*in.splitk) + ") needs thread-block clusters, which " +
                                             machine->target + " does not have");
        d.hint = "remove splitk, or map for sm_90a";
      } else if (*in.splitk < 1 || *in.splitk > most) {
        auto& d = r.error(in.splitk_loc, "splitk(" + std::to_string(*in.splitk) + ") must be between 1 and " +
                                             std::to_string(most) + " (the blocks of a portable cluster on " + machine->target + ")");
        d.hint = "splitk(2) or splitk(4) split a long K loop between two or four blocks";
      } else if (*proc == ProcKind::Block && !vi.has_srange) {
        auto& d = r.error(in.splitk_loc, "splitk(" + std::to_string(*in.splitk) + ") on instance '" + in.name.name +
                                             "', but variant '" + v.name.name + "' has no srange loop whose sum could be split");
        d.hint = "splitk applies to the block variant whose srange loop walks K (gemm_block's `srange k in cdiv(K, W)`)";
      }
    }
    if (in.schedule_optimal) {
      block_only(in.schedule_loc, "schedule(optimal)");
      if (in.schedule_budget && (*in.schedule_budget < 1 || *in.schedule_budget > Instance::kMaxScheduleBudget)) {
        auto& d = r.error(in.schedule_budget_loc, "schedule(optimal, budget=" + std::to_string(*in.schedule_budget) +
                                                      "): the budget is in millions of solver units, from 1 to " +
                                                      std::to_string(Instance::kMaxScheduleBudget));
        d.hint = "the default is " + std::to_string(Instance::kDefaultScheduleBudget) +
                 " (about a second of solver work); each million is about a quarter second";
      }
      if (in.pipeline || in.warp_specialize) {
        const std::string given = in.pipeline ? "pipeline(" + std::to_string(*in.pipeline) + ")"
                                              : (*in.warp_specialize ? "warpspecialize" : "nowarpspecialize");
        auto& d = r.error(in.schedule_loc, "schedule(optimal) on instance '" + in.name.name + "' chooses the warp specialization and the " +
                                               "pipeline depth, but the instance also gives " + given);
        d.hint = "remove " + given + ", or remove schedule(optimal) to keep the hand-written schedule";
      } else if (*proc == ProcKind::Block && !vi.has_srange) {
        auto& d = r.error(in.schedule_loc, "schedule(optimal) on instance '" + in.name.name + "', but variant '" + v.name.name +
                                               "' has no srange loop to schedule");
        d.hint = "schedule(optimal) applies to the block variant whose srange loop the kernel pipelines";
      }
    }
    if (in.streamk) {
      block_only(in.streamk_loc, "streamk");
      if (in.splitk && *in.splitk > 1) {
        auto& d = r.error(in.streamk_loc, "streamk together with splitk(" + std::to_string(*in.splitk) + ") on instance '" +
                                              in.name.name + "': a loop's iterations are shared one way or the other");
        d.hint = "keep one: splitk(S) shares a tile's K loop within a cluster, streamk shares all tiles' K loops between all SMs";
      } else if (*proc == ProcKind::Block && !vi.has_srange) {
        auto& d = r.error(in.streamk_loc, "streamk on instance '" + in.name.name + "', but variant '" + v.name.name +
                                              "' has no srange loop whose sum could be shared");
        d.hint = "streamk applies to the block variant whose srange loop walks K (gemm_block's `srange k in cdiv(K, W)`)";
      }
    }
    if (in.multicast) {
      block_only(in.multicast_loc, "multicast(...)");
      const int64_t most = machine->limits.cluster_blocks;
      const int64_t inner = in.multicast_n.value_or(1);
      const std::string mc =
          "multicast(" + std::to_string(*in.multicast) + (in.multicast_n ? ", " + std::to_string(*in.multicast_n) : "") + ")";
      if (most <= 1) {
        auto& d = r.error(in.multicast_loc, mc + " needs thread-block clusters, which " + machine->target + " does not have");
        d.hint = "remove multicast, or map for sm_90a";
      } else if (*in.multicast < 1 || *in.multicast > most) {
        auto& d = r.error(in.multicast_loc, mc + " must be between 1 and " + std::to_string(most) +
                                                " (the blocks of a portable cluster on " + machine->target + ")");
        d.hint = "multicast(2): two blocks on neighbouring row tiles load the column panel they share once";
      } else if (inner < 1 || inner > most || *in.multicast * inner > most) {  // (inner > most first: no overflow)
        auto& d = r.error(in.multicast_loc, mc + ": a cluster of " + std::to_string(*in.multicast) + " x " + std::to_string(inner) +
                                                " blocks; the second extent must be at least 1 and the product at most " +
                                                std::to_string(most) + " (the blocks of a portable cluster on " + machine->target + ")");
        d.hint = "multicast(2, 2): four blocks on 2 x 2 neighbouring tiles, sharing B between rows and A between columns";
      } else if ((in.splitk && *in.splitk > 1) || in.streamk) {
        auto& d = r.error(in.multicast_loc, mc + " together with " +
                                                (in.streamk ? std::string("streamk") : "splitk(" + std::to_string(*in.splitk) + ")") +
                                                " on instance '" + in.name.name + "': a cluster runs either neighbouring tiles or one tile's shares");
        d.hint = "keep one: multicast(S) shares loads between neighbouring tiles, splitk/streamk share one tile's K loop";
      } else if (*proc == ProcKind::Block && !vi.has_srange) {
        auto& d = r.error(in.multicast_loc, mc + " on instance '" + in.name.name + "', but variant '" + v.name.name +
                                                "' has no srange loop whose loads could be shared");
        d.hint = "multicast applies to the block variant whose srange loop the producer pipelines (gemm_block's `srange k in cdiv(K, W)`)";
      } else if (*proc == ProcKind::Block && *in.multicast > 1 && !in.warp_specialize.value_or(false) && !in.schedule_optimal) {
        auto& d = r.error(in.multicast_loc, mc + " on instance '" + in.name.name +
                                                "' without warpspecialize: the multicast loads are the DMA role's");
        d.hint = "add warpspecialize and pipeline(2) or deeper to the instance";
      }
    }
    if (in.alternate) {
      block_only(in.alternate_loc, "alternate(...)");
      const std::string alt = "alternate(" + std::to_string(*in.alternate) + ")";
      std::string other;
      if (in.splitk && *in.splitk > 1) other = "splitk(" + std::to_string(*in.splitk) + ")";
      if (in.streamk) other = "streamk";
      if (in.pingpong) other = "pingpong";
      if (*in.alternate < 1 || *in.alternate > 4) {
        auto& d = r.error(in.alternate_loc, alt + " must be between 1 and 4 (teams of compute warpgroups in one block)");
        d.hint = "alternate(2): two warpgroups take the block's tiles in turn, one's epilogue under the other's main loop";
      } else if (!other.empty() && *in.alternate > 1) {
        auto& d = r.error(in.alternate_loc, alt + " together with " + other + " on instance '" + in.name.name +
                                                "': the teams run whole tiles of their own");
        d.hint = "keep one: alternate(T) overlaps one tile's epilogue with another's main loop; " + other +
                 " changes how a tile's work is shared";
      } else if (*proc == ProcKind::Block && !vi.has_srange) {
        auto& d = r.error(in.alternate_loc, alt + " on instance '" + in.name.name + "', but variant '" + v.name.name +
                                                "' has no srange loop whose ring the teams could share");
        d.hint = "alternate applies to the block variant whose srange loop the producer pipelines (gemm_block's `srange k in cdiv(K, W)`)";
      } else if (*proc == ProcKind::Block && *in.alternate > 1 && !in.warp_specialize.value_or(false) && !in.schedule_optimal) {
        auto& d = r.error(in.alternate_loc, alt + " on instance '" + in.name.name +
                                                "' without warpspecialize: the teams are the compute role's warpgroups");
        d.hint = "add warpspecialize and pipeline(2) or deeper to the instance";
      }
    }
    if (in.kteams) {
      block_only(in.kteams_loc, "kteams(...)");
      const std::string kt = "kteams(" + std::to_string(*in.kteams) + ")";
      std::string other;
      if (in.splitk && *in.splitk > 1) other = "splitk(" + std::to_string(*in.splitk) + ")";
      if (in.streamk) other = "streamk";
      if (in.pingpong) other = "pingpong";
      if (in.alternate && *in.alternate > 1) other = "alternate(" + std::to_string(*in.alternate) + ")";
      if (*in.kteams < 1 || *in.kteams > 4) {
        auto& d = r.error(in.kteams_loc, kt + " must be between 1 and 4 (teams of compute warpgroups in one block)");
        d.hint = "kteams(2): two warpgroups share each tile's K loop, every other K step each";
      } else if (!other.empty() && *in.kteams > 1) {
        auto& d = r.error(in.kteams_loc, kt + " together with " + other + " on instance '" + in.name.name +
                                             "': the teams share every tile's K loop");
        d.hint = "keep one: kteams(T) splits a tile's K steps between teams of warpgroups; " + other +
                 (other.rfind("alternate", 0) == 0 ? " gives the teams whole tiles" : " changes how a tile's work is shared");
      } else if (*proc == ProcKind::Block && !vi.has_srange) {
        auto& d = r.error(in.kteams_loc, kt + " on instance '" + in.name.name + "', but variant '" + v.name.name +
                                             "' has no srange loop whose iterations the teams could share");
        d.hint = "kteams applies to the block variant whose srange loop the producer pipelines (gemm_block's `srange k in cdiv(K, W)`)";
      } else if (*proc == ProcKind::Block && *in.kteams > 1 && !in.warp_specialize.value_or(false) && !in.schedule_optimal) {
        auto& d = r.error(in.kteams_loc, kt + " on instance '" + in.name.name +
                                             "' without warpspecialize: the teams are the compute role's warpgroups");
        d.hint = "add warpspecialize and pipeline(" + std::to_string(2 * *in.kteams) + ") to the instance";
      } else if (*in.kteams > 1 && in.pipeline && *in.pipeline % *in.kteams != 0) {
        const int64_t T = *in.kteams;
        auto& d = r.error(in.pipeline_loc.valid() ? in.pipeline_loc : in.kteams_loc,
                          kt + " with pipeline(" + std::to_string(*in.pipeline) + "): the ring's depth must be a multiple of the teams");
        d.hint = "each ring slot serves one team (its barrier's phases are told apart by parity); pipeline(" +
                 std::to_string((*in.pipeline + T - 1) / T * T) + ") keeps it so";
      }
    }
    if (in.regs) {
      block_only(in.regs_loc, "regs(...)");
      const Limits& l = machine->limits;
      const auto [dma, compute] = *in.regs;
      const std::string rg = "regs(" + std::to_string(dma) + ", " + std::to_string(compute) + ")";
      auto legal = [&](int64_t n) { return n >= l.setmaxnreg_min && n <= l.setmaxnreg_max && n % l.setmaxnreg_step == 0; };
      if (l.setmaxnreg_step <= 0) {
        auto& d = r.error(in.regs_loc, rg + " needs per-warpgroup register counts (setmaxnreg), which " + machine->target +
                                           " does not have");
        d.hint = "remove regs, or map for sm_90a";
      } else if (!legal(dma) || !legal(compute)) {
        auto& d = r.error(in.regs_loc, rg + ": " + std::to_string(legal(dma) ? compute : dma) +
                                           " is not a register count setmaxnreg can give a warpgroup on " + machine->target + " (" +
                                           std::to_string(l.setmaxnreg_min) + " to " + std::to_string(l.setmaxnreg_max) +
                                           ", a multiple of " + std::to_string(l.setmaxnreg_step) + ")");
        d.hint = "regs(24, 240): the DMA warpgroup keeps 24 registers a thread, each compute warpgroup gets 240";
      } else if (in.schedule_optimal) {
        auto& d = r.error(in.regs_loc, "schedule(optimal) on instance '" + in.name.name +
                                           "' chooses the register split from the schedule, but the instance also gives " + rg);
        d.hint = "remove " + rg + ", or remove schedule(optimal) to keep the hand-written settings";
      } else if (*proc == ProcKind::Block && !in.warp_specialize.value_or(false)) {
        auto& d = r.error(in.regs_loc, rg + " on instance '" + in.name.name +
                                           "' without warpspecialize: the split is between the DMA and the compute warpgroups");
        d.hint = "add warpspecialize and pipeline(2) or deeper to the instance";
      }
    }
    if (in.smem_bytes) {
      block_only(in.smem_loc, "smem(...)");
      int64_t limit = machine->limits.smem_per_block;
      if (*in.smem_bytes <= 0 || *in.smem_bytes > limit) {
        auto& d = r.error(in.smem_loc, "shared-memory budget " + in.smem_spelling + " (" + std::to_string(*in.smem_bytes) +
                                           " bytes) is outside what a block can have on " + machine->target + " (1.." +
                                           std::to_string(limit) + " bytes)");
        d.hint = "the largest budget is smem(" + std::to_string(limit / 1024) + "KB)";
      }
    }
    std::map<std::string, SourceLoc> laid;
    for (const LayoutSpec& ls : in.layouts) {
      bool is_tensor = std::any_of(tensors.begin(), tensors.end(), [&](const Param* prm) { return prm->name.name == ls.arg.name; });
      if (!is_tensor) {
        auto& d = r.error(ls.arg.loc, "layout(...) names '" + ls.arg.name + "', which is not a tensor parameter of task '" +
                                          t.name.name + "'");
        std::vector<std::string> names;
        for (const Param* prm : tensors) names.push_back(prm->name.name);
        d.hint = did_you_mean(ls.arg.name, names);
        continue;
      }
      if (auto [it, fresh] = laid.emplace(ls.arg.name, ls.arg.loc); !fresh) {
        auto& d = r.error(ls.arg.loc, "layout of '" + ls.arg.name + "' is given twice");
        DiagnosticEngine::note(d, it->second, "'" + ls.arg.name + "' is first given here");
        d.hint = "give all attributes of one tensor in one entry, e.g. layout(A: row_major swizzle128)";
      }
      int orders = 0, swizzles = 0;
      for (const Ident& a : ls.attrs) {
        bool known = std::any_of(std::begin(kLayoutAttrs), std::end(kLayoutAttrs), [&](const char* k) { return a.name == k; });
        if (!known) {
          auto& d = r.error(a.loc, "unknown layout attribute '" + a.name + "'");
          d.hint = "attributes are row_major, col_major, swizzle32, swizzle64, swizzle128, noswizzle";
          continue;
        }
        (a.name == "row_major" || a.name == "col_major") ? ++orders : ++swizzles;
      }
      if (orders > 1 || swizzles > 1) {
        auto& d = r.error(ls.arg.loc, "layout of '" + ls.arg.name + "' gives more than one order or more than one swizzle");
        d.hint = "choose one of row_major / col_major and at most one swizzle";
      }
    }

    // Entry.
    if (in.entry) {
      if (entry) {
        auto& d = r.error(in.entry_loc, "more than one entry instance ('" + entry->name.name + "' and '" + in.name.name + "')");
        DiagnosticEngine::note(d, entry->entry_loc, "the first entry is here");
        continue;
      }
      entry = &in;
      if (*proc != ProcKind::Host) {
        auto& d = r.error(in.processor.loc, "the entry instance '" + in.name.name + "' must run on HOST, not " +
                                                in.processor.name);
        d.hint = "the entry is the host-side root of the task tree";
      }
      std::set<std::string> bound;
      for (const TypeBinding& b : in.entry_types) {
        bool is_param = std::any_of(t.type_params.begin(), t.type_params.end(), [&](const Ident& i) { return i.name == b.name.name; });
        if (!is_param) {
          auto& d = r.error(b.name.loc, "task '" + t.name.name + "' has no type parameter '" + b.name.name + "'");
          DiagnosticEngine::note(d, t.name.loc, "task '" + t.name.name + "' is declared here");
        } else if (!bound.insert(b.name.name).second) {
          r.error(b.name.loc, "type parameter '" + b.name.name + "' is bound twice");
        }
        if (!parse_dtype(b.type.name)) {
          auto& d = r.error(b.type.loc, "unknown element type '" + b.type.name + "'");
          d.hint = "element types are f16, bf16, f32, i32";
        }
      }
      for (const Ident& tp : t.type_params)
        if (!bound.count(tp.name)) {
          auto& d = r.error(in.entry_loc, "entry instance '" + in.name.name + "' does not bind type parameter '" + tp.name +
                                              "' of task '" + t.name.name + "'");
          d.hint = "write entry(" + tp.name + "=bf16) (or another element type)";
          DiagnosticEngine::note(d, tp.loc, "'" + tp.name + "' is declared here");
        }
    } else if (!in.entry_types.empty()) {
      r.error(in.entry_types.front().name.loc, "type bindings belong to the entry instance");
    }
  }
  if (!any_entry) {
    auto& d = r.error(m.loc, "the mapping has no entry instance");
    d.hint = "mark the root instance (on HOST) with 'entry'";
  }
  return machine;
}

}  // namespace loom::check_detail

// The CUDA back end's public entry points (cuda.h): one mapping's kernel (generated with epilogue
// staging when it fits, else again without), and a program with specialized mappings: one kernel per
// mapping in a namespace of its own and a dispatching launcher that evaluates the when(...)
// conditions. The generator itself is CudaGen (cuda_gen.h, one concept per file).
#include "codegen/cuda.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/cuda_gen.h"

namespace loom::codegen {
namespace {

using detail::CudaGen;

// The async-copy variant of a mapping's kernel (the producer loads by cp.async, no TMA), or "" when
// the back end cannot lower the mapping that way (then misaligned arguments stay LOOM_ERR_ALIGN).
// Lowered first, so that the TMA kernel's launcher can hand misaligned calls to it.
std::string async_copy_variant(const ir::Function& f, const std::string& source) {
  if (!f.warp_roles) return "";  // no producer role: no copies to make another way
  try {
    CudaGen variant(f, source, /*staging_allowed=*/false, detail::Producer::AsyncCopy);
    variant.run();
    return variant.body();
  } catch (const CompileError&) {
    return "";  // the TMA kernel reports what it cannot lower; without it, no variant is needed
  }
}

// One mapping's kernel: with epilogue staging when it fits the block's budget — whole tiles, else
// 4, 2 or 1 of a tile's 128-byte slices at a time (a deep ring leaves less room) — else without;
// and its async-copy variant, which its launcher calls when the TMA cannot address an argument.
std::unique_ptr<CudaGen> generate_one(const ir::Function& f, const std::string& source, CudaArtifact& out) {
  const std::string variant = async_copy_variant(f, source);
  for (int64_t slices : {int64_t{1} << 20, int64_t{4}, int64_t{2}, int64_t{1}}) {
    auto staged = std::make_unique<CudaGen>(f, source, /*staging_allowed=*/true);
    staged->set_async_copy_variant(variant);
    staged->set_stage_slices(slices);
    out = staged->run();
    if (!staged->staging_over_budget()) return staged;
  }
  auto direct = std::make_unique<CudaGen>(f, source, /*staging_allowed=*/false);
  direct->set_async_copy_variant(variant);
  out = direct->run();
  return direct;
}

// A `when(...)` as C++ over the launcher's locals (dimension names are int64_t locals, SMS too).
std::string condition_cpp(const ir::SizeExpr& e) {
  using Kind = ir::SizeExpr::Kind;
  switch (e.kind) {
    case Kind::Int: return std::to_string(e.value);
    case Kind::Name: return "v_" + e.name;
    case Kind::Neg: return "(-" + condition_cpp(e.args.at(0)) + ")";
    case Kind::Binary:
      return "(" + condition_cpp(e.args.at(0)) + " " + std::string(1, e.op) + " " + condition_cpp(e.args.at(1)) + ")";
    case Kind::Call:
      return "loom_" + e.name + "(" + condition_cpp(e.args.at(0)) + ", " + condition_cpp(e.args.at(1)) + ")";
  }
  throw InternalError("codegen: a mapping condition of unknown kind");
}

// The names in a launch_args() list ("C, A, B, stream").
std::vector<std::string> arg_names(const std::string& args) {
  std::vector<std::string> out;
  std::istringstream in(args);
  for (std::string a; std::getline(in, a, ',');) out.push_back(a.substr(a.find_first_not_of(' ')));
  return out;
}

// `(void)name;` for each of them: a function that reads only some of its arguments.
std::string unused_args(const std::string& args) {
  std::string out;
  for (const std::string& a : arg_names(args)) out += "  (void)" + a + ";\n";
  return out;
}

// The measured choice (loom/tune.h; docs/artifact.md, "Tuning"): the table of tuned calls, the
// dispatcher's pick (a tuned mapping first, else the rules'), tune_<entry> (times the mappings the
// model ranks within kTuneSpread of its pick, the written tensors replaced by scratch copies) and
// the dispatching launch_<entry> (LOOM_TUNE=1: it tunes a call's key on its first call). Without
// when(fastest) mappings the conditions alone decide: nothing to measure.
std::string tuning_functions(const CudaGen& g, size_t mappings, bool weighed) {
  const std::string entry = g.entry().task, params = g.launch_params(), args = g.launch_args();
  const std::string n = std::to_string(mappings);
  std::ostringstream o;
  if (!weighed) {
    o << "int pick_" << entry << "(" << params << ") { return rule_pick_" << entry << "(" << args << ", nullptr); }\n\n"
      << "// Nothing to measure: the program's conditions alone choose its mapping.\n"
      << "int tune_" << entry << "(" << params << ") {\n"
      << unused_args(args) << "  return LOOM_OK;\n}\n\n"
      << "int launch_" << entry << "(" << params << ") {\n"
      << "  return launch_" << entry << "_mapping(pick_" << entry << "(" << args << "), " << args << ");\n}\n\n";
    return o.str();
  }
  const std::vector<CudaGen::TensorArg> tensors = g.tensor_args();
  std::string key_params, key_args;
  for (const CudaGen::TensorArg& t : tensors) {
    key_params += (key_params.empty() ? "" : ", ") + std::string("const loom_tensor& ") + t.name;
    key_args += (key_args.empty() ? "" : ", ") + t.name;
  }
  o << "// The mappings loom_" << entry << "_tune() measured fastest, by call (loom/tune.h).\n"
    << "loom::host::TuneTable tuned_" << entry << ";\n\n"
    << "// A call's key in that table: the device and every tensor's extents, strides and base alignment.\n"
    << "loom::host::TuneKey tune_key_" << entry << "(" << key_params << ") {\n"
    << "  loom::host::TuneKey key;\n";
  for (const CudaGen::TensorArg& t : tensors) o << "  key.add(" << t.name << ");\n";
  o << "  return key;\n}\n\n"
    << "// The mapping for this call: the one tuning measured fastest for calls like it, else the rules'.\n"
    << "int pick_" << entry << "(" << params << ") {\n"
    << "  if (!tuned_" << entry << ".empty())\n"
    << "    if (const int tuned = tuned_" << entry << ".find(tune_key_" << entry << "(" << key_args << ")); tuned >= 0) return tuned;\n"
    << "  return rule_pick_" << entry << "(" << args << ", nullptr);\n}\n\n";
  // tune_<entry>: the written tensors' scratch stand-ins, as the launch names them.
  std::string scratch_args;
  for (const std::string& a : arg_names(args)) {
    bool written = false;
    for (const CudaGen::TensorArg& t : tensors)
      if (t.name == a && t.written) written = true;
    scratch_args += (scratch_args.empty() ? "" : ", ") + (written ? "scratch_" + a + ".tensor()" : a);
  }
  o << "// Times the mappings whose estimate is within loom::host::kTuneSpread of the rules' pick on these\n"
    << "// arguments, the written tensors replaced by scratch copies, and remembers the fastest for the\n"
    << "// call's key (the rules' pick when it is within loom::host::kTuneMargin of it). Synchronizes\n"
    << "// `stream`; measures nothing while it is captured. LOOM_OK, or the first failing status when no\n"
    << "// mapping could run the call.\n"
    << "int tune_" << entry << "(" << params << ") {\n"
    << "  double e[" << n << "] = {};\n"
    << "  const int rule = rule_pick_" << entry << "(" << args << ", e);\n"
    << "  const loom::host::TuneKey key = tune_key_" << entry << "(" << key_args << ");\n"
    << "  std::vector<int> timed;  // a written condition or an unknown SM count leaves every estimate 0\n"
    << "  for (int i = 0; i < " << n << "; ++i)\n"
    << "    if (e[rule] > 0 && e[i] > 0 && e[i] <= loom::host::kTuneSpread * e[rule]) timed.push_back(i);\n"
    << "  if (timed.size() < 2) {\n"
    << "    tuned_" << entry << ".put(key, rule);\n"
    << "    return LOOM_OK;\n"
    << "  }\n"
    << "  if (loom::host::stream_capturing(stream)) return LOOM_OK;  // the rules' pick stays\n";
  for (const CudaGen::TensorArg& t : tensors) {
    if (!t.written) continue;
    o << "  loom::host::ScratchTensor scratch_" << t.name << ";\n"
      << "  if (scratch_" << t.name << ".make(" << t.name << ", " << (t.read ? "true" : "false")
      << ", stream) != LOOM_OK) return LOOM_OK;  // no memory for it: nothing measured, the rules' pick stays\n";
  }
  o << "  int failed = LOOM_OK;\n"
    << "  const int best = loom::host::measured_choice(\n"
    << "      timed, rule, [&](int i) { return launch_" << entry << "_mapping(i, " << scratch_args << "); }, stream, &failed);\n"
    << "  if (best < 0) return failed;\n"
    << "  tuned_" << entry << ".put(key, best);\n"
    << "  return LOOM_OK;\n}\n\n"
    << "int launch_" << entry << "(" << params << ") {\n"
    << "  if (loom::host::tune_from_env() && tuned_" << entry << ".find(tune_key_" << entry << "(" << key_args << ")) < 0)  // LOOM_TUNE=1\n"
    << "    if (const int st = tune_" << entry << "(" << args << "); st != LOOM_OK) return st;\n"
    << "  return launch_" << entry << "_mapping(pick_" << entry << "(" << args << "), " << args << ");\n}\n\n";
  return o.str();
}

}  // namespace

CudaArtifact generate_cuda(const ir::Function& f, const std::string& source) {
  CudaArtifact a;
  generate_one(f, source, a);
  return a;
}

TurnsReport turns_report(const ir::Function& f) {
  CudaGen gen(f, "turns", /*staging_allowed=*/false);
  TurnsReport r;
  try {
    gen.run();
    r.deferred = gen.deferred_mmas();
  } catch (const CompileError& e) {
    if (gen.refused_turns()) r.refused = e.diagnostic;
  }
  return r;
}

CudaArtifact generate_cuda(const std::vector<MappingKernel>& kernels, const std::string& source) {
  if (kernels.empty()) throw InternalError("codegen: no mapping to generate");
  if (kernels.size() == 1) return generate_cuda(*kernels[0].function, source);
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].function->when.has_value() != (i > 0))
      throw InternalError("codegen: the default mapping must come first, and every later one have a condition");
  std::vector<std::unique_ptr<CudaGen>> gens;
  CudaArtifact first;
  int64_t smem = 0, threads = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    CudaArtifact one;
    gens.push_back(generate_one(*kernels[i].function, source, one));
    if (i == 0) first = one;
    else if (one.header != first.header)
      throw InternalError("codegen: the mappings of one program give different C ABIs");
    else merge_signature(first.signature, one.signature);
    smem = std::max(smem, gens.back()->smem_bytes());
    threads = std::max(threads, gens.back()->threads());
  }
  // when(fastest) candidates: the default and each of them get the cost model's estimate_cycles().
  std::vector<size_t> candidates;
  for (size_t i = 1; i < kernels.size(); ++i)
    if (kernels[i].function->when->fastest) candidates.push_back(i);
  if (!candidates.empty()) candidates.insert(candidates.begin(), 0);
  std::vector<std::string> estimates(kernels.size());
  for (size_t i : candidates) estimates[i] = gens[i]->estimate_function() + gens[i]->load_bytes_function();
  const ir::EntrySignature& sig = gens[0]->entry();
  const std::string entry = sig.task;
  std::ostringstream o;
  std::string head = gens[0]->head();
  auto include_after_host = [&](const std::string& line) {
    const std::string host = "#include \"loom/host.h\"\n";
    head.insert(head.find(host) + host.size(), line);
  };
  for (const auto& g : gens)  // a streamk mapping's launcher needs the stream-K host header
    if (g->uses_stream_k() && head.find(CudaGen::kStreamKInclude) == std::string::npos) include_after_host(CudaGen::kStreamKInclude);
  if (!candidates.empty()) include_after_host("#include \"loom/tune.h\"\n");  // the measured choice among them (tuning_functions)
  // The first two comment lines name the file; the kernel line describes each mapping below instead.
  size_t k = head.find("// Kernel: ");
  size_t ke = head.find('\n', k);
  head.replace(k, ke + 1 - k, "// Kernels: one per mapping (" + std::to_string(kernels.size()) + "); launch_" + entry +
                                  (candidates.empty() ? " picks one per call, the first specialization whose when(...) holds, else the default.\n"
                                                      : " picks one per call: the first specialization whose when(...) holds, else the\n"
                                                        "// cheapest by the cost model of the default and the when(fastest) mappings.\n"));
  o << head;
  for (size_t i = 0; i < kernels.size(); ++i) {
    o << "// ==== mapping " << i << (kernels[i].function->when ? ": " + kernels[i].when_text : std::string(": the default")) << "\n"
      << "// Kernel: " << gens[i]->kernel_line() << ".\n"
      << "namespace mapping" << i << " {\n\n"
      << gens[i]->body() << estimates[i] << "}  // namespace mapping" << i << "\n\n";
  }
  // The dispatching launcher.
  std::set<std::string> names;
  if (!candidates.empty()) names.insert("SMS");
  for (const MappingKernel& mk : kernels)
    if (const auto& when = mk.function->when; when && !when->fastest) {
      for (const ir::SizeExpr* e : {&when->lhs, &when->rhs}) {
        std::function<void(const ir::SizeExpr&)> rec = [&](const ir::SizeExpr& x) {
          if (x.kind == ir::SizeExpr::Kind::Name) names.insert(x.name);
          for (const ir::SizeExpr& y : x.args) rec(y);
        };
        rec(*e);
      }
    }
  const std::string params = gens[0]->launch_params(), args = gens[0]->launch_args();
  const std::string n_maps = std::to_string(kernels.size());
  o << "// The mapping for this call by the program's rules, from the run-time extents: the first\n"
    << (candidates.empty() ? "// specialization whose when(...) holds, else the default (0).\n"
                           : "// specialization whose when(...) holds, else the cheapest by the cost model (estimate_cycles) of\n"
                             "// the default (0) and the when(fastest) mappings.\n")
    << "// `estimates`, when not null, gets one entry per mapping: the model's cycles of each mapping it\n"
    << "// weighed, 0 for the others (all 0 when a condition decides or the SM count is unknown).\n"
    << "int rule_pick_" << entry << "(" << params << ", double* estimates) {\n";
  o << unused_args(args);  // every argument, as the launchers name them (stream last): the conditions read a few
  if (candidates.empty()) o << "  (void)estimates;\n";
  std::set<std::string> done;
  for (const ir::EntryParam& prm : sig.params)  // a scalar has no dimensions
    for (size_t d = 0; d < prm.dims.size(); ++d)
      if (names.count(prm.dims[d]) && done.insert(prm.dims[d]).second)
        o << "  const int64_t v_" << prm.dims[d] << " = " << prm.name << ".shape[" << d << "];\n";
  if (names.count("SMS"))
    o << "  // SMS: the current device's multiprocessor count (0 when it cannot be read: the launchers report that)\n"
      << "  int64_t v_SMS = 0;\n"
      << "  {\n"
      << "    static std::atomic<int> sms[64];\n"
      << "    int device = 0, count = 0;\n"
      << "    if (cudaGetDevice(&device) == cudaSuccess && device >= 0 && device < 64) {\n"
      << "      if (sms[device] == 0) {\n"
      << "        if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) == cudaSuccess) sms[device] = count;\n"
      << "        else (void)cudaGetLastError();  // our query failed: do not leave its error behind\n"
      << "      }\n"
      << "      v_SMS = sms[device];\n"
      << "    }\n"
      << "  }\n";
  for (size_t i = 1; i < kernels.size(); ++i)
    if (!kernels[i].function->when->fastest)
      o << "  if (" << condition_cpp(kernels[i].function->when->lhs) << " " << kernels[i].function->when->cmp << " "
        << condition_cpp(kernels[i].function->when->rhs) << ") return " << i << ";  // " << kernels[i].when_text << "\n";
  if (!candidates.empty()) {
    // The cost model; without the SM count (the launchers report that) the default runs.
    o << "  if (v_SMS > 0) {\n"
      << "    double e[" << n_maps << "] = {}, b[" << n_maps << "] = {};\n";
    for (size_t c : candidates)
      o << "    e[" << c << "] = mapping" << c << "::estimate_cycles(" << args << ", v_SMS);"
        << (c ? "  // " + kernels[c].when_text : std::string("  // the default")) << "\n";
    for (size_t c : candidates) o << "    b[" << c << "] = mapping" << c << "::load_bytes(" << args << ");\n";
    std::string list;
    for (size_t j = 1; j < candidates.size(); ++j) list += (j > 1 ? ", " : "") + std::to_string(candidates[j]);
    o << "    int pick = 0;\n"
      << "    for (const int i : {" << list << "})\n"
      << "      if (e[i] < e[pick] || (e[i] == e[pick] && b[i] < b[pick])) pick = i;  // of equal estimates, the fewest bytes loaded, then the first\n"
      << "    if (estimates)\n"
      << "      for (int i = 0; i < " << n_maps << "; ++i) estimates[i] = e[i];\n"
      << "    return pick;\n  }\n";
  }
  o << "  return 0;\n}\n\n";
  // Mapping i by index: what the dispatcher runs, and what loom_<entry>_mapping() offers the caller.
  o << "// Runs mapping `mapping` (0: the default, then the specializations in file order) whatever the\n"
    << "// extents; each mapping's launcher checks the arguments itself.\n"
    << "int launch_" << entry << "_mapping(int mapping, " << params << ") {\n"
    << "  switch (mapping) {\n";
  for (size_t i = 0; i < kernels.size(); ++i)
    o << "    case " << i << ": return mapping" << i << "::launch_" << entry << "(" << args << ");"
      << (i ? "  // " + kernels[i].when_text : std::string("  // the default")) << "\n";
  o << "    default: return LOOM_ERR_MAPPING;\n  }\n}\n\n";
  o << tuning_functions(*gens[0], kernels.size(), !candidates.empty());
  o << "}  // namespace\n\n" << gens[0]->abi(smem, threads, static_cast<int>(kernels.size()));
  first.cu = o.str();
  return first;
}

}  // namespace loom::codegen

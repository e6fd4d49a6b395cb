// lower_to_loom (src/tx/lower.h): plan, tasks, mapping, specialization, then the text parsed and
// printed in loom's canonical form (`loom fmt`), so what the user reads and edits is what `loom fmt`
// would keep. A generated program that does not parse is a bug of the lowering (InternalError).
#include "tx/lower.h"

#include "loom/frontend.h"
#include "tx/lower_internal.h"

#include <sstream>

namespace loom::tx {

std::string lower_to_loom(const ContractionKernel& k) {
  const Machine& m = hopper_machine();
  detail::Plan p = detail::make_plan(k, m);
  std::ostringstream o;
  o << detail::comment(describe(k));
  o << "//\n// Lowered from " << (k.loc.file.empty() ? std::string("a tensor expression") : k.loc.file)
    << (k.loc.line ? ":" + std::to_string(k.loc.line) : std::string()) << " by loom's contraction lowering"
    << " (docs/tensor-expressions.md,\n// \"Lowering to task programs\"): host -> block -> G warpgroups -> warp -> "
       "thread, as examples/gemm.\n";
  o << "// fp32 accumulation";
  bool any_t = false;
  for (const detail::Param& q : p.params)
    if (q.col_major) {
      o << (any_t ? ", " : "; column-major (transposed): ") << q.name;
      any_t = true;
    }
  o << ".\n\n";
  o << detail::emit_tasks(p) << "\n";
  // The tile model's decisions: the default's (and why there are no split-K candidates) before the
  // default mapping, one line before each alternative, what split-K means before the first split one.
  auto starts = [](const std::string& line, const char* prefix) { return line.rfind(prefix, 0) == 0; };
  std::string split_note;
  std::istringstream why(p.tiles.why);
  for (std::string line; std::getline(why, line);) {
    if (starts(line, "split-K:")) split_note = line;
    else if (!starts(line, "alternative")) o << detail::comment(line + ".");
  }
  o << "mapping " << m.target << " {\n" << detail::emit_mapping(p, p.tiles.main) << "}\n";
  std::istringstream alt(p.tiles.why);
  size_t n = 0;
  for (std::string line; std::getline(alt, line);) {
    if (!starts(line, "alternative")) continue;
    const TileConfig& c = p.tiles.alternatives.at(n++);
    o << "\n";
    if (c.split > 1 && !split_note.empty()) {
      o << detail::comment(split_note + ".") << "//\n";
      split_note.clear();
    }
    o << detail::comment(line + "; only the instances that change are listed.");
    o << "mapping " << m.target << " when(fastest) {\n" << detail::emit_specialization(p, c) << "}\n";
  }
  // Parse and print canonically.
  const std::string text = o.str();
  SourceManager sm;
  const uint32_t file = sm.add("<lowered " + k.name + ">", text);
  DiagnosticEngine diag(sm);
  Program prog = parse_program(sm, file, diag);
  if (diag.has_errors())
    LOOM_INTERNAL("the lowering of " << k.name << " produced a program that does not parse:\n"
                                      << diag.format_text() << "\n" << text);
  return format_program(prog);
}

}  // namespace loom::tx

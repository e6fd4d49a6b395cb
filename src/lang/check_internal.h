// Shared state of the three checking stages (declarations and bodies, mapping, instantiation).
// Internal to src/lang; the public entry point is check_program in include/loom/check.h.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "loom/check.h"
#include "ir/leaf_ops.h"

namespace loom::check_detail {

// Reports each distinct (location, message) once: a variant instantiated at many places reports
// its problem once.
class Reporter {
 public:
  explicit Reporter(DiagnosticEngine& d) : diag(d) {}
  Diagnostic& error(SourceLoc loc, const std::string& msg);
  DiagnosticEngine& diag;

 private:
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, std::string>> seen_;
  Diagnostic scratch_;
};

// The closest name in `candidates` to `name` (edit distance <= 2), or "".
std::string closest(const std::string& name, const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// What a name means inside a variant body.
enum class SymKind { TensorParam, ScalarParam, Dim, Tunable, LoopVar, Scalar, Partition, Local, View };

struct Sym {
  SymKind kind = SymKind::Scalar;
  SourceLoc loc;
  int rank = 0;        // tensors: rank; partitions: rank of a piece
  int colors = 0;      // partitions: number of index coordinates
  std::string root;    // tensors and partitions: the parameter or local the data belongs to
  bool disjoint = true;  // partitions: pieces do not overlap (writes through them cannot alias)
  std::string op;      // partitions: blocks | mma | slices
  const Expr* def = nullptr;  // View: the Index expression it was bound to
};

// The launches of a variant, for the mapping stage: (task or label key, launch statement).
struct LaunchSite {
  const Stmt* stmt;
  std::string task;
  std::string label;
};

struct VariantInfo {
  const VariantDecl* decl = nullptr;
  const TaskDecl* task = nullptr;
  std::vector<LaunchSite> launches;
  bool has_srange = false;
  bool valid = true;  // false: the declaration was rejected (already reported); instances skip it
};

// Declarations, variant bodies: everything that needs no mapping.
void check_declarations(const Program& p, Reporter& r, std::map<std::string, VariantInfo>& variants);
// The mapping against the machine and the variants. Returns the machine (nullptr if unknown).
const Machine* check_mapping(const Program& p, Reporter& r, const std::map<std::string, VariantInfo>& variants);
// Instantiates the tree from the entry instance; only called when the earlier stages found no error.
std::optional<TaskTree> instantiate(const Program& p, const Machine& m, Reporter& r,
                                    const std::map<std::string, VariantInfo>& variants);

}  // namespace loom::check_detail

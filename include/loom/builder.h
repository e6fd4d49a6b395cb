// loom/builder.h — building .loom programs in C++: the same `loom::Program` trees the parser makes.
//
// A ProgramBuilder is a cursor over one Program. Declarations (task, variant, mapping, instance) are
// appended in order; statements go into the variant opened last, or into the body of the loop whose
// body function is running. Leading `//` comments are queued with comment() and attach to whatever
// is created next (declaration, statement, mapping or instance); comments still queued when build()
// runs become the program's trailing comments. Expressions are `Ex` values: integers and strings
// convert implicitly (a string is a name), and + - * / % and unary - build arithmetic.
//
//   using namespace loom::build;
//   ProgramBuilder b;
//   b.task("gemm", {"T"}).tensor("C", "rw", "T", {"M", "N"}).tensor("A", "r", "T", {"M", "K"});
//   b.comment("One U x V tile per block.");
//   b.variant("gemm_host", "gemm", {"C", "A"}).inner().tunables({"U", "V"});
//   b.bind("Cp", call("blocks", {"C", list({"U", "V"})}));
//   b.prange({"i"}, {call("cdiv", {"M", "U"})}, [&] { b.launch("gemm", {idx("Cp", {"i", 0}), "A"}); });
//   b.mapping("sm_90a");
//   b.instance("gemm_host", "gemm_host", "HOST").mem({"GLOBAL", "GLOBAL"}).tune("U", 128).entry();
//   loom::Program p = b.build();  // format_program(p) prints it as `loom fmt` would
//
// Contract:
//  - The builder checks form, not meaning: names must be identifiers, lists that the grammar needs
//    non-empty must be non-empty, and nothing may be built that the text syntax cannot express
//    (e.g. a variant with both statements and extern code). Such misuse throws std::invalid_argument
//    with a message naming the call; the program is left as it was before that call. Unknown tasks,
//    privileges that do not match, missing tunables etc. are the checker's business (loom/check.h).
//  - Every node has an invalid (line 0) SourceLoc.
//  - A negative integer is built as unary minus of its magnitude, as the parser reads `-5`, so
//    parse_program(format_program(p)) dumps exactly as p does.
//  - A string literal is only an Ex where an Ex is expected: `name("M") - 1` builds M - 1, but
//    `"M" - 1` is C++ pointer arithmetic. Write name() for the left operand.
//  - TaskRef / VariantRef / InstanceRef refer into their builder and are valid while it lives.
//
// Test: tests/unit/builder_test.cpp (builds examples/gemm/gemm.loom and compares the text).
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/ast.h"

namespace loom::build {

// An expression under construction. Converts from integers (a literal) and strings (a name).
class Ex {
 public:
  Ex(Expr e) : e_(std::move(e)) {}  // NOLINT: implicit on purpose
  Ex(const char* name);             // NOLINT
  Ex(const std::string& name);      // NOLINT
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  Ex(I v) : e_(from_integer(v)) {}  // NOLINT

  const Expr& expr() const& { return e_; }
  Expr expr() && { return std::move(e_); }
  operator const Expr&() const& { return e_; }  // NOLINT

  Ex operator[](Ex index) const;  // one coordinate; idx() takes several

 private:
  template <std::integral I>
  static Expr from_integer(I v) {
    if constexpr (std::is_unsigned_v<I>) {
      if (v > static_cast<std::make_unsigned_t<int64_t>>(INT64_MAX)) too_large();
    }
    return literal(static_cast<int64_t>(v));
  }
  static Expr literal(int64_t v);
  [[noreturn]] static void too_large();
  Expr e_;
};

Ex lit(int64_t v);                          // 64; lit(-5) is -(5)
Ex real(const std::string& spelling);       // "0.5", "1e-3": kept as written
Ex name(const std::string& n);              // U, i, C, f32, acc
Ex star();                                  // `*` in a blocks() size list
Ex call(const std::string& callee, std::vector<Ex> args);  // cdiv(M, U), blocks(C, [U, *])
Ex idx(Ex base, std::vector<Ex> indices);   // Cp[i, j]
Ex list(std::vector<Ex> items);             // [U, V]

Ex operator+(Ex a, Ex b);
Ex operator-(Ex a, Ex b);
Ex operator*(Ex a, Ex b);
Ex operator/(Ex a, Ex b);
Ex operator%(Ex a, Ex b);
Ex operator-(Ex a);

// A variant parameter, optionally restating the task's privilege: "C" or {"C", "rw"}.
struct VarParam {
  VarParam(const char* n) : name(n) {}         // NOLINT
  VarParam(std::string n) : name(std::move(n)) {}  // NOLINT
  VarParam(std::string n, Privilege p) : name(std::move(n)), priv(p) {}
  VarParam(std::string n, const std::string& privilege);  // "r" | "w" | "rw" | "red(sum)" | "red(max)"
  std::string name;
  std::optional<Privilege> priv;
};

class ProgramBuilder;

// Adds parameters to a task declared with ProgramBuilder::task.
class TaskRef {
 public:
  // `C: rw T[M, N]`; privilege "r", "w", "rw", "red(sum)" or "red(max)"; at least one dimension.
  TaskRef& tensor(const std::string& name, Privilege priv, const std::string& elem,
                  const std::vector<std::string>& dims);
  TaskRef& tensor(const std::string& name, const std::string& priv, const std::string& elem,
                  const std::vector<std::string>& dims);
  TaskRef& scalar(const std::string& name, const std::string& type);  // `scale: f32`
  TaskDecl& decl();

 private:
  friend class ProgramBuilder;
  TaskRef(ProgramBuilder* b, size_t i) : b_(b), i_(i) {}
  ProgramBuilder* b_;
  size_t i_;
};

// Sets the header of a variant opened with ProgramBuilder::variant (kind, tunables, on(...), extern).
class VariantRef {
 public:
  VariantRef& inner();  // the default
  VariantRef& leaf();
  VariantRef& tunables(const std::vector<std::string>& names);
  VariantRef& on(const std::vector<std::string>& processors);
  // The CUDA C++ text between `%{` and `%}` (kept byte for byte); the variant then has no statements.
  VariantRef& extern_code(const std::string& code);
  VariantDecl& decl();

 private:
  friend class ProgramBuilder;
  VariantRef(ProgramBuilder* b, size_t i) : b_(b), i_(i) {}
  ProgramBuilder* b_;
  size_t i_;
};

// Adds clauses to a mapping instance. The printer orders clauses canonically whatever the call order.
class InstanceRef {
 public:
  InstanceRef& mem(const std::vector<std::string>& memories);  // one per tensor parameter
  InstanceRef& tune(const std::string& tunable, Ex value);
  InstanceRef& tune(const std::vector<std::pair<std::string, Ex>>& values);
  InstanceRef& call(const std::string& task_or_label, const std::string& instance);
  InstanceRef& call(const std::vector<std::pair<std::string, std::string>>& dispatches);
  InstanceRef& entry(const std::vector<std::pair<std::string, std::string>>& types = {});  // T=bf16
  InstanceRef& warpspecialize(bool on = true);
  InstanceRef& nowarpspecialize() { return warpspecialize(false); }
  InstanceRef& pipeline(int64_t depth);
  InstanceRef& splitk(int64_t blocks);  // splitk(S): a cluster of S blocks shares each tile's K loop
  InstanceRef& streamk();  // streamk: persistent blocks share all tiles' K iterations equally (stream-K)
  InstanceRef& alternate(int64_t teams);  // alternate(T): T teams of compute warpgroups take the block's tiles in turn
  InstanceRef& kteams(int64_t teams);     // kteams(T): T teams of compute warpgroups share each tile's K loop
  // multicast(S): clusters of S blocks share the loads that do not move between their tiles;
  // multicast(S, T) with inner = T: clusters of S x T tiles of the two innermost block loops
  InstanceRef& multicast(int64_t blocks, int64_t inner = 0);
  InstanceRef& schedule_optimal();  // schedule(optimal): the solver picks warp specialization, depth, turns, registers
  InstanceRef& schedule_optimal(int64_t budget);  // schedule(optimal, budget=B): B million solver units (1..1000)
  InstanceRef& regs(int64_t dma, int64_t compute);  // regs(P, C): registers per thread of the DMA / each compute warpgroup
  InstanceRef& smem(const std::string& spelling);  // "227KB", "64KiB", "1024B", "232448"
  InstanceRef& smem(int64_t bytes);
  InstanceRef& layout(const std::string& arg, const std::vector<std::string>& attrs);
  Instance& decl();

 private:
  friend class ProgramBuilder;
  InstanceRef(ProgramBuilder* b, size_t i) : b_(b), i_(i) {}
  ProgramBuilder* b_;
  size_t i_;
};

class ProgramBuilder {
 public:
  // ---- comments (attach to the next thing created) ----
  // Each line of `text` becomes one `// line` comment (a space after `//` unless the line is empty).
  ProgramBuilder& comment(const std::string& text);
  // One comment kept verbatim: the text after `//` (no newline in it).
  ProgramBuilder& raw_comment(const std::string& body);
  // A blank line after the queued comments (the "\n" marker); needs a queued comment.
  ProgramBuilder& blank_line();

  // ---- declarations ----
  TaskRef task(const std::string& name, const std::vector<std::string>& type_params = {});
  VariantRef variant(const std::string& name, const std::string& task, const std::vector<VarParam>& params);
  ProgramBuilder& mapping(const std::string& target);  // "sm_90a" | "sm_80"; at most once
  // A specialized mapping `mapping TARGET when(lhs CMP rhs) { ... }` after the default one; the
  // instances added next go into it (ast.h, Mapping). cmp: "<", "<=", ">" or ">=".
  ProgramBuilder& specialize(const std::string& target, Ex lhs, const std::string& cmp, Ex rhs);
  // A `mapping TARGET when(fastest) { ... }`: a candidate the launcher's cost model weighs against the
  // default and the other when(fastest) mappings (docs/mapping.md, "Chosen by the cost model").
  ProgramBuilder& specialize_fastest(const std::string& target);
  InstanceRef instance(const std::string& name, const std::string& variant, const std::string& processor);

  // ---- statements (into the open variant or loop body) ----
  ProgramBuilder& bind(const std::string& target, Ex value);  // Cp = blocks(C, [U, V]);
  // [label:] task(args);  an empty label means none
  ProgramBuilder& launch(const std::string& task, std::vector<Ex> args, const std::string& label = "");
  ProgramBuilder& op(const std::string& leaf_op, std::vector<Ex> args);  // mma(C, A, B); in a leaf
  // `prange i, j in M, N { body() }`: one extent per variable; body() adds the loop's statements.
  ProgramBuilder& prange(const std::vector<std::string>& vars, std::vector<Ex> extents,
                         const std::function<void()>& body);
  ProgramBuilder& srange(const std::vector<std::string>& vars, std::vector<Ex> extents,
                         const std::function<void()>& body);

  // The program so far, with queued comments as trailing comments. Throws inside a loop body.
  Program build() const;

 private:
  friend class TaskRef;
  friend class VariantRef;
  friend class InstanceRef;
  Mapping& open_mapping();  // the mapping block instances go into: the latest one

  std::vector<std::string> take_comments();
  void require_top_level(const char* what) const;
  std::vector<Stmt>& open_body(const char* what);
  void add_stmt(Stmt s, const char* what);
  ProgramBuilder& loop(bool parallel, const std::vector<std::string>& vars, std::vector<Ex> extents,
                       const std::function<void()>& body);

  Program p_;
  std::vector<std::string> pending_;
  std::optional<size_t> variant_;  // the open variant, if any
  std::vector<size_t> loop_path_;  // indices of the open loops, from the variant's body down
};

}  // namespace loom::build

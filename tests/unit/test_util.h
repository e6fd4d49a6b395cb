// Helpers shared by the unit tests: reading files, golden comparison with UPDATE_GOLDEN=1, running
// parse + check on a string, and building event IR and host tensors by hand (IrBuilder, vec).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "exec/host_tensor.h"
#include "ir/ir.h"
#include "loom/check.h"
#include "loom/frontend.h"

namespace loom::test {

inline std::string source_dir() { return LOOM_SOURCE_DIR; }

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every examples/<name>/<name>.loom, sorted.
inline std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (auto& dir : std::filesystem::directory_iterator(source_dir() + "/examples"))
    if (dir.is_directory())
      for (auto& f : std::filesystem::directory_iterator(dir.path()))
        if (f.path().extension() == ".loom") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Compares `actual` with the golden file at `rel` (relative to tests/golden/). With UPDATE_GOLDEN=1
// in the environment the golden is (re)written instead and the check passes.
inline void expect_golden(const std::string& rel, const std::string& actual) {
  std::filesystem::path p = std::filesystem::path(source_dir()) / "tests" / "golden" / rel;
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << actual;
    return;
  }
  if (!std::filesystem::exists(p)) {
    ADD_FAILURE() << "golden file " << p << " is missing; run `UPDATE_GOLDEN=1 make test` to create it";
    return;
  }
  EXPECT_EQ(read_file(p), actual) << "output differs from golden " << p
                                  << "; if the change is intended run `UPDATE_GOLDEN=1 make test`";
}

// The cases of a seeded property test: the one seed in environment variable `seed_env` when it is set
// (to rerun a printed case), else `count` seeds drawn from `base_seed`.
inline std::vector<uint64_t> property_seeds(const char* seed_env, uint64_t base_seed, int count) {
  std::vector<uint64_t> seeds;
  if (const char* s = std::getenv(seed_env)) {
    seeds.push_back(std::strtoull(s, nullptr, 10));
    return seeds;
  }
  std::mt19937_64 rng(base_seed);
  for (int c = 0; c < count; ++c) seeds.push_back(rng());
  return seeds;
}

// ---- the built `loom` binary, as a user runs it ----------------------------------------------------

struct Cli {
  int status = -1;
  std::string out;
  std::string err;  // stderr, when run_loom was asked to keep it
};

// Runs the built `loom` with `args` (a shell fragment) and captures stdout; stderr goes to
// `err_file` ("" keeps it in Cli::err).
inline Cli run_loom(const std::string& args, const std::string& err_file = "/dev/null") {
  Cli r;
  static int runs = 0;
  const std::string err = err_file.empty() ? testing::TempDir() + "loom_stderr_" + std::to_string(getpid()) + "_" +
                                                 std::to_string(runs++) + ".txt"
                                           : err_file;
  std::string cmd = std::string("\"") + LOOM_BINARY + "\" " + args + " 2>" + err;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (err_file.empty()) {
    r.err = read_file(err);
    std::filesystem::remove(err);
  }
  return r;
}

// Parses and checks `text`; returns the diagnostics as text (no source lines) and the tree.
struct CheckResult {
  std::string diagnostics;
  bool ok = false;
  std::optional<TaskTree> tree;
  Program program;
};

inline CheckResult check_text(const std::string& text, const std::string& name = "test.loom") {
  SourceManager sm;
  uint32_t f = sm.add(name, text);
  DiagnosticEngine diag(sm);
  CheckResult r;
  r.program = parse_program(sm, f, diag);
  if (!diag.has_errors()) r.tree = check_program(r.program, diag);
  r.diagnostics = diag.format_text(false);
  r.ok = !diag.has_errors();
  return r;
}

// ---- hand-built event IR ------------------------------------------------------------------------------

// A small builder of event IR for unit tests: ops are appended to the innermost open block (a loop's
// body while its callback runs). Names: consts are unnamed (printed %0, %1, ...) unless
// `name_consts` (then %c<value>); proc_index is %pi, a piece of %X is %Xp, a pfor variable %p
// unless given. Copies, calls and loops get an origin (printed as a comment, shown in executor
// messages); an alloc gets origin "alloc NAME" and mapping instance "inst_NAME".
class IrBuilder {
 public:
  explicit IrBuilder(std::string name = "t") {
    f.name = std::move(name);
    blocks_.push_back(&f.body);
  }

  ir::ValueId tensor_param(const std::string& name, int rank, DType t = DType::F32) {
    ir::ValueId v = f.add_value({ir::Type::Tensor, name, t, MemKind::Global, rank, {}});
    f.params.push_back(v);
    return v;
  }
  ir::ValueId index_param(const std::string& name) {
    ir::ValueId v = f.add_value({ir::Type::Index, name});
    f.params.push_back(v);
    return v;
  }

  ir::ValueId konst(int64_t x) {
    ir::Op op;
    op.kind = ir::OpKind::Const;
    op.ival = x;
    return push(std::move(op), {ir::Type::Index, name_consts ? "c" + std::to_string(x) : ""});
  }
  ir::ValueId fconst(double x, const std::string& name = "") {
    ir::Op op;
    op.kind = ir::OpKind::FConst;
    op.fval = x;
    return push(std::move(op), {ir::Type::Float, name});
  }
  ir::ValueId arith(const std::string& o, ir::ValueId a, ir::ValueId b) {
    ir::Op op;
    op.kind = ir::OpKind::Arith;
    op.name = o;
    op.operands = {a, b};
    return push(std::move(op), {ir::Type::Index, ""});
  }
  ir::ValueId dim(ir::ValueId t, int d) {
    ir::Op op;
    op.kind = ir::OpKind::Dim;
    op.operands = {t};
    op.ival = d;
    return push(std::move(op), {ir::Type::Index, ""});
  }
  ir::ValueId proc_index(ProcKind p) {
    ir::Op op;
    op.kind = ir::OpKind::ProcIndex;
    op.proc = p;
    return push(std::move(op), {ir::Type::Index, "pi"});
  }
  ir::ValueId alloc(const std::string& name, std::vector<ir::ValueId> extents, MemKind m = MemKind::Shared,
                    DType t = DType::F32, SourceLoc loc = {}) {
    ir::Op op;
    op.kind = ir::OpKind::Alloc;
    op.mem = m;
    op.dtype = t;
    op.operands = std::move(extents);
    op.loc = loc;
    op.name = "inst_" + name;
    op.origin = "alloc " + name;
    int rank = static_cast<int>(op.operands.size());
    return push(std::move(op), {ir::Type::Tensor, name, t, m, rank, {}});
  }
  ir::ValueId alloc(const std::string& name, std::vector<ir::ValueId> extents, MemKind m, SourceLoc loc) {
    return alloc(name, std::move(extents), m, DType::F32, loc);
  }

  // piece `src` PART [idx...], of rank `rank`.
  ir::ValueId piece(ir::ValueId src, ir::PartitionSpec part, std::vector<ir::ValueId> idx, int rank) {
    ir::Op op;
    op.kind = ir::OpKind::Piece;
    op.part = std::move(part);
    op.operands = {src};
    op.operands.insert(op.operands.end(), idx.begin(), idx.end());
    const ir::ValueInfo& s = f.info(src);
    return push(std::move(op), {ir::Type::Tensor, s.name + "p", s.dtype, s.mem, rank, {}});
  }
  // piece `src` blocks[block...] [idx...] (kNone in `block`: the whole dimension, `*`).
  ir::ValueId blocks(ir::ValueId src, std::vector<ir::ValueId> block, std::vector<ir::ValueId> idx) {
    ir::PartitionSpec p;
    p.kind = ir::PartitionSpec::Kind::Blocks;
    p.block = std::move(block);
    return piece(src, std::move(p), std::move(idx), f.info(src).rank);
  }
  // piece `src` slices(d) [i].
  ir::ValueId slice(ir::ValueId src, int d, ir::ValueId i) {
    ir::PartitionSpec p;
    p.kind = ir::PartitionSpec::Kind::Slices;
    p.dim = d;
    return piece(src, std::move(p), {i}, f.info(src).rank - 1);
  }
  // piece `src` mma(role, wgmma(64, n, 16) or mma_sync for a WARP with n <= 8, holder) [i].
  ir::ValueId mma(ir::ValueId src, MmaRole role, ProcKind holder, ir::ValueId i, int64_t n = 256) {
    ir::PartitionSpec p;
    p.kind = ir::PartitionSpec::Kind::Mma;
    p.role = role;
    p.instr = holder == ProcKind::Warpgroup || n > 8 ? "wgmma" : "mma_sync";
    p.m = 64;
    p.n = n;
    p.k = 16;
    p.holder = holder;
    return piece(src, std::move(p), {i}, f.info(src).rank);
  }

  // Asynchronous ops; `over` makes a vectorized op (result events[over...], run once per processor).
  ir::ValueId copy(ir::ValueId src, ir::ValueId dst, std::vector<ir::EventRef> after, std::vector<ProcKind> over = {}) {
    ir::Op op;
    op.kind = ir::OpKind::Copy;
    op.operands = {src, dst};
    op.after = std::move(after);
    op.origin = "copy " + f.info(src).name + " -> " + f.info(dst).name;
    return push(std::move(op), event_info("e", std::move(over)));
  }
  ir::ValueId call(const std::string& name, std::vector<ir::ValueId> args, std::vector<ir::EventRef> after,
                   std::vector<ProcKind> over = {}) {
    ir::Op op;
    op.kind = ir::OpKind::Call;
    op.name = name;
    op.operands = std::move(args);
    op.after = std::move(after);
    op.origin = name;
    return push(std::move(op), event_info("e", std::move(over)));
  }
  ir::ValueId join(std::vector<ir::EventRef> after, std::vector<ProcKind> over = {}) {
    ir::Op op;
    op.kind = ir::OpKind::Join;
    op.after = std::move(after);
    op.origin = "join";
    return push(std::move(op), event_info("j", std::move(over)));
  }

  // for %k in [0, n) iter(%c) after [...] { body(k, c); yield what body returns } (EventRef{} for
  // `yield none`). More carried events: append to the loop's regions[0].args and set distances.
  ir::ValueId for_loop(ir::ValueId n, std::vector<ir::EventRef> after,
                       const std::function<ir::EventRef(ir::ValueId, ir::ValueId)>& body) {
    ir::Op op;
    op.kind = ir::OpKind::For;
    op.operands = {n};
    op.after = std::move(after);
    op.origin = "for";
    ir::ValueId k = f.add_value({ir::Type::Index, "k"});
    ir::ValueId c = f.add_value({ir::Type::Event, "c"});
    ir::Block blk;
    blk.args = {k, c};
    blocks_.push_back(&blk);
    blk.yield = body(k, c);
    blocks_.pop_back();
    op.regions.push_back(std::move(blk));
    return push(std::move(op), event_info("L", {}));
  }
  // pfor PROC %var in [0, n) after [...] { body(var); yield what body returns }
  ir::ValueId pfor(ProcKind p, ir::ValueId n, std::vector<ir::EventRef> after,
                   const std::function<ir::EventRef(ir::ValueId)>& body, const std::string& var = "p") {
    ir::Op op;
    op.kind = ir::OpKind::PFor;
    op.proc = p;
    op.operands = {n};
    op.after = std::move(after);
    op.origin = "pfor";
    ir::ValueId i = f.add_value({ir::Type::Index, var});
    ir::Block blk;
    blk.args = {i};
    blocks_.push_back(&blk);
    blk.yield = body(i);
    blocks_.pop_back();
    op.regions.push_back(std::move(blk));
    return push(std::move(op), event_info("E", {p}));
  }

  ir::Function f;
  bool name_consts = false;

 private:
  static ir::ValueInfo event_info(const std::string& name, std::vector<ProcKind> dims) {
    ir::ValueInfo i{dims.empty() ? ir::Type::Event : ir::Type::Events, name};
    i.event_dims = std::move(dims);
    return i;
  }
  ir::ValueId push(ir::Op op, ir::ValueInfo info) {
    op.result = f.add_value(std::move(info));
    ir::ValueId r = op.result;
    blocks_.back()->ops.push_back(std::move(op));
    return r;
  }
  std::vector<ir::Block*> blocks_;
};

// Event references: %v, %v[:, ...] (all elements, `dims` dimensions), %v[%i].
inline ir::EventRef ev(ir::ValueId v) { return ir::EventRef{v, {}}; }
inline ir::EventRef all(ir::ValueId v, size_t dims = 1) { return ir::EventRef{v, std::vector<ir::ValueId>(dims, ir::kNone)}; }
inline ir::EventRef at(ir::ValueId v, ir::ValueId i) { return ir::EventRef{v, {i}}; }

// The op of `b` (at any depth) defining `result`, or nullptr.
inline const ir::Op* find_op(const ir::Block& b, ir::ValueId result) {
  for (const ir::Op& op : b.ops) {
    if (op.result == result) return &op;
    for (const ir::Block& r : op.regions)
      if (const ir::Op* x = find_op(r, result)) return x;
  }
  return nullptr;
}

// Host tensors: an f32 vector with the given values, one of zeros, and a buffer's elements.
inline exec::View vec(const std::string& name, std::vector<double> xs) {
  exec::View v(exec::make_buffer(DType::F32, {static_cast<int64_t>(xs.size())}, name));
  for (size_t i = 0; i < xs.size(); ++i) v.store({static_cast<int64_t>(i)}, xs[i]);
  return v;
}
inline exec::View zeros(const std::string& name, int64_t n) { return vec(name, std::vector<double>(static_cast<size_t>(n), 0.0)); }
inline std::vector<double> values(const exec::View& v) { return v.buffer()->data; }

}  // namespace loom::test

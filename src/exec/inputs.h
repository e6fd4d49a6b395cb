// The entry arguments of a checked program, for the two CPU engines (the reference interpreter,
// src/exec/reference.h, and the event-IR executor). make_inputs builds one tensor per tensor
// parameter of the entry instance's task with the extents given by dimension name, fills the ones
// the task reads (r, rw, red) with random integers in [-2, 2] from a seeded std::mt19937_64 (so every
// product and sum is exact and the engines can be compared exactly), poisons the write-only ones (w)
// with NaN, and gives scalar parameters small integer values (1) unless given. copy_args makes an
// independent deep copy, so both engines start from identical data. Test:
// tests/unit/reference_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "exec/host_tensor.h"
#include "loom/ast.h"
#include "loom/check.h"

namespace loom::exec {

// One argument of the entry task, in parameter order.
struct Arg {
  std::string name;            // the task's parameter name
  bool is_tensor = true;
  DType dtype = DType::F32;    // element type (tensors) or scalar type (f32 / i32; index is i32)
  Privilege priv = Privilege::Read;  // tensors only
  View view;                   // tensors: a whole buffer
  double scalar = 0;           // scalars
};

struct Args {
  std::vector<Arg> args;
  const Arg* find(const std::string& name) const;
  Arg* find(const std::string& name);
};

// The entry instance of `p`'s mapping (nullptr when there is none).
const Instance* entry_instance(const Program& p);

// Builds the entry arguments. `sizes` binds every dimension name of the entry task (all must be
// given; an unknown name is an error), `scalars` optionally binds scalar parameters by name.
// Throws std::runtime_error with a clear message on any problem.
Args make_inputs(const Program& p, const TaskTree& tree, const std::map<std::string, int64_t>& sizes, uint64_t seed,
                 const std::map<std::string, double>& scalars = {});

// A deep copy: fresh buffers with the same contents (tensors that shared a buffer still share one).
Args copy_args(const Args& a);

// The executor's view of the same arguments (views share the buffers of `a`).
std::vector<ExecArg> exec_args(const Args& a);

// The CPU executor holds every tensor in memory, a double an element, in several copies: throws
// std::runtime_error (saying which tensor is largest) when `tensors` (name, extents) hold more
// than kMaxExecutorElements elements in all, instead of failing in the allocator.
constexpr int64_t kMaxExecutorElements = int64_t{1} << 26;  // 512 MB a copy
void check_executor_elements(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors);

// Parses "M=129,N=257,K=65" (the --size syntax). Throws std::runtime_error on bad syntax.
std::map<std::string, int64_t> parse_sizes(const std::string& text);

// The first element where two argument sets differ in a tensor the entry task writes (w, rw, red):
// values differ by more than `tolerance` (absolute), or exactly one of them is NaN. Two NaNs are
// equal (both engines left the element unwritten; see count_nan). nullopt when they match.
struct Mismatch {
  std::string tensor;
  std::vector<int64_t> index;
  double expected = 0;  // from `a` (the reference)
  double actual = 0;    // from `b`
  std::string describe() const;  // "C[3, 17]: reference 12, executor 11"
};
// With `ulps` > 0 a difference of at most that many units in the last place of the tensor's element
// type (at the larger magnitude) is also accepted.
std::optional<Mismatch> compare_outputs(const Args& a, const Args& b, double tolerance = 0, double ulps = 0);

// One unit in the last place of `t` at the magnitude of `x` (bf16: 8 significant bits, f16: 11,
// f32: 24; i32: 1).
double ulp(DType t, double x);

// Number of NaN elements of one tensor argument (poison that was never overwritten).
int64_t count_nan(const Arg& a);

}  // namespace loom::exec

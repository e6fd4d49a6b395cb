// Small RAII helpers over libisl's C API for the tensor-expression analysis (src/tx/poly.cpp):
// an owned context that never aborts (errors come back as null objects, which the callers turn
// into internal errors, or — when the operation budget ran out — into a user-visible diagnostic),
// and owned set/map handles. Test: through tests/unit/tx_poly_test.cpp.
#pragma once

#include <isl/ctx.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace loom::tx {

struct IslCtxFree { void operator()(isl_ctx* c) const { isl_ctx_free(c); } };
struct IslSetFree { void operator()(isl_set* s) const { isl_set_free(s); } };
struct IslMapFree { void operator()(isl_map* m) const { isl_map_free(m); } };
struct IslUSetFree { void operator()(isl_union_set* s) const { isl_union_set_free(s); } };
struct IslUMapFree { void operator()(isl_union_map* m) const { isl_union_map_free(m); } };
struct IslPointFree { void operator()(isl_point* p) const { isl_point_free(p); } };

using IslCtx = std::unique_ptr<isl_ctx, IslCtxFree>;
using IslSet = std::unique_ptr<isl_set, IslSetFree>;
using IslMap = std::unique_ptr<isl_map, IslMapFree>;
using IslUSet = std::unique_ptr<isl_union_set, IslUSetFree>;
using IslUMap = std::unique_ptr<isl_union_map, IslUMapFree>;
using IslPoint = std::unique_ptr<isl_point, IslPointFree>;

// Operations one analysis may spend (a hostile file's huge mod constants must not hang loom).
constexpr unsigned long kIslMaxOperations = 20'000'000;

inline IslCtx make_isl_ctx() {
  IslCtx c(isl_ctx_alloc());
  isl_options_set_on_error(c.get(), ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(c.get(), kIslMaxOperations);
  return c;
}

// ISL's text of an object (the char* it returns is ours to free).
inline std::string isl_text(char* s) {
  std::string out = s ? s : "<null>";
  std::free(s);
  return out;
}

}  // namespace loom::tx

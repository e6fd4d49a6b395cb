// libFuzzer entry point over the tensor-expression front end (`.tx` files, docs/tensor-expressions.md):
// everything `loom check x.tx`, `loom fmt x.tx` and `loom compile x.tx --emit=contraction|loom` do with
// an untrusted buffer, in the CLI's order (src/tx/cli.cpp): parse, the `loom fmt` contract, check,
// the ISL polyhedral analysis (bounds, `par` legality), contraction recognition, and the lowering of
// each recognized kernel to a task program, which must then check with loom's own front end. Built
// by `make fuzz` next to loom_fuzz (tests/fuzz/CMakeLists.txt); run by scripts/fuzz.sh with
// FUZZ_TARGET=tx; described in docs/fuzzing.md.
//
// The checks are tests/fuzz/tx_front_end.h's (shared with tests/unit/tx_fuzz_regression_test.cpp).
// A finding is any of:
//   - a sanitizer report, a stack overflow, a hang (libFuzzer -timeout) or running out of memory;
//   - a loom::InternalError or any other exception escaping (the CLI would exit 2); a lowering that
//     refuses a kernel does so with a located CompileError, which is fine;
//   - a broken `loom fmt` contract on a program that parsed without errors: the canonical text does
//     not parse or is not a fixed point of print_tx;
//   - a lowered program that loom's own checker rejects.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "tx_front_end.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n==loom_fuzz_tx== FINDING: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string problem;
  try {
    problem = loom::fuzz::tx_front_end_problem(text);
  } catch (const loom::InternalError& e) {
    finding("loom::InternalError (the CLI would exit 2)", e.what());
  } catch (const std::exception& e) {
    finding("exception escaped the tx front end (the CLI would exit 2)", e.what());
  } catch (...) {
    finding("non-standard exception escaped the tx front end", "");
  }
  if (!problem.empty()) finding("broken contract", problem);
  return 0;
}

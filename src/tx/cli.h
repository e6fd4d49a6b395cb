// The `.tx` side of the `loom` command line (tools/loom/main.cpp hands every FILE ending in .tx
// here; docs/cli.md): `loom check x.tx`, `loom fmt x.tx`, `loom compile x.tx --emit=tx|deps|contraction|mapping|loom`
// and `loom run --cpu x.tx [--size M=..,N=..] [--seed S] [--interpret-only]` (the interpreter against
// the lowered programs on the CPU executor, src/tx/cpu_compare.h). Test: tests/unit/tx_cpu_compare_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tx/simt_cuda.h"

namespace loom::tx {

struct TxCommand {
  std::string command;  // check | fmt | compile | run
  std::string path;     // the file's name as diagnostics show it
  std::string text;     // its contents
  std::string emit;     // compile: tx | deps | contraction | mapping | loom
  std::string sizes;    // run: "M=129,N=257" (sizes not given get defaults, see docs/cli.md)
  uint64_t seed = 1;
  bool interpret_only = false;  // run: the interpreter alone, no comparison with the lowered programs
  bool race_check = true;       // run: the executor's race check
  double tolerance = -1;        // run: an absolute tolerance for the comparison (< 0: src/tx/cpu_compare.h)
  bool json_diagnostics = false;
};

// Runs one command; what it prints goes to `out`, diagnostics to `err`. Returns the exit status
// (0 ok, 1 user error).
int run_tx_command(const TxCommand& c, std::string& out, std::string& err);

// The file's recognized kernels, each lowered to a task program (src/tx/lower.h): (kernel name,
// `.loom` text) in program order; and every other statement group as a SIMT kernel (thread-mapped,
// src/tx/thread_map.h) with its CUDA artifact. A group that cannot be mapped is a user error.
// Diagnostics go to `err`; returns 0 or 1.
int lower_tx_file(const std::string& path, const std::string& text, std::vector<std::pair<std::string, std::string>>& programs,
                  std::vector<SimtArtifact>& simt, std::string& err, bool json_diagnostics = false);

}  // namespace loom::tx

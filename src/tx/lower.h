// The lowering of a recognized contraction kernel (src/tx/contraction.h) to an ordinary loom task
// program plus its default mapping, as `.loom` source that the existing front end parses and the
// existing pipeline compiles (issue 13, section 3). Defined in src/tx/lower_*.cpp.
#pragma once

#include "tx/contraction.h"

#include <string>

namespace loom::tx {

// The task program and mapping (one `.loom` file's text) computing `k`. Tile sizes k.u/k.v/k.w
// when set, otherwise chosen by the cost model over the machine model. Throws loom::CompileError
// (include/loom/diagnostics.h, located at k.loc) for what no mapping can run.
std::string lower_to_loom(const ContractionKernel& k);

}  // namespace loom::tx

// Race detection for the CPU executor (ExecOptions::detect_races; executor.h, RACES): the history
// of every buffer element's accesses since its last write, and the test that each new conflicting
// access comes after the earlier one in the instance graph.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/host_tensor.h"
#include "ir/ir.h"

namespace loom::exec::detail {

// How an instance touches a view: reads it, reduces into it (copy.sum / copy.max), or writes it.
enum AccessMode : uint8_t { kRead = 0, kSum = 1, kMax = 2, kWrite = 3 };
const char* access_verb(uint8_t mode);  // "reads", "reduces (copy.sum) into", ..., "writes"

struct MemAccess {
  View view;
  uint8_t mode = kRead;
  int64_t tag = -1;  // replica: the lane of a replicated row piece it goes through; -1 = all
  ir::ValueId value = ir::kNone;
};

// The instance graph as the executor keeps it: per node its completion order (seq; -1 while not
// done) and its preds (pred_range[n] = offset, count in pred_pool).
struct InstanceGraph {
  const std::vector<int32_t>& seq;
  const std::vector<std::pair<int32_t, int32_t>>& pred_range;
  const std::vector<int32_t>& pred_pool;
};

// A conflicting pair no chain of events orders: `first` made an access of `first_mode` to element
// `flat` of `access->view`'s buffer, and `second` is about to make `*access`.
struct Race {
  int32_t first;
  uint8_t first_mode;
  int32_t second;
  const MemAccess* access;
  int64_t flat;
};

class AccessHistory {
 public:
  // Instance `id` is about to make the accesses `acc`. Every earlier access of another instance to
  // an element it touches, that conflicts with its own, must happen before it: the earlier instance
  // must be an ancestor of `id` in the instance graph (the event edges, plus "a loop body's
  // instances come after the loop started"). Since the graph does not depend on the order of
  // execution, this finds every race of the program whichever order the seed picks. Returns the
  // first race (and records nothing), else records the accesses.
  std::optional<Race> record(int32_t id, const std::vector<MemAccess>& acc, const InstanceGraph& g);

 private:
  // One access of one instance to one element, in one of the element's lists (linked through `next`).
  struct Entry {  // 12 bytes: there is one per element per reader between writes
    int32_t inst;
    int32_t next;
    int16_t tag;  // a lane index, or -1
    uint8_t mode;
  };
  // Per buffer element, two access lists (-1 = empty): writes and reductions, and reads. A read
  // conflicts only with the first; a write or reduction with both.
  struct Shadow {
    std::vector<int32_t> writes, reads;
  };
  Shadow& shadow(const View& v);
  // Entries live in chunks (no reallocation: there may be millions), recycled through free_.
  static constexpr int kChunkBits = 16;
  Entry& entry(int32_t i) { return chunks_[static_cast<size_t>(i) >> kChunkBits][static_cast<size_t>(i) & ((1u << kChunkBits) - 1)]; }
  int32_t new_entry(const Entry& e);
  void search_ancestors(int32_t id, const std::vector<int32_t>& targets, const InstanceGraph& g);

  std::unordered_map<const Buffer*, Shadow> shadow_;
  std::vector<std::vector<int64_t>> flats_;  // scratch: the elements of each access
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  int32_t entry_count_ = 0;
  int32_t free_ = -1;
  std::vector<uint32_t> mark_, found_, visit_;
  uint32_t stamp_ = 0;
  std::vector<int32_t> queue_;
};

}  // namespace loom::exec::detail

// Race detection for the CPU executor: see races.h.
#include "exec/races.h"

#include <algorithm>
#include <climits>

namespace loom::exec::detail {

const char* access_verb(uint8_t m) {
  switch (m) {
    case kRead: return "reads";
    case kSum: return "reduces (copy.sum) into";
    case kMax: return "reduces (copy.max) into";
    default: return "writes";
  }
}

namespace {

// Whether two accesses of different instances to one element conflict: not both reads, not both
// the same reduction (reducing copies commute), and not two different replicas of a replicated
// row piece (each lane of a quad holds its own replica of those entries, docs/language.md 5).
bool conflicts(uint8_t m1, int64_t t1, uint8_t m2, int64_t t2) {
  if (t1 >= 0 && t2 >= 0 && t1 != t2) return false;
  if (m1 == kRead && m2 == kRead) return false;
  if (m1 == m2 && (m1 == kSum || m1 == kMax)) return false;
  return true;
}

// Whether every access that conflicts with (m2, t2) also conflicts with (m1, t1).
bool dominates(uint8_t m1, int64_t t1, uint8_t m2, int64_t t2) {
  if (t1 >= 0 && t1 != t2) return false;
  return m1 == kWrite || m1 == m2;
}

// Flat buffer indices of every element of `v` (each buffer coordinate depends on one coordinate
// of the view, so flat(c) = flat(0) + sum_d (flat(c_d e_d) - flat(0))).
void flat_elements(const View& v, std::vector<int64_t>& out) {
  out.clear();
  const int64_t n = v.size();
  if (n == 0) return;
  const int r = v.rank();
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  const int64_t base = v.flat(c);
  if (r == 0) {
    out.push_back(base);
    return;
  }
  std::vector<std::vector<int64_t>> table(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) {
    for (int64_t x = 0; x < v.extents()[static_cast<size_t>(d)]; ++x) {
      c[static_cast<size_t>(d)] = x;
      table[static_cast<size_t>(d)].push_back(v.flat(c) - base);
    }
    c[static_cast<size_t>(d)] = 0;
  }
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  const auto& last = table[static_cast<size_t>(r - 1)];
  for (;;) {
    int64_t off = base;
    for (int d = 0; d + 1 < r; ++d) off += table[static_cast<size_t>(d)][static_cast<size_t>(idx[static_cast<size_t>(d)])];
    for (int64_t x : last) out.push_back(off + x);
    int d = r - 2;
    for (; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < v.extents()[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
    if (d < 0) break;
  }
}

}  // namespace

AccessHistory::Shadow& AccessHistory::shadow(const View& v) {
  Shadow& h = shadow_[v.buffer().get()];
  if (h.writes.size() != v.buffer()->data.size()) {
    h.writes.assign(v.buffer()->data.size(), -1);
    h.reads.assign(v.buffer()->data.size(), -1);
  }
  return h;
}

int32_t AccessHistory::new_entry(const Entry& e) {
  int32_t x;
  if (free_ >= 0) {
    x = free_;
    free_ = entry(x).next;
  } else {
    if ((static_cast<size_t>(entry_count_) >> kChunkBits) == chunks_.size())
      chunks_.push_back(std::make_unique<Entry[]>(size_t{1} << kChunkBits));
    x = entry_count_++;
  }
  entry(x) = e;
  return x;
}

std::optional<Race> AccessHistory::record(int32_t id, const std::vector<MemAccess>& acc, const InstanceGraph& g) {
  ++stamp_;
  if (mark_.size() < g.seq.size()) {
    mark_.resize(g.seq.size(), 0);
    found_.resize(g.seq.size(), 0);
    visit_.resize(g.seq.size(), 0);
  }
  struct Conflict {
    int32_t inst;
    uint8_t mode;
    const MemAccess* a;
    int64_t flat;
  };
  std::vector<Conflict> conflicts_seen;
  std::vector<int32_t> targets;  // the instances of conflicting earlier accesses
  if (flats_.size() < acc.size()) flats_.resize(acc.size());
  auto scan = [&](int32_t head, const MemAccess& a, int64_t fl) {
    for (int32_t e = head; e >= 0; e = entry(e).next) {
      const Entry& en = entry(e);
      if (en.inst == id || !conflicts(en.mode, en.tag, a.mode, a.tag)) continue;
      if (mark_[static_cast<size_t>(en.inst)] != stamp_) {
        mark_[static_cast<size_t>(en.inst)] = stamp_;
        targets.push_back(en.inst);
        conflicts_seen.push_back({en.inst, en.mode, &a, fl});
      }
    }
  };
  for (size_t i = 0; i < acc.size(); ++i) {
    const MemAccess& a = acc[i];
    flat_elements(a.view, flats_[i]);
    if (flats_[i].empty()) continue;
    Shadow& sh = shadow(a.view);
    for (int64_t fl : flats_[i]) {
      scan(sh.writes[static_cast<size_t>(fl)], a, fl);
      if (a.mode != kRead) scan(sh.reads[static_cast<size_t>(fl)], a, fl);
    }
  }
  if (!targets.empty()) search_ancestors(id, targets, g);
  for (const Conflict& c : conflicts_seen)
    if (found_[static_cast<size_t>(c.inst)] != stamp_) return Race{c.inst, c.mode, id, c.a, c.flat};
  // Record the accesses. A write or reduction drops the entries it makes redundant: those of its
  // ancestors (all conflicting ones are, by now) and its own that it dominates — whatever would
  // race with those races with it.
  for (size_t i = 0; i < acc.size(); ++i) {
    const MemAccess& a = acc[i];
    if (flats_[i].empty()) continue;
    Shadow& sh = shadow(a.view);
    for (int64_t fl : flats_[i]) {
      int32_t& wh = sh.writes[static_cast<size_t>(fl)];
      int32_t& rh = sh.reads[static_cast<size_t>(fl)];
      if (wh >= 0) {  // already written by this instance (an argument passed twice)?
        const Entry& own = entry(wh);
        if (own.inst == id && dominates(own.mode, own.tag, a.mode, a.tag)) continue;
      }
      if (a.mode == kRead) {
        if (rh >= 0 && entry(rh).inst == id) continue;
        rh = new_entry(Entry{id, rh, static_cast<int16_t>(a.tag), a.mode});
        continue;
      }
      for (int32_t* list : {&wh, &rh}) {
        int32_t* link = list;
        while (*link >= 0) {
          Entry& en = entry(*link);
          bool before = en.inst == id || found_[static_cast<size_t>(en.inst)] == stamp_;
          if (before && dominates(a.mode, a.tag, en.mode, en.tag)) {
            int32_t dead = *link;
            *link = en.next;
            entry(dead).next = free_;
            free_ = dead;
            continue;
          }
          link = &en.next;
        }
      }
      wh = new_entry(Entry{id, wh, static_cast<int16_t>(a.tag), a.mode});
    }
  }
  return std::nullopt;
}

// Marks (found_ = stamp_) which of `targets` are ancestors of `id`: a backward search over preds
// that skips nodes completed before the oldest target (they cannot descend from it) and stops once
// every target is found.
void AccessHistory::search_ancestors(int32_t id, const std::vector<int32_t>& targets, const InstanceGraph& g) {
  int32_t bound = INT32_MAX;
  for (int32_t t : targets) bound = std::min(bound, g.seq[static_cast<size_t>(t)]);
  size_t left = targets.size();
  // Breadth-first: the earlier accesses are usually direct preconditions, or close.
  std::vector<int32_t>& queue = queue_;
  queue.clear();
  visit_[static_cast<size_t>(id)] = stamp_;
  queue.push_back(id);
  for (size_t head = 0; head < queue.size(); ++head) {
    auto [off, cnt] = g.pred_range[static_cast<size_t>(queue[head])];
    for (const int32_t *q = g.pred_pool.data() + off, *end = q + cnt; q != end; ++q) {
      const int32_t p = *q;
      if (visit_[static_cast<size_t>(p)] == stamp_) continue;
      visit_[static_cast<size_t>(p)] = stamp_;
      if (g.seq[static_cast<size_t>(p)] < bound) continue;
      if (mark_[static_cast<size_t>(p)] == stamp_) {
        found_[static_cast<size_t>(p)] = stamp_;
        if (--left == 0) return;
      }
      queue.push_back(p);
    }
  }
}

}  // namespace loom::exec::detail

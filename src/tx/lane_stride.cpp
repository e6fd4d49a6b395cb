// Per-lane access deltas with ISL and their memory cost. See lane_stride.h.
#include "tx/lane_stride.h"

#include <algorithm>
#include <map>
#include <set>

#include "tx/isl_util.h"

namespace loom::tx {
namespace {

// ISL's result, or nullopt when the operation budget ran out (the caller then assumes the worst).
template <typename T>
T* need(isl_ctx* ctx, T* p, const char* what) {
  if (p || isl_ctx_last_error(ctx) == isl_error_quota) return p;
  LOOM_INTERNAL("ISL failed on " << what << ": " << (isl_ctx_last_error_msg(ctx) ? isl_ctx_last_error_msg(ctx) : "?"));
}

}  // namespace

LaneDelta lane_delta(const Model& m, const TxAccess& acc, int loop) {
  const AssignInfo& a = m.assigns.at(static_cast<size_t>(acc.assign));
  const TensorInfo& t = m.tensors.at(static_cast<size_t>(acc.tensor));
  const size_t prefix = t.loops.size();  // a private buffer's loop dimensions come first
  const size_t rank = t.decl->extents.size();
  LaneDelta zero{true, std::vector<int64_t>(rank, 0)};
  auto pos = std::find(a.loops.begin(), a.loops.end(), loop);
  if (pos == a.loops.end()) return zero;
  const size_t d = static_cast<size_t>(pos - a.loops.begin());

  IslCtx ctx = make_isl_ctx();
  isl_ctx* c = ctx.get();
  LaneDelta irregular{false, {}};
  IslMap acc_map(need(c, isl_map_read_from_str(c, acc.relation.c_str()), "an access relation"));
  if (!acc_map) return irregular;
  // shift_d = { S[x] -> S[x + e_d] }, both ends inside the statement's domain.
  std::string in, out;
  for (size_t k = 0; k < a.loops.size(); ++k) {
    in += (k ? ", " : "") + ("x" + std::to_string(k));
    out += (k ? ", " : "") + ("x" + std::to_string(k)) + (k == d ? " + 1" : "");
  }
  const std::string s = stmt_name(acc.assign);
  const std::string shift_text = "{ " + s + "[" + in + "] -> " + s + "[" + out + "] }";
  IslMap shift(need(c, isl_map_read_from_str(c, shift_text.c_str()), "a shift"));
  if (!shift) return irregular;
  shift.reset(isl_map_align_params(shift.release(), isl_map_get_space(acc_map.get())));
  isl_set* dom = isl_map_domain(isl_map_copy(acc_map.get()));
  shift.reset(isl_map_intersect_range(isl_map_intersect_domain(shift.release(), isl_set_copy(dom)), dom));
  // T -> T': the elements touched by the shifted iterations, from the elements touched now.
  IslMap pair(need(c, isl_map_apply_range(isl_map_reverse(isl_map_copy(acc_map.get())),
                                          isl_map_apply_range(shift.release(), isl_map_copy(acc_map.get()))),
                   "a lane-shifted access"));
  if (!pair) return irregular;
  IslSet deltas(need(c, isl_map_deltas(pair.release()), "access deltas"));
  if (!deltas) return irregular;
  const isl_bool empty = isl_set_is_empty(deltas.get());
  if (empty == isl_bool_error) return irregular;
  if (empty == isl_bool_true) return zero;  // the loop never advances (extent 1): nothing to cost
  IslPoint p(need(c, isl_set_sample_point(isl_set_copy(deltas.get())), "a sample delta"));
  if (!p) return irregular;
  // Regular when the deltas are exactly the sample (for every value of the size symbols).
  const int total = static_cast<int>(isl_set_dim(deltas.get(), isl_dim_set));
  std::vector<int64_t> coords;
  std::string point;
  for (int k = 0; k < total; ++k) {
    isl_val* v = isl_point_get_coordinate_val(p.get(), isl_dim_set, k);
    if (!v) return irregular;
    coords.push_back(isl_val_get_num_si(v));
    isl_val_free(v);
    point += (k ? ", " : "") + std::to_string(coords.back());
  }
  IslSet one(need(c, isl_set_read_from_str(c, ("{ [" + point + "] }").c_str()), "a delta point"));
  if (!one) return irregular;
  deltas.reset(isl_set_reset_tuple_id(deltas.release()));
  one.reset(isl_set_align_params(one.release(), isl_set_get_space(deltas.get())));
  if (isl_set_is_subset(deltas.get(), one.get()) != isl_bool_true) return irregular;
  LaneDelta r{true, std::vector<int64_t>(rank, 0)};
  if (coords.size() != prefix + rank) return irregular;
  for (size_t k = 0; k < rank; ++k) r.delta[k] = coords[prefix + k];
  for (size_t k = 0; k < prefix; ++k)  // a private buffer indexed by the lane loop: each lane its own copy
    if (coords[k] != 0) return irregular;
  return r;
}

int warp_sectors(const LaneDelta& d, int elem_bytes) {
  if (!d.regular) return 32;
  const size_t rank = d.delta.size();
  for (size_t k = 0; k + 1 < rank; ++k)
    if (d.delta[k] != 0) return 32;
  const int64_t c = rank ? d.delta[rank - 1] : 0;
  std::set<int64_t> sectors;
  for (int64_t lane = 0; lane < 32; ++lane) {
    const int64_t byte = lane * c * elem_bytes;
    sectors.insert(byte >= 0 ? byte / 32 : -((-byte + 31) / 32));
  }
  return static_cast<int>(sectors.size());
}

std::string describe_delta(const LaneDelta& d) {
  if (!d.regular) return "irregular (not one constant stride)";
  const size_t rank = d.delta.size();
  for (size_t k = 0; k + 1 < rank; ++k)
    if (d.delta[k] != 0) return "stride in dimension " + std::to_string(k) + " (a row apart per lane)";
  const int64_t c = rank ? d.delta[rank - 1] : 0;
  if (c == 0) return "broadcast (one address per warp)";
  if (c == 1) return "stride 1 (contiguous)";
  return "stride " + std::to_string(c) + " elements";
}

int smem_wavefronts(const std::vector<int64_t>& words) {
  std::map<int64_t, std::set<int64_t>> per_bank;
  for (int64_t w : words) per_bank[((w % 32) + 32) % 32].insert(w);
  size_t worst = 1;
  for (const auto& [bank, ws] : per_bank) worst = std::max(worst, ws.size());
  return static_cast<int>(worst);
}

}  // namespace loom::tx

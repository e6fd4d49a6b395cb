// Host tensors and the CPU implementations of the built-in leaf ops. See host_tensor.h.
//
// Edge tiles and mma partitions. `blocks` pieces are clipped at the parent's extent, so the tile a
// processor holds at run time can be smaller than the static tile the checker saw (a 1-row edge tile
// of a 128-row block). An `mma` partition of such a tile is the partition of the tile *padded* to the
// granularity the distribution splits (rows to 64 at WARPGROUP, rows to 16 and columns to 8 at WARP),
// with every piece clipped to the elements that exist. Clipping is exact because every mma
// distribution enumerates its rows (columns) in increasing order in the piece's compact coordinates,
// so the existing elements of a piece are a prefix of each of its dimensions. View::piece does this
// clipping in general: the extents of a piece are, per dimension, the number of leading compact
// coordinates whose parent coordinate lies inside this view; the rest must lie outside (checked).
// So every coordinate inside a view's extents names an element of the buffer, and the leaf ops see
// ordinary (smaller) operands whose shapes agree (the lane's rows of C, A and the row vectors are
// clipped by the same actual row count; its columns of C and B by the same column count).
#include "exec/host_tensor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <unordered_set>

namespace loom::exec {

namespace {

constexpr int kMaxRank = 8;

// DimMap::parent, inlined here (the hot path of View::flat).
inline int64_t map_parent(const DimMap& m, int64_t c) {
  int64_t p = m.offset;
  for (const Mode& md : m.modes) {
    p += (c % md.extent) * md.stride;
    c /= md.extent;
  }
  return p;
}

std::string shape_str(const std::vector<int64_t>& e) {
  std::string s = "[";
  for (size_t i = 0; i < e.size(); ++i) s += (i ? ", " : "") + std::to_string(e[i]);
  return s + "]";
}

std::string desc(const View& v) {
  std::string s = v.buffer() && !v.buffer()->name.empty() ? v.buffer()->name + " " : std::string();
  return s + shape_str(v.extents()) + " " + (v.buffer() ? dtype_name(v.dtype()) : "?");
}

// Round `v` to a binary floating-point format with `mant` explicit mantissa bits, minimum normal
// exponent `emin` and maximum exponent `emax`, ties to even; works on the bits of the double, so
// there is no double rounding through float.
double round_format(double v, int mant, int emin, int emax) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return v;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const bool neg = bits >> 63;
  const int bexp = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t frac = bits & ((uint64_t{1} << 52) - 1);
  if (bexp == 0) return neg ? -0.0 : 0.0;  // double subnormals: far below every target's range
  const int e = bexp - 1023;               // v = 1.frac * 2^e
  const uint64_t sig = (uint64_t{1} << 52) | frac;  // 53 bits
  int shift = 52 - mant;                            // bits dropped for a normal result
  if (e < emin) shift += emin - e;                  // target subnormal: fewer bits survive
  uint64_t q;
  if (shift > 54) {
    q = 0;  // below half the smallest subnormal
  } else {
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    q = sig >> shift;
    if (rem > half || (rem == half && (q & 1))) ++q;
  }
  double r = std::ldexp(static_cast<double>(q), e - 52 + shift);
  if (r >= std::ldexp(1.0, emax + 1)) r = std::numeric_limits<double>::infinity();
  return neg ? -r : r;
}

// Every compact coordinate of `v`, in row-major order, as flat buffer indices. Every piece is a
// product of per-dimension maps, so each buffer coordinate depends on at most one coordinate of the
// view and the flat index is additively separable: flat(c) = flat(0) + sum_d (flat(c_d e_d) - flat(0)).
// One table per dimension, then sums: no walk down the chain per element.
std::vector<int64_t> flat_indices(const View& v) {
  std::vector<int64_t> out;
  const int64_t n = v.size();
  if (n == 0) return out;
  out.reserve(static_cast<size_t>(n));
  const int r = v.rank();
  const auto& ext = v.extents();
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  const int64_t base = v.flat(c);
  std::vector<std::vector<int64_t>> table(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) {
    auto& t = table[static_cast<size_t>(d)];
    t.resize(static_cast<size_t>(ext[static_cast<size_t>(d)]));
    for (int64_t x = 0; x < ext[static_cast<size_t>(d)]; ++x) {
      c[static_cast<size_t>(d)] = x;
      t[static_cast<size_t>(x)] = v.flat(c) - base;
    }
    c[static_cast<size_t>(d)] = 0;
  }
  // Odometer over all but the last dimension; the last one is a straight loop.
  const auto& last = table[static_cast<size_t>(r - 1)];
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  for (;;) {
    int64_t off = base;
    for (int d = 0; d + 1 < r; ++d) off += table[static_cast<size_t>(d)][static_cast<size_t>(idx[static_cast<size_t>(d)])];
    for (int64_t x : last) out.push_back(off + x);
    int d = r - 2;
    while (d >= 0) {
      if (++idx[static_cast<size_t>(d)] < ext[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
      --d;
    }
    if (d < 0) break;
  }
  return out;
}

std::vector<double> gather(const View& v, const std::vector<int64_t>& idx) {
  std::vector<double> out(idx.size());
  const auto& data = v.buffer()->data;
  for (size_t i = 0; i < idx.size(); ++i) out[i] = data[static_cast<size_t>(idx[i])];
  return out;
}

void scatter(const View& v, const std::vector<int64_t>& idx, const std::vector<double>& vals) {
  auto& data = v.buffer()->data;
  const DType t = v.dtype();
  for (size_t i = 0; i < idx.size(); ++i) data[static_cast<size_t>(idx[i])] = round_to(t, vals[i]);
}

// max that propagates NaN (a poisoned operand must stay visible).
double nan_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(a, b);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

// ---- rounding and buffers ---------------------------------------------------------------------------

double round_to(DType t, double v) {
  switch (t) {
    case DType::F32: return round_format(v, 23, -126, 127);
    case DType::BF16: return round_format(v, 7, -126, 127);
    case DType::F16: return round_format(v, 10, -14, 15);
    case DType::I32: {
      if (std::isnan(v)) return v;  // keep poison visible
      double r = std::trunc(v);
      return std::clamp(r, static_cast<double>(std::numeric_limits<int32_t>::min()),
                        static_cast<double>(std::numeric_limits<int32_t>::max()));
    }
  }
  return v;
}

std::shared_ptr<Buffer> make_buffer(DType t, std::vector<int64_t> extents, std::string name) {
  if (extents.empty() || extents.size() > static_cast<size_t>(kMaxRank))
    throw std::runtime_error("buffer '" + name + "': rank " + std::to_string(extents.size()) +
                             " is not supported (1 to " + std::to_string(kMaxRank) + ")");
  int64_t n = 1;
  for (int64_t e : extents) {
    if (e < 0) throw std::runtime_error("buffer '" + name + "': negative extent in " + shape_str(extents));
    if (e != 0 && n > std::numeric_limits<int64_t>::max() / e)
      throw std::runtime_error("buffer '" + name + "': too many elements " + shape_str(extents));
    n *= e;
  }
  auto b = std::make_shared<Buffer>();
  b->dtype = t;
  b->extents = std::move(extents);
  b->data.assign(static_cast<size_t>(n), std::numeric_limits<double>::quiet_NaN());
  b->name = std::move(name);
  return b;
}

// ---- views ------------------------------------------------------------------------------------------

View::View(std::shared_ptr<Buffer> b) : buf_(std::move(b)) {
  if (!buf_) throw std::invalid_argument("View: null buffer");
  extents_ = buf_->extents;
}

int64_t View::size() const {
  int64_t n = 1;
  for (int64_t e : extents_) n *= e;
  return n;
}

View View::piece(std::vector<DimMap> maps) const {
  if (!buf_) throw std::invalid_argument("View::piece on an empty view");
  if (maps.size() != extents_.size())
    throw std::invalid_argument("View::piece: " + std::to_string(maps.size()) + " DimMaps for a view of rank " +
                                std::to_string(extents_.size()));
  std::vector<int64_t> ext;
  for (size_t d = 0; d < maps.size(); ++d) {
    const DimMap& m = maps[d];
    const int64_t lim = extents_[d];
    if (m.modes.empty()) {
      if (m.offset < 0 || m.offset >= lim)
        throw std::out_of_range("View::piece: index " + std::to_string(m.offset) + " of dimension " +
                                std::to_string(d) + " is outside extent " + std::to_string(lim));
      continue;
    }
    const int64_t n = m.extent();
    if (n <= 0) {
      ext.push_back(0);
      continue;
    }
    // Fast path: the whole piece lies inside.
    int64_t lo = m.offset, hi = m.offset;
    for (const Mode& md : m.modes) (md.stride >= 0 ? hi : lo) += (md.extent - 1) * md.stride;
    if (lo >= 0 && hi < lim) {
      ext.push_back(n);
      continue;
    }
    // Clip: the inside coordinates must be a prefix of the compact range.
    auto inside = [&](int64_t c) {
      int64_t p = m.parent(c);
      return p >= 0 && p < lim;
    };
    int64_t k = 0;
    while (k < n && inside(k)) ++k;
    for (int64_t c = k; c < n; ++c)
      if (inside(c))
        throw std::logic_error("View::piece: the part of dimension " + std::to_string(d) +
                               " inside the parent is not a prefix of the piece's coordinates");
    ext.push_back(k);
  }
  View out;
  out.buf_ = buf_;
  out.chain_ = chain_;
  out.chain_.push_back(std::move(maps));
  out.extents_ = std::move(ext);
  return out;
}

int64_t View::flat(const std::vector<int64_t>& c) const {
  if (c.size() != extents_.size())
    throw std::invalid_argument("View::flat: " + std::to_string(c.size()) + " coordinates for rank " +
                                std::to_string(extents_.size()));
  std::array<int64_t, kMaxRank> cur{}, nxt{};
  size_t n = c.size();
  for (size_t i = 0; i < n; ++i) {
    if (c[i] < 0 || c[i] >= extents_[i])
      throw std::out_of_range("View::flat: coordinate " + std::to_string(c[i]) + " of dimension " + std::to_string(i) +
                              " is outside extent " + std::to_string(extents_[i]));
    cur[i] = c[i];
  }
  for (size_t L = chain_.size(); L-- > 0;) {
    const std::vector<DimMap>& maps = chain_[L];
    size_t k = 0;
    for (size_t d = 0; d < maps.size(); ++d) nxt[d] = maps[d].modes.empty() ? maps[d].offset : map_parent(maps[d], cur[k++]);
    n = maps.size();
    cur = nxt;
  }
  int64_t f = 0;
  for (size_t d = 0; d < n; ++d) f = f * buf_->extents[d] + cur[d];
  return f;
}

void View::store(const std::vector<int64_t>& c, double v) const {
  buf_->data[static_cast<size_t>(flat(c))] = round_to(buf_->dtype, v);
}

bool View::overlaps(const View& other) const {
  if (!buf_ || buf_ != other.buf_ || size() == 0 || other.size() == 0) return false;
  std::vector<int64_t> a = flat_indices(*this);
  std::unordered_set<int64_t> s(a.begin(), a.end());
  for (int64_t f : flat_indices(other))
    if (s.count(f)) return true;
  return false;
}

// ---- partition operators ------------------------------------------------------------------------------

View blocks_of(const View& v, const std::vector<int64_t>& block, const std::vector<int64_t>& color) {
  if (block.size() != static_cast<size_t>(v.rank()) || color.size() != static_cast<size_t>(v.rank()))
    throw std::invalid_argument("blocks of " + desc(v) + ": " + std::to_string(block.size()) + " block sizes and " +
                                std::to_string(color.size()) + " indices for a tensor of rank " +
                                std::to_string(v.rank()));
  for (size_t d = 0; d < block.size(); ++d) {
    if (block[d] < 0)  // 0 is `*`, the whole dimension
      throw std::invalid_argument("blocks of " + desc(v) + ": block size " + std::to_string(block[d]) +
                                  " must be positive");
    if (color[d] < 0)
      throw std::out_of_range("blocks of " + desc(v) + ": index " + std::to_string(color[d]) + " is negative");
  }
  // An index past the last block gives an empty piece: the static tile grid of a mapping may have
  // more pieces than a clipped edge tile has at run time.
  return v.piece(blocks_piece(v.extents(), block, color));
}

View slice_of(const View& v, int dim, int64_t i) {
  if (dim < 0 || dim >= v.rank() || v.rank() < 2)
    throw std::invalid_argument("slices of " + desc(v) + ": dimension " + std::to_string(dim) + " cannot be sliced");
  if (i < 0 || i >= v.extents()[static_cast<size_t>(dim)])
    throw std::out_of_range("slices of " + desc(v) + ": index " + std::to_string(i) + " is outside [0, " +
                            std::to_string(v.extents()[static_cast<size_t>(dim)]) + ")");
  return v.piece(slices_piece(v.extents(), dim, i));
}

View mma_of(const View& v, MmaRole role, ProcKind holder, int64_t p, bool transposed) {
  const bool wg = holder == ProcKind::Warpgroup;
  if (!wg && holder != ProcKind::Warp)
    throw std::invalid_argument(std::string("mma partition of ") + desc(v) + " held by a " + proc_name(holder) +
                                ": only a WARPGROUP or a WARP splits a tile");
  const int64_t pieces = wg ? 4 : 32;
  if (p < 0 || p >= pieces)
    throw std::out_of_range(std::string("mma partition of ") + desc(v) + ": piece " + std::to_string(p) +
                            " is outside [0, " + std::to_string(pieces) + ")");
  if (v.rank() != 2 && !(v.rank() == 1 && role != MmaRole::Lhs))
    throw std::invalid_argument(std::string("mma partition (") + mma_role_name(role) + ") of " + desc(v) +
                                ": needs a rank-2 tile, a rank-1 row vector with role acc or a column vector with role rhs");
  if (transposed && v.rank() != 2 && !(v.rank() == 1 && role == MmaRole::Rhs))
    throw std::invalid_argument(std::string("transposed mma partition of ") + desc(v) + ": needs a rank-2 tile or a column vector");
  if (transposed && v.rank() == 1) {  // a column vector cut like the instruction's rows (layout/partition.h)
    const int64_t g = wg ? 64 : 16;
    static const MmaInstr kAnyT{};
    return v.piece(mma_piece(kAnyT, role, holder, {(v.extents()[0] + g - 1) / g * g}, p, true));
  }
  auto up = [](int64_t x, int64_t g) { return (x + g - 1) / g * g; };
  // Transposed (layout/partition.h): the untransposed distribution of the transposed tile, padded
  // as that one is, with the pieces' two dimensions swapped back.
  std::vector<int64_t> tile = v.extents();
  if (transposed) {
    std::swap(tile[0], tile[1]);
    role = transposed_role(role);
  }
  const int64_t row_group = wg ? 64 : 16;
  if (role != MmaRole::Rhs) tile[0] = up(tile[0], row_group);
  if (tile.size() == 2 && !wg && role != MmaRole::Lhs) tile[1] = up(tile[1], 8);
  if (tile.size() == 1 && !wg && role == MmaRole::Rhs) tile[0] = up(tile[0], 8);  // a column vector
  static const MmaInstr kAny{};  // mma_piece does not depend on the instruction (only divisibility)
  std::vector<DimMap> maps = mma_piece(kAny, role, holder, tile, p);
  if (transposed) std::swap(maps[0], maps[1]);
  return v.piece(maps);
}

void copy_view(const View& src, const View& dst) {
  if (src.extents() != dst.extents())
    throw std::runtime_error("copy: shapes differ: destination " + desc(dst) + ", source " + desc(src));
  if (src.dtype() != dst.dtype())
    throw std::runtime_error("copy: element types differ: destination " + desc(dst) + ", source " + desc(src));
  std::vector<double> vals = gather(src, flat_indices(src));
  scatter(dst, flat_indices(dst), vals);
}

// ---- leaf ops -------------------------------------------------------------------------------------------

void run_leaf_op(const LeafOp& op, const std::vector<LeafArg>& args, int broadcast_dim) {
  const std::string name = op.name;
  if (args.size() != op.args.size())
    throw std::runtime_error("'" + name + "': " + std::to_string(args.size()) + " arguments, expected " +
                             std::to_string(op.args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const bool want = op.args[i].kind == OpArgKind::Tensor;
    if (args[i].is_tensor != want)
      throw std::runtime_error("'" + name + "': argument " + std::to_string(i + 1) + " (" + op.args[i].name +
                               ") must be a " + (want ? "tensor" : "scalar"));
    if (want && !args[i].view.buffer())
      throw std::runtime_error("'" + name + "': argument " + std::to_string(i + 1) + " (" + op.args[i].name +
                               ") is an empty view");
  }
  auto shapes = [&]() {
    std::string s;
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].is_tensor) s += (s.empty() ? "" : ", ") + std::string(op.args[i].name) + " " + desc(args[i].view);
    return s;
  };
  auto fail = [&](const std::string& what) { throw std::runtime_error("'" + name + "': " + what + " (" + shapes() + ")"); };
  auto same_shape = [&](size_t i, size_t j) {
    if (args[i].view.extents() != args[j].view.extents())
      fail(std::string("shape mismatch between ") + op.args[i].name + " and " + op.args[j].name);
  };

  switch (op.family) {
    case OpFamily::Mma: {
      const View &C = args[0].view, &A = args[1].view, &B = args[2].view;
      if (C.rank() != 2 || A.rank() != 2 || B.rank() != 2) fail("needs rank-2 C, A and B");
      const int64_t M = C.extents()[0], N = C.extents()[1], K = A.extents()[1];
      if (A.extents()[0] != M || B.extents()[0] != K || B.extents()[1] != N)
        fail("shape mismatch: C must be M x N, A M x K and B K x N");
      std::vector<int64_t> ci = flat_indices(C), ai = flat_indices(A), bi = flat_indices(B);
      std::vector<double> c = gather(C, ci), a = gather(A, ai), b = gather(B, bi);
      // i, k, j order: each C element still sums C + A[i,0]B[0,j] + A[i,1]B[1,j] + ... in k order.
      for (int64_t i = 0; i < M; ++i) {
        double* crow = c.data() + i * N;
        for (int64_t k = 0; k < K; ++k) {
          const double aik = a[static_cast<size_t>(i * K + k)];
          const double* brow = b.data() + k * N;
          for (int64_t j = 0; j < N; ++j) crow[j] += aik * brow[j];
        }
      }
      scatter(C, ci, c);
      return;
    }
    case OpFamily::Fill: {
      const View& X = args[0].view;
      const double v = args.size() > 1 ? args[1].scalar : 0.0;
      std::vector<int64_t> xi = flat_indices(X);
      scatter(X, xi, std::vector<double>(xi.size(), v));
      return;
    }
    case OpFamily::Copy:
      same_shape(0, 1);
      if (args[0].view.dtype() != args[1].view.dtype()) fail("element types differ (use convert)");
      copy_view(args[1].view, args[0].view);
      return;
    case OpFamily::Convert: {
      same_shape(0, 1);
      std::vector<double> s = gather(args[1].view, flat_indices(args[1].view));
      scatter(args[0].view, flat_indices(args[0].view), s);
      return;
    }
    case OpFamily::Unary:
    case OpFamily::Scale: {
      same_shape(0, 1);
      std::function<double(double)> f;
      if (op.family == OpFamily::Scale) {
        const double s = args[2].scalar;
        f = [s](double x) { return x * s; };
      } else if (name == "exp") {
        f = [](double x) { return std::exp(x); };
      } else if (name == "exp2") {
        f = [](double x) { return std::exp2(x); };
      } else if (name == "relu") {
        f = [](double x) { return std::isnan(x) ? x : std::max(x, 0.0); };
      } else if (name == "sigmoid") {
        f = sigmoid;
      } else if (name == "tanh") {
        f = [](double x) { return std::tanh(x); };
      } else if (name == "silu") {
        f = [](double x) { return x * sigmoid(x); };
      } else if (name == "gelu" || name == "gelu_fast") {  // the tanh form (gelu_fast: the same function)
        f = [](double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); };
      } else {
        fail("no CPU implementation of this unary op");
      }
      std::vector<double> s = gather(args[1].view, flat_indices(args[1].view));
      for (double& x : s) x = f(x);
      scatter(args[0].view, flat_indices(args[0].view), s);
      return;
    }
    case OpFamily::Axpy: {  // D = a X + Y
      same_shape(0, 1);
      same_shape(0, 3);
      const double a = args[2].scalar;
      std::vector<double> x = gather(args[1].view, flat_indices(args[1].view)), y = gather(args[3].view, flat_indices(args[3].view));
      for (size_t k = 0; k < x.size(); ++k) x[k] = a * x[k] + y[k];
      scatter(args[0].view, flat_indices(args[0].view), x);
      return;
    }
    case OpFamily::RowReduce: {
      const View &D = args[0].view, &S = args[1].view;
      if (D.rank() != 1 || S.rank() != 2 || D.extents()[0] != S.extents()[0])
        fail("needs D of rank 1 with one entry per row of S of rank 2");
      const int64_t M = S.extents()[0], N = S.extents()[1];
      std::vector<int64_t> di = flat_indices(D);
      std::vector<double> d = gather(D, di), s = gather(S, flat_indices(S));
      const bool is_max = name == "rowmax";
      for (int64_t i = 0; i < M; ++i) {
        double acc = is_max ? d[static_cast<size_t>(i)] : 0.0;
        for (int64_t j = 0; j < N; ++j) {
          double x = s[static_cast<size_t>(i * N + j)];
          acc = is_max ? nan_max(acc, x) : acc + x;
        }
        d[static_cast<size_t>(i)] = is_max ? acc : d[static_cast<size_t>(i)] + acc;
      }
      scatter(D, di, d);
      return;
    }
    case OpFamily::Mask: {
      // Coordinates in the root: the buffer the view was cut from (row-major flat index), or for a
      // register conduit's buffer, the tensor it holds a piece of.
      const View& D = args[0].view;
      if (D.rank() != 2) fail("needs a rank-2 tensor");
      const double d = args[1].scalar;
      std::vector<int64_t> di = flat_indices(D);
      std::vector<double> v = gather(D, di);
      for (size_t k = 0; k < di.size(); ++k) {
        const Buffer* b = D.buffer().get();
        int64_t f = di[k];
        while (b->holds) {
          std::vector<int64_t> c(b->extents.size());
          for (size_t x = c.size(); x-- > 0;) {
            c[x] = f % b->extents[x];
            f /= b->extents[x];
          }
          f = b->holds->flat(c);
          b = b->holds->buffer().get();
        }
        if (b->extents.size() != 2) fail("needs a rank-2 tensor cut from a rank-2 tensor");
        const int64_t i = f / b->extents[1], j = f % b->extents[1];
        if (static_cast<double>(j - i) > d) v[k] = -std::numeric_limits<double>::infinity();
      }
      scatter(D, di, v);
      return;
    }
    case OpFamily::Binary: {
      const View &D = args[0].view, &A = args[1].view, &B = args[2].view;
      same_shape(0, 1);
      const bool bcast = B.rank() != D.rank();
      const bool by_cols = bcast && broadcast_dim == 1;
      if (bcast && !(D.rank() == 2 && B.rank() == 1 && B.extents()[0] == D.extents()[by_cols ? 1 : 0]))
        fail(by_cols ? "B must be rank 1 with one value per column of a rank-2 D"
                     : "B must have D's shape, or be rank 1 with one value per row of a rank-2 D");
      if (!bcast && B.extents() != D.extents()) fail("B must have D's shape");
      std::function<double(double, double)> f;
      if (name == "add") f = [](double x, double y) { return x + y; };
      else if (name == "sub") f = [](double x, double y) { return x - y; };
      else if (name == "mul") f = [](double x, double y) { return x * y; };
      else if (name == "div") f = [](double x, double y) { return x / y; };
      else if (name == "max") f = nan_max;
      else fail("no CPU implementation of this binary op");
      std::vector<double> a = gather(A, flat_indices(A)), b = gather(B, flat_indices(B));
      const size_t cols = bcast ? static_cast<size_t>(D.extents()[1]) : 1;
      for (size_t k = 0; k < a.size(); ++k) a[k] = f(a[k], b[!bcast ? k : by_cols ? k % cols : k / cols]);
      scatter(D, flat_indices(D), a);
      return;
    }
  }
  fail("unknown op family");
}

}  // namespace loom::exec

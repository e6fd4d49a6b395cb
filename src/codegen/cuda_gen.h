// The CUDA back end's private header: the helper structs, the small free helpers and the CudaGen
// class (one generator per mapping's kernel), whose methods are defined one concept per file:
//   cuda_gen.cpp    — the driver: index, the grid, views, the code streams, immediate ops;
//   events.cpp      — which events the DMA role waits for (signals), and how every wait is lowered;
//   dma.cpp         — global -> shared TMA copies: tensor maps, shared tiles, their layouts;
//   async_copy.cpp  — the same copies by cp.async, in the async-copy variant (Producer::AsyncCopy);
//   wgmma.cpp       — tensor-core mma: accumulator fragments in registers, smem descriptors;
//   elementwise.cpp — fill and element-wise leaves on register fragments (row vectors broadcast);
//   operands.cpp    — global inputs of element-wise leaves: column vectors (a bias), global tiles;
//   rows.cpp        — row vectors in registers, row reductions, register copies, A operands
//                     forwarded from registers (the attention softmax);
//   sync.cpp        — waits for other processors' work: __syncwarp and named barriers;
//   pingpong.cpp    — compute warpgroups taking turns on the tensor cores, the deferred mma;
//   splitk.cpp      — splitk(S): a tile's K loop shared by a cluster of S blocks, the partial sums
//                     added over distributed shared memory;
//   multicast.cpp   — multicast(S): clusters of S blocks on neighbouring tiles, the loads they
//                     share issued once per cluster (TMA multicast), ring slots freed cluster-wide;
//   alternate.cpp   — alternate(T): teams of compute warpgroups taking the block's tiles in turn;
//   kteams.cpp      — kteams(T): teams of compute warpgroups sharing each tile's K loop, their
//                     partial sums added through shared memory;
//   epilogue.cpp    — stores of accumulator fragments to global memory (staged TMA or direct);
//   assemble.cpp    — the kernel skeleton (setup / producer / consumer) and shared-memory layout;
//   launcher.cpp    — the host launcher and the C ABI functions (loom_<entry>, loom_<entry>_info);
//   header.cpp      — the generated C header;
//   cuda.cpp        — the public entry points (cuda.h): one kernel, or one per mapping and a dispatcher.
// Overview in cuda.h; the full table in docs/codegen.md. The event-lowering table, kept here in one
// header:
//
// EVENTS. For an op X waiting on reference r (after list), with Y the op that produces r's event
// (joins and loop events are looked through; a carried event of distance d in iteration k is the
// loop's yield in iteration k - d, or the loop's preconditions for k < d):
//   Y a TMA copy                 -> mbarrier wait on Y's barrier: slot k mod R, parity (k / R) & 1
//                                  (R = the enclosing loop's pipeline depth, 1 outside loops);
//   Y a wgmma call, X in the same warpgroup:
//       X a wgmma on the same accumulator -> nothing (a warpgroup's wgmmas on one accumulator run
//                                  in issue order, HOPPER-FACTS F1);
//       X not touching Y's accumulator, every shared operand of X from a TMA copy X waits for
//       directly                -> nothing (no data flows from Y to X; e.g. dual_gemm's second mma);
//       otherwise               -> wgmma_wait<0> once (until the next wgmma);
//   Y a per-thread op in X's thread -> nothing (program order);
//   Y's instances on other processors of the compute role (a broadcast E[:, ...]) -> nothing when
//       Y writes only those processors' private registers and every shared-memory operand of X is
//       produced by a TMA copy X waits for directly (then no data reaches X through them, and
//       whatever Y waited for that X touches, X waits for itself); otherwise a named barrier over
//       the threads whose instances may touch the same shared or global elements (sync.cpp:
//       nothing, __syncwarp, or a named barrier over a warpgroup or over all compute warpgroups);
//   X in the DMA role, Y in the compute role (a `cross` reference) -> an mbarrier the compute warps
//       arrive on (lane 0 of each warp, count = compute warps) when their part of Y is done; for a
//       loop's yield made of wgmmas the arrival is deferred until the next iteration's wgmmas are
//       committed (wgmma_wait<G>, G = wgmma groups per iteration), or to the loop's end, so the
//       tensor cores never drain.
// Every other combination is a CompileError ("the CUDA back end cannot lower ... yet").
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "codegen/cuda.h"
#include "ir/leaf_ops.h"
#include "passes/bounds.h"

// Internal to the back end: nothing outside src/codegen includes this header.
namespace loom::codegen::detail {

using ir::EventRef;
using ir::Function;
using ir::Op;
using ir::OpKind;
using ir::PartitionSpec;
using ir::ValueId;
using ir::kNone;

// A CompileError at op's location: "the CUDA back end cannot lower WHAT yet" (cuda_gen.cpp).
[[noreturn]] void cannot(const Op* op, const std::string& what, const std::string& hint = "");

// Spellings of an element type and a swizzle in the generated code (cuda_gen.cpp): the C++ type, the
// loom_dtype of the C ABI, the host TMA helper's dtype, the loom::Swizzle enumerator.
std::string cpp_type(DType t);
std::string abi_dtype(DType t);
std::string tma_dtype(DType t);
std::string swizzle_enum(int bytes);

// A piece of a wgmma operand tile (an `mma` partition): a warp's piece of a warpgroup's tile, or a
// thread's piece of that.
struct Frag {
  MmaRole role = MmaRole::Acc;
  int64_t m = 0, n = 0, k = 0;
  ValueId tile = kNone;  // the warpgroup's tile (the view the WARPGROUP-level mma piece cuts)
  int level = 0;         // 1: a warp's piece of the tile, 2: a thread's
  bool transposed = false;  // the instruction's tile is the transpose of `tile` (layout/partition.h)
};
// A tensor value as the generated code sees it: a root (a function parameter or an alloc), where
// the view starts in each root dimension, which root dimension each view dimension is, and the
// view's (clipped, run-time) extents. Strings are C++ expressions over generated locals.
struct View {
  ValueId root = kNone;
  bool param = false;
  MemKind mem = MemKind::None;
  DType dtype = DType::F32;
  std::vector<int> dims;          // view dimension -> root dimension
  std::vector<std::string> off;   // per root dimension
  std::vector<std::string> ext;   // per view dimension
  std::optional<Frag> frag;
  bool rows = false;  // a thread's piece of a row vector: its 2 rows (rows.cpp)
  bool cols = false;  // a thread's piece of a column vector: its fragment's columns (operands.cpp)
};

// One code stream: the lines one role executes, with the values it has defined.
struct Stream {
  std::string name;
  std::vector<std::string> lines;
  std::set<ValueId> defined;
  int indent = 2;
  std::set<std::string> waited;   // waits already emitted in the current iteration scope
  // The wgmma groups committed and not yet waited for, oldest first (events.cpp: wgmma_wait_for
  // waits for one of them with wgmma_wait<N>, N the groups committed after it).
  struct Group {
    const Op* mma = nullptr;  // the mma call; nullptr: groups of unknown ops (a yield's wait leaves them)
    std::string acc;          // its accumulator's variable, fenced once the group is done
    int scope = 0;            // the straight-line scope (loop body) it was committed in
    bool conditional = false; // committed only if a run-time condition holds (counts may not hold)
    // An arrival to make once the group is done, for iteration k - 1 if k > 0 (pingpong.cpp: a
    // rotated loop releases the previous iteration's ring slots once its deferred mma has run);
    // signal -1: none.
    int release_signal = -1;
    std::string release_slot, release_k;
  };
  std::vector<Group> groups;
  int scope = 0;                  // the current straight-line scope: each loop body opens a new one
  int next_scope = 1;
  bool wgmma_pending() const { return !groups.empty(); }
  void line(const std::string& s) { lines.push_back(std::string(static_cast<size_t>(indent), ' ') + s); }
};

struct Barrier {
  std::string name;     // bar_<event>
  int64_t ring = 1;     // slots
  std::string count;    // arrival count per phase (C++ expression)
  std::string comment;
  int64_t offset = 0;   // bytes in dynamic shared memory
  // multicast.cpp: a release the compute warps of the cluster's blocks arrive on (the count
  // includes them all): of every block, or with `peers` of the S + T - 1 blocks of the block's row
  // and column only (mc_peer_heads_).
  bool cluster = false;
  bool peers = false;
  // ... and the slots' only compute-role readers are wgmmas: one arrival per compute warpgroup and
  // block (not per warp), spread over the warpgroup's warps (mc_wgmma_heads_).
  bool per_warpgroup = false;
};

// A compute-role event the DMA role waits for.
struct Signal {
  int barrier = -1;     // index into barriers_
  const Op* loop = nullptr;  // set when the event is a loop's yield (carried event)
  int64_t ring = 1;
};

struct TensorMap {
  std::string name;     // tm_<param>_<n>
  ValueId param = kNone;
  std::vector<int64_t> box;  // per root dimension (root order, outermost first)
  int swizzle = 0;
  DType dtype = DType::BF16;
};

// How a kernel's producer fills the shared tiles of its global -> shared copies: with TMA boxes (the
// kernel the launcher prefers), or, in the async-copy variant that runs when the TMA cannot address
// a tensor, with cp.async / plain loads by every producer thread (dma.cpp; docs/codegen.md, "The
// async-copy variant"). The variant has no TMA stores (no staging) and checks alignment before
// each vector store.
enum class Producer { Tma, AsyncCopy };

class CudaGen {
 public:
  CudaGen(const Function& f, const std::string& source, bool staging_allowed, Producer producer = Producer::Tma)
      : f_(f), entry_(entry_of(f)), source_(source), bounds_(f), names_(ir::value_names(f)),
        staging_allowed_(staging_allowed && producer == Producer::Tma), async_copy_(producer == Producer::AsyncCopy) {}
  // The async-copy variant's kernel and launcher (its body()), placed before this TMA kernel in a
  // namespace `async_copy`; this kernel's launcher calls it for arguments the TMA cannot address.
  // Empty (the default): no variant, such arguments are LOOM_ERR_ALIGN. Set before run().
  void set_async_copy_variant(std::string body) { async_copy_body_ = std::move(body); }
  // At most this many 128-byte slices of a warpgroup's epilogue tile in its staging tile at once
  // (epilogue.cpp: the rest are stored chunk after chunk), for a kernel whose whole staging tiles
  // would not fit its shared memory (cuda.cpp, generate_one). Set before run().
  void set_stage_slices(int64_t n) { stage_slices_ = n; }

  // The entry signature of the function (its C ABI); an internal error when the IR has none.
  static const ir::EntrySignature& entry_of(const Function& f);
  const ir::EntrySignature& entry() const { return entry_; }

  const std::string& head() const { return head_; }
  // Whether the kernel is a streamk one (its file includes kStreamKInclude: the host's plan and workspace).
  bool uses_stream_k() const { return stream_; }
  // Whether run() stopped because a `pingpong` loop cannot take turns (plan_rotation's refusal).
  bool refused_turns() const { return refused_turns_; }
  // The mmas rotated loops defer into their next iteration (their result values' names, no '%').
  const std::vector<std::string>& deferred_mmas() const { return deferred_mmas_; }
  static constexpr const char* kStreamKInclude = "#include \"loom/streamk.h\"\n";
  const std::string& body() const { return body_; }
  const std::string& kernel_line() const { return kernel_line_; }
  int64_t smem_bytes() const { return smem_bytes_; }
  int64_t threads() const { return threads_; }
  // The extern "C" functions; `mappings` > 1: the dispatching launcher's pick_<entry> and
  // launch_<entry>_mapping exist (cuda.cpp), else the kernel's own launch_<entry> is mapping 0.
  std::string abi(int64_t smem_bytes, int64_t threads, int mappings) { return abi_functions(smem_bytes, threads, mappings); }
  // The C parameter list of launch_<entry> (each mapping's launcher and the dispatching one), and
  // the dispatcher's arguments to a mapping's launcher.
  std::string launch_params() const;
  std::string launch_args() const;
  // The tensor parameters as launch_args() names them, each with whether the call writes it (w or
  // rw) and whether it reads it: what tuning keys a call on and replaces by scratch (loom/tune.h).
  struct TensorArg {
    std::string name;
    bool written = false, read = true;
  };
  std::vector<TensorArg> tensor_args() const;

  // Whether the epilogue staging tiles pushed the kernel past the block's shared-memory budget
  // (after run(); the caller then generates again without staging).
  bool staging_over_budget() const;

  // Generates the kernel: index, grid, signals, streams, then assemble (cuda_gen.cpp).
  CudaArtifact run();

  // After run(): estimate_cycles(), the cost model's time for a call (estimate.cpp), for the
  // dispatcher's choice between when(fastest) mappings.
  std::string estimate_function();
  std::string load_bytes_function();  // estimate.cpp: the bytes a call loads by TMA (the tie-break)

 private:
  // ---- cuda_gen.cpp: index, grid, views, streams, immediate ops -------------------------------------
  void index(const ir::Block& b, const Op* parent);
  std::string var(ValueId v) const;
  void find_kernel();
  bool depends_on(ValueId v, ValueId lv) const;
  bool host_zero_fill(const Op& op) const;
  bool tensor_extent_depends(ValueId t, int d, ValueId lv) const;
  const View& view(ValueId t);
  View piece_view(const Op& op);
  std::vector<int64_t> static_extents(ValueId t, const Op* at);
  void prologue();
  void emit_kernel_block();
  Stream& stream_of(const Op& op);
  void emit_block(const ir::Block& b, const Op* loop);
  void emit_immediate(const Op& op);
  std::vector<std::string> immediate_lines(const Op& op);
  std::vector<std::string> alloc_lines(const Op& op);
  void emit_op(const Op& op, const Op* loop);
  void emit_for(const Op& op);
  void emit_call(Stream& s, const Op& op);
  void immediates_of(const ir::Block& b, std::vector<std::string>& out, std::set<ValueId>& have);
  std::string pname(ValueId v) const { return f_.info(v).name; }
  std::vector<Stream*> streams() { return ws_ ? std::vector<Stream*>{&dma_, &compute_} : std::vector<Stream*>{&compute_}; }

  // ---- events.cpp: signals (compute-role events the DMA role waits for) and waits; see EVENTS above ----
  void plan_signals(const ir::Block& b);
  bool has_role(const Op& op, ir::Role role) const;
  void plan_signal(const Op& waiter, const EventRef& r);
  bool leaf_touches_only(const Op& y, bool shared_reads_ok) const;
  bool registers_only(const Op& y);
  std::tuple<const Op*, const Op*, int64_t> producer_of(ValueId v) const;
  const Op* enclosing_loop(const Op* op) const;
  void arrive(Stream& s, const Signal& sig, const std::string& slot);
  void wgmma_drain(Stream& s, const Op& /*why*/);
  void wgmma_wait_for(Stream& s, const Op& y);
  void group_done(Stream& s, const Stream::Group& g);
  void yield_signal(Stream& s, const Op& loop, const Signal& sig, bool in_body);
  int64_t wgmma_groups(const Op& loop);
  bool yield_is_wgmma(const Op& loop);
  void plan_releases();
  void collect_producers(ValueId v, std::vector<const Op*>& out);
  void wait(Stream& s, const Op& x, const EventRef& r, const Op* loop);
  void dma_wait_signal(Stream& s, const Op& x, const Op& producer, const EventRef& r);
  std::set<std::string> invariant_waits(const Stream& s, const Op& L) const;
  void plan_zero_fills(const ir::Block& b);
  void wait_compute(Stream& s, const Op& x, const Op& y, bool same_iteration, const EventRef& r);
  bool others_need_no_wait(const Op& x, const Op& y);
  bool touches(const Op& x, ValueId v) const;
  bool shared_operands_covered(const Op& x);
  bool piece_of(ValueId t, ValueId of) const;
  // The pipeline position of loop L's current iteration: the loop's iterations over every tile
  // this block has run so far (the kernel is persistent: a block runs tile after tile, and a ring
  // buffer's slots and its barriers' phases carry on from one tile to the next). Unsigned (the base
  // is a uint64_t, assemble.cpp): a position is never negative, and unsigned % and / by the ring's
  // depth compile without the sign fix-ups that int64_t needs on every iteration.
  std::string iter(const Op* L) const {
    const std::string k = var(L->regions[0].args[0]);
    return "(" + base(L) + " + " + (L == split_loop_ ? k + " - " + loop_start(L) : k) + ")";
  }
  std::string base(const Op* L) const { return var(ring_head(L)->result) + "_base"; }

  // ---- splitk.cpp: SPLIT-K ------------------------------------------------------------------------
  // A loop with split_k = S > 1 (the mapping's splitk(S)) runs on a cluster of S blocks per tile:
  // the block of cluster rank r runs iterations [n r / S, n (r + 1) / S) (loop_start, loop_trips:
  // its first iteration and how many it runs; for other loops 0 and n), then the blocks add their
  // partial accumulators as a tree over distributed shared memory (splitk.cpp), and warpgroup g's rows are
  // finished (the rest of the tile's code) by the block of rank g mod S only.
  void plan_split();
  std::string loop_start(const Op* L) const;
  std::string loop_trips(const Op* L) const;
  void emit_split_reduce(Stream& s, const Op& loop);
  void end_split_owner(Stream& s);
  void check_split_budget() const;
  void store_partial_sums(Stream& s, const std::string& ptr, const std::vector<std::pair<std::string, int64_t>>& accs);
  void check_partial_sum_budget(const Op& loop, const std::string& what, int64_t buffers, int64_t each, const std::string& hint) const;
  int64_t split_wg_bytes() const;  // one warpgroup's partial sums in shared memory
  int64_t split_levels() const;  // the split-K tree's levels: ceil(log2 S)
  std::string split_what() const { return stream_ ? "streamk" : "splitk(" + std::to_string(split_) + ")"; }
  // The split loop is shared within a thread-block cluster (splitk(S): cluster launch, partial-sum
  // buffers in shared memory, cluster barriers), not between persistent blocks (streamk).
  bool cluster_split() const { return split_loop_ && !stream_; }

  // ---- multicast.cpp: MULTICAST --------------------------------------------------------------------
  // A kernel whose pipelined loop says multicast(S) runs its blocks in clusters of S that take S
  // neighbouring values of the next-to-innermost block index (mc_index_; the only one in a 1-D
  // grid); cluster rank r runs index S p + r (a ghost tile, clipped to nothing, past the edge). A
  // TMA copy of such a loop whose box does not move with that index (view_moves) is issued once
  // per cluster: each block loads its share (a slice or a band of rows) for all S blocks. The ring
  // slots those copies fill are released by every block's compute warps to every block
  // (Barrier::cluster), so no producer refills a slot a peer still reads.
  void plan_multicast();

  // ---- whole_tiles.cpp: a loop body emitted again for its whole tiles ---------------------------
  // The compute stream's body of `loop` (its lines from body_begin on), emitted again for whole tiles
  // when a row reduction's branch since branches_before tests a clipped extent of the loop.
  void version_whole_tiles(Stream& s, const Op& loop, size_t body_begin, size_t branches_before);

  // ---- alternate.cpp: alternate(T), teams of compute warpgroups taking the tiles in turn ---------
  void plan_alternate();
  int64_t team_wgs() const;  // the compute warpgroups a tile takes
  std::string team_sync_line(const std::string& what) const;  // sync.cpp
  void refuse_per_tile_barrier(const Op* at, const std::string& what) const;
  void refuse_nested(const Op& loop) const;  // a loop the teams take turns on is one of the tile's own
  void alternate_skip(std::ostream& o, const std::string& in);
  int64_t alternate_barrier0() const;     // the teams' turn barriers: this + team
  std::string alternate_threads() const;  // a turn barrier's threads: two teams'
  void alternate_turn_begin(Stream& s, const Op& loop);
  void alternate_turn_end(Stream& s, const Op& loop);
  void alternate_before_tiles(std::ostream& o, const std::string& ind) const;
  void alternate_after_tiles(std::ostream& o, const std::string& ind) const;
  // The first compute-role write of a tensor kept in shared memory: in the whole tile, or up to the end
  // of loop `upto` (teams share no such buffer; kteams.cpp too); nullptr if none.
  const Op* team_shared_write(const Op* upto);

  // ---- kteams.cpp: kteams(T), teams of compute warpgroups sharing each tile's K loop -------------
  // The shared loop (kteam_loop_): in the compute stream team t runs the iterations whose ring
  // positions are t mod T (kteam_loop_head; kteam_first: its first), then
  // emit_kteam_reduce adds the teams' sums and opens team 0's rest of the tile.
  void plan_kteams();
  std::string kteams_what() const;
  int64_t kteam_wg_bytes() const;        // one warpgroup's partial sums in shared memory
  int64_t kteam_buffers_bytes() const;   // teams 1..T-1's buffers (0 without kteams)
  std::string kteam_first(const Op& loop) const;
  void kteam_loop_head(Stream& s, const Op& loop, const std::string& n);
  void emit_kteam_reduce(Stream& s, const Op& loop);
  void end_kteam_owner(Stream& s);
  void check_kteam_budget() const;
  // splitk.cpp: the accumulators a loop shared between blocks or teams sums (and the checks that it
  // only sums), with their registers per thread.
  std::vector<std::pair<std::string, int64_t>> summed_accumulators(const Op& L, const std::string& what, const std::string& who,
                                                                   const std::string& one);
  bool view_moves(ValueId t, ValueId lv) const;
  struct McSplit {
    // each block loads a band of `band` rows of every slice (else: slices r, r + S, ...): rows
    // [band r, band (r + 1)), the last blocks' bands moved up to end at the tile's last row where
    // S bands of whole 8-row atoms overshoot it (those rows land twice, the same bytes)
    bool by_rows = false;
    int64_t band = 0;
    // multicast(S, T): false, shared by the S blocks of one inner index (the copy does not move with
    // mc_index_); true, by the T blocks of one outer index (it does not move with mc_index_n_)
    bool along_inner = false;
  };
  std::optional<McSplit> multicast_split(const Op& copy, int64_t S) const;
  // The blocks sharing a copy of that split, the generated expressions of this block's share among
  // them and of their cluster mask (multicast.cpp).
  int64_t mc_share_count(const McSplit& sp) const { return sp.along_inner ? mc_cols_ : mc_rows_; }
  std::string mc_share_rank(const McSplit& sp) const;
  std::string mc_share_mask(const McSplit& sp) const;
  int64_t cluster_blocks() const { return cluster_split() ? split_ : multicast_; }  // 1: no cluster launch
  // multicast(S): the grid loop whose neighbouring tiles a cluster's blocks run (the next-to-innermost
  // one; the only one in a 1-d grid), named grid_n<mc_grid_dim()> in the generated code.
  size_t mc_grid_dim() const { return grid_.size() >= 2 ? grid_.size() - 2 : 0; }
  // A compute warp's arrival on slot `slot` of b, as a statement for every lane (after __syncwarp).
  std::string arrive_stmt(const Barrier& b, const std::string& slot) const;
  int64_t mc_releasers(bool peers) const { return peers ? mc_rows_ + mc_cols_ - 1 : multicast_; }
  bool wgmma_reads_only(const Op& L);  // every compute-role reader of loop L's TMA slots is a wgmma
  void mc_tile_decode(std::ostream& o, const std::string& in) const;
  std::string mc_what() const;            // "multicast(S)" or "multicast(S, T)"
  std::string mc_clusters_expr() const;   // the clusters of a launch: its groups of S (x T) tiles

  // ---- streamk.cpp: STREAM-K ------------------------------------------------------------------------
  // A loop with stream_k (the mapping's streamk) is the split loop too (split_loop_, stream_ set):
  // persistent blocks run turns (tile, [unit_lo, unit_hi)) — whole tiles, then an equal share of
  // the iterations of the last sk_tiles tiles — and a turn that does not start at iteration 0
  // hands its partial sums, through a global workspace and a flag, to the turn that does, which
  // adds them in iteration order and runs the rest of the tile.
  void emit_stream_reduce(Stream& s, const Op& loop);
  void stream_tile_loop_head(std::ostream& o, const std::string& ind, const std::string& total) const;
  std::string stream_share_lines(const std::string& ind, bool advancing) const;
  // The first named barrier of the compute warpgroups' hand-over to the DMA warpgroup's warp 1, which
  // releases the flag of a block's partial sums (streamk.cpp); -1 where that warp is not free (every
  // DMA thread copies) or the ids would pass 15: the compute warpgroup releases its flag itself.
  int64_t stream_release_barrier0() const;
  void stream_release_helper(std::ostream& o, const std::string& ind) const;
  std::string stream_launch(const std::string& kname, const std::vector<std::string>& args, std::set<ValueId>& have);
  std::string stream_estimate(const std::string& fixed, const std::string& per_iter, const std::string& trips) const;

  // ---- rings.cpp: RING CHAINS ---------------------------------------------------------------------
  // A pipelined loop whose TMA copies write exactly the ring buffers of the block's previous
  // pipelined loop (the pipelining pass shared them; warp_specialize.h, SHARED RINGS) continues
  // that loop's ring: it uses the running counter of the chain's first loop (its head: base()), the
  // head's TMA barriers (tma_barrier) and its release barrier (signal_of_loop_ is keyed by the
  // head), so slots and phases run on across the loops as they do across tiles.
  void plan_ring_chains(const ir::Block& b);
  const Op* ring_head(const Op* L) const;
  const Op* ring_tail(const Op* L) const;  // the last loop of L's chain (L itself when it is alone)
  std::set<ValueId> ring_buffers(const Op& L);  // the buffers L's TMA copies write (its rings)
  bool owns_tma_barrier(const Op& copy) const;  // false: it completes on its head copy's barrier

  // ---- sync.cpp: waits for other processors' work (named barriers, __syncwarp) ---------------------
  enum class SyncScope { None, Warp, Warpgroup, Block };  // narrowest first
  void memory_accesses(const Op& op, ir::Role role, std::vector<std::pair<ValueId, bool>>& out) const;
  std::vector<const Op*> piece_chain(ValueId v) const;
  unsigned separated_levels(ValueId a, ValueId b) const;
  SyncScope sync_scope(const Op& x, const Op& y, const EventRef& r) const;
  SyncScope scope_of(unsigned separated) const;
  void tile_end_sync(Stream& s);
  int64_t sync_barrier0() const;
  void sync_others(Stream& s, const Op& x, const Op& y, bool same_iteration, const EventRef& r);
  bool dma_conflicts(const Op& x, const EventRef& r);
  bool same_memory(ValueId a, ValueId b) const;

  // ---- dma.cpp: TMA copies --------------------------------------------------------------------------
  bool is_tma_copy(const Op& op);
  // The mbarrier (ring) a TMA copy completes on (rings.cpp: shared along a ring chain).
  std::string tma_barrier(const Op& copy) const;
  void emit_copy(Stream& s, const Op& op, const Op* loop);
  void emit_async_copy(Stream& s, const Op& op, const View& src, const std::string& tile_ptr, int64_t outer, int64_t inner,
                       int outer_dim, int inner_dim, int swizzle, const std::string& bar, const std::string& slot);
  void check_tile_layout(const ir::TileLayout& layout, int64_t row_bytes, const Op* at);
  std::tuple<std::string, int64_t, int64_t, ir::TileLayout> smem_tile(const View& v, const Op* at);
  bool param_col_major(ValueId root) const;
  std::vector<int> physical_order(ValueId root) const;
  std::string tensor_map(ValueId param, const std::vector<int64_t>& box, int swizzle, DType dt);

  // ---- wgmma.cpp: tensor-core mma -------------------------------------------------------------------
  bool is_wgmma(const Op& op);
  std::optional<Frag> register_frag(ValueId reg);
  std::optional<Frag> fragment_of_extents(const std::vector<ValueId>& extents);
  // The REGISTER alloc that v is an origin view of (v itself, or blocks pieces of it at index 0 in
  // every dimension: the same registers with clipped run-time extents); kNone otherwise.
  ValueId register_origin(ValueId v) const;
  int64_t register_count(const Op& op);
  void check_acc_tile(const Frag& fr, const Op* at);
  void emit_wgmma(Stream& s, const Op& op);
  void emit_wgmma_transposed(Stream& s, const Op& op, const Frag& cf, const View& a, const View& b);
  // A wgmma instruction's registers a thread must hold at once: its n / 2 fp32 accumulators, its A
  // fragment's 4 words when A comes from registers, and kWgmmaOperandRegs more (descriptors,
  // addresses). ptxas fits every single instruction in the launch's count (__launch_bounds__: 65536 /
  // threads, in steps of 8), even after a setmaxnreg.inc that raises the warps' count (values live
  // across instructions may use the raised count), and refuses one that needs more ("Insufficient
  // registers"): check_wgmma_registers() turns that into a located error at the mma (measured with
  // nvcc 13 on m64nNk16: 640 threads, 96 registers, N = 136 compiles, N = 144 asks for 98 and N = 160
  // for 106 with setmaxnreg.inc to 104 or 112; 512 threads, N = 256 asks for more than 128 under
  // setmaxnreg.inc 160; 384 threads at 168 hold 192 accumulators of two wgmmas under setmaxnreg.inc
  // 240 without spills).
  static constexpr int64_t kWgmmaOperandRegs = 26;
  void note_wgmma_registers(const Op& op, int64_t n, bool a_in_registers);
  void check_wgmma_registers() const;
  const Op* widest_wgmma_ = nullptr;  // the mma whose instruction needs the most registers
  int64_t widest_wgmma_n_ = 0, widest_wgmma_regs_ = 0;
  bool multiple_of(ValueId v, int64_t m) const;
  bool offset_multiple_of(ValueId t, int dim, int64_t m) const;
  std::pair<std::string, std::string> tile_desc(const View& v, MmaRole role, const Op* at);
  std::vector<int64_t> tile_static(const Frag& fr, const Op* at) { return static_extents(fr.tile, at); }
  // The instruction's view of the tile: `tile_static`, or its transpose for a transposed fragment
  // (rows along the wgmma's 64-row side, columns along its n).
  std::vector<int64_t> wgmma_tile(const Frag& fr, const Op* at) {
    auto t = tile_static(fr, at);
    if (fr.transposed && t.size() == 2) std::swap(t[0], t[1]);
    return t;
  }
  // A thread's accumulator fragment of a warpgroup tile of 64 R rows is R wgmma fragments of 64
  // rows, one after the other in its registers (row block b: registers b N/2 .. (b + 1) N/2 - 1);
  // rows and columns as the instruction sees them (wgmma_tile).
  int64_t frag_row_blocks(const Frag& fr, const Op* at) { return std::max<int64_t>(1, wgmma_tile(fr, at)[0] / 64); }
  int64_t frag_regs(const Frag& fr, const Op* at) { return frag_row_blocks(fr, at) * (wgmma_tile(fr, at)[1] / 2); }
  // Refuses a transposed fragment where `what` reads the fragment's rows and columns.
  void untransposed(const Frag& fr, const Op* at, const std::string& what);
  // Refuses a fragment of more than one row block where `what` handles only 64 rows.
  void one_row_block(const Frag& fr, const Op* at, const std::string& what);

  // ---- elementwise.cpp: fill and element-wise leaves ------------------------------------------------
  void emit_fill(Stream& s, const Op& op);
  std::string elementwise_value(const Op& op, const std::vector<std::string>& in);
  struct ElementWork {
    int64_t sfu = 0, alu = 0;  // per element: special-function unit and FP32 ALU operations
  };
  static ElementWork element_work(const std::string& leaf);
  void record_work(const Op& op, int64_t per_thread);  // work_of_[&op]: the leaf's work on a tile
  double work_cycles(const Op* loop) const;             // estimate.cpp
  void emit_elementwise(Stream& s, const Op& op);
  void emit_mask(Stream& s, const Op& op);

  // ---- operands.cpp: global inputs of element-wise leaves (column vectors, fragments of global tiles) --
  struct GlobalInput {
    std::vector<std::string> decls;  // emitted once, before the leaf's loop
    // The loads into registers, given the fragment's register count (emitted after decls; none
    // when value() reads in place).
    std::function<std::vector<std::string>(int64_t)> preload;
    std::function<std::string(const std::string&)> value;  // fp32 value of register idx (0 past the extents)
    // Optional: a uniform condition (given the register count) under which every register lies
    // inside the extents, and the value then, without the per-element test.
    std::function<std::string(int64_t)> interior;
    std::function<std::string(const std::string&)> value_interior;
    // Optional: the element in its own 16-bit type (0 past the extents; and inside the interior branch),
    // for leaves that are exact in that type (elementwise.cpp, exact16).
    std::function<std::string(const std::string&)> value16, value16_interior;
    // Optional: inside the interior branch, registers 2p and 2p + 1 as one 32-bit word (the low half
    // the even one) — the form an ldmatrix loads them in and a wgmma A fragment takes them in.
    std::function<std::string(const std::string&)> pair16_interior;
    // Optional, with pair16_interior: the same word outside the interior branch, its halves past the
    // extents zeroed by a mask (0 past the extents, as value16).
    std::function<std::string(const std::string&)> pair16;
    // Nonzero: value() reads one row block's registers (a column vector: every row block of a
    // fragment of 64 R rows has the same columns), so a larger fragment's register idx is taken
    // modulo this (cuda_gen.h, frag_regs).
    int64_t period = 0;
  };
  std::optional<GlobalInput> global_input(const Op& op, size_t i);  // a global or (shared_input) shared one
  std::optional<GlobalInput> shared_input(const Op& op, size_t i);

  // ---- rows.cpp: row vectors, row reductions, register copies, forwarded A operands ----------------
  ValueId root_of(ValueId v) const;
  MemKind mem_of(ValueId v) const;  // Register for row vectors and forwarded tiles, else the IR's
  void find_register_residents();
  std::optional<std::string> row_array(ValueId v);
  int64_t row_entries(ValueId v);  // rows.cpp: a lane's row operand's registers (2 per row block)
  bool static_full(ValueId tile, int dim, int64_t width);
  // whole_tiles: the branch on the run-time extent is one whole_tiles.cpp may version the loop for
  // (row reductions; not an A-fragment pack, whose branch costs a K loop nothing measurable).
  void emit_by_columns(Stream& s, ValueId tile, int64_t width, const std::string& full_comment,
                       const std::string& clipped_comment, const std::function<void(const std::string&, bool)>& body,
                       bool whole_tiles = false);
  void emit_row_reduce(Stream& s, const Op& op);
  void emit_register_copy(Stream& s, const Op& op);

  // ---- smem_fragments.cpp: shared -> register copies of accumulator fragments (ldmatrix) -------
  bool is_smem_fragment_load(const Op& op);
  void emit_smem_fragment_load(Stream& s, const Op& op);
  static std::vector<std::string> ldmatrix_fragment_lines(const std::string& tid, const std::string& base, const std::string& row0,
                                                          const std::string& col0, int64_t tile_rows, int64_t col_groups,
                                                          const std::string& T, const std::string& dst,
                                                          const std::string& words = "");
  // A lane's piece of a row vector in shared or global memory (not kept in registers).
  struct RowMemory {
    std::string type;    // the element's C++ type
    std::string base;    // pointer to entry 0 of the warpgroup's rows
    std::string stride;  // between entries
    std::string ext;     // the warpgroup's rows (run-time)
    int64_t entries = 2; // the lane's rows: 2 per 64-row block of the warpgroup's
    bool global = false; // in global memory (a reducing copy into it is an atomic add)
  };
  std::optional<RowMemory> row_memory(ValueId v);
  void emit_row_memory_copy(Stream& s, const Op& op, const std::string& what, const std::optional<std::string>& src_regs,
                            const std::optional<RowMemory>& src_mem, const std::optional<std::string>& dst_regs,
                            const std::optional<RowMemory>& dst_mem, const std::string& reduce);
  int64_t forwarded_words(ValueId tile, const Op* at);

  // ---- pingpong.cpp: turns on the tensor cores, the deferred mma of a rotated loop ----------------
  struct Rotation {
    const Op* loop = nullptr;
    const Op* deferred = nullptr;       // W: the body's last op, an mma issued one iteration late
    const Op* first = nullptr;          // Q: the body's first mma; W(k - 1) is issued just after it
    std::vector<const Op*> immediates;  // the body's index/view ops W uses, in order
    std::vector<const Op*> hoisted;     // register allocs of the body W reads: declared before the loop
    // The ring slots' release to the DMA role, split: the buffers W reads (late: once W(k) has
    // run, in iteration k + 1) on a barrier of their own, the others (early: once their last
    // reader of iteration k has run) on the loop's yield barrier. -1: the loop has no signal.
    int late_signal = -1;
    std::set<ValueId> late_roots;
    const Op* early_last = nullptr;     // the body's last compute op reading an early buffer
    // pingpong(double_buffer) with hoisted arrays: each in two copies, iteration k writing copy
    // k % 2 (the hoisted name, then `_odd`), the loop peeled and unrolled by two (double_buffer_loop).
    bool double_buffer = false;
  };
  std::optional<Rotation> plan_rotation(const Op& loop);
  void plan_split_release(Rotation& r);
  void arm_release(const Rotation& r, Stream::Group& g, bool late);
  void rotated_release_early(Stream& s, const Rotation& r, const Op& op);
  void emit_deferred(Stream& s, const Rotation& r, const std::string& k, const std::string& guard);
  void double_buffer_loop(Stream& s, const Rotation& r, size_t for_line, size_t close_line);
  int64_t turn_barrier0() const;
  void turn_begin(Stream& s);
  void turn_end(Stream& s);
  bool writes_root(const Op& op, ValueId root) const;

  // ---- epilogue.cpp: stores of accumulator fragments to global memory -------------------------------
  void emit_store(Stream& s, const Op& op, const Frag& xf, const std::function<std::string(const std::string&)>& value);
  struct StagePlan {
    int64_t slice_bytes = 0, per = 1, chunks = 1, stage_tile = 0;
    std::string tm;  // the TMA store's tensor map (one slice a box)
    int64_t tail_cols = 0;  // columns of a last, 64-byte slice after the whole ones (64-byte swizzle)
    std::string tail_tm;    // its tensor map
  };
  StagePlan stage_plan(const View& d, const View& tile, int64_t slices, int64_t rows, int64_t slice_cols, int64_t tail_cols = 0);
  std::string staged_condition(const View& tile, const std::string& P, const std::vector<int64_t>& xt, int64_t eb) const;
  void emit_transposed_store(Stream& s, const Op& op, const Frag& xf, const std::function<std::string(const std::string&)>& value);
  bool store_only(ValueId root);
  void emit_direct_store(Stream& s, const View& tile, int rank, const std::string& P, const std::string& T,
                         const std::vector<int64_t>& xt, int64_t blocks,
                         const std::function<std::string(const std::string&)>& value);

  // ---- assemble.cpp: the kernel skeleton ------------------------------------------------------------
  int64_t layout_barriers();
  std::string assemble();

  // ---- tile_order.cpp: folded tile order where the tiles' trip counts differ ------------------------
  // The grouped tile order (assemble.cpp): this many tiles of the next-to-innermost block loop walk
  // the innermost one together; fold_tiles() walks the same order on the host.
  static constexpr int kGroupTiles = 8;
  const Op* uneven_loop(ValueId index) const;
  void fold_lines(std::ostream& o, const std::string& in, const std::string& pos, const std::string& n) const;
  void grouped_decode(std::ostream& o, const std::string& in, const std::string& rows, const std::string& cols,
                      int64_t group) const;
  std::string tile_order_function();

  // ---- launcher.cpp: host launcher and C ABI functions ----------------------------------------------
  std::string host_launcher(const std::string& kname);
  std::vector<std::string> grid_lines(std::set<ValueId>& have);
  std::set<ValueId> host_function_head(std::ostream& o);  // estimate.cpp
  std::vector<std::string> slice_lines(ValueId v, std::set<ValueId>& have, const Op& for_loop,
                                       const std::string& what = "a cost estimate for when(fastest)");
  std::string tensor_checks(ValueId p) const;
  std::vector<std::tuple<ValueId, int, int64_t>> first_block_only() const;
  // The ABI functions' C parameters: tensors as loom_tensor, scalars, then the stream.
  std::string abi_params() const;
  std::string abi_signature();
  std::string abi_functions(int64_t smem_bytes, int64_t threads, int mappings = 1);
  // A scalar parameter's C type (docs/artifact.md): f32 -> float, integers -> int64_t.
  std::string scalar_type(ValueId p) const { return f_.info(p).type == ir::Type::Float ? "float" : "int64_t"; }
  // The entry signature's entry for parameter `p` (one of f_.params).
  const ir::EntryParam& entry_param(ValueId p) const;

  // ---- header.cpp: the C header ---------------------------------------------------------------------
  std::string header();

  // ---- state ------------------------------------------------------------------------------------------
  const Function& f_;
  const ir::EntrySignature& entry_;
  std::string source_;
  StaticBounds bounds_;
  std::vector<std::string> names_;
  std::map<ValueId, const Op*> def_;
  std::map<ValueId, const Op*> arg_loop_;
  std::map<const Op*, const Op*> parent_;
  std::map<std::string, const Op*> tma_wait_copy_;  // a TMA barrier wait's key -> the copy it waits for
  std::set<const Op*> zero_fills_;        // fills the next wgmma's scale-d = 0 replaces (plan_zero_fills)
  std::set<const Op*> overwriting_mmas_;  // those wgmmas (their first k step: scale-d = 0)
  std::map<ValueId, View> views_;
  std::vector<std::string> pending_decls_;  // a piece's offset/extent locals, as view() makes them
  std::vector<const Op*> grid_;
  const Op* uneven_ = nullptr;  // a block loop whose trip count depends on the innermost block index
  // For the cost model (estimate.cpp): each mma's multiply-adds over all consumer warpgroups, and
  // each TMA copy's bytes, as generated.
  std::map<const Op*, int64_t> fma_of_;
  std::map<const Op*, int64_t> bytes_of_;
  std::map<const Op*, int64_t> landed_of_;  // multicast copies: the whole tile, which lands in every block
  std::map<const Op*, ElementWork> work_of_;  // element-wise leaves: their work on one tile (estimate.cpp)
  std::map<const Op*, ValueId> bytes_root_;  // the tensor parameter each such copy reads
  const ir::Block* kernel_ = nullptr;
  // Fills with 0 of whole entry tensors before the block loops (a `w` tensor the program reduces
  // into starts at the identity): cudaMemsetAsync in the launcher, before the kernel.
  std::vector<const Op*> host_zero_fills_;
  bool ws_ = false;
  int64_t compute_wgs_ = 1, dma_wgs_ = 0;
  Stream dma_, compute_;
  std::vector<Barrier> barriers_;
  std::vector<Signal> signals_;
  std::map<const Op*, int> signal_of_op_;
  std::map<const Op*, int> signal_of_loop_;
  std::vector<TensorMap> maps_;
  std::set<ValueId> accumulators_;
  std::set<ValueId> row_regs_;              // SHARED row vectors kept in registers (rows.cpp)
  std::map<ValueId, ValueId> forwarded_;    // SHARED A tile -> the register array the wgmma reads instead
  // A forwarded A operand's source fragment (its C++ name) -> an array of its values as 32-bit pairs
  // that the leaf writing it also wrote, and the call (an open "f(") the pack into the A fragments
  // (rows.cpp) applies to each pair: elementwise.cpp's 16-bit relu leaves the max to that pack. The
  // pack forgets the entry.
  struct PackedPairs {
    std::string words, apply;
  };
  std::map<std::string, PackedPairs> packed_pairs_;
  std::map<const Op*, int> release_after_;  // compute op -> barrier: a once-per-tile TMA buffer is free
  std::map<const Op*, int> release_wait_;   // TMA copy -> that barrier (the DMA waits before reloading)
  std::vector<const Op*> loops_;  // every loop of the kernel block (their running counters)
  std::map<const Op*, const Op*> ring_head_;  // a loop continuing a ring chain -> the chain's first loop
  std::map<const Op*, const Op*> ring_tail_;  // a chain's first loop -> its last
  std::map<const Op*, const Op*> tma_canon_;  // its TMA copies -> the head's copy into the same buffer
  const Op* split_loop_ = nullptr;          // splitk.cpp: the kernel's split loop, if any
  int64_t split_ = 1;                       // its split_k (the cluster's blocks)
  bool stream_ = false;                     // its stream_k (streamk.cpp)
  int64_t multicast_ = 1;                   // multicast.cpp: the cluster's blocks (1: none), mc_rows_ x mc_cols_
  int64_t mc_rows_ = 1, mc_cols_ = 1;       // multicast(S, T): S along mc_index_, T along mc_index_n_
  ValueId mc_index_ = kNone;                // the block index the cluster's tiles differ in
  ValueId mc_index_n_ = kNone;              // multicast(S, T), T > 1: the innermost block index
  std::map<const Op*, McSplit> mc_copies_;  // the multicast TMA copies and their shares
  std::set<const Op*> mc_heads_;            // ring heads whose slots some multicast copy fills
  // Those of mc_heads_ every loop of whose chain has copies shared along both dimensions of a
  // multicast(S, T) cluster: every block of a block's row and column writes into its slots, so they
  // alone release them (multicast.cpp).
  std::set<const Op*> mc_peer_heads_;
  // Those of mc_heads_ whose slots only wgmmas read in the compute role (wgmma_reads_only on every
  // loop of the chain): one release per compute warpgroup (multicast.cpp).
  std::set<const Op*> mc_wgmma_heads_;
  std::vector<std::pair<std::string, int64_t>> split_accs_;  // its accumulators: variable, registers
  bool split_owner_open_ = false;           // emitting the owner-only rest of the tile
  int64_t split_offset_ = 0;                // the partial-sum buffers in dynamic shared memory
  bool pingpong_ = false;                   // some loop takes turns: the turn barriers' hand-overs
  bool refused_turns_ = false;              // plan_rotation refused turns on a loop (cuda.h: turns_report)
  std::vector<std::string> deferred_mmas_;  // the rotated loops' deferred mmas (cuda.h: turns_report)
  std::vector<std::string> extent_branches_;  // run-time extents emit_by_columns branched on (whole_tiles.cpp)
  const Op* turn_loop_ = nullptr;           // the pingpong loop being emitted (its wgmmas are turns)
  const Rotation* rotation_ = nullptr;      // its rotation, if any
  std::set<ValueId> hoisted_;               // register allocs declared before their loop
  std::vector<std::string> prologue_;
  std::set<ValueId> prologue_have_;          // what the tile's code has before its first line
  int64_t teams_ = 1;                        // alternate.cpp: teams taking the tiles in turn (1: none)
  std::vector<const Op*> compute_loops_;     // the loops whose counters the compute role advances
  const Op* alternate_loop_ = nullptr;       // the tile's loop the teams take turns on
  bool k_split_ = false;                     // kteams.cpp: the teams share each tile's K loop (kteams(T))
  const Op* kteam_loop_ = nullptr;           // the shared loop
  std::vector<std::pair<std::string, int64_t>> kteam_accs_;  // its accumulators: variable, registers
  bool kteam_owner_open_ = false;            // emitting team 0's rest of the tile
  int64_t kteam_offset_ = 0;                 // the partial-sum buffers in dynamic shared memory
  bool staging_allowed_ = true;
  bool async_copy_ = false;        // this is the async-copy variant (Producer::AsyncCopy)
  std::string async_copy_body_;    // the TMA kernel's fallback (set_async_copy_variant)
  int64_t stage_bytes_ = 0;    // per compute warpgroup: the largest staged epilogue tile (chunk)
  int64_t stage_slices_ = 1 << 20;  // set_stage_slices (default: whole tiles)
  int64_t stage_offset_ = 0;   // of the staging tiles in dynamic shared memory
  int64_t smem_bytes_ = 0;     // the kernel's dynamic shared memory (after assemble)
  int64_t threads_ = 0;
  // assemble()'s pieces, for a file of several kernels (one per mapping): the file head (comment,
  // includes, helpers), the kernel and its launcher, and a one-line description of the kernel.
  std::string head_, body_, kernel_line_;
};

}  // namespace loom::codegen::detail

// The C++ builder API (loom/builder.h): the whole GEMM example built in C++ prints exactly as
// examples/gemm/gemm.loom and dumps as the parsed file; small programs; misuse throws.
#include <array>
#include <functional>
#include <random>
#include <stdexcept>

#include "loom/builder.h"
#include "test_util.h"

namespace loom::test {
namespace {

using namespace loom::build;

Program parse_ok(const std::string& text) {
  SourceManager sm;
  DiagnosticEngine diag(sm);
  Program p = parse_program(sm, sm.add("test.loom", text), diag);
  EXPECT_FALSE(diag.has_errors()) << diag.format_text();
  return p;
}

// `blocks(X, [64 * cdiv(M, 64 * G), *])`: a row-wise split between G warpgroups in whole 64-row
// wgmma tiles.
Ex rows_split(const char* tensor) {
  return call("blocks", {tensor, list({lit(64) * call("cdiv", {"M", lit(64) * name("G")}), star()})});
}
Ex wgmma(const char* tensor, const char* role) {
  return call("mma", {tensor, role, call("wgmma", {64, "N_MMA", 16})});
}
// `blocks(X, [*, 64 * cdiv(N, 64 * G)])` and the transposed distributions (the transposed variants).
Ex cols_split(const char* tensor) {
  return call("blocks", {tensor, list({star(), lit(64) * call("cdiv", {"N", lit(64) * name("G")})})});
}
Ex wgmma_t(const char* tensor, const char* role) {
  return call("mma", {tensor, role, call("wgmma", {64, "N_MMA", 16}), "transposed"});
}

Program build_gemm() {
  ProgramBuilder b;
  b.comment("GEMM, C = A * B, as in the Cypress document's Fig. 5: host -> block -> two warpgroups -> warp ->\n"
            "thread. A is M x K row-major, B is K x N, C is M x N; bf16 inputs, fp32 accumulation.")
      .blank_line();
  b.task("gemm", {"T", "E"})
      .tensor("C", "rw", "T", {"M", "N"})
      .tensor("A", "r", "E", {"M", "K"})
      .tensor("B", "r", "E", {"K", "N"});
  b.task("clear", {"T"}).tensor("C", Privilege::Write, "T", {"M", "N"});
  b.task("copy", {"T", "S"}).tensor("D", "w", "T", {"M", "N"}).tensor("X", "r", "S", {"M", "N"});

  b.comment("One output tile of U x V per block; the block reads a U-row panel of A and a V-column panel of B.");
  b.variant("gemm_host", "gemm", {"C", "A", "B"}).inner().tunables({"U", "V"});
  b.bind("Cp", call("blocks", {"C", list({"U", "V"})}));
  b.bind("Ap", call("blocks", {"A", list({"U", star()})}));
  b.bind("Bp", call("blocks", {"B", list({star(), "V"})}));
  b.prange({"i", "j"}, {call("cdiv", {"M", "U"}), call("cdiv", {"N", "V"})}, [&] {
    b.launch("gemm", {idx("Cp", {"i", "j"}), idx("Ap", {"i", 0}), idx("Bp", {0, "j"})});
  });

  b.comment("Inside a block: clear an fp32 accumulator, walk K in steps of W, write the tile back.");
  b.variant("gemm_block", "gemm", {"C", "A", "B"}).tunables({"W"});
  b.bind("Acc", call("tensor", {"f32", list({"M", "N"})}));
  b.op("clear", {"Acc"});
  b.bind("Ap", call("blocks", {"A", list({star(), "W"})}));
  b.bind("Bp", call("blocks", {"B", list({"W", star()})}));
  b.srange({"k"}, {call("cdiv", {"K", "W"})}, [&] {
    b.launch("gemm", {"Acc", idx("Ap", {0, "k"}), idx("Bp", {"k", 0})});
  });
  b.launch("copy", {"C", "Acc"});

  b.comment("Split the tile row-wise between G warpgroups (lowers registers per thread). Each warpgroup's\n"
            "share is rounded up to whole 64-row wgmma tiles, so a warpgroup's rows start on a tile boundary\n"
            "even in a partial edge tile (whose last warpgroups may get fewer rows, or none).");
  b.variant("gemm_tile", "gemm", {"C", "A", "B"}).inner().tunables({"G"});
  b.bind("Cp", rows_split("C"));
  b.bind("Ap", rows_split("A"));
  b.prange({"g"}, {"G"}, [&] { b.launch("gemm", {idx("Cp", {"g", 0}), idx("Ap", {"g", 0}), "B"}); });

  b.comment("Tensor-core operand distributions (Fig. 4): warpgroup -> 4 warps, warp -> 32 threads.");
  b.variant("gemm_mma", "gemm", {"C", "A", "B"}).inner().tunables({"N_MMA"});
  b.bind("Cp", wgmma("C", "acc"));
  b.bind("Ap", wgmma("A", "lhs"));
  b.bind("Bp", wgmma("B", "rhs"));
  b.prange({"t"}, {call("pieces", {"Cp"})}, [&] {
    b.launch("gemm", {name("Cp")[name("t")], name("Ap")["t"], idx("Bp", {"t"})});
  });

  b.variant("gemm_thread", "gemm", {"C", "A", "B"}).leaf().on({"THREAD"});
  b.op("mma", {"C", "A", "B"});

  b.comment("clear and copy follow the same block -> warpgroup -> warp -> thread decomposition as gemm.");
  b.variant("clear_tile", "clear", {"C"}).inner().tunables({"G"});
  b.bind("Cp", rows_split("C"));
  b.prange({"g"}, {"G"}, [&] { b.launch("clear", {idx("Cp", {"g", 0})}); });

  b.variant("clear_mma", "clear", {"C"}).inner().tunables({"N_MMA"});
  b.bind("Cp", wgmma("C", "acc"));
  b.prange({"t"}, {call("pieces", {"Cp"})}, [&] { b.launch("clear", {idx("Cp", {"t"})}); });

  b.variant("clear_thread", "clear", {"C"}).leaf().on({"THREAD"});
  b.op("fill", {"C", 0});

  b.variant("copy_tile", "copy", {"D", "X"}).inner().tunables({"G"});
  b.bind("Dp", rows_split("D"));
  b.bind("Xp", rows_split("X"));
  b.prange({"g"}, {"G"}, [&] { b.launch("copy", {idx("Dp", {"g", 0}), idx("Xp", {"g", 0})}); });

  b.variant("copy_mma", "copy", {"D", "X"}).inner().tunables({"N_MMA"});
  b.bind("Dp", wgmma("D", "acc"));
  b.bind("Xp", wgmma("X", "acc"));
  b.prange({"t"}, {call("pieces", {"Dp"})}, [&] { b.launch("copy", {idx("Dp", {"t"}), idx("Xp", {"t"})}); });

  b.variant("copy_thread", "copy", {"D", "X"}).leaf().on({"THREAD"});
  b.op("convert", {"D", "X"});

  b.comment("The transposed form (docs/language.md, \"Transposed\"): each warpgroup takes 64 of the tile's\n"
            "columns and the wgmma runs on C^T = B^T A^T, its 64-row side along N, so that its fine-grained n\n"
            "covers the tile's rows: a tile can be any multiple of 8 rows tall (the same program either way;\n"
            "mapping choices change speed, never results).");
  b.variant("gemm_tile_t", "gemm", {"C", "A", "B"}).inner().tunables({"G"});
  b.bind("Cp", cols_split("C"));
  b.bind("Bp", cols_split("B"));
  b.prange({"g"}, {"G"}, [&] { b.launch("gemm", {idx("Cp", {0, "g"}), "A", idx("Bp", {0, "g"})}); });

  b.variant("gemm_mma_t", "gemm", {"C", "A", "B"}).inner().tunables({"N_MMA"});
  b.bind("Cp", wgmma_t("C", "acc"));
  b.bind("Ap", wgmma_t("A", "lhs"));
  b.bind("Bp", wgmma_t("B", "rhs"));
  b.prange({"t"}, {call("pieces", {"Cp"})}, [&] { b.launch("gemm", {idx("Cp", {"t"}), idx("Ap", {"t"}), idx("Bp", {"t"})}); });

  b.variant("clear_tile_t", "clear", {"C"}).inner().tunables({"G"});
  b.bind("Cp", cols_split("C"));
  b.prange({"g"}, {"G"}, [&] { b.launch("clear", {idx("Cp", {0, "g"})}); });

  b.variant("clear_mma_t", "clear", {"C"}).inner().tunables({"N_MMA"});
  b.bind("Cp", wgmma_t("C", "acc"));
  b.prange({"t"}, {call("pieces", {"Cp"})}, [&] { b.launch("clear", {idx("Cp", {"t"})}); });

  b.variant("copy_tile_t", "copy", {"D", "X"}).inner().tunables({"G"});
  b.bind("Dp", cols_split("D"));
  b.bind("Xp", cols_split("X"));
  b.prange({"g"}, {"G"}, [&] { b.launch("copy", {idx("Dp", {0, "g"}), idx("Xp", {0, "g"})}); });

  b.variant("copy_mma_t", "copy", {"D", "X"}).inner().tunables({"N_MMA"});
  b.bind("Dp", wgmma_t("D", "acc"));
  b.bind("Xp", wgmma_t("X", "acc"));
  b.prange({"t"}, {call("pieces", {"Dp"})}, [&] { b.launch("copy", {idx("Dp", {"t"}), idx("Xp", {"t"})}); });

  const std::vector<std::string> ggg = {"GLOBAL", "GLOBAL", "GLOBAL"};
  const std::vector<std::string> nss = {"NONE", "SHARED", "SHARED"};
  b.mapping("sm_90a");
  b.instance("gemm_host", "gemm_host", "HOST")
      .mem(ggg)
      .tune({{"U", 128}, {"V", 256}})
      .call("gemm", "gemm_block")
      .entry({{"T", "bf16"}, {"E", "bf16"}});
  // Clauses in a different order than printed: the printer orders them.
  b.instance("gemm_block", "gemm_block", "BLOCK")
      .smem("227KB")
      .pipeline(3)
      .warpspecialize()
      .mem(ggg)
      .tune("W", 64)
      .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}});
  b.instance("gemm_tile", "gemm_tile", "BLOCK")
      .mem(nss)
      .tune("G", 2)
      .call("gemm", "gemm_wg")
      .layout("A", {"row_major", "swizzle128"})
      .layout("B", {"row_major", "swizzle128"});
  b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", 256).call("gemm", "gemm_warp");
  b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", 256).call("gemm", "gemm_thread");
  b.instance("gemm_thread", "gemm_thread", "THREAD").mem({"REGISTER", "SHARED", "SHARED"});
  b.instance("clear_tile", "clear_tile", "BLOCK").mem({"NONE"}).tune("G", 2).call("clear", "clear_wg");
  b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", 256).call("clear", "clear_warp");
  b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", 256).call("clear", "clear_thread");
  b.instance("clear_thread", "clear_thread", "THREAD").mem({"REGISTER"});
  b.instance("copy_tile", "copy_tile", "BLOCK").mem({"GLOBAL", "NONE"}).tune("G", 2).call("copy", "copy_wg");
  b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 256).call("copy", "copy_warp");
  b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 256).call("copy", "copy_thread");
  b.instance("copy_thread", "copy_thread", "THREAD").mem({"GLOBAL", "REGISTER"});
  b.comment("Other tile shapes, chosen per call by the launcher's cost model (docs/mapping.md, \"Chosen by the");
  b.comment("cost model\"): it weighs each mapping's waves of tiles on the device's SMs against its tiles'");
  b.comment("tensor-core work and loads per K step, so 128 x 128 tiles win when 128 x 256 ones leave a wave");
  b.comment("mostly idle (505 x 2856: 48 tiles of 128 x 256 for 132 SMs), and 128 x 64 tiles with 128-deep K");
  b.comment("steps (4 stages of 48 KB) win on small problems (1024^3: 32 tiles of 128 x 256). Only the");
  b.comment("instances that change are listed.");
  b.specialize_fastest("sm_90a");
  b.instance("gemm_host", "gemm_host", "HOST")
      .mem(ggg)
      .tune({{"U", 128}, {"V", 128}})
      .call("gemm", "gemm_block")
      .entry({{"T", "bf16"}, {"E", "bf16"}});
  b.instance("gemm_block", "gemm_block", "BLOCK")
      .mem(ggg)
      .tune("W", 64)
      .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
      .warpspecialize()
      .pipeline(4)
      .smem("227KB");
  b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", 128).call("gemm", "gemm_warp");
  b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", 128).call("gemm", "gemm_thread");
  b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", 128).call("clear", "clear_warp");
  b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", 128).call("clear", "clear_thread");
  b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 128).call("copy", "copy_warp");
  b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 128).call("copy", "copy_thread");
  b.specialize_fastest("sm_90a");
  b.instance("gemm_host", "gemm_host", "HOST")
      .mem(ggg)
      .tune({{"U", 128}, {"V", 64}})
      .call("gemm", "gemm_block")
      .entry({{"T", "bf16"}, {"E", "bf16"}});
  b.instance("gemm_block", "gemm_block", "BLOCK")
      .mem(ggg)
      .tune("W", 128)
      .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
      .warpspecialize()
      .pipeline(4)
      .smem("227KB");
  b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", 64).call("gemm", "gemm_warp");
  b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", 64).call("gemm", "gemm_thread");
  b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", 64).call("clear", "clear_warp");
  b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", 64).call("clear", "clear_thread");
  b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 64).call("copy", "copy_warp");
  b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 64).call("copy", "copy_thread");
  b.comment("Split-K candidates (docs/mapping.md, \"Split-K\"): a cluster of S blocks per output tile, each");
  b.comment("running a contiguous share of the K loop; the partial sums are added in a fixed order over");
  b.comment("distributed shared memory (this changes the order of the fp32 sum, not what is summed). The cost");
  b.comment("model picks them where few tiles meet a long K (272 x 96 x 2804: 6 tiles of 128 x 64) or where a");
  b.comment("wave of whole-K tiles would leave most SMs idle; the partial-sum buffers (64 KB for 128 x 128");
  b.comment("tiles, 32 KB for 128 x 64) take shared memory from the pipeline.");
  b.specialize_fastest("sm_90a");
  b.instance("gemm_host", "gemm_host", "HOST")
      .mem(ggg)
      .tune({{"U", 128}, {"V", 128}})
      .call("gemm", "gemm_block")
      .entry({{"T", "bf16"}, {"E", "bf16"}});
  b.instance("gemm_block", "gemm_block", "BLOCK")
      .mem(ggg)
      .tune("W", 64)
      .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
      .warpspecialize()
      .pipeline(4)
      .splitk(2)
      .smem("227KB");
  b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", 128).call("gemm", "gemm_warp");
  b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", 128).call("gemm", "gemm_thread");
  b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", 128).call("clear", "clear_warp");
  b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", 128).call("clear", "clear_thread");
  b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 128).call("copy", "copy_warp");
  b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 128).call("copy", "copy_thread");
  b.specialize_fastest("sm_90a");
  b.instance("gemm_host", "gemm_host", "HOST")
      .mem(ggg)
      .tune({{"U", 128}, {"V", 128}})
      .call("gemm", "gemm_block")
      .entry({{"T", "bf16"}, {"E", "bf16"}});
  b.instance("gemm_block", "gemm_block", "BLOCK")
      .mem(ggg)
      .tune("W", 64)
      .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
      .warpspecialize()
      .pipeline(4)
      .splitk(4)
      .smem("227KB");
  b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", 128).call("gemm", "gemm_warp");
  b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", 128).call("gemm", "gemm_thread");
  b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", 128).call("clear", "clear_warp");
  b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", 128).call("clear", "clear_thread");
  b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 128).call("copy", "copy_warp");
  b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 128).call("copy", "copy_thread");
  b.specialize_fastest("sm_90a");
  b.instance("gemm_host", "gemm_host", "HOST")
      .mem(ggg)
      .tune({{"U", 128}, {"V", 64}})
      .call("gemm", "gemm_block")
      .entry({{"T", "bf16"}, {"E", "bf16"}});
  b.instance("gemm_block", "gemm_block", "BLOCK")
      .mem(ggg)
      .tune("W", 128)
      .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
      .warpspecialize()
      .pipeline(3)
      .splitk(4)
      .smem("227KB");
  b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", 64).call("gemm", "gemm_warp");
  b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", 64).call("gemm", "gemm_thread");
  b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", 64).call("clear", "clear_warp");
  b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", 64).call("clear", "clear_thread");
  b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 64).call("copy", "copy_warp");
  b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", 64).call("copy", "copy_thread");
  b.comment("More tile shapes for the cost model to fit the SMs' waves with (bench/results/2026-11-27-h100-gemm-mappings.md");
  b.comment("timed every mapping on its own over 80 random shapes): 128 x 192 tiles (M x N) and 192 x 128 tiles");
  b.comment("on three compute warpgroups, as efficient per FMA as 128 x 256 on large problems but cut finer");
  b.comment("(6736 x 5016 makes 1060 tiles of 128 x 256, 8.03 waves on 132 SMs, and 1431 of 128 x 192); and");
  b.comment("64 x 128 tiles on one compute warpgroup with eight 24 KB stages, for problems whose M is small");
  b.comment("(eight, not six: a single wave of them with a long K is fed faster, bench/results/2026-11-28-h200-gemm-rings.md).");
  // A tile-shape candidate: U x V tiles, W-deep K steps, P stages, G compute warpgroups; multicast
  // over clusters of `mc` blocks when mc > 1, the K loop split over clusters of `sk` when sk > 1.
  // (multicast(mc, mc_n) when mc_n > 0: clusters of mc x mc_n tiles sharing both operands).
  auto tile_shape = [&](int64_t U, int64_t V, int64_t G, int64_t P, int64_t mc = 1, int64_t W = 64, int64_t sk = 1,
                        int64_t mc_n = 0) {
    b.specialize_fastest("sm_90a");
    b.instance("gemm_host", "gemm_host", "HOST")
        .mem(ggg)
        .tune({{"U", U}, {"V", V}})
        .call("gemm", "gemm_block")
        .entry({{"T", "bf16"}, {"E", "bf16"}});
    auto block = b.instance("gemm_block", "gemm_block", "BLOCK");
    block.mem(ggg)
        .tune("W", W)
        .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
        .warpspecialize()
        .pipeline(P)
        .smem("227KB");
    if (mc > 1) block.multicast(mc, mc_n);
    if (sk > 1) block.splitk(sk);
    if (G != 2) {
      b.instance("gemm_tile", "gemm_tile", "BLOCK")
          .mem(nss)
          .tune("G", G)
          .call("gemm", "gemm_wg")
          .layout("A", {"row_major", "swizzle128"})
          .layout("B", {"row_major", "swizzle128"});
      b.instance("clear_tile", "clear_tile", "BLOCK").mem({"NONE"}).tune("G", G).call("clear", "clear_wg");
      b.instance("copy_tile", "copy_tile", "BLOCK").mem({"GLOBAL", "NONE"}).tune("G", G).call("copy", "copy_wg");
    }
    b.instance("gemm_wg", "gemm_mma", "WARPGROUP").mem(nss).tune("N_MMA", V).call("gemm", "gemm_warp");
    b.instance("gemm_warp", "gemm_mma", "WARP").mem(nss).tune("N_MMA", V).call("gemm", "gemm_thread");
    b.instance("clear_wg", "clear_mma", "WARPGROUP").mem({"NONE"}).tune("N_MMA", V).call("clear", "clear_warp");
    b.instance("clear_warp", "clear_mma", "WARP").mem({"NONE"}).tune("N_MMA", V).call("clear", "clear_thread");
    b.instance("copy_wg", "copy_mma", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", V).call("copy", "copy_warp");
    b.instance("copy_warp", "copy_mma", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", V).call("copy", "copy_thread");
  };
  tile_shape(128, 192, 2, 4);
  tile_shape(192, 128, 3, 4);
  tile_shape(64, 128, 1, 8);
  b.comment("192 x 192 tiles on three compute warpgroups, 3 stages: the least L2 traffic per FMA of these");
  b.comment("tiles (384 rows per K step for 36864 products per row of K; 128 x 256: 384 for 32768), for large");
  b.comment("problems where the L2 bandwidth, not the tensor cores, sets the pace (an H100 at 5264 x 7640 x 7224:");
  b.comment("L2 87% busy with 128 x 256 tiles; bench/results/2026-11-27-h100-gemm-mappings.md).");
  tile_shape(192, 192, 3, 3);
  b.comment("The same tiles on clusters of 2 blocks that load the B panel they share once, by TMA multicast");
  b.comment("(docs/mapping.md, \"Multicast\"): 128 x 256, 128 x 192 and 192 x 192. They pay where the loads,");
  b.comment("not the tensor cores, set the pace: large calls whose rows start off 32-byte sectors (bf16 with");
  b.comment("an odd multiple of 8 elements per row), which make every load cost about 1.4x (the cost model's");
  b.comment("offsector_fill_percent); elsewhere they cost a little more (multicast_tile_cycles). A cluster's");
  b.comment("blocks wait for each other's shares and releases, so their rings are one stage deeper than the");
  b.comment("same tiles' without multicast: 4 stages of 48 KB for 128 x 256 and 192 x 192, which leave room for");
  b.comment("half a staging tile a warpgroup (the epilogue stores it in two halves, or three thirds; H200:");
  b.comment("5264 x 7640 x 7224 960 -> 823 us, 6192 x 5624 x 4888 590 -> 513, bench/results/2026-12-02-h200-pingpong.md).");
  // 128 x 256 on clusters of S (x T): the default's instances below the block.
  auto wide_multicast = [&](int64_t S, int64_t T) {
    b.specialize_fastest("sm_90a");
    b.instance("gemm_host", "gemm_host", "HOST")
        .mem(ggg)
        .tune({{"U", 128}, {"V", 256}})
        .call("gemm", "gemm_block")
        .entry({{"T", "bf16"}, {"E", "bf16"}});
    b.instance("gemm_block", "gemm_block", "BLOCK")
        .mem(ggg)
        .tune("W", 64)
        .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
        .warpspecialize()
        .pipeline(4)
        .multicast(S, T)
        .smem("227KB");
  };
  wide_multicast(2, 0);
  tile_shape(128, 192, 2, 4, 2);
  tile_shape(192, 192, 3, 4, 2);
  b.comment("64 x 64 tiles with 128-deep K steps (4 stages of 32 KB) on one compute warpgroup, the K loop split");
  b.comment("over clusters of 4 (docs/mapping.md, Split-K): the most blocks per output element of these");
  b.comment("mappings, for the smallest problems with a long K, where even 128 x 64 tiles split 4 ways leave most");
  b.comment("SMs idle (an H200 at 274 x 176 x 6136: 9 tiles of 128 x 64, 17.3 us; 15 of 64 x 64 split 4 ways,");
  b.comment("13.3 us; bench/results/2026-11-28-h200-gemm-clocks-tiles.md, round 5).");
  tile_shape(64, 64, 1, 4, 1, 128, 4);
  b.comment("64 x 64 tiles on one compute warpgroup with 128-deep K steps, six 32 KB stages: twice the blocks of");
  b.comment("the 64 x 128 tiles for the smallest problems, where a block's serial path (its first loads, a short");
  b.comment("K loop, the store) is the call's time and more blocks each load less (an H200 at 208 x 200 x 520:");
  b.comment("16 tiles, 7.1 us against 7.3-7.9 for 64 x 128 and 6.4 for cuBLAS; bench/results/2026-11-29-h200-gemm-small.md).");
  tile_shape(64, 64, 1, 6, 1, 128);
  b.comment("Transposed tiles (gemm_tile_t, gemm_mma_t): U rows x V columns, one compute warpgroup per 64");
  b.comment("columns, U = the wgmma's n, in steps of 32 rows from 48 to 240, plus 80 x 64 on one warpgroup.");
  b.comment("They fit M where the 64-row grid of the tiles above does not (80 x 3896 x 2192: one row of 80-row");
  b.comment("tiles instead of 128-row tiles half empty) and cut waves finer (1576 x 1392 x 184: 132 tiles of");
  b.comment("144 x 128); deeper rings where the tile is small (bench/results/2026-12-02-h200-transposed.md).");
  // A transposed tile: U x V, P stages, on clusters of S x T blocks when S > 0.
  auto transposed_tile = [&](int64_t U, int64_t V, int64_t P, int64_t S = 0, int64_t T = 0) {
    const int64_t G = V / 64;
    b.specialize_fastest("sm_90a");
    b.instance("gemm_host", "gemm_host", "HOST")
        .mem(ggg)
        .tune({{"U", U}, {"V", V}})
        .call("gemm", "gemm_block")
        .entry({{"T", "bf16"}, {"E", "bf16"}});
    InstanceRef block = b.instance("gemm_block", "gemm_block", "BLOCK");
    block.mem(ggg)
        .tune("W", 64)
        .call({{"gemm", "gemm_tile"}, {"clear", "clear_tile"}, {"copy", "copy_tile"}})
        .warpspecialize()
        .pipeline(P);
    if (S > 0) block.multicast(S, T);
    block.smem("227KB");
    b.instance("gemm_tile", "gemm_tile_t", "BLOCK")
        .mem(nss)
        .tune("G", G)
        .call("gemm", "gemm_wg")
        .layout("A", {"row_major", "swizzle128"})
        .layout("B", {"row_major", "swizzle128"});
    b.instance("gemm_wg", "gemm_mma_t", "WARPGROUP").mem(nss).tune("N_MMA", U).call("gemm", "gemm_warp");
    b.instance("gemm_warp", "gemm_mma_t", "WARP").mem(nss).tune("N_MMA", U).call("gemm", "gemm_thread");
    b.instance("gemm_thread", "gemm_thread", "THREAD").mem({"REGISTER", "SHARED", "SHARED"});
    b.instance("clear_tile", "clear_tile_t", "BLOCK").mem({"NONE"}).tune("G", G).call("clear", "clear_wg");
    b.instance("clear_wg", "clear_mma_t", "WARPGROUP").mem({"NONE"}).tune("N_MMA", U).call("clear", "clear_warp");
    b.instance("clear_warp", "clear_mma_t", "WARP").mem({"NONE"}).tune("N_MMA", U).call("clear", "clear_thread");
    b.instance("clear_thread", "clear_thread", "THREAD").mem({"REGISTER"});
    b.instance("copy_tile", "copy_tile_t", "BLOCK").mem({"GLOBAL", "NONE"}).tune("G", G).call("copy", "copy_wg");
    b.instance("copy_wg", "copy_mma_t", "WARPGROUP").mem({"GLOBAL", "NONE"}).tune("N_MMA", U).call("copy", "copy_warp");
    b.instance("copy_warp", "copy_mma_t", "WARP").mem({"GLOBAL", "NONE"}).tune("N_MMA", U).call("copy", "copy_thread");
    b.instance("copy_thread", "copy_thread", "THREAD").mem({"GLOBAL", "REGISTER"});
  };
  for (auto [U, V, P] : std::vector<std::array<int64_t, 3>>{
           {48, 128, 8}, {80, 128, 6}, {112, 128, 6}, {144, 128, 5}, {176, 128, 4}, {208, 128, 3}, {240, 128, 3}, {80, 64, 8}})
    transposed_tile(U, V, P);
  b.comment("64 x 128 tiles on one compute warpgroup (8 stages) on clusters of 4 x 2 blocks that share both");
  b.comment("operands (docs/mapping.md, \"Multicast\", two dimensions): the four blocks of a column tile load B's");
  b.comment("panel once, the two of a row tile A's, so a block issues a third of the bytes that land in it. For");
  b.comment("single-wave calls with a long K whose unclustered tiles the L2 cannot feed (cuBLAS runs 64-row tiles");
  b.comment("on clusters of 4 there): an H100 at 487 x 1688 x 7536 29.8 µs against 41.2 for the best other mapping");
  b.comment("and 33.2 for cuBLAS (bench/results/2026-12-05-h100-intake.md).");
  tile_shape(64, 128, 1, 8, 4, 64, 1, 2);
  b.comment("The 128 x 256 tiles on clusters of 4 x 1 and 2 x 2 blocks, and the 128 x 192 ones on 2 x 4");
  b.comment("(multicast(S, T): the S row tiles of a cluster share B's panel, its T column tiles A's; docs/mapping.md,");
  b.comment("\"Multicast\"): a cluster's shared panels are loaded once, so a block loads 25% (128 x 256) and 43%");
  b.comment("(128 x 192) fewer bytes than on clusters of 2. The model gives them the cycles of the clusters of 2");
  b.comment("where the tensor cores set the pace, and of equal estimates the launcher runs the mapping that loads");
  b.comment("the fewest bytes: for single-wave calls with a long K, which the L2 cannot feed fast enough (an H100");
  b.comment("at 408 x 6896 x 6408: 80.6 -> 70.9 µs on 4 x 1; at 6408 x 696 x 7384: 143.0 -> 121.5 µs on 2 x 4;");
  b.comment("bench/results/2026-12-06-h100-s47.md).");
  wide_multicast(4, 1);
  wide_multicast(2, 2);
  tile_shape(128, 192, 2, 4, 2, 64, 1, 4);
  b.comment("The transposed 208 x 128 tiles (4 stages) on clusters of 2 x 4 blocks, the tile and cluster cuBLAS runs");
  b.comment("for single-wave calls of few rows and a long K (408 x 6896 x 6408: two row tiles fill 98% of the rows).");
  b.comment("The 2 row tiles of a column share B's panel; the 4 column tiles of a row share A's 208 rows, 26 8-row");
  b.comment("atoms loaded in 4 bands of 7 (docs/codegen.md, \"Multicast\"). An H100 at 408 x 6896 x 6408: 59.5 µs");
  b.comment("against 71.0 for the best other mapping and 56.3 for cuBLAS (bench/results/2026-12-06-h100-s49.md).");
  transposed_tile(208, 128, 4, 2, 4);
  return b.build();
}

TEST(Builder, GemmPrintsExactlyAsTheExampleFile) {
  std::string text = read_file(source_dir() + "/examples/gemm/gemm.loom");
  ASSERT_FALSE(text.empty());
  Program built = build_gemm();
  EXPECT_EQ(format_program(built), text);
  EXPECT_EQ(dump_program(built), dump_program(parse_ok(text)));
}

TEST(Builder, GemmNodesHaveNoLocations) {
  Program built = build_gemm();
  EXPECT_FALSE(built.tasks[0].name.loc.valid());
  EXPECT_FALSE(built.variants[0].body[0].loc.valid());
  EXPECT_FALSE(built.variants[0].body[0].value.loc.valid());
  ASSERT_TRUE(built.mapping.has_value());
  EXPECT_FALSE(built.mapping->instances[1].smem_loc.valid());
  EXPECT_EQ(*built.mapping->instances[1].smem_bytes, 227 * 1024);
  EXPECT_EQ(built.mapping->instances[1].smem_spelling, "227KB");
}

TEST(Builder, LeafVariantWithExternCode) {
  ProgramBuilder b;
  b.task("silu").tensor("Y", "w", "f32", {"M"}).tensor("X", "r", "f32", {"M"}).scalar("beta", "f32");
  b.comment("Hand-written CUDA for one thread.");
  b.variant("silu_thread", "silu", {{"Y", "w"}, {"X", Privilege::Read}, "beta"})
      .leaf()
      .on({"THREAD"})
      .extern_code("\n  Y[0] = X[0] / (1.0f + expf(-beta * X[0]));\n");
  const std::string expected =
      "task silu(Y: w f32[M], X: r f32[M], beta: f32);\n"
      "\n"
      "// Hand-written CUDA for one thread.\n"
      "variant silu_thread of silu(Y: w, X: r, beta): leaf on(THREAD) extern %{\n"
      "  Y[0] = X[0] / (1.0f + expf(-beta * X[0]));\n"
      "%}\n";
  Program p = b.build();
  EXPECT_EQ(format_program(p), expected);
  EXPECT_EQ(dump_program(p), dump_program(parse_ok(expected)));
  EXPECT_TRUE(p.variants[0].is_extern);
  // A statement after extern code cannot be written in the text syntax.
  EXPECT_THROW(b.op("relu", {"Y", "X"}), std::invalid_argument);
}

TEST(Builder, LabelledLaunchAndExpressions) {
  ProgramBuilder b;
  b.task("t").tensor("C", "rw", "f32", {"M", "N"});
  b.variant("v", "t", {"C"}).tunables({"U"});
  b.bind("a", (name("M") - "U") - (name("N") - 1));
  b.bind("b", name("M") - (name("U") - "N") * 2 / (lit(3) % "U"));
  b.bind("c", -(name("M") + 1) * -name("U"));
  b.bind("d", lit(-5) + real("0.5") * real("1e-3"));
  b.comment("the main loop");
  b.srange({"k"}, {call("cdiv", {"N", "U"})}, [&] {
    b.prange({"i", "j"}, {"M", 4}, [&] { b.launch("t", {idx("C", {"i", name("j") * "U"})}, "body"); });
  });
  b.mapping("sm_90a");
  b.instance("v", "v", "HOST").mem({"GLOBAL"}).tune("U", 64).call("body", "v").nowarpspecialize().smem(1024).entry();
  b.comment("end of file");
  const std::string expected =
      "task t(C: rw f32[M, N]);\n"
      "\n"
      "variant v of t(C): inner tunables(U) {\n"
      "  a = M - U - (N - 1);\n"
      "  b = M - (U - N) * 2 / (3 % U);\n"
      "  c = -(M + 1) * -U;\n"
      "  d = -5 + 0.5 * 1e-3;\n"
      "  // the main loop\n"
      "  srange k in cdiv(N, U) {\n"
      "    prange i, j in M, 4 {\n"
      "      body: t(C[i, j * U]);\n"
      "    }\n"
      "  }\n"
      "}\n"
      "\n"
      "mapping sm_90a {\n"
      "  instance v = v on HOST mem(GLOBAL) tune(U=64) call(body: v) nowarpspecialize smem(1024) entry;\n"
      "}\n"
      "\n"
      "// end of file\n";
  Program p = b.build();
  EXPECT_EQ(format_program(p), expected);
  EXPECT_EQ(dump_program(p), dump_program(parse_ok(expected)));
  EXPECT_EQ(p.trailing_comments, std::vector<std::string>{" end of file"});
  const Stmt& launch = p.variants.at(0).body.at(4).body.at(0).body.at(0);
  EXPECT_EQ(launch.label.name, "body");
  EXPECT_EQ(launch.target.name, "t");
}

TEST(Builder, ReducePrivilege) {
  ProgramBuilder b;
  b.task("rowsum").tensor("S", "red(sum)", "f32", {"M"}).tensor("X", Privilege::Read, "f32", {"M", "N"});
  b.variant("rowsum_leaf", "rowsum", {{"S", Privilege::ReduceSum}, "X"}).leaf();
  b.op("rowsum", {"S", "X"});
  const std::string expected =
      "task rowsum(S: red(sum) f32[M], X: r f32[M, N]);\n"
      "\n"
      "variant rowsum_leaf of rowsum(S: red(sum), X): leaf {\n"
      "  rowsum(S, X);\n"
      "}\n";
  Program p = b.build();
  EXPECT_EQ(format_program(p), expected);
  EXPECT_EQ(dump_program(p), dump_program(parse_ok(expected)));
}

TEST(Builder, CommentsKeepBlankLineMarkerAndRawText) {
  ProgramBuilder b;
  b.comment("first\n\nthird").blank_line().blank_line().raw_comment("verbatim  ");
  b.task("t").tensor("C", "r", "f32", {"M"});
  Program p = b.build();
  EXPECT_EQ(p.tasks[0].comments, (std::vector<std::string>{" first", "", " third", "\n", "verbatim"}));
  EXPECT_EQ(format_program(p), "// first\n//\n// third\n\n//verbatim\ntask t(C: r f32[M]);\n");
}

TEST(Builder, ScheduleOptimalWithABudget) {
  ProgramBuilder b;
  b.mapping("sm_90a");
  b.instance("blk", "blk_variant", "BLOCK").schedule_optimal(12);
  Program p = b.build();
  ASSERT_TRUE(p.mapping.has_value());
  EXPECT_TRUE(p.mapping->instances[0].schedule_optimal);
  EXPECT_EQ(p.mapping->instances[0].schedule_budget, 12);
  EXPECT_NE(format_program(p).find("schedule(optimal, budget=12)"), std::string::npos) << format_program(p);
  try {
    b.instance("other", "blk_variant", "BLOCK").schedule_optimal(0);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0 is not a budget from 1 to 1000 million solver units"), std::string::npos) << e.what();
  }
}

TEST(Builder, MisuseThrowsInvalidArgument) {
  ProgramBuilder b;
  // Statements outside any variant.
  EXPECT_THROW(b.bind("x", 1), std::invalid_argument);
  b.task("t").tensor("C", "rw", "f32", {"M"});
  EXPECT_THROW(b.launch("t", {"C"}), std::invalid_argument);
  try {
    b.op("fill", {"C", 0});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no variant is open"), std::string::npos) << e.what();
  }
  // Malformed names and lists.
  EXPECT_THROW(b.task("2fast"), std::invalid_argument);
  EXPECT_THROW(b.task("t2").tensor("C", "rw", "f32", {}), std::invalid_argument);
  EXPECT_THROW(b.task("t3").tensor("C", "rx", "f32", {"M"}), std::invalid_argument);
  EXPECT_THROW(name(""), std::invalid_argument);
  EXPECT_THROW(name("a b"), std::invalid_argument);
  EXPECT_THROW(Ex(static_cast<const char*>(nullptr)), std::invalid_argument);
  EXPECT_THROW(idx("Cp", {}), std::invalid_argument);
  EXPECT_THROW(real("12"), std::invalid_argument);
  EXPECT_THROW(real("1.e5"), std::invalid_argument);
  EXPECT_THROW(lit(INT64_MIN), std::invalid_argument);
  EXPECT_THROW(Ex(UINT64_MAX), std::invalid_argument);
  EXPECT_THROW(b.blank_line(), std::invalid_argument);
  EXPECT_THROW(b.raw_comment("two\nlines"), std::invalid_argument);

  b.variant("v", "t", {"C"});
  EXPECT_THROW(b.prange({"i", "j"}, {"M"}, [] {}), std::invalid_argument);
  EXPECT_THROW(b.prange({}, {}, [] {}), std::invalid_argument);
  // A declaration inside a loop body throws, and the loop is rolled back.
  EXPECT_THROW(b.prange({"i"}, {"M"}, [&] {
    b.op("fill", {"C", 0});
    b.task("inner");
  }),
               std::invalid_argument);
  EXPECT_TRUE(b.build().variants[0].body.empty());
  b.op("fill", {"C", 0});
  EXPECT_NO_THROW(b.variant("v2", "t", {"C"}).leaf().extern_code("x"));  // fine on a fresh variant
}

TEST(Builder, ExternAndMappingMisuse) {
  ProgramBuilder b;
  b.task("t").tensor("C", "rw", "f32", {"M"});
  auto v = b.variant("v", "t", {"C"}).leaf();
  b.op("fill", {"C", 0});
  EXPECT_THROW(v.extern_code("int x;"), std::invalid_argument);  // already has statements
  EXPECT_THROW(b.variant("w", "t", {"C"}).leaf().extern_code("a %} b"), std::invalid_argument);
  EXPECT_THROW(b.instance("i", "v", "HOST"), std::invalid_argument);  // no mapping yet
  b.mapping("sm_90a");
  EXPECT_THROW(b.mapping("sm_80"), std::invalid_argument);
  EXPECT_THROW(b.op("fill", {"C", 0}), std::invalid_argument);  // the mapping closed the variant
  auto in = b.instance("i", "v", "HOST");
  EXPECT_THROW(in.smem("227MB"), std::invalid_argument);
  EXPECT_THROW(in.smem("KB"), std::invalid_argument);
  EXPECT_THROW(in.smem("99999999999999999999999KB"), std::invalid_argument);
  EXPECT_THROW(in.smem(int64_t{-1}), std::invalid_argument);
  EXPECT_THROW(in.pipeline(-1), std::invalid_argument);
  EXPECT_THROW(in.layout("A", {}), std::invalid_argument);
  EXPECT_THROW(in.call("gemm", "not an instance"), std::invalid_argument);
  EXPECT_THROW(in.alternate(0), std::invalid_argument);
  EXPECT_THROW(in.regs(0, 240), std::invalid_argument);
  in.smem("64KiB").pipeline(2).alternate(2).regs(24, 240);
  EXPECT_EQ(*in.decl().smem_bytes, 64 * 1024);
  EXPECT_EQ(*in.decl().alternate, 2);
  EXPECT_EQ(*in.decl().regs, std::make_pair(int64_t{24}, int64_t{240}));
  EXPECT_FALSE(in.decl().entry);
}

// Random expression trees made with the builder survive format -> parse unchanged (precedence,
// associativity, unary minus and negative literals, postfix indexing of any base).
TEST(Builder, RandomExpressionsRoundTripThroughThePrinter) {
  std::mt19937 rng(20240611);
  std::function<Ex(int)> gen = [&](int depth) -> Ex {
    int pick = static_cast<int>(rng() % (depth <= 0 ? 4 : 12));
    switch (pick) {
      case 0: return lit(static_cast<int64_t>(rng() % 200) - 100);
      case 1: return name(std::string(1, static_cast<char>('a' + rng() % 26)));
      case 2: return real(rng() % 2 ? "0.5" : "1e-3");
      case 3: return star();
      case 4: return gen(depth - 1) + gen(depth - 1);
      case 5: return gen(depth - 1) - gen(depth - 1);
      case 6: return gen(depth - 1) * gen(depth - 1);
      case 7: return gen(depth - 1) / gen(depth - 1) % gen(depth - 1);
      case 8: return -gen(depth - 1);
      case 9: return call("f", {gen(depth - 1), gen(depth - 1)});
      case 10: return idx(gen(depth - 1), {gen(depth - 1)});
      default: return list({gen(depth - 1), gen(depth - 1)});
    }
  };
  for (int round = 0; round < 50; ++round) {
    ProgramBuilder b;
    b.task("t").tensor("C", "rw", "f32", {"M"});
    b.variant("v", "t", {"C"});
    for (int i = 0; i < 20; ++i) b.bind("x" + std::to_string(i), gen(5));
    Program p = b.build();
    std::string text = format_program(p);
    EXPECT_EQ(dump_program(parse_ok(text)), dump_program(p)) << text;
  }
}

}  // namespace
}  // namespace loom::test

// Machine models (loom/machine.h): the facts of Hopper (sm_90a) and Ampere (sm_80) that the checker
// and the partitions rely on — level order, child levels, which memories each level sees, limits,
// tensor-core instruction shapes and TMA availability. Numbers: CUDA C++ Programming Guide (compute
// capability 9.0 / 8.0) and the PTX ISA (wgmma.mma_async m64nNk16, mma.sync m16n8k16).
#include <gtest/gtest.h>

#include "loom/machine.h"

namespace loom {
namespace {

constexpr ProcKind kAllProcs[] = {ProcKind::Host, ProcKind::Cluster, ProcKind::Block,
                                  ProcKind::Warpgroup, ProcKind::Warp, ProcKind::Thread};

std::vector<ProcKind> level_kinds(const Machine& m) {
  std::vector<ProcKind> out;
  for (const ProcLevel& l : m.levels) out.push_back(l.kind);
  return out;
}

TEST(Machine, HopperLevelsGoFromHostDownToThread) {
  const Machine& h = hopper_machine();
  EXPECT_EQ(h.name, "hopper");
  EXPECT_EQ(h.target, "sm_90a");
  EXPECT_EQ(level_kinds(h), (std::vector<ProcKind>{ProcKind::Host, ProcKind::Cluster, ProcKind::Block,
                                                   ProcKind::Warpgroup, ProcKind::Warp, ProcKind::Thread}));
  for (size_t i = 0; i < h.levels.size(); ++i) EXPECT_EQ(h.depth(h.levels[i].kind), static_cast<int>(i));
  EXPECT_LT(h.depth(ProcKind::Host), h.depth(ProcKind::Block));
  EXPECT_LT(h.depth(ProcKind::Warpgroup), h.depth(ProcKind::Warp));
}

TEST(Machine, HopperChildLevelsSkipTheOptionalCluster) {
  const Machine& h = hopper_machine();
  EXPECT_EQ(h.child_level(ProcKind::Host), ProcKind::Block);
  EXPECT_EQ(h.child_level(ProcKind::Cluster), ProcKind::Block);
  EXPECT_EQ(h.child_level(ProcKind::Block), ProcKind::Warpgroup);
  EXPECT_EQ(h.child_level(ProcKind::Warpgroup), ProcKind::Warp);
  EXPECT_EQ(h.child_level(ProcKind::Warp), ProcKind::Thread);
  EXPECT_EQ(h.child_level(ProcKind::Thread), std::nullopt);
}

TEST(Machine, HopperWarpgroupIsFourWarpsOf32Threads) {
  const Machine& h = hopper_machine();
  const ProcLevel* wg = h.level(ProcKind::Warpgroup);
  const ProcLevel* warp = h.level(ProcKind::Warp);
  const ProcLevel* thread = h.level(ProcKind::Thread);
  ASSERT_TRUE(wg && warp && thread);
  EXPECT_EQ(wg->threads, 128);
  EXPECT_EQ(warp->per_parent, 4);
  EXPECT_TRUE(warp->fixed_count);
  EXPECT_EQ(warp->threads, 32);
  EXPECT_EQ(thread->per_parent, 32);
  EXPECT_TRUE(thread->fixed_count);
  EXPECT_EQ(thread->threads, 1);
  EXPECT_FALSE(h.level(ProcKind::Host)->device);
  EXPECT_TRUE(h.level(ProcKind::Block)->device);
  EXPECT_EQ(h.level(ProcKind::Block)->threads, h.limits.max_threads_per_block);
}

TEST(Machine, HopperMemoryVisibility) {
  const Machine& h = hopper_machine();
  for (ProcKind p : kAllProcs) {
    EXPECT_TRUE(h.visible(MemKind::Global, p)) << proc_name(p);
    EXPECT_TRUE(h.visible(MemKind::None, p)) << proc_name(p);  // NONE: not materialized at this level
  }
  EXPECT_FALSE(h.visible(MemKind::Shared, ProcKind::Host));
  for (ProcKind p : {ProcKind::Block, ProcKind::Warpgroup, ProcKind::Warp, ProcKind::Thread})
    EXPECT_TRUE(h.visible(MemKind::Shared, p)) << proc_name(p);
  for (ProcKind p : kAllProcs)
    EXPECT_EQ(h.visible(MemKind::Register, p), p == ProcKind::Thread) << proc_name(p);
}

TEST(Machine, HopperLimits) {
  const Machine& h = hopper_machine();
  EXPECT_EQ(h.limits.smem_per_block, 227 * 1024);  // 232448 bytes, opt-in maximum for CC 9.0
  EXPECT_EQ(h.limits.regs_per_thread, 255);
  EXPECT_EQ(h.limits.regs_per_sm, 65536);
  EXPECT_EQ(h.limits.max_threads_per_block, 1024);
  EXPECT_EQ(h.limits.sm_count, 132);  // H100 SXM
  for (const MemorySpace& ms : h.memories) {
    if (ms.kind == MemKind::Shared) {
      EXPECT_EQ(ms.capacity_bytes, h.limits.smem_per_block);
    }
  }
}

TEST(Machine, HopperWgmmaShapes) {
  const MmaInstr* w = hopper_machine().find_mma("wgmma");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->issued_by, ProcKind::Warpgroup);
  EXPECT_EQ(w->m, 64);
  EXPECT_EQ(w->k, 16);
  EXPECT_TRUE(w->a_from_shared);
  for (int n = 8; n <= 256; n += 8) EXPECT_TRUE(w->legal_n(n)) << n;
  for (int n : {-8, 0, 1, 4, 12, 20, 100, 255, 260, 264, 512}) EXPECT_FALSE(w->legal_n(n)) << n;
  EXPECT_EQ(w->input_types, (std::vector<DType>{DType::F16, DType::BF16}));
  EXPECT_EQ(w->accumulator_types.front(), DType::F32);

  const MmaInstr* s = hopper_machine().find_mma("mma_sync");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->issued_by, ProcKind::Warp);
  EXPECT_EQ(s->m, 16);
  EXPECT_EQ(s->k, 16);
  EXPECT_TRUE(s->legal_n(8));
  EXPECT_FALSE(s->legal_n(16));
  EXPECT_EQ(hopper_machine().find_mma("hmma"), nullptr);
}

TEST(Machine, HopperTma) {
  const TmaLimits& t = hopper_machine().tma;
  EXPECT_TRUE(t.available);
  EXPECT_EQ(t.max_rank, 5);
  EXPECT_EQ(t.max_box_extent, 256);
  EXPECT_EQ(t.global_align_bytes, 16);
  EXPECT_EQ(t.stride_align_bytes, 16);
}

TEST(Machine, AmpereHasNoWarpgroupTensorCoreLevel) {
  const Machine& a = ampere_machine();
  EXPECT_EQ(a.target, "sm_80");
  EXPECT_EQ(level_kinds(a), (std::vector<ProcKind>{ProcKind::Host, ProcKind::Block, ProcKind::Warp, ProcKind::Thread}));
  EXPECT_EQ(a.level(ProcKind::Warpgroup), nullptr);
  EXPECT_EQ(a.depth(ProcKind::Warpgroup), -1);
  EXPECT_EQ(a.depth(ProcKind::Cluster), -1);
  EXPECT_EQ(a.child_level(ProcKind::Host), ProcKind::Block);
  EXPECT_EQ(a.child_level(ProcKind::Block), ProcKind::Warp);
  EXPECT_EQ(a.child_level(ProcKind::Warp), ProcKind::Thread);
  EXPECT_EQ(a.child_level(ProcKind::Warpgroup), std::nullopt);
  EXPECT_EQ(a.find_mma("wgmma"), nullptr);
  const MmaInstr* s = a.find_mma("mma_sync");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->issued_by, ProcKind::Warp);
  EXPECT_EQ(s->m, 16);
  EXPECT_EQ(s->n_min, 8);
  EXPECT_EQ(s->n_max, 8);
  EXPECT_EQ(s->k, 16);
  EXPECT_FALSE(s->a_from_shared);
  EXPECT_FALSE(a.tma.available);
}

TEST(Machine, AmpereMemoriesAndLimits) {
  const Machine& a = ampere_machine();
  EXPECT_FALSE(a.visible(MemKind::Shared, ProcKind::Host));
  EXPECT_TRUE(a.visible(MemKind::Shared, ProcKind::Block));
  EXPECT_FALSE(a.visible(MemKind::Shared, ProcKind::Warpgroup));  // no such level
  EXPECT_TRUE(a.visible(MemKind::Register, ProcKind::Thread));
  EXPECT_FALSE(a.visible(MemKind::Register, ProcKind::Warp));
  EXPECT_EQ(a.limits.smem_per_block, 163 * 1024);  // A100, CC 8.0
  EXPECT_EQ(a.limits.regs_per_thread, 255);
  EXPECT_EQ(a.limits.sm_count, 108);
}

TEST(Machine, NamesRoundTrip) {
  for (ProcKind p : kAllProcs) EXPECT_EQ(parse_proc(proc_name(p)), p);
  for (MemKind m : {MemKind::None, MemKind::Global, MemKind::Shared, MemKind::Register})
    EXPECT_EQ(parse_mem(mem_name(m)), m);
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::I32}) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_EQ(parse_proc("warp"), std::nullopt);  // case matters: levels are upper case
  EXPECT_EQ(parse_mem("LOCAL"), std::nullopt);
  EXPECT_EQ(parse_dtype("F16"), std::nullopt);
  EXPECT_EQ(dtype_bytes(DType::F16), 2);
  EXPECT_EQ(dtype_bytes(DType::BF16), 2);
  EXPECT_EQ(dtype_bytes(DType::F32), 4);
  EXPECT_EQ(dtype_bytes(DType::I32), 4);
  EXPECT_TRUE(is_float(DType::BF16));
  EXPECT_FALSE(is_float(DType::I32));
}

TEST(Machine, FindMachineByTargetOrName) {
  EXPECT_EQ(find_machine("sm_90a"), &hopper_machine());
  EXPECT_EQ(find_machine("hopper"), &hopper_machine());
  EXPECT_EQ(find_machine("sm_80"), &ampere_machine());
  EXPECT_EQ(find_machine("ampere"), &ampere_machine());
  EXPECT_EQ(find_machine("sm_90"), nullptr);  // wgmma needs the arch-specific sm_90a
  EXPECT_EQ(find_machine(""), nullptr);
}

}  // namespace
}  // namespace loom

// Tests of the event IR's printer and verifier (src/ir/ir.h) on hand-built functions: a `for` with
// several carried events and distances, warp roles and cross-role references, the entry signature.
#include <gtest/gtest.h>

#include <string>

#include "ir/ir.h"

namespace loom::ir {
namespace {

// for %k in [0, %n) iter(%c, %w distance 3) { %e = copy %A -> %T after [%w]; %e.1 = join after
// [%c, %e]; yield %e.1 }, with the copy in the DMA role and its wait on %w crossing roles.
Function two_carries() {
  Function f;
  f.name = "two";
  ValueId A = f.add_value({Type::Tensor, "A", DType::F32, MemKind::Global, 1, {}});
  f.params = {A};
  ValueId n = f.add_value({Type::Index, "n"});
  Op dim;
  dim.kind = OpKind::Dim;
  dim.operands = {A};
  dim.result = n;
  f.body.ops.push_back(dim);
  ValueId T = f.add_value({Type::Tensor, "T", DType::F32, MemKind::Shared, 1, {}});
  Op alloc;
  alloc.kind = OpKind::Alloc;
  alloc.mem = MemKind::Shared;
  alloc.operands = {n};
  alloc.result = T;
  f.body.ops.push_back(alloc);

  ValueId k = f.add_value({Type::Index, "k"});
  ValueId c = f.add_value({Type::Event, "c"});
  ValueId w = f.add_value({Type::Event, "w"});
  Block body;
  body.args = {k, c, w};
  Op copy;
  copy.kind = OpKind::Copy;
  copy.operands = {A, T};
  copy.after = {EventRef{w, {}, true}};
  copy.role = Role::Dma;
  copy.result = f.add_value({Type::Event, "e"});
  Op join;
  join.kind = OpKind::Join;
  join.after = {EventRef{c, {}}, EventRef{copy.result, {}, true}};
  join.role = Role::Compute;
  join.result = f.add_value({Type::Event, "e"});
  body.yield = EventRef{join.result, {}};
  body.ops = {copy, join};
  Op loop;
  loop.kind = OpKind::For;
  loop.operands = {n};
  loop.distances = {1, 3};
  loop.pipeline_depth = 3;
  loop.warp_specialize = true;
  loop.regions = {body};
  loop.result = f.add_value({Type::Event, "L"});
  f.body.ops.push_back(loop);
  f.result = EventRef{loop.result, {}};
  f.warp_roles = WarpRoles{1, 2, 40, 232};
  return f;
}

Op& the_loop(Function& f) { return f.body.ops.back(); }

TEST(IR, ForWithSeveralCarriedEventsPrintsDistancesRolesAndCrossings) {
  Function f = two_carries();
  EXPECT_EQ(verify(f), "");
  EXPECT_EQ(print(f),
            "func @two(%A: f32<1>@GLOBAL) warp_roles(dma: 1 x 40 regs, compute: 2 x 232 regs) {\n"
            "  %n = dim %A, 0\n"
            "  %T = alloc SHARED f32 [%n]\n"
            "  %L = for %k in [0, %n) iter(%c, %w distance 3) pipeline(3) warpspecialize after [] {\n"
            "    %e = copy %A -> %T after [cross(%w)] role(dma)\n"
            "    %e.1 = join after [%c, cross(%e)] role(compute)\n"
            "    yield %e.1\n"
            "  }\n"
            "  return %L\n"
            "}\n");
  EXPECT_EQ(carried_distance(the_loop(f), 0), 1);
  EXPECT_EQ(carried_distance(the_loop(f), 1), 3);
}

TEST(IR, DistanceOnePrintsAsBeforeAndEmptyDistancesMeanOne) {
  Function f = two_carries();
  the_loop(f).distances.clear();
  the_loop(f).pipeline_depth = 1;
  the_loop(f).warp_specialize = false;
  EXPECT_EQ(verify(f), "");
  EXPECT_EQ(carried_distance(the_loop(f), 1), 1);
  EXPECT_NE(print(f).find("= for %k in [0, %n) iter(%c, %w) after [] {"), std::string::npos) << print(f);
}

TEST(IR, VerifierChecksCarriedEventsAndDistances) {
  {
    Function f = two_carries();
    the_loop(f).distances = {1, 0};
    EXPECT_NE(verify(f).find("carried distance 0 is not at least 1"), std::string::npos) << verify(f);
  }
  {
    Function f = two_carries();
    the_loop(f).distances = {2};
    EXPECT_NE(verify(f).find("1 carried distance(s) for 2 carried event(s)"), std::string::npos) << verify(f);
  }
  {
    Function f = two_carries();
    f.values[static_cast<size_t>(the_loop(f).regions[0].args[2])].type = Type::Index;
    EXPECT_NE(verify(f).find("carried value must be an event"), std::string::npos) << verify(f);
  }
  {
    Function f = two_carries();
    the_loop(f).regions[0].args.resize(1);
    EXPECT_NE(verify(f).find("expected an induction variable and at least one carried event"), std::string::npos) << verify(f);
  }
  {
    Function f = two_carries();
    f.body.ops[0].role = Role::Compute;  // a dim
    EXPECT_NE(verify(f).find("only an asynchronous op has a warp role"), std::string::npos) << verify(f);
  }
}

// The entry signature must describe the parameters one by one; the printer does not show it.
TEST(IR, VerifierChecksTheEntrySignature) {
  Function f = two_carries();
  const std::string printed = print(f);
  f.entry = EntrySignature{"two", {EntryParam{"A", ParamPrivilege::Read, {"N"}, ""}}};
  EXPECT_EQ(verify(f), "");
  EXPECT_EQ(print(f), printed);
  f.entry->params[0].dims = {"M", "N"};
  EXPECT_NE(verify(f).find("entry parameter A does not match its value A"), std::string::npos) << verify(f);
  f.entry->params.clear();
  EXPECT_NE(verify(f).find("the entry signature has 0 parameter(s), the function 1"), std::string::npos) << verify(f);
}

}  // namespace
}  // namespace loom::ir

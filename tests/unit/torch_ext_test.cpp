// Tests of the PyTorch operator generator (src/codegen/torch_ext.h) and of the signature it is built
// from (src/codegen/signature.h):
// - goldens of DIR/<entry>_torch.cpp for every example the back end lowers
//   (tests/golden/torch/<example>_torch.cpp; UPDATE_GOLDEN=1 regenerates);
// - the signature: which tensors the compiled kernel reads (gemm's `C: rw` is only written), on
//   hand-built IR (copy, reducing copy, leaf calls through views, extern leaves);
// - the generator on signatures the examples do not have: a read-and-written tensor (mutated in
//   place), two outputs (named keywords, a tuple), an output no input can size (.out form only);
// - nothing comes from a program's name: gemm renamed generates the same operator renamed;
// - every LOOM_ERR_* of runtime/loom/abi.h is mapped by runtime/loom/torch.h;
// - `loom compile --emit=torch` with and without -o DIR through the built binary.
// That the generated sources compile against the PyTorch headers is the CTest
// `torch_ext_compile` (scripts/torch_ext_compile_check.sh); that they run, tests/gpu/torch_ops.sh.
#include "codegen/torch_ext.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "codegen/cuda.h"
#include "passes/pipeline.h"
#include "codegen_util.h"
#include "test_util.h"

namespace loom {
namespace {

using test::read_file;
using test::source_dir;

std::string example_path(const std::string& name) { return source_dir() + "/examples/" + name + "/" + name + ".loom"; }

// The artifact of a program text, as `loom compile` makes it (every mapping).
codegen::CudaArtifact artifact(const std::string& text, const std::string& name) {
  auto r = test::check_text(text, name + ".loom");
  EXPECT_TRUE(r.ok && r.tree) << r.diagnostics;
  if (!r.ok || !r.tree) return {};
  std::vector<MappingUnit> units = mapping_units(r.program, *r.tree);
  std::vector<ir::Function> fs;
  for (const MappingUnit& u : units) fs.push_back(lower_to_event_ir(u.program, u.tree));
  std::vector<codegen::MappingKernel> kernels;
  for (size_t i = 0; i < units.size(); ++i) kernels.push_back({&fs[i], units[i].when ? "when" : ""});
  return codegen::generate_cuda(kernels, name + ".loom");
}

codegen::CudaArtifact example_artifact(const std::string& name) { return artifact(read_file(example_path(name)), name); }

const std::vector<std::string> kLowered = {"add_gemm", "batched_gemm", "dual_gemm", "flash_attention_2", "gemm", "gemm_bias_act",
                                            "gemm_residual"};

TEST(TorchExt, Golden) {
  for (const std::string& name : kLowered) {
    codegen::CudaArtifact a = example_artifact(name);
    ASSERT_FALSE(a.entry.empty()) << name;
    test::expect_golden("torch/" + name + "_torch.cpp", codegen::generate_torch_extension(a.signature, name + ".loom"));
  }
}

TEST(TorchExt, SignatureOfTheExamples) {
  codegen::AbiSignature g = example_artifact("gemm").signature;
  ASSERT_EQ(g.args.size(), 3u);
  EXPECT_EQ(g.args[0].name, "C");
  EXPECT_EQ(g.args[0].privilege, ir::ParamPrivilege::ReadWrite);  // as declared ...
  EXPECT_FALSE(g.args[0].read_by_kernel);                // ... but the kernel only writes it
  EXPECT_TRUE(g.args[0].written_only());
  EXPECT_TRUE(g.args[1].read_by_kernel);
  EXPECT_EQ(g.args[2].dims, (std::vector<std::string>{"K", "N"}));
  codegen::AbiSignature m = example_artifact("flash_attention_2").signature;
  ASSERT_EQ(m.args.size(), 5u);
  EXPECT_TRUE(m.args[0].written_only());  // O: w
  EXPECT_TRUE(m.args[2].col_major);       // Kt
  EXPECT_FALSE(m.args[4].is_tensor);
  EXPECT_EQ(m.args[4].scalar_type, "float");
}

// ---- which tensors the kernel reads, on hand-built IR ---------------------------------------------

ir::EntrySignature entry_of(const std::string& name, const std::vector<std::pair<std::string, ir::ParamPrivilege>>& params) {
  ir::EntrySignature t;
  t.task = name;
  for (auto& [n, priv] : params) t.params.push_back({n, priv, {"M"}, ""});
  return t;
}

TEST(TorchExt, ReadByKernelFollowsViewsCopiesAndLeafAccesses) {
  test::IrBuilder b("k");
  ir::ValueId out = b.tensor_param("Out", 1), acc = b.tensor_param("Acc", 1), x = b.tensor_param("X", 1),
              red = b.tensor_param("Red", 1), ext = b.tensor_param("Ext", 1);
  ir::ValueId n = b.konst(4);
  // Out: written by a copy into a view (never read); X: read through a view by a leaf.
  ir::ValueId e1 = b.copy(b.blocks(x, {n}, {b.konst(0)}), b.blocks(out, {n}, {b.konst(0)}), {});
  // Acc: mma's C is read and written.
  ir::ValueId e2 = b.call("mma", {acc, x, x}, {test::ev(e1)});
  // Red: the destination of a reducing copy (dst = dst + src) is read.
  ir::Op sum;
  sum.kind = ir::OpKind::Copy;
  sum.name = "sum";
  sum.operands = {x, red};
  sum.result = b.f.add_value({ir::Type::Event, "s"});
  b.f.body.ops.push_back(sum);
  // Ext: an extern leaf's accesses are unknown, so it counts as read.
  b.call("my_extern_leaf", {ext}, {test::ev(e2)});
  b.f.entry = entry_of("k", {{"Out", ir::ParamPrivilege::ReadWrite}, {"Acc", ir::ParamPrivilege::ReadWrite},
                             {"X", ir::ParamPrivilege::Read}, {"Red", ir::ParamPrivilege::ReduceSum},
                             {"Ext", ir::ParamPrivilege::Write}});
  codegen::AbiSignature s = codegen::abi_signature(b.f);
  ASSERT_EQ(s.args.size(), 5u);
  EXPECT_FALSE(s.args[0].read_by_kernel);
  EXPECT_TRUE(s.args[0].written_only());
  EXPECT_TRUE(s.args[1].read_by_kernel);
  EXPECT_FALSE(s.args[1].written_only());
  EXPECT_TRUE(s.args[2].read_by_kernel);
  EXPECT_TRUE(s.args[3].read_by_kernel);
  EXPECT_TRUE(s.args[4].read_by_kernel);
  // Merging another mapping's signature: read when either kernel reads.
  codegen::AbiSignature other = s;
  other.args[0].read_by_kernel = true;
  codegen::merge_signature(s, other);
  EXPECT_TRUE(s.args[0].read_by_kernel);
  other.args[1].dims = {"N"};
  EXPECT_THROW(codegen::merge_signature(s, other), InternalError);
}

// ---- the generator on signatures the examples do not have ------------------------------------------

codegen::AbiArg tensor(const std::string& name, std::vector<std::string> dims, ir::ParamPrivilege priv, bool read) {
  codegen::AbiArg a;
  a.name = name;
  a.dtype = DType::BF16;
  a.dims = std::move(dims);
  a.privilege = priv;
  a.read_by_kernel = read;
  return a;
}

TEST(TorchExt, ReadAndWrittenTensorIsMutatedInPlace) {
  codegen::AbiSignature s{"acc", {tensor("C", {"M", "N"}, ir::ParamPrivilege::ReadWrite, true), tensor("A", {"M", "N"}, ir::ParamPrivilege::Read, true)}};
  std::string src = codegen::generate_torch_extension(s, "acc.loom");
  EXPECT_NE(src.find("m.def(\"acc(Tensor(a!) C, Tensor A) -> ()\""), std::string::npos) << src;
  EXPECT_EQ(src.find("acc.out("), std::string::npos) << "no outputs, no .out form";
  EXPECT_EQ(src.find("allocate("), std::string::npos);
  EXPECT_NE(src.find("void acc(const at::Tensor& C, const at::Tensor& A) {"), std::string::npos) << src;
  EXPECT_NE(src.find("check_no_overlap(C, C_arg, A, A_arg);"), std::string::npos);
}

TEST(TorchExt, TwoOutputsAreKeywordsNamedAfterTheTask) {
  codegen::AbiSignature s{"two", {tensor("C", {"M", "N"}, ir::ParamPrivilege::Write, false), tensor("R", {"M"}, ir::ParamPrivilege::Write, false),
                                  tensor("A", {"M", "N"}, ir::ParamPrivilege::Read, true)}};
  codegen::AbiArg k;
  k.name = "k";
  k.is_tensor = false;
  k.scalar_type = "int64_t";
  s.args.push_back(k);
  std::string src = codegen::generate_torch_extension(s, "two.loom");
  EXPECT_NE(src.find("m.def(\"two(Tensor A, int k) -> (Tensor, Tensor)\""), std::string::npos) << src;
  EXPECT_NE(src.find("m.def(\"two.out(Tensor A, int k, *, Tensor(a!) C, Tensor(b!) R) -> ()\""), std::string::npos) << src;
  EXPECT_NE(src.find("std::tuple<at::Tensor, at::Tensor> two(const at::Tensor& A, int64_t k) {"), std::string::npos) << src;
  EXPECT_NE(src.find("allocate(R_arg, {loom_dims.at(\"M\")}, A.options())"), std::string::npos) << src;
  EXPECT_NE(src.find("TensorArg C_arg{kOp, \"C\", nullptr,"), std::string::npos) << "the keyword is the name";
  EXPECT_NE(src.find("if (C.numel() == 0 && R.numel() == 0) return;"), std::string::npos) << src;
}

TEST(TorchExt, OutputThatNoInputSizesHasOnlyTheOutForm) {
  codegen::AbiSignature s{"fill", {tensor("C", {"M", "N"}, ir::ParamPrivilege::Write, false), tensor("A", {"M"}, ir::ParamPrivilege::Read, true)}};
  std::string src = codegen::generate_torch_extension(s, "fill.loom");
  EXPECT_EQ(src.find("m.def(\"fill("), std::string::npos) << src;
  EXPECT_NE(src.find("m.def(\"fill.out(Tensor A, *, Tensor(a!) out) -> ()\""), std::string::npos) << src;
  EXPECT_NE(src.find("No functional form: the output C has dimension N, which no input has."), std::string::npos) << src;
  EXPECT_EQ(src.find("m.impl(\"fill\","), std::string::npos) << src;
}

TEST(TorchExt, AnArgumentNamedOutKeepsTheOutputsNames) {
  codegen::AbiSignature s{"f", {tensor("C", {"M"}, ir::ParamPrivilege::Write, false), tensor("out", {"M"}, ir::ParamPrivilege::Read, true)}};
  std::string src = codegen::generate_torch_extension(s, "f.loom");
  EXPECT_NE(src.find("m.def(\"f.out(Tensor out, *, Tensor(a!) C) -> ()\""), std::string::npos) << src;
}

// ---- nothing comes from names -----------------------------------------------------------------------

TEST(TorchExt, RenamedEntryGivesTheSameOperatorRenamed) {
  std::string text = read_file(example_path("gemm"));
  text = std::regex_replace(text, std::regex("\\bgemm\\b"), "mm");
  std::string renamed = codegen::generate_torch_extension(artifact(text, "mm").signature, "mm.loom");
  std::string original = codegen::generate_torch_extension(example_artifact("gemm").signature, "mm.loom");
  EXPECT_EQ(renamed, std::regex_replace(original, std::regex("gemm"), "mm"));
}

// ---- every status of the C ABI is mapped --------------------------------------------------------------

TEST(TorchExt, EveryAbiErrorCodeIsMappedToAnException) {
  const std::string abi = read_file(source_dir() + "/runtime/loom/abi.h");
  const std::string binding = read_file(source_dir() + "/runtime/loom/torch.h");
  std::regex code("(LOOM_ERR_[A-Z_]+) = \\d+");
  int n = 0;
  for (std::sregex_iterator it(abi.begin(), abi.end(), code), end; it != end; ++it, ++n) {
    const std::string name = (*it)[1];
    EXPECT_NE(binding.find("case " + name + ": return \"" + name + "\";"), std::string::npos) << name << " has no name";
    // Each code is either named in check_status's switch or falls into its RuntimeError default,
    // which lists the codes it takes.
    EXPECT_NE(binding.find(name + ":"), std::string::npos) << name;
    EXPECT_NE(binding.substr(binding.find("inline void check_status")).find(name), std::string::npos)
        << name << " is not handled by check_status";
  }
  EXPECT_GE(n, 10);
}

// ---- the CLI ---------------------------------------------------------------------------------------------

TEST(TorchExtCli, EmitTorchWritesTheOperatorBesideTheArtifact) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / ("loom_torch_" + std::to_string(getpid()));
  fs::remove_all(dir);
  test::Cli r = test::run_loom("compile " + example_path("gemm") + " --emit=torch -o " + (dir / "a").string(), "");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  codegen::CudaArtifact a = example_artifact("gemm");
  EXPECT_EQ(read_file(dir / "a" / "gemm.cu"), test::run_loom("compile " + example_path("gemm") + " --emit=cuda").out);
  EXPECT_EQ(read_file(dir / "a" / "gemm.h"), a.header);
  const std::string torch = read_file(dir / "a" / "gemm_torch.cpp");
  EXPECT_EQ(torch, codegen::generate_torch_extension(a.signature, "gemm.loom"));
  // Without -o: the operator's source on stdout.
  test::Cli s = test::run_loom("compile " + example_path("gemm") + " --emit=torch");
  EXPECT_EQ(s.status, 0);
  EXPECT_EQ(s.out, torch);
  // A program the back end cannot lower writes nothing.
  test::Cli f = test::run_loom("compile " + test::unsupported_program_file() + " --emit=torch -o " + (dir / "b").string(), "");
  EXPECT_EQ(f.status, 1);
  EXPECT_FALSE(fs::exists(dir / "b" / "mha_torch.cpp"));
  EXPECT_NE(f.err.find("fa3_pingpong.loom:"), std::string::npos) << f.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace loom

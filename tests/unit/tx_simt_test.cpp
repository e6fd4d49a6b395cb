// SIMT kernels of tensor expressions (issue 13, section 4): the ISL lane deltas and their costs
// (src/tx/lane_stride.h), the thread-mapping choice (src/tx/thread_map.h), the SIMT IR evaluated
// over its (block, thread) space in a random order against the interpreter (src/tx/simt_eval.h,
// src/tx/interp.h) at non-tile shapes, the generated CUDA (goldens tests/golden/tx/*.cu;
// UPDATE_GOLDEN=1 regenerates), and the refusals (tests/errors/tx_simt/, each stating its
// diagnostic).
#include <cmath>
#include <cstring>
#include <random>
#include <regex>

#include "tx/lane_stride.h"
#include "tx/simt_cuda.h"
#include "tx/simt_eval.h"
#include "tx/thread_map.h"
#include "tx_test_util.h"

namespace loom::test {
namespace {

using tx::SimtKernel;

int loop_named(const tx::Model& m, const std::string& v) {
  for (size_t l = 0; l < m.loops.size(); ++l)
    if (m.loop_var(static_cast<int>(l)) == v) return static_cast<int>(l);
  return -1;
}

// ---- lane deltas and costs

TEST(TxSimtLaneStride, DeltasAndSectorsFromIsl) {
  auto c = compile_tx("in A: f32[M, N];\nin B: bf16[N];\nout Y: f32[M, N];\npar M i {\n  par N j {\n    Y[i, j] = A[i, j] + B[j] + A[i, (j / 2) * 2];\n  }\n}\n");
  ASSERT_TRUE(c->model) << c->errors();
  const tx::Model& m = *c->model;
  const int i = loop_named(m, "i"), j = loop_named(m, "j");
  std::map<std::string, const tx::TxAccess*> by;
  for (const tx::TxAccess& a : c->poly.accesses) by[print_expr(*a.expr)] = &a;
  tx::LaneDelta yj = tx::lane_delta(m, *by.at("Y[i, j]"), j);
  ASSERT_TRUE(yj.regular);
  EXPECT_EQ(yj.delta, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(tx::warp_sectors(yj, 4), 4);  // 128 contiguous bytes
  tx::LaneDelta yi = tx::lane_delta(m, *by.at("Y[i, j]"), i);
  EXPECT_EQ(yi.delta, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(tx::warp_sectors(yi, 4), 32);  // a row apart per lane
  tx::LaneDelta bi = tx::lane_delta(m, *by.at("B[j]"), i);
  EXPECT_TRUE(bi.regular);
  EXPECT_EQ(tx::warp_sectors(bi, 2), 1);  // a broadcast
  EXPECT_EQ(tx::warp_sectors(tx::lane_delta(m, *by.at("B[j]"), j), 2), 2);
  tx::LaneDelta odd = tx::lane_delta(m, *by.at("A[i, j / 2 * 2]"), j);
  EXPECT_FALSE(odd.regular);  // deltas 0 and 2: not one stride
  EXPECT_EQ(tx::warp_sectors(odd, 4), 32);
  EXPECT_EQ(tx::warp_sectors({true, {0, 2}}, 4), 8);  // stride 2: 256 bytes
}

TEST(TxSimtLaneStride, BankConflicts) {
  std::vector<int64_t> column, padded, swizzled;
  for (int64_t l = 0; l < 32; ++l) {
    column.push_back(tx::smem_word(tx::SmemLayout::Plain, l, 5));
    padded.push_back(tx::smem_word(tx::SmemLayout::Padded, l, 5));
    swizzled.push_back(tx::smem_word(tx::SmemLayout::Xor, l, 5));
  }
  EXPECT_EQ(tx::smem_wavefronts(column), 32);
  EXPECT_EQ(tx::smem_wavefronts(padded), 1);
  EXPECT_EQ(tx::smem_wavefronts(swizzled), 1);
}

// ---- the mapping choice

TEST(TxSimtMapping, TransposeStagesATileSoReadAndWriteAreCoalesced) {
  Mapped r = map_example("transpose");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  const tx::SimtMapping& x = r.maps[0];
  const SimtKernel& k = x.kernel;
  const tx::Model& m = *r.c->model;
  EXPECT_EQ(k.shape, SimtKernel::Shape::Map);
  EXPECT_TRUE(k.staged);
  EXPECT_EQ(k.lane_loop, loop_named(m, "j"));  // A[i, j] read with lanes along j
  EXPECT_EQ(k.row_loop, loop_named(m, "i"));   // B[j, i] written with lanes along i
  EXPECT_EQ(k.layout, tx::SmemLayout::Padded);
  const tx::MappingCandidate& best = x.candidates[static_cast<size_t>(x.chosen)];
  EXPECT_EQ(best.total, 4 + 4 + 1 + 1);
  for (const auto& cost : best.costs) {
    if (cost.access.find("[") != std::string::npos) {
      EXPECT_EQ(cost.why, "stride 1 (contiguous)") << cost.access;
    }
  }
  // Every direct candidate pays 32 sectors on one side; the unpadded tile pays a 32-way conflict.
  EXPECT_EQ(x.candidates[0].total, 36);
  EXPECT_EQ(x.candidates[1].total, 36);
  EXPECT_EQ(x.candidates[2].total, 41);
  std::string text = tx::format_mapping(m, r.maps);
  EXPECT_NE(text.find("* [3] staged through a padded shared tile: read lanes along j, write lanes along i: 10"), std::string::npos) << text;
}

TEST(TxSimtMapping, SoftmaxRunsARowPerWarpOrBlockWithLaneContiguousColumns) {
  Mapped r = map_example("softmax");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  const SimtKernel& k = r.maps[0].kernel;
  const tx::Model& m = *r.c->model;
  EXPECT_EQ(k.shape, SimtKernel::Shape::Rows);
  EXPECT_EQ(k.rows_loop, loop_named(m, "i"));
  EXPECT_TRUE(k.rows_by_lanes);
  EXPECT_EQ(r.maps[0].chosen, 0);
  EXPECT_EQ(r.maps[0].candidates[0].total, 4 * 2);    // four bf16 accesses, 64 contiguous bytes each
  EXPECT_EQ(r.maps[0].candidates[1].total, 4 * 32);   // a row per thread: a row apart per lane
  EXPECT_EQ(k.vector_elems, 8);                       // 16-byte vectors of bf16
  EXPECT_EQ(print_expr(*k.row_length), "N");
  ASSERT_EQ(k.stmts.size(), 4u);
  EXPECT_EQ(k.stmts[1].kind, tx::SimtStmt::Kind::Reduce);
  EXPECT_EQ(k.stmts[1].op, tx::Combine::Max);
  EXPECT_EQ(k.stmts[2].op, tx::Combine::Sum);
  EXPECT_EQ(k.stmts[3].kind, tx::SimtStmt::Kind::Assign);
  ASSERT_EQ(k.cached.size(), 1u);  // X[i, j], read by the three loops, stays in registers
  EXPECT_EQ(print_expr(*k.cached[0]), "X[i, j]");
  EXPECT_EQ(k.cache_chunks, 4);
}

TEST(TxSimtMapping, LayernormComputesRowInvariantsOncePerRow) {
  Mapped r = map_example("layernorm");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  const SimtKernel& k = r.maps[0].kernel;
  ASSERT_EQ(k.stmts.size(), 3u);
  ASSERT_EQ(k.stmts[2].invariants.size(), 1u);
  EXPECT_EQ(print_expr(*k.stmts[2].invariants[0]), "rsqrt(var[0] + 1e-05)");
  ASSERT_EQ(k.stmts[0].invariants.size(), 1u);
  EXPECT_EQ(print_expr(*k.stmts[0].invariants[0]), "f32(N)");
}

TEST(TxSimtMapping, DivisionsByARowInvariantGoThroughTheReciprocal) {
  Mapped ln = map_example("layernorm");
  ASSERT_EQ(ln.maps.size(), 1u) << ln.errors();
  const SimtKernel& k = ln.maps[0].kernel;
  ASSERT_EQ(k.stmts.size(), 3u);
  ASSERT_EQ(k.stmts[0].divisions.size(), 1u);
  EXPECT_EQ(print_expr(*k.stmts[0].divisions[0]), "X[i, j] / f32(N)");
  ASSERT_EQ(k.stmts[1].divisions.size(), 1u);
  EXPECT_EQ(print_expr(*k.stmts[1].divisions[0]), "(X[i, j] - mean[0]) * (X[i, j] - mean[0]) / f32(N)");
  EXPECT_TRUE(k.stmts[2].divisions.empty());
  Mapped sm = map_example("softmax");
  ASSERT_EQ(sm.maps.size(), 1u) << sm.errors();
  ASSERT_EQ(sm.maps[0].kernel.stmts[3].divisions.size(), 1u);
  EXPECT_EQ(print_expr(*sm.maps[0].kernel.stmts[3].divisions[0]), "exp(X[i, j] - mx[0]) / s[0]");
  // A divisor that depends on the column, or a division outside an inner loop, stays a division.
  Mapped other = map_text("in X: f32[M, N];\nout Y: f32[M, N];\nout R: f32[M];\npar M i {\n  new s: f32[1];\n  seq N j {\n    s[0] += X[i, j];\n  }\n"
                          "  R[i] = 1 / s[0];\n  par N j {\n    Y[i, j] = s[0] / X[i, j];\n  }\n}\n");
  ASSERT_EQ(other.maps.size(), 1u) << other.errors();
  for (const tx::SimtStmt& st : other.maps[0].kernel.stmts) EXPECT_TRUE(st.divisions.empty()) << print_expr(*st.value);
}

TEST(TxSimtMapping, PointwiseMapIsDirectWithLanesAlongTheContiguousLoop) {
  Mapped r = map_text("in X: bf16[M, N];\nout Y: bf16[M, N];\npar M i {\n  par N j {\n    Y[i, j] = relu(X[i, j]);\n  }\n}\n");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  EXPECT_FALSE(r.maps[0].kernel.staged);
  EXPECT_EQ(r.maps[0].kernel.lane_loop, loop_named(*r.c->model, "j"));
  EXPECT_EQ(r.maps[0].candidates[static_cast<size_t>(r.maps[0].chosen)].total, 4);
}

TEST(TxSimtMapping, ColumnReductionRunsARowPerThread) {
  // Reducing over i for each column j: lanes along the "row" loop j are the contiguous ones.
  Mapped r = map_text("in A: f32[M, N];\nout S: f32[N];\npar N j {\n  new s: f32[1];\n  seq M i {\n    s[0] += A[i, j];\n  }\n  S[j] = s[0];\n}\n");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  EXPECT_FALSE(r.maps[0].kernel.rows_by_lanes);
  EXPECT_EQ(r.maps[0].chosen, 1);
}

// ---- the evaluator against the interpreter

struct Case {
  std::string name;  // an example's stem, or a label
  std::string text;
  std::map<std::string, int64_t> sizes;
  int row_threads = 0;
  bool vector_path = false;
};

void expect_same_as_interpreter(const Case& cs, uint64_t seed) {
  Mapped r = map_text(cs.text, cs.name + ".tx");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  const tx::Model& m = *r.c->model;
  auto inputs = tx::random_inputs(m, cs.sizes, seed);
  auto want = tx::interpret_tx(m, cs.sizes, inputs);
  tx::SimtRun got = tx::evaluate_simt(m, r.maps[0].kernel, cs.sizes, inputs, seed * 7919 + 1, cs.row_threads, cs.vector_path);
  EXPECT_EQ(got.unwritten, 0) << cs.name << " seed " << seed;
  EXPECT_EQ(got.rewritten, 0) << cs.name << " seed " << seed;
  for (const auto& [name, a] : want) {
    const tx::Array& b = got.outputs.at(name);
    ASSERT_EQ(a.data.size(), b.data.size());
    // Exact, up to the reassociation of a sum across threads: 1 ulp of the output type (bf16: 2^-8).
    const float rel = a.dtype == DType::F32 ? 1e-5f : a.dtype == DType::BF16 ? 1.0f / 128 : 1.0f / 1024;
    int bad = 0;
    for (size_t e = 0; e < a.data.size() && bad < 5; ++e)
      if (!(std::fabs(a.data[e] - b.data[e]) <= rel * std::fabs(a.data[e]) + 1e-6f)) {
        ADD_FAILURE() << cs.name << " " << name << "[" << e << "]: interpreter " << a.data[e] << ", SIMT " << b.data[e] << " (seed " << seed
                      << ", row threads " << cs.row_threads << ", vectors " << cs.vector_path << ")";
        ++bad;
      }
  }
}

std::string example(const std::string& stem) { return read_file(source_dir() + "/examples/tx/" + stem + ".tx"); }

TEST(TxSimtEval, MappedKernelsMatchTheInterpreterAtNonTileShapes) {
  std::vector<Case> cases = {
      {"transpose", example("transpose"), {{"M", 67}, {"N", 45}}},
      {"transpose", example("transpose"), {{"M", 1}, {"N", 33}}},
      {"softmax", example("softmax"), {{"M", 19}, {"N", 45}}},                        // a row per warp
      {"softmax", example("softmax"), {{"M", 5}, {"N", 1500}}},                       // a row per block
      {"softmax", example("softmax"), {{"M", 9}, {"N", 45}}, 1},                      // a row per thread
      {"softmax", example("softmax"), {{"M", 9}, {"N", 48}}, 32, true},               // warp, 16-byte vectors
      {"softmax", example("softmax"), {{"M", 3}, {"N", 4104}}, 512, true},            // block, 16-byte vectors
      {"layernorm", example("layernorm"), {{"M", 19}, {"N", 45}}},
      {"layernorm", example("layernorm"), {{"M", 4}, {"N", 1031}}},
      {"layernorm", example("layernorm"), {{"M", 7}, {"N", 72}}, 32, true},
      {"batched_transpose", "in A: bf16[L, M, N];\nout B: bf16[L, N, M];\npar L b {\n  par N j {\n    par M i {\n      B[b, j, i] = A[b, i, j];\n    }\n  }\n}\n",
       {{"L", 3}, {"M", 40}, {"N", 33}}},
      {"vector_exp", "in X: f32[N];\nout Y: f32[N];\npar N i {\n  Y[i] = exp(X[i]) * 2;\n}\n", {{"N", 600}}},
      {"scaled_rows", "in X: f32[M, N];\nin b: f32[M];\nout Y: f32[M, N];\nout R: f32[M];\npar M i {\n  new s: f32[1];\n  seq N j {\n    s[0] += X[i, j] * X[i, j];\n  }\n  R[i] = sqrt(s[0]) + b[i];\n  par N j {\n    Y[i, j] = X[i, j] / (sqrt(s[0]) + b[i]);\n  }\n}\n",
       {{"M", 13}, {"N", 70}}},
      {"column_sum", "in A: f32[M, N];\nout S: f32[N];\npar N j {\n  new s: f32[1];\n  seq M i {\n    s[0] += A[i, j];\n  }\n  S[j] = s[0];\n}\n",
       {{"M", 21}, {"N", 300}}},
  };
  for (const Case& cs : cases)
    for (uint64_t seed : {1u, 2u, 3u}) expect_same_as_interpreter(cs, seed);
}

// Division by a row scalar over values that take the reciprocal's fast path and values that do
// not (zeros of both signs, tiny, huge, infinite dividends; a zero and a negative divisor): the
// quotients are the interpreter's, bit for bit, on every instance.
TEST(TxSimtEval, DivisionThroughTheReciprocalIsTheIeeeQuotient) {
  // max, not a sum: the reduction is exact in any order, so every instance must match bit for bit.
  Mapped r = map_text("in X: f32[M, N];\nin c: f32[M];\nout Y: f32[M, N];\npar M i {\n  new s: f32[1];\n  seq N j {\n    s[0] = max(s[0], X[i, j] / c[i]);\n  }\n"
                      "  par N j {\n    Y[i, j] = X[i, j] / s[0];\n  }\n}\n", "div.tx");
  ASSERT_EQ(r.maps.size(), 1u) << r.errors();
  const tx::Model& m = *r.c->model;
  ASSERT_EQ(r.maps[0].kernel.stmts[0].divisions.size(), 1u);
  ASSERT_EQ(r.maps[0].kernel.stmts[1].divisions.size(), 1u);
  const int64_t M = 6, N = 40;
  const std::map<std::string, int64_t> sizes = {{"M", M}, {"N", N}};
  std::mt19937 rng(5);
  std::map<std::string, tx::Array> inputs;
  inputs["X"] = {DType::F32, {M, N}, std::vector<float>(static_cast<size_t>(M * N))};
  inputs["c"] = {DType::F32, {M}, {3.0f, 1000.0f, 0.0f, -7.0f, 0x1p70f, 0.1f}};
  const float odd[] = {0.0f, -0.0f, 1e-30f, -1e-25f, 1e30f, INFINITY, 0x1p60f, 0x1p-60f};
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float& x = inputs["X"].data[static_cast<size_t>(i * N + j)];
      x = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
      if (i >= 3 && j % 5 == 0) x = odd[(i + j) % 8];
    }
  auto want = tx::interpret_tx(m, sizes, inputs);
  for (auto [threads, vec] : {std::pair{1, false}, {32, false}, {32, true}, {256, true}}) {
    tx::SimtRun got = tx::evaluate_simt(m, r.maps[0].kernel, sizes, inputs, 11, threads, vec);
    const auto& a = want.at("Y").data;
    const auto& b = got.outputs.at("Y").data;
    ASSERT_EQ(a.size(), b.size());
    for (size_t e = 0; e < a.size(); ++e) {
      uint32_t x, y;
      std::memcpy(&x, &a[e], 4);
      std::memcpy(&y, &b[e], 4);
      EXPECT_TRUE(x == y || (std::isnan(a[e]) && std::isnan(b[e]))) << "Y[" << e << "]: " << a[e] << " vs " << b[e] << " (" << threads << " threads)";
    }
  }
}

// ---- generated CUDA

TEST(TxSimtCuda, GoldensOfTheExamples) {
  for (const std::string stem : {"transpose", "softmax", "layernorm"}) {
    Mapped r = map_example(stem);
    ASSERT_EQ(r.maps.size(), 1u) << r.errors();
    tx::SimtArtifact a = tx::emit_simt_cuda(*r.c->model, r.maps[0].kernel, stem + ".tx");
    EXPECT_EQ(a.entry, stem);
    expect_golden("tx/" + stem + ".cu", a.cu);
    expect_golden("tx/" + stem + ".h", a.header);
  }
}

TEST(TxSimtCuda, DivisionsGoThroughTheCheckedReciprocalSequence) {
  Mapped r = map_example("layernorm");
  ASSERT_EQ(r.maps.size(), 1u);
  const std::string cu = tx::emit_simt_cuda(*r.c->model, r.maps[0].kernel, "layernorm.tx").cu;
  // The lines tests/gpu/invariant_div_test.cu checks against div.rn.f32 over every mantissa pair.
  EXPECT_NE(cu.find("  const float q = x * d.y;\n  return fmaf(-fmaf(q, d.c, -x), d.y, q);\n"), std::string::npos);
  EXPECT_NE(cu.find("const LoomDivisor d0 = loom_divisor(h0);  // once per row: the reciprocal of f32(N)"), std::string::npos);
  EXPECT_NE(cu.find("term[e] = loom_div(rc0[q][e], d0, ok);"), std::string::npos);
  EXPECT_NE(cu.find("term[e] = (rc0[q][e] / h0);"), std::string::npos);  // the IEEE fallback
  // The row cache is loaded before the first loop computes.
  const size_t load = cu.find("if (c < n_N) loom_ldv<8>(p_X + v_i * s_X_0 + v_j, rc0[q]);");
  ASSERT_NE(load, std::string::npos);
  EXPECT_LT(load, cu.find("term[e] = loom_div(rc0[q][e], d0, ok);"));
}

TEST(TxSimtCuda, CommentsPointBackToTheTxLines) {
  Mapped r = map_example("softmax");
  ASSERT_EQ(r.maps.size(), 1u);
  tx::SimtArtifact a = tx::emit_simt_cuda(*r.c->model, r.maps[0].kernel, "softmax.tx");
  EXPECT_NE(a.cu.find("// softmax.tx:10: mx[0] = max(mx[0], X[i, j])"), std::string::npos);
  EXPECT_NE(a.cu.find("extern \"C\" int loom_softmax(loom_tensor X, loom_tensor Y, cudaStream_t stream)"), std::string::npos);
  EXPECT_NE(a.cu.find("return LOOM_ERR_ALIGN"), std::string::npos);
}

TEST(TxSimtCli, CompileWritesTheArtifactAndEmitsTheMapping) {
  const std::string dir = std::filesystem::temp_directory_path() / ("loom-simt-" + std::to_string(::getpid()));
  Cli c = run_loom("compile " + source_dir() + "/examples/tx/layernorm.tx -o " + dir);
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/layernorm.cu"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/layernorm.h"));
  std::filesystem::remove_all(dir);
  Cli m = run_loom("compile " + source_dir() + "/examples/tx/transpose.tx --emit=mapping");
  EXPECT_EQ(m.status, 0);
  EXPECT_NE(m.out.find("chosen: [3] staged through a padded shared tile"), std::string::npos) << m.out;
  Cli ir = run_loom("compile " + source_dir() + "/examples/tx/transpose.tx --emit=ir", dir + ".err");
  EXPECT_EQ(ir.status, 1);
}

// ---- refusals: tests/errors/tx_simt/*.tx, each with `// expect-error@+N: text`

TEST(TxSimtErrors, EveryRefusalIsLocatedAndStated) {
  int files = 0;
  for (auto& f : std::filesystem::directory_iterator(source_dir() + "/tests/errors/tx_simt")) {
    if (f.path().extension() != ".tx") continue;
    ++files;
    const std::string text = read_file(f.path());
    std::smatch sm;
    ASSERT_TRUE(std::regex_search(text, sm, std::regex(R"(//\s*expect-error@\+(\d+):\s*(.*))"))) << f.path();
    size_t line = 1;
    for (size_t p = 0; p < static_cast<size_t>(sm.position(0)); ++p) line += text[p] == '\n';
    const size_t want_line = line + std::stoul(sm[1].str());
    Mapped r = map_text(text, f.path().filename().string());
    EXPECT_TRUE(r.maps.empty()) << f.path();
    const std::string errs = r.errors();
    EXPECT_NE(errs.find(f.path().filename().string() + ":" + std::to_string(want_line) + ":"), std::string::npos) << f.path() << "\n" << errs;
    EXPECT_NE(errs.find("error: cannot map this statement group onto threads: " + sm[2].str()), std::string::npos) << f.path() << "\n" << errs;
  }
  EXPECT_GE(files, 5);
}

}  // namespace
}  // namespace loom::test

// The sequential reference interpreter (src/exec/reference.h) and the entry inputs
// (src/exec/inputs.h): the examples at shapes that are not tile multiples against direct formulas
// (exact for integer inputs), every output element written, replicated row pieces updated once per
// quad, and clear errors for extern leaves and bad sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "exec/inputs.h"
#include "exec/reference.h"
#include "test_util.h"

namespace loom::exec {
namespace {

using test::check_text;
using test::read_file;
using test::source_dir;

test::CheckResult load_example(const std::string& name) {
  auto r = check_text(read_file(source_dir() + "/examples/" + name + "/" + name + ".loom"), name + ".loom");
  EXPECT_TRUE(r.ok) << r.diagnostics;
  return r;
}

const View& tensor_of(const Args& a, const std::string& name) {
  const Arg* x = a.find(name);
  EXPECT_TRUE(x && x->is_tensor) << name;
  return x->view;
}

// Element `c` of a whole-buffer argument (row-major, without going through View::flat: fast).
double at(const Args& a, const std::string& name, const std::vector<int64_t>& c) {
  const Buffer& b = *tensor_of(a, name).buffer();
  int64_t f = 0;
  for (size_t d = 0; d < c.size(); ++d) f = f * b.extents[d] + c[d];
  return b.data[static_cast<size_t>(f)];
}

// The example's text with `from` replaced by `to` (each must occur).
std::string patched(const std::string& name, const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = read_file(source_dir() + "/examples/" + name + "/" + name + ".loom");
  for (const auto& [from, to] : edits) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text;
}

void expect_no_nan(const Args& a) {
  for (const Arg& x : a.args)
    if (x.is_tensor && writes(x.priv)) {
      EXPECT_EQ(count_nan(x), 0) << "unwritten elements in " << x.name;
    }
}

// C = A * B, rounded once to C's type.
void expect_gemm(const Args& in, const Args& out, const std::string& c, const std::string& a, const std::string& b,
                 std::vector<int64_t> batch = {}) {
  const View& C = tensor_of(out, c);
  const int r = C.rank();
  const int64_t M = C.extents()[static_cast<size_t>(r - 2)], N = C.extents()[static_cast<size_t>(r - 1)];
  const int64_t K = tensor_of(in, a).extents()[static_cast<size_t>(r - 1)];
  int64_t mismatches = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) {
        auto ia = batch, ib = batch;
        ia.insert(ia.end(), {i, k});
        ib.insert(ib.end(), {k, j});
        s += at(in, a, ia) * at(in, b, ib);
      }
      auto ic = batch;
      ic.insert(ic.end(), {i, j});
      double want = round_to(C.dtype(), s), got = at(out, c, ic);
      if (want != got && ++mismatches <= 5) {
        ADD_FAILURE() << c << "[" << i << ", " << j << "] = " << got << ", want " << want;
      }
    }
  EXPECT_EQ(mismatches, 0);
}

TEST(Reference, GemmAtNonTileShapes) {
  auto r = load_example("gemm");
  ASSERT_TRUE(r.tree);
  for (auto sizes : std::vector<std::map<std::string, int64_t>>{
           {{"M", 129}, {"N", 257}, {"K", 65}}, {{"M", 1}, {"N", 1}, {"K", 1}}, {{"M", 128}, {"N", 256}, {"K", 64}},
           {{"M", 70}, {"N", 9}, {"K", 130}}}) {
    Args in = make_inputs(r.program, *r.tree, sizes, 7);
    Args out = copy_args(in);
    ReferenceStats st = run_reference(r.program, *r.tree, out);
    EXPECT_GT(st.leaf_ops, 0);
    expect_gemm(in, out, "C", "A", "B");
    expect_no_nan(out);
    // Inputs are untouched.
    EXPECT_EQ(tensor_of(out, "A").buffer()->data, tensor_of(in, "A").buffer()->data);
  }
}

TEST(Reference, BatchedGemm) {
  auto r = load_example("batched_gemm");
  ASSERT_TRUE(r.tree);
  Args in = make_inputs(r.program, *r.tree, {{"Bt", 3}, {"M", 129}, {"N", 100}, {"K", 33}}, 3);
  Args out = copy_args(in);
  run_reference(r.program, *r.tree, out);
  for (int64_t b = 0; b < 3; ++b) expect_gemm(in, out, "C", "A", "B", {b});
  expect_no_nan(out);
}

TEST(Reference, DualGemm) {
  auto r = load_example("dual_gemm");
  ASSERT_TRUE(r.tree);
  const int64_t M = 130, N = 129, K = 65;
  Args in = make_inputs(r.program, *r.tree, {{"M", M}, {"N", N}, {"K", K}}, 5);
  Args out = copy_args(in);
  run_reference(r.program, *r.tree, out);
  expect_no_nan(out);
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double x = 0, y = 0;
      for (int64_t k = 0; k < K; ++k) {
        x += at(in, "A", {i, k}) * at(in, "B1", {k, j});
        y += at(in, "A", {i, k}) * at(in, "B2", {k, j});
      }
      double want = x / (1 + std::exp(-x)) * y;  // silu(A B1) * (A B2)
      double got = at(out, "D", {i, j});
      if (std::fabs(got - want) > 1e-2 * std::fabs(want) + 1e-3 && ++bad <= 5)
        ADD_FAILURE() << "D[" << i << ", " << j << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

// gemm_bias_act with each activation (the variant act_thread runs): the bias is added per column,
// C[i, j] = act(sum_k A[i, k] B[k, j] + bias[j]), at a shape with M != N (a row broadcast would
// read past the bias or use the wrong entries).
TEST(Reference, GemmBiasActAddsTheBiasPerColumn) {
  const double c = 0.7978845608028654;
  const std::vector<std::pair<std::string, std::function<double(double)>>> acts = {
      {"bias_thread", [](double x) { return x; }},
      {"bias_relu_thread", [](double x) { return x > 0 ? x : 0.0; }},
      {"bias_gelu_thread", [c](double x) { return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x))); }},
      // the same function: only the GPU's lowering of gelu_fast differs (tanh.approx)
      {"bias_gelu_fast_thread", [c](double x) { return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x))); }},
      {"bias_silu_thread", [](double x) { return x / (1 + std::exp(-x)); }},
  };
  for (const auto& [variant, act] : acts) {
    SCOPED_TRACE(variant);
    auto r = check_text(patched("gemm_bias_act", {{"act_thread = bias_gelu_thread on", "act_thread = " + variant + " on"}}),
                        "gemm_bias_act.loom");
    ASSERT_TRUE(r.ok && r.tree) << r.diagnostics;
    const int64_t M = 70, N = 130, K = 33;
    Args in = make_inputs(r.program, *r.tree, {{"M", M}, {"N", N}, {"K", K}}, 4);
    Args out = copy_args(in);
    run_reference(r.program, *r.tree, out);
    expect_no_nan(out);
    int64_t bad = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double x = at(in, "bias", {j});
        for (int64_t k = 0; k < K; ++k) x += at(in, "A", {i, k}) * at(in, "B", {k, j});
        const double want = act(x), got = at(out, "C", {i, j});
        if (std::fabs(got - want) > 1e-2 * std::fabs(want) + 1e-3 && ++bad <= 5)
          ADD_FAILURE() << "C[" << i << ", " << j << "] = " << got << ", want " << want;
      }
    EXPECT_EQ(bad, 0);
  }
}

// add_gemm: E = A B + C D.
TEST(Reference, AddGemm) {
  auto r = load_example("add_gemm");
  ASSERT_TRUE(r.tree);
  const int64_t M = 129, N = 100, K = 65, L = 40;
  Args in = make_inputs(r.program, *r.tree, {{"M", M}, {"N", N}, {"K", K}, {"L", L}}, 6);
  Args out = copy_args(in);
  run_reference(r.program, *r.tree, out);
  expect_no_nan(out);
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k) want += at(in, "A", {i, k}) * at(in, "B", {k, j});
      for (int64_t l = 0; l < L; ++l) want += at(in, "C", {i, l}) * at(in, "D", {l, j});
      const double got = at(out, "E", {i, j});
      if (std::fabs(got - want) > 1e-2 * std::fabs(want) + 1e-3 && ++bad <= 5)
        ADD_FAILURE() << "E[" << i << ", " << j << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

// relu_gemm: C = relu(A) B.
TEST(Reference, ReluGemm) {
  auto r = load_example("relu_gemm");
  ASSERT_TRUE(r.tree);
  const int64_t M = 129, N = 100, K = 65;
  Args in = make_inputs(r.program, *r.tree, {{"M", M}, {"N", N}, {"K", K}}, 8);
  Args out = copy_args(in);
  run_reference(r.program, *r.tree, out);
  expect_no_nan(out);
  int64_t bad = 0, negative = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) negative += at(in, "A", {i, k}) < 0;
  EXPECT_GT(negative, 0);  // the ReLU matters
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k) want += std::max(at(in, "A", {i, k}), 0.0) * at(in, "B", {k, j});
      const double got = at(out, "C", {i, j});
      if (std::fabs(got - want) > 1e-2 * std::fabs(want) + 1e-3 && ++bad <= 5)
        ADD_FAILURE() << "C[" << i << ", " << j << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

// gemm_residual: D = A B + alpha C.
TEST(Reference, GemmResidual) {
  auto r = load_example("gemm_residual");
  ASSERT_TRUE(r.tree);
  const int64_t M = 129, N = 100, K = 65;
  Args in = make_inputs(r.program, *r.tree, {{"M", M}, {"N", N}, {"K", K}}, 6, {{"alpha", -0.5}});
  Args out = copy_args(in);
  run_reference(r.program, *r.tree, out);
  expect_no_nan(out);
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = -0.5 * at(in, "C", {i, j});
      for (int64_t k = 0; k < K; ++k) want += at(in, "A", {i, k}) * at(in, "B", {k, j});
      const double got = at(out, "D", {i, j});
      if (std::fabs(got - want) > 1e-2 * std::fabs(want) + 1e-3 && ++bad <= 5)
        ADD_FAILURE() << "D[" << i << ", " << j << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

void expect_gemm_reduce(const test::CheckResult& r, int64_t M, int64_t N, int64_t K) {
  Args in = make_inputs(r.program, *r.tree, {{"M", M}, {"N", N}, {"K", K}}, 9);
  // C and R are outputs (w): poisoned until the program writes them.
  EXPECT_EQ(count_nan(*in.find("C")), M * N);
  EXPECT_EQ(count_nan(*in.find("R")), M);
  Args out = copy_args(in);
  ReferenceStats st = run_reference(r.program, *r.tree, out);
  expect_no_nan(out);
  expect_gemm(in, out, "C", "A", "B");
  for (int64_t i = 0; i < M; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) sum += at(in, "A", {i, k}) * at(in, "B", {k, j});
    EXPECT_EQ(at(out, "R", {i}), sum) << "R[" << i << "]";
  }
  // R is `w` for the entry and reduced into by the blocks (red(sum)): it starts at 0, so the exact
  // sums above (integer inputs) also check that nothing of the poison survives and no block's sums
  // are lost or doubled. Every row_sum launch is a reduction, run for every lane (the quad
  // reduction): none is skipped as a launch on replicated row pieces only.
  EXPECT_EQ(st.replicated_skips, 0);
}

TEST(Reference, GemmReduce) {
  auto r = load_example("gemm_reduce");
  ASSERT_TRUE(r.tree);
  expect_gemm_reduce(r, 129, 257, 65);
  expect_gemm_reduce(r, 129, 256, 64);
  expect_gemm_reduce(r, 3, 9, 17);
}

// FlashAttention-2's leaf scale_rows_thread made extern: the reference cannot run CUDA C++.
std::string fa2_with_extern_epilogue() {
  std::string text = read_file(source_dir() + "/examples/flash_attention_2/flash_attention_2.loom");
  size_t b = text.find("variant scale_rows_thread");
  size_t e = text.find("\n}\n", b);
  EXPECT_NE(b, std::string::npos);
  EXPECT_NE(e, std::string::npos);
  text.replace(b, e + 2 - b,
               "variant scale_rows_thread of scale_rows(Y, O, inv): leaf on(THREAD) extern %{\n"
               "  for (int i = 0; i < cute::size<0>(O); ++i)\n"
               "    for (int j = 0; j < cute::size<1>(O); ++j) Y(i, j) = O(i, j) * inv(i);\n%}");
  return text;
}

TEST(Reference, ExternLeafIsAClearError) {
  auto r = check_text(fa2_with_extern_epilogue(), "fa2_extern.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  Args in = make_inputs(r.program, *r.tree, {{"BH", 1}, {"M", 128}, {"N", 128}, {"D", 128}}, 1);
  try {
    run_reference(r.program, *r.tree, in);
    FAIL() << "an extern leaf ran on the CPU";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("scale_rows_thread"), std::string::npos) << msg;
    EXPECT_NE(msg.find("extern"), std::string::npos) << msg;
  }
}

// FlashAttention-2: the online softmax's phases below the warp, with replicated row pieces
// (rescale_sum multiplies l by a once per quad, not four times) and red reductions into shared row
// entries, against the direct formula O[i] = sum_j p_ij V[j] / sum_j p_ij, p_ij = exp(s_ij - max_j s_ij).
void expect_attention(const std::string& text, int64_t BH, int64_t M, int64_t N) {
  auto r = check_text(text, "fa2.loom");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  const int64_t D = 128;
  // scale 1/16 keeps exp2() of the integer scores in range.
  Args in = make_inputs(r.program, *r.tree, {{"BH", BH}, {"M", M}, {"N", N}, {"D", D}}, 4, {{"scale", 0.0625}});
  Args out = copy_args(in);
  run_reference(r.program, *r.tree, out);
  expect_no_nan(out);
  int64_t bad = 0;
  for (int64_t h = 0; h < BH; ++h)
    for (int64_t i = 0; i < M; ++i) {
      std::vector<double> s(static_cast<size_t>(N));
      double mx = -1e300;
      for (int64_t j = 0; j < N; ++j) {
        double x = 0;
        for (int64_t d = 0; d < D; ++d) x += at(in, "Q", {h, i, d}) * at(in, "Kt", {h, d, j});
        s[static_cast<size_t>(j)] = x * 0.0625;
        mx = std::max(mx, s[static_cast<size_t>(j)]);
      }
      double l = 0;
      for (double& x : s) l += (x = std::exp2(x - mx));  // the program's exp2 (scale includes log2 e)
      for (int64_t d = 0; d < D; ++d) {
        double o = 0;
        for (int64_t j = 0; j < N; ++j) o += s[static_cast<size_t>(j)] * at(in, "V", {h, j, d});
        double want = o / l, got = at(out, "O", {h, i, d});
        if (std::fabs(got - want) > 1e-2 * std::fabs(want) + 1e-2 && ++bad <= 5)
          ADD_FAILURE() << "O[" << h << ", " << i << ", " << d << "] = " << got << ", want " << want;
      }
    }
  EXPECT_EQ(bad, 0);
}

TEST(Reference, FlashAttention) {
  expect_attention(read_file(source_dir() + "/examples/flash_attention_2/flash_attention_2.loom"), 2, 130, 256);
}

// S and P sized by the actual key tile rather than by the tunable BC (which does not fit the last
// K/V tile when N is not a multiple of BC): the online softmax then sees exactly the keys that
// exist, and the clipped mma pieces of the partial tile stay consistent.
TEST(Reference, FlashAttentionPartialKeyTile) {
  // The example allocates each key tile's scores inside the loop, so N need not be a multiple of BC.
  std::string text = patched("flash_attention_2", {});
  expect_attention(text, 1, 65, 200);
  expect_attention(text, 1, 3, 130);
}

TEST(ReferenceInputs, SizesAreCheckedAndInputsAreSmallIntegers) {
  auto r = load_example("gemm");
  ASSERT_TRUE(r.tree);
  try {
    make_inputs(r.program, *r.tree, {{"M", 4}, {"N", 4}}, 1);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("K"), std::string::npos) << e.what();
  }
  try {
    make_inputs(r.program, *r.tree, {{"M", 4}, {"N", 4}, {"K", 4}, {"Q", 1}}, 1);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown size name(s) Q"), std::string::npos) << e.what();
  }
  Args a = make_inputs(r.program, *r.tree, {{"M", 20}, {"N", 30}, {"K", 40}}, 42);
  ASSERT_EQ(a.args.size(), 3u);
  EXPECT_EQ(a.args[0].name, "C");
  EXPECT_EQ(a.args[0].dtype, DType::BF16);
  EXPECT_EQ(tensor_of(a, "A").extents(), (std::vector<int64_t>{20, 40}));
  std::set<double> seen;
  for (double x : tensor_of(a, "A").buffer()->data) seen.insert(x);
  EXPECT_EQ(seen, (std::set<double>{-2, -1, 0, 1, 2}));
  // Same seed, same inputs; another seed, other inputs.
  Args b = make_inputs(r.program, *r.tree, {{"M", 20}, {"N", 30}, {"K", 40}}, 42);
  Args c = make_inputs(r.program, *r.tree, {{"M", 20}, {"N", 30}, {"K", 40}}, 43);
  EXPECT_EQ(tensor_of(a, "B").buffer()->data, tensor_of(b, "B").buffer()->data);
  EXPECT_NE(tensor_of(a, "B").buffer()->data, tensor_of(c, "B").buffer()->data);
  // Deep copies are independent.
  Args d = copy_args(a);
  EXPECT_NE(tensor_of(d, "A").buffer(), tensor_of(a, "A").buffer());
  tensor_of(d, "C").store({0, 0}, 100);
  EXPECT_NE(at(a, "C", {0, 0}), 100);
  auto mm = compare_outputs(a, d);
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->describe().substr(0, 8), "C[0, 0]:");
  EXPECT_FALSE(compare_outputs(a, b));
  EXPECT_EQ(parse_sizes("M=129,N=257,K=65"), (std::map<std::string, int64_t>{{"M", 129}, {"N", 257}, {"K", 65}}));
  EXPECT_THROW(parse_sizes("M=1,,K=2"), std::runtime_error);
  EXPECT_THROW(parse_sizes("M=x"), std::runtime_error);
}

TEST(ReferenceInputs, ScalarParameters) {
  auto r = load_example("flash_attention_2");
  ASSERT_TRUE(r.tree);
  Args a = make_inputs(r.program, *r.tree, {{"BH", 1}, {"M", 2}, {"N", 3}, {"D", 4}}, 1);
  EXPECT_EQ(a.find("scale")->scalar, 1);
  EXPECT_FALSE(a.find("scale")->is_tensor);
  Args b = make_inputs(r.program, *r.tree, {{"BH", 1}, {"M", 2}, {"N", 3}, {"D", 4}}, 1, {{"scale", 0.125}});
  EXPECT_EQ(b.find("scale")->scalar, 0.125);
  EXPECT_THROW(make_inputs(r.program, *r.tree, {{"BH", 1}, {"M", 2}, {"N", 3}, {"D", 4}}, 1, {{"nope", 1}}),
               std::runtime_error);
  EXPECT_EQ(count_nan(*a.find("O")), 1 * 2 * 4);  // w: poisoned
  EXPECT_EQ(count_nan(*a.find("Q")), 0);          // r: filled
}

}  // namespace
}  // namespace loom::exec

// `loom fmt` round trip: for every example, parse -> print -> parse gives the same program (equal
// structural dumps) and printing is idempotent; every example is already in canonical form.
#include <filesystem>

#include "test_util.h"

namespace loom::test {
namespace {

TEST(RoundTrip, EveryExampleFormatsToItselfAndReparsesToTheSameProgram) {
  auto files = example_files();
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::string text = read_file(path);
    SourceManager sm;
    DiagnosticEngine diag(sm);
    Program p1 = parse_program(sm, sm.add(path.string(), text), diag);
    ASSERT_FALSE(diag.has_errors()) << diag.format_text();
    std::string printed = format_program(p1);
    Program p2 = parse_program(sm, sm.add("printed", printed), diag);
    ASSERT_FALSE(diag.has_errors()) << diag.format_text();
    EXPECT_EQ(dump_program(p1), dump_program(p2));
    EXPECT_EQ(printed, format_program(p2));
    EXPECT_EQ(text, printed) << "example is not in canonical form; run `build/loom fmt -i " << path.string() << "`";
  }
}

TEST(RoundTrip, ExpressionsKeepTheirMeaning) {
  const char* src =
      "task t(C: rw f32[M, N]);\n"
      "variant v of t(C): inner tunables(U) {\n"
      "  a = (M - U) - (N - 1);\n"
      "  b = M - (U - N) * 2 / (3 % U);\n"
      "  c = -(M + 1) * -U;\n"
      "  d = cdiv(M, U) * (N + U);\n"
      "}\n";
  SourceManager sm;
  DiagnosticEngine diag(sm);
  Program p1 = parse_program(sm, sm.add("x", src), diag);
  ASSERT_FALSE(diag.has_errors()) << diag.format_text();
  std::string printed = format_program(p1);
  Program p2 = parse_program(sm, sm.add("y", printed), diag);
  EXPECT_EQ(dump_program(p1), dump_program(p2));
  EXPECT_NE(printed.find("a = M - U - (N - 1);"), std::string::npos) << printed;
}

}  // namespace
}  // namespace loom::test

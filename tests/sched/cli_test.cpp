// Tests of cli.h: exit codes, diagnostics, --json, --svg.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/cli.h"

namespace loom::sched {
namespace {

struct CliRun {
  int rc;
  std::string out, err;
};

CliRun run(std::vector<std::string> args) {
  args.insert(args.begin(), "schedule");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int rc = schedule_main(static_cast<int>(argv.size()), argv.data());
  std::string out = testing::internal::GetCapturedStdout();
  std::string err = testing::internal::GetCapturedStderr();
  return {rc, out, err};
}

std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string example(const std::string& n) { return std::string(LOOM_SCHED_EXAMPLES) + "/" + n; }

TEST(Cli, Fig1Json) {
  CliRun r = run({example("fig1-attention.json"), "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["II"], 2);
  EXPECT_EQ(j["length"], 4);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["schedule"]["S"], 0);
  EXPECT_TRUE(j["warps"].contains("P"));
  EXPECT_TRUE(j["seconds"].is_number());
}

TEST(Cli, TextReportShowsPipeline) {
  CliRun r = run({example("fig1-attention.json")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("II = 2"), std::string::npos);
  EXPECT_NE(r.out.find("prologue"), std::string::npos);
  EXPECT_NE(r.out.find("steady state"), std::string::npos);
  EXPECT_NE(r.out.find("epilogue"), std::string::npos);
  EXPECT_NE(r.out.find("optimal: yes"), std::string::npos);
}

TEST(Cli, SvgIsWritten) {
  std::string svg = testing::TempDir() + "fig1.svg";
  CliRun r = run({example("fig1-attention.json"), "--svg", svg});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ifstream in(svg);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str().rfind("<?xml", 0), 0u);
  EXPECT_NE(ss.str().find("modular reservation table"), std::string::npos);
  EXPECT_NE(ss.str().find("</svg>"), std::string::npos);
}

TEST(Cli, BadJsonGivesLineAndColumn) {
  std::string f = temp_file("bad.json", "{\n  \"nodes\": [\n    {\"name\": \"A\" \"unit\": \"tc\"}\n  ]\n}\n");
  CliRun r = run({f});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(f + ":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error: invalid JSON"), std::string::npos) << r.err;
}

TEST(Cli, BadGraphGivesPosition) {
  std::string f = temp_file("bad2.json", "{\"nodes\": [{\"name\": \"A\", \"unit\": \"tc\", \"cycles\": 1}],\n \"edges\": [{\"from\": \"A\", \"to\": \"Z\"}]}\n");
  CliRun r = run({f});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(f + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown node 'Z'"), std::string::npos) << r.err;
}

TEST(Cli, UserErrors) {
  EXPECT_EQ(run({}).rc, 1);
  EXPECT_EQ(run({"/nonexistent/graph.json"}).rc, 1);
  EXPECT_EQ(run({example("fig1-attention.json"), "--bogus"}).rc, 1);
  EXPECT_EQ(run({example("fig1-attention.json"), "--time-limit", "abc"}).rc, 1);
  EXPECT_EQ(run({example("fig1-attention.json"), "--machine", "volta"}).rc, 1);
  EXPECT_EQ(run({"--help"}).rc, 0);
}

TEST(Cli, SeedChangesNoAnswer) {
  // Z3's random seed: the same II, L and fewest groups (the Hopper forward graph's search has
  // several SMT queries, sat and unsat), whatever schedule of them it returns.
  for (const char* seed : {"1", "7"}) {
    CliRun r = run({example("fa-forward-hopper.json"), "--json", "--seed", seed});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["II"], 32) << seed;
    EXPECT_EQ(j["length"], 48) << seed;
    EXPECT_EQ(j["groups"], 3) << seed;
    EXPECT_EQ(j["groups_minimal"], true) << seed;
    EXPECT_EQ(j["optimal"], true) << seed;
  }
  CliRun bad = run({example("fig1-attention.json"), "--seed", "1.5"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("--seed expects a whole number below 2^32, got '1.5'"), std::string::npos) << bad.err;
  EXPECT_EQ(run({example("fig1-attention.json"), "--seed", "5000000000"}).rc, 1);
}

TEST(Cli, ModuloOnly) {
  CliRun r = run({example("gemm-mainloop.json"), "--no-ws", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_TRUE(j["warps"].empty());
}

// --no-ws (modulo scheduling only) does not model memory: a graph whose loads stay live across 64
// iterations needs 2 MB of shared memory at the optimal II. That is the mode's answer, reported
// (exit 0, the peak marked over), not a schedule that "fails validation" (it was exit 2, an
// internal error, found by mutating the example graphs on 2026-12-05).
TEST(Cli, ModuloOnlyReportsMemoryItDoesNotModel) {
  nlohmann::json g = nlohmann::json::parse(std::ifstream(example("gemm-mainloop.json")));
  for (auto& e : g["edges"])
    if (e["from"] == "loadB") e["distance"] = 64;
  const std::string path = temp_file("far_carried_load.json", g.dump());
  CliRun r = run({path, "--no-ws"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("smem peak: 2097152 of 232448 bytes (over: modulo scheduling alone, --no-ws, does not model memory)"),
            std::string::npos)
      << r.out;
  // With warps the joint query models it: no schedule fits the memory.
  CliRun w = run({path, "--time-limit", "3"});
  EXPECT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(w.out.find("fails validation"), std::string::npos) << w.out;
}

// Machine files out of range are errors that name the file (100,000 warp groups ran the joint query
// past any budget; a negative cross-warp latency was accepted).
TEST(Cli, MachineFileOutOfRange) {
  for (const std::string& m : {std::string(R"({"base": "hopper", "warps": 100000})"), std::string(R"({"base": "hopper", "cross_warp": -5})")}) {
    const std::string path = temp_file("bad_machine.json", m);
    CliRun r = run({example("gemm-mainloop.json"), "--machine", path, "--time-limit", "5"});
    EXPECT_EQ(r.rc, 1) << m << r.out;
    EXPECT_NE(r.err.find("error: machine file '" + path + "': machine "), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace loom::sched

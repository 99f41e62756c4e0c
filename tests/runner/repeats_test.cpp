// Repeats in the runner: the plan hands the client its repeats (one server, back to back) or runs
// the row once per repeat (a fresh server each, and every launcher script); the fresh-server
// repeats are kept beside the row's result, a repeat the host spoiled is measured again before the
// next, and the row's result is the combined one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/file_io.hpp"
#include "metrics/repeat_result.hpp"
#include "metrics/result_json.hpp"
#include "runner/row_plan.hpp"
#include "runner/site_config.hpp"
#include "runner/sweep.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

matrix::MatrixRow RepeatsFoundingRow(std::int64_t conc) {
  return test::Typed(test::FoundingRow(conc, "1k1k", 8));
}

SiteConfig RepeatsSite(const std::string& result_dir, const std::string& defaults = "") {
  std::vector<Diagnostic> problems;
  SiteConfig site =
      ReadSiteConfig(ParseYaml("defaults: {result-dir: '" + result_dir + "', runner-name: r_00" + defaults +
                                   "}\nrunners:\n  mi355x: {engine: {hardware: mi355x}}\n"
                                   "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4}\n",
                               "/site/infermark.yaml"),
                     problems);
  EXPECT_TRUE(problems.empty());
  return site;
}

std::string After(const std::vector<std::string>& argv, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) return argv[i + 1];
  }
  return "";
}

TEST(RepeatPlan, TheClientRunsTheRepeatsAgainstOneServerByDefault) {
  PlanOptions po;
  po.infermark = "/bin/infermark";
  po.host_retries = 2;
  // The site's default…
  const RowPlan plan = PlanRow(RepeatsFoundingRow(4), RepeatsSite("/r", ", repeats: 3"), po);
  EXPECT_EQ(plan.repeats, 3);
  EXPECT_FALSE(plan.repeat_fresh_server);
  ASSERT_TRUE(plan.client);
  EXPECT_EQ(After(plan.client->argv, "--repeats"), "3");
  EXPECT_EQ(After(plan.client->argv, "--host-retries"), "2");
  // …the flag wins; a fresh server per repeat leaves the client measuring once.
  po.repeats = 5;
  po.repeat_fresh_server = true;
  const RowPlan fresh = PlanRow(RepeatsFoundingRow(4), RepeatsSite("/r", ", repeats: 3"), po);
  EXPECT_EQ(fresh.repeats, 5);
  EXPECT_TRUE(fresh.repeat_fresh_server);
  EXPECT_EQ(After(fresh.client->argv, "--repeats"), "");
  // Measured once: nothing added.
  const RowPlan once = PlanRow(RepeatsFoundingRow(4), RepeatsSite("/r"), PlanOptions{});
  EXPECT_EQ(once.repeats, 1);
  EXPECT_EQ(After(once.client->argv, "--repeats"), "");
  // A site asking for no measurement at all is refused with its place.
  for (const char* bad : {"0", "1001"}) {
    std::vector<Diagnostic> problems;
    ReadSiteConfig(ParseYaml(std::string("defaults: {repeats: ") + bad + "}\nrunners: {}\n", "/site/infermark.yaml"),
                   problems);
    ASSERT_EQ(problems.size(), 1u) << bad;
    EXPECT_EQ(problems[0].field, "defaults.repeats") << problems[0].ToString();
  }
}

TEST(RepeatPlan, LauncherScriptsRepeatOnAFreshServer) {
  test::ScratchDir dir;
  std::vector<Diagnostic> problems;
  const SiteConfig site =
      ReadSiteConfig(ParseYaml(test::ScriptSite(dir.path.string(), 9999) + "", "/site/infermark.yaml"), problems);
  ASSERT_TRUE(problems.empty());
  PlanOptions po;
  po.repeats = 3;
  const RowPlan plan = PlanRow(test::Typed(test::ScriptRow("good", 4)), site, po);
  EXPECT_EQ(plan.repeats, 3);
  EXPECT_TRUE(plan.repeat_fresh_server);  // the script runs its own client
}

// A stand-in executor: writes the row's result as a client would, `tput` tok/s, INVALID for the
// host's reasons on the calls listed in `spoiled`.
struct FakeRows {
  std::vector<double> tput;
  std::vector<int> spoiled;
  int calls = 0;
  RowOutcome operator()(const RowPlan& plan, const RowLimits&) {
    const int call = calls++;
    const bool bad = std::find(spoiled.begin(), spoiled.end(), call) != spoiled.end();
    Json r = Json::object();
    r["max_concurrency"] = 4;
    r["completed"] = 8;
    r["total_token_throughput"] = tput[static_cast<std::size_t>(call) % tput.size()];
    r["benchmark_start_time_unix"] = 100.0 * call;
    r["benchmark_end_time_unix"] = 100.0 * call + 10;
    r["complete"] = true;
    r["verdict"] = bad ? "INVALID" : "VALID";
    r["verdict_reasons"] =
        bad ? Json::array(
                  {"host error: median TTFT +3.00 % (+0.1) against its ideal 3.3, over the 1.00 % tolerance: the "
                   "engine's host and the transport +0.00 %, the client's sending +3.00 % (client event-loop lag "
                   "p99 3.000 ms)"})
            : Json::array();
    fs::create_directories(plan.result_dir);
    metrics::WriteResultJson(plan.result_path, r);
    RowOutcome out;
    out.status = bad ? RowStatus::kInvalid : RowStatus::kDone;
    out.reason = bad ? "run judged INVALID by the load generator: host error: median TTFT +3.00 %" : "";
    return out;
  }
};

TEST(RepeatSweep, FreshServerRepeatsAreKeptAndCombined) {
  test::ScratchDir dir;
  const SiteConfig site = RepeatsSite(dir.path.string());
  auto fake = std::make_shared<FakeRows>();
  fake->tput = {1000, 1100, 900, 1050};
  fake->spoiled = {1};  // the second call (repeat 2's first attempt) is the host's fault
  SweepSettings settings;
  settings.plan.repeats = 3;
  settings.plan.repeat_fresh_server = true;
  settings.host_retries = 1;
  settings.progress = nullptr;
  settings.executor = [fake](const RowPlan& plan, const RowLimits& limits) { return (*fake)(plan, limits); };
  const SweepSummary s = RunSweep({RepeatsFoundingRow(4)}, site, settings);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].outcome.status, RowStatus::kDone) << s.rows[0].outcome.reason;
  EXPECT_EQ(fake->calls, 4);  // three repeats, one of them measured again
  ASSERT_EQ(s.rows[0].outcome.earlier_attempts.size(), 1u);
  EXPECT_NE(s.rows[0].outcome.earlier_attempts[0].find("repeat 2: "), std::string::npos);
  const RowPlan plan = PlanRow(RepeatsFoundingRow(4), site, settings.plan);
  const Json combined = Json::parse(ReadFile(plan.result_path));
  const Json& block = combined["infermark"]["repeats"];
  EXPECT_EQ(block["server"], "fresh");
  EXPECT_EQ(block["retries"], Json::array({0, 1, 0}));
  EXPECT_EQ(block["values"]["total_token_throughput"], Json::array({1000.0, 900.0, 1050.0}));
  EXPECT_DOUBLE_EQ(combined["total_token_throughput"].get<double>(), 1000);
  EXPECT_EQ(combined["verdict"], "VALID");
  for (int k = 1; k <= 3; ++k) {
    EXPECT_TRUE(fs::exists(fs::path(plan.result_dir) / metrics::RepeatFileName(plan.result_filename + ".json", k)));
  }
  EXPECT_TRUE(
      fs::exists(fs::path(plan.result_dir) / metrics::RepeatAttemptFileName(plan.result_filename + ".json", 2, 1)));
  // Complete: a sweep started again skips it.
  const SweepSummary again = RunSweep({RepeatsFoundingRow(4)}, site, settings);
  EXPECT_EQ(again.skipped, 1);
  EXPECT_EQ(fake->calls, 4);
}

TEST(RepeatSweep, AnInvalidRepeatMakesTheRowInvalidWithItsReasons) {
  test::ScratchDir dir;
  const SiteConfig site = RepeatsSite(dir.path.string());
  auto fake = std::make_shared<FakeRows>();
  fake->tput = {1000};
  fake->spoiled = {2};  // no host retries: repeat 3 stays INVALID
  SweepSettings settings;
  settings.plan.repeats = 3;
  settings.plan.repeat_fresh_server = true;
  settings.progress = nullptr;
  settings.executor = [fake](const RowPlan& plan, const RowLimits& limits) { return (*fake)(plan, limits); };
  const SweepSummary s = RunSweep({RepeatsFoundingRow(4)}, site, settings);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].outcome.status, RowStatus::kInvalid);
  EXPECT_NE(s.rows[0].outcome.reason.find("repeat 3 of 3: host error: median TTFT"), std::string::npos)
      << s.rows[0].outcome.reason;
  EXPECT_EQ(fake->calls, 3);
}

}  // namespace
}  // namespace infermark::runner

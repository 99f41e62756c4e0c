// A point measured several times as one result: each number the median over the repeats, counts
// kept whole, power valid only when every repeat's is, the verdict INVALID when any repeat is,
// the window over all repeats, and every repeat's value with the median's interval beside it.
#include "metrics/repeat_result.hpp"

#include <gtest/gtest.h>

namespace infermark::metrics {
namespace {

// A client result with the reference's keys (a subset) and infermark's block.
Json Repeat(double tput, long long completed, double start, const std::string& verdict = "VALID") {
  Json r = Json::object();
  r["date"] = "20261207-101010";
  r["num_prompts"] = 40;
  r["max_concurrency"] = 4;
  r["duration"] = 10.0 + tput / 1000;
  r["benchmark_start_time_unix"] = start;
  r["benchmark_end_time_unix"] = start + 10;
  r["completed"] = completed;
  r["total_token_throughput"] = tput;
  r["median_tpot_ms"] = 100000 / tput;
  r["input_lens"] = Json::array({1000, 900});
  r["ttfts"] = Json::array({0.1, 0.2});
  r["power_valid"] = 1;
  r["metrics_version"] = 1;
  r["complete"] = true;
  r["verdict"] = verdict;
  r["verdict_reasons"] = verdict == "VALID" ? Json::array() : Json::array({"client saturated: p99 lag 3 ms"});
  r["infermark"] = {{"infermark_version", "1.2.3"}, {"host", "h"}, {"time_scale", 10.0}, {"client", {{"lag", 1}}}};
  return r;
}

TEST(RepeatResult, FileNamesAndTheirOwner) {
  EXPECT_EQ(RepeatFileName("a_conc4_x.json", 2), "a_conc4_x.repeat-2.json");
  EXPECT_EQ(RepeatAttemptFileName("a_conc4_x.json", 2, 1), "a_conc4_x.repeat-2.attempt-1.json");
  EXPECT_EQ(RepeatOwnerName("a_conc4_x.repeat-2.json"), "a_conc4_x.json");
  EXPECT_EQ(RepeatOwnerName("a_conc4_x.repeat-12.attempt-3.json"), "a_conc4_x.json");
  EXPECT_FALSE(RepeatOwnerName("a_conc4_x.json"));
  EXPECT_FALSE(RepeatOwnerName("a_conc4_x.repeat-.json"));
  EXPECT_FALSE(RepeatOwnerName("a.repeat-x.json"));
  EXPECT_FALSE(RepeatOwnerName("a.row.json"));
}

TEST(RepeatResult, NumbersAreMediansWithTheirIntervals) {
  RepeatSetup setup;
  setup.files = {"r.repeat-1.json", "r.repeat-2.json", "r.repeat-3.json"};
  setup.retries = {0, 1, 0};
  const Json c = CombineRepeatResults({Repeat(1000, 40, 100), Repeat(1200, 38, 120), Repeat(900, 39, 140)}, setup);
  // InferenceX's keys in their order, each the median.
  EXPECT_EQ(c.begin().key(), "date");
  EXPECT_DOUBLE_EQ(c["total_token_throughput"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(c["median_tpot_ms"].get<double>(), 100);
  EXPECT_TRUE(c["completed"].is_number_integer());
  EXPECT_EQ(c["completed"], 39);
  EXPECT_EQ(c["num_prompts"], 40);  // a setting, copied
  EXPECT_EQ(c["input_lens"], Json::array({1000, 900}));
  EXPECT_FALSE(c.contains("ttfts"));  // per-request arrays stay in the repeats' files
  // The window spans the repeats; the duration stays a median.
  EXPECT_EQ(c["benchmark_start_time_unix"], 100.0);
  EXPECT_EQ(c["benchmark_end_time_unix"], 150.0);
  EXPECT_DOUBLE_EQ(c["duration"].get<double>(), 11.0);
  EXPECT_EQ(c["verdict"], "VALID");
  EXPECT_EQ(c["verdict_reasons"], Json::array());
  // infermark's block: provenance of the first repeat, not its run's diagnostics.
  const Json& own = c["infermark"];
  EXPECT_EQ(own["infermark_version"], "1.2.3");
  EXPECT_EQ(own["time_scale"], 10.0);
  EXPECT_FALSE(own.contains("client"));
  const Json& r = own["repeats"];
  EXPECT_EQ(r["count"], 3);
  EXPECT_EQ(r["server"], "same");
  EXPECT_EQ(r["files"], Json(setup.files));
  EXPECT_EQ(r["retries"], Json::array({0, 1, 0}));
  EXPECT_EQ(r["values"]["total_token_throughput"], Json::array({1000.0, 1200.0, 900.0}));
  const Json& iv = r["intervals"]["total_token_throughput"];
  EXPECT_EQ(iv["median"], 1000.0);
  EXPECT_EQ(iv["low"], 900.0);  // three repeats: [min, max], covering 75 %
  EXPECT_EQ(iv["high"], 1200.0);
  EXPECT_EQ(iv["confidence"], 0.75);
  EXPECT_FALSE(r["values"].contains("num_prompts"));
  EXPECT_EQ(RepeatsBlock(c), &r);
  EXPECT_EQ(RepeatSetupOf(r).files, setup.files);
  EXPECT_FALSE(RepeatSetupOf(r).fresh_server);
}

TEST(RepeatResult, AnInvalidRepeatMakesThePointInvalidWithItsReasons) {
  Json second = Repeat(1200, 38, 120, "INVALID");
  second["power_valid"] = 0;
  second["complete"] = false;
  RepeatSetup setup;
  setup.fresh_server = true;
  const Json c = CombineRepeatResults({Repeat(1000, 40, 100), second, Repeat(900, 39, 140)}, setup);
  EXPECT_EQ(c["verdict"], "INVALID");
  EXPECT_EQ(c["verdict_reasons"], Json::array({"repeat 2 of 3: client saturated: p99 lag 3 ms"}));
  EXPECT_EQ(c["complete"], false);
  EXPECT_EQ(c["power_valid"], 0);  // not the median: valid only when every repeat's power is
  EXPECT_EQ(c["infermark"]["repeats"]["server"], "fresh");
  EXPECT_EQ(c["infermark"]["repeats"]["verdicts"], Json::array({"VALID", "INVALID", "VALID"}));
}

TEST(RepeatResult, ANumberOneRepeatLacksIsLeftOut) {
  Json first = Repeat(1000, 40, 100);
  first["avg_power_w"] = 500.0;  // power metrics are written only when valid
  const Json c = CombineRepeatResults({first, Repeat(1100, 40, 120)}, {});
  EXPECT_FALSE(c.contains("avg_power_w"));
  EXPECT_FALSE(c["infermark"]["repeats"]["values"].contains("avg_power_w"));
  EXPECT_DOUBLE_EQ(c["total_token_throughput"].get<double>(), 1050);  // an even count: numpy's median
}

}  // namespace
}  // namespace infermark::metrics

// A repeated point through processing and reading: the agg record of a combined result carries
// every figure per repeat in the record's own units (per GPU, seconds, interactivity), with the
// median's interval; the InferenceX keys are those of the combined result; reading a folder takes
// the repeats' files with the combined result, never as points of their own.
#include "results/repeat_record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "metrics/repeat_result.hpp"
#include "metrics/result_json.hpp"
#include "results/process_result.hpp"
#include "results/result_files.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

ProcessSettings Settings() {
  ProcessSettings s;
  s.values = {{"RUNNER_TYPE", "mi355x"}, {"FRAMEWORK", "vllm"}, {"PRECISION", "fp4"}, {"SPEC_DECODING", "none"},
              {"ISL", "8192"},           {"OSL", "1024"},       {"DISAGG", "false"},  {"MODEL_PREFIX", "minimaxm3"},
              {"IMAGE", "img"},          {"TP", "2"},           {"EP_SIZE", "1"},     {"DP_ATTENTION", "false"}};
  return s;
}

// The reference's synthetic client result with its throughputs and TPOT scaled by `speed`.
Json RepeatOf(double speed, double start) {
  Json r = Json::parse(ReadFile(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")));
  for (const char* key : {"total_token_throughput", "output_throughput", "request_throughput"}) {
    r[key] = r[key].get<double>() * speed;
  }
  for (const char* key : {"median_tpot_ms", "mean_tpot_ms", "p99_tpot_ms", "median_e2el_ms"}) {
    if (r.contains(key)) r[key] = r[key].get<double>() / speed;
  }
  r["benchmark_start_time_unix"] = start;
  r["benchmark_end_time_unix"] = start + 30;
  r["verdict"] = "VALID";
  r["verdict_reasons"] = Json::array();
  return r;
}

TEST(RepeatRecord, TheAggRecordCarriesEveryFigurePerRepeat) {
  const std::vector<Json> repeats = {RepeatOf(1.0, 100), RepeatOf(0.9, 140), RepeatOf(1.1, 180)};
  metrics::RepeatSetup setup;
  setup.files = {"r.repeat-1.json", "r.repeat-2.json", "r.repeat-3.json"};
  const Json combined = metrics::CombineRepeatResults(repeats, setup);
  const Json agg = ProcessClientResult(combined, Settings(), "r.json");
  // InferenceX's keys: the combined result's figures (the median repeat's here).
  const Json one = ProcessClientResult(repeats[0], Settings(), "r.json");
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), one["tput_per_gpu"].get<double>());
  ASSERT_TRUE(agg.contains("repeats"));
  EXPECT_EQ(RepeatCount(agg), 3);
  EXPECT_EQ(RepeatCount(one), 1);
  const Json& values = agg["repeats"]["values"];
  // Every repeat processed as process_result.py processes it: per GPU (TP 2), in seconds, 1000/TPOT.
  for (std::size_t k = 0; k < 3; ++k) {
    const Json each = ProcessClientResult(repeats[k], Settings(), "r.json");
    EXPECT_DOUBLE_EQ(values["tput_per_gpu"][k].get<double>(), each["tput_per_gpu"].get<double>()) << k;
    EXPECT_DOUBLE_EQ(values["median_intvty"][k].get<double>(), each["median_intvty"].get<double>()) << k;
    EXPECT_DOUBLE_EQ(values["median_e2el"][k].get<double>(), each["median_e2el"].get<double>()) << k;
  }
  EXPECT_FALSE(values.contains("tp"));  // identity, not a figure
  EXPECT_FALSE(values.contains("conc"));
  const auto tput = RepeatFigureOf(agg, "tput_per_gpu");
  ASSERT_TRUE(tput);
  EXPECT_DOUBLE_EQ(tput->interval.median, one["tput_per_gpu"].get<double>());
  EXPECT_DOUBLE_EQ(tput->interval.low, values["tput_per_gpu"][1].get<double>());
  EXPECT_DOUBLE_EQ(tput->interval.high, values["tput_per_gpu"][2].get<double>());
  EXPECT_EQ(tput->interval.confidence, 0.75);
  EXPECT_EQ(agg["repeats"]["files"], Json(setup.files));
  EXPECT_FALSE(RepeatFigureOf(one, "tput_per_gpu"));

  // De-scaled as the point's figures are: throughput divided by the time scale, latency multiplied.
  Point p;
  p.agg = agg;
  p.provenance.time_scale = 10;
  EXPECT_DOUBLE_EQ(DeScaledRepeatFigure(p, "tput_per_gpu")->values[0], values["tput_per_gpu"][0].get<double>() / 10);
  EXPECT_DOUBLE_EQ(DeScaledRepeatFigure(p, "median_e2el")->values[0], values["median_e2el"][0].get<double>() * 10);
}

TEST(RepeatRecord, AFolderIsReadWithEachCombinedResultAndItsRepeats) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_repeat_record_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string name = "minimaxm3_8k1k_fp4_vllm_tp2-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc4_x.json";
  std::vector<Json> repeats;
  metrics::RepeatSetup setup;
  for (int k = 1; k <= 3; ++k) {
    repeats.push_back(RepeatOf(1.0 + 0.05 * k, 100.0 * k));
    setup.files.push_back(metrics::RepeatFileName(name, k));
    metrics::WriteResultJson((dir / setup.files.back()).string(), repeats.back());
  }
  metrics::WriteResultJson((dir / metrics::RepeatAttemptFileName(name, 2, 1)).string(), RepeatOf(0.5, 50));
  metrics::WriteResultJson((dir / name).string(), metrics::CombineRepeatResults(repeats, setup));
  // The repeats' files and the spoiled attempt belong to the combined result.
  const std::vector<std::string> files = ExpandResultPaths({dir.string()});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files[0]).filename(), name);
  ReadOptions options;
  options.flags = Settings();
  const std::vector<Point> points = ReadResultFile(files[0], options);
  ASSERT_EQ(points.size(), 1u);
  ASSERT_EQ(points[0].repeats.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const PointRepeat& r = points[0].repeats[static_cast<std::size_t>(k)];
    EXPECT_EQ(r.index, k + 1);
    EXPECT_EQ(r.verdict, "VALID");
    EXPECT_EQ(fs::path(r.source_path).filename(), setup.files[static_cast<std::size_t>(k)]);
    EXPECT_EQ(r.raw_json, ReadFile(r.source_path));
    EXPECT_DOUBLE_EQ(r.agg["tput_per_gpu"].get<double>(),
                     points[0].agg["repeats"]["values"]["tput_per_gpu"][static_cast<std::size_t>(k)].get<double>());
  }
  // A repeat's file alone (its combined result gone) is a point like any other.
  fs::remove(dir / name);
  EXPECT_EQ(ExpandResultPaths({dir.string()}).size(), 4u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::results

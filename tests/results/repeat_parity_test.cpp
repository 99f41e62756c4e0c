// A repeated point's files as InferenceX's own Python reads them (utils/process_result.py, from
// ../shared/reference/inferencex/; tests/reference.hpp: skipped without it, failed under CI=true):
// the combined `<name>.json` processes to the agg record `results process` writes, key for key,
// with only infermark's `repeats` object added; each `<name>.repeat-<k>.json` processes as a result
// of its own, to the figures the combined record lists for that repeat.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/subprocess.hpp"
#include "metrics/repeat_result.hpp"
#include "metrics/result_json.hpp"
#include "reference.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

// The reference's synthetic client result with its throughputs scaled by `speed` and its TPOT
// divided by it.
Json RepeatOf(double speed) {
  Json r = Json::parse(ReadFile(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")));
  for (const char* key : {"total_token_throughput", "output_throughput", "request_throughput"}) {
    r[key] = r[key].get<double>() * speed;
  }
  for (const char* key : {"median_tpot_ms", "mean_tpot_ms", "p99_tpot_ms"}) {
    if (r.contains(key)) r[key] = r[key].get<double>() / speed;
  }
  return r;
}

TEST(RepeatParity, InferenceXsProcessResultReadsTheCombinedAndEachRepeat) {
  INFERMARK_REQUIRE_REFERENCE({"utils/process_result.py", "utils/aggregate_power.py"});
  const std::string script = test::ReferencePath("utils/process_result.py");
  const fs::path dir = fs::temp_directory_path() / ("infermark_repeat_parity_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<Json> repeats = {RepeatOf(1.0), RepeatOf(0.9), RepeatOf(1.05)};
  metrics::RepeatSetup setup;
  for (int k = 1; k <= 3; ++k) {
    setup.files.push_back(metrics::RepeatFileName("bench.json", k));
    metrics::WriteResultJson((dir / setup.files.back()).string(), repeats[static_cast<std::size_t>(k - 1)]);
  }
  metrics::WriteResultJson((dir / "bench.json").string(), metrics::CombineRepeatResults(repeats, setup));
  const std::vector<std::string> env = {"env",
                                        "-u",
                                        "GPU_METRICS_CSV",
                                        "-u",
                                        "IS_MULTINODE",
                                        "TZ=UTC",
                                        "RUNNER_TYPE=h200",
                                        "FRAMEWORK=vllm",
                                        "PRECISION=fp8",
                                        "SPEC_DECODING=none",
                                        "ISL=8192",
                                        "OSL=1024",
                                        "DISAGG=false",
                                        "MODEL_PREFIX=minimaxm3",
                                        "IMAGE=vllm/x:1",
                                        "TP=2",
                                        "EP_SIZE=1",
                                        "DP_ATTENTION=false"};
  const auto run = [&](const std::string& name, bool reference) {
    std::vector<std::string> argv = env;
    argv.push_back("RESULT_FILENAME=" + name);
    if (reference) {
      argv.insert(argv.end(), {"python3", script});
    } else {
      argv.insert(argv.end(), {test::Binary(), "results", "process", "-q", "-o", "ours_agg_" + name + ".json"});
    }
    const ProcessResult r = RunCapture(argv, dir.string());
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.out << r.err;
    return Json::parse(ReadFile((dir / ((reference ? "agg_" : "ours_agg_") + name + ".json")).string()));
  };
  // The combined result: the reference's record is ours without infermark's repeats object.
  const Json reference = run("bench", true);
  Json ours = run("bench", false);
  ASSERT_TRUE(ours.contains("repeats"));
  const Json figures = ours["repeats"]["values"];
  ours.erase("repeats");
  EXPECT_EQ(DumpJson(reference), DumpJson(ours));
  // Each repeat's own file: a client result the reference processes to that repeat's figures.
  for (int k = 1; k <= 3; ++k) {
    const Json one = run("bench.repeat-" + std::to_string(k), true);
    for (const char* key : {"tput_per_gpu", "output_tput_per_gpu", "median_intvty"}) {
      EXPECT_DOUBLE_EQ(one[key].get<double>(), figures[key][static_cast<std::size_t>(k - 1)].get<double>())
          << k << " " << key;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark

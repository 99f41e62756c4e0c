// `results process`: InferenceX's process_result.py output, checked on the reference's own
// goldens (a synthetic file, byte for byte) and on a real raw → processed pair (values and order).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "power/indented_json.hpp"
#include "results/prediction_band_fields.hpp"
#include "results/process_result.hpp"
#include "run_binary.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

ProcessSettings SyntheticSettings() {
  ProcessSettings s;
  s.values = {{"RUNNER_TYPE", "mi355x"},
              {"FRAMEWORK", "vllm"},
              {"PRECISION", "fp4"},
              {"SPEC_DECODING", "none"},
              {"ISL", "8192"},
              {"OSL", "1024"},
              {"DISAGG", "false"},
              {"MODEL_PREFIX", "minimaxm3"},
              {"IMAGE", "vllm/vllm-openai-rocm:nightly-69715823df89b11ee684b84066390cbb9092d5c1"},
              {"TP", "2"},
              {"EP_SIZE", "1"},
              {"DP_ATTENTION", "false"}};
  return s;
}

ProcessSettings KimiSettings(const std::string& stem) {
  ProcessSettings s;
  s.values = {{"RUNNER_TYPE", "mi355x"},
              {"FRAMEWORK", "vllm"},
              {"PRECISION", "int4"},
              {"SPEC_DECODING", "mtp"},
              {"ISL", stem.find("8k1k") != std::string::npos ? "8192" : "1024"},
              {"OSL", "1024"},
              {"DISAGG", "false"},
              {"MODEL_PREFIX", "kimik2.5"},
              {"IMAGE", "vllm/vllm-openai-rocm:v0.21.0"},
              {"TP", "8"},
              {"EP_SIZE", "1"},
              {"DP_ATTENTION", "false"}};
  return s;
}

Json Load(const std::string& path) {
  return Json::parse(ReadFile(path));
}

TEST(ProcessResult, SyntheticGoldenIsByteIdentical) {
  const Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  const std::string golden = ReadFile(test::Fixture("golden-matrix/example_agg_result_from_process_result.json"));
  const Json agg = ProcessClientResult(raw, SyntheticSettings(), "synthetic.json");
  EXPECT_EQ(DumpJsonIndented(agg, 2), golden);
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), 6634.88);
  EXPECT_DOUBLE_EQ(agg["p90_intvty"].get<double>(), 1000.0 / 42.0);
}

// The real pair was made by an older process_result.py: fields it did not know yet are the only
// difference allowed; every field it wrote must have the same value and relative order.
TEST(ProcessResult, RealPairMatchesValuesAndOrder) {
  const std::string dir = test::Fixture("inferencex-results");
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/processed")) {
    const std::string stem = entry.path().stem().string().substr(4);  // drop "agg_"
    SCOPED_TRACE(stem);
    const Json expected = Load(entry.path().string());
    const Json agg = ProcessClientResult(Load(dir + "/raw/" + stem + ".json"), KimiSettings(stem), stem);
    std::vector<std::string> order;
    for (const auto& [key, value] : agg.items()) {
      if (expected.contains(key)) {
        order.push_back(key);
        EXPECT_EQ(value, expected[key]) << key;
      } else {
        const std::set<std::string> newer = {"recipe_fingerprint",          "pp",         "dcp_size", "pcp_size",
                                             "power_metric_schema_version", "power_valid"};
        EXPECT_TRUE(newer.count(key)) << "unexpected field " << key;
      }
    }
    std::vector<std::string> expected_order;
    for (const auto& [key, value] : expected.items()) expected_order.push_back(key);
    EXPECT_EQ(order, expected_order);
    ++files;
  }
  EXPECT_EQ(files, 3);
}

TEST(ProcessResult, MissingSettingsAreNamedTogether) {
  const Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  ProcessSettings s = SyntheticSettings();
  s.values.erase("RUNNER_TYPE");
  s.values.erase("IMAGE");
  try {
    ProcessClientResult(raw, s, "r.json");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("RUNNER_TYPE, IMAGE"), std::string::npos) << text;
    EXPECT_NE(text.find("--runner-type"), std::string::npos) << text;
  }
  s = SyntheticSettings();
  s.values.erase("EP_SIZE");
  EXPECT_THROW(ProcessClientResult(raw, s, "r.json"), InputError);
  s = SyntheticSettings();
  s.values["TP"] = "two";
  EXPECT_THROW(ProcessClientResult(raw, s, "r.json"), InputError);
  s = SyntheticSettings();
  s.values["PP_SIZE"] = "0";
  EXPECT_THROW(ProcessClientResult(raw, s, "r.json"), InputError);
  s = SyntheticSettings();
  s.values["DISAGG"] = "True";  // disaggregated needs the multi-node set
  EXPECT_THROW(ProcessClientResult(raw, s, "r.json"), InputError);
}

TEST(ProcessResult, PythonIntegersAndGpuCount) {
  Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  ProcessSettings s = SyntheticSettings();
  s.values["ISL"] = " 8_192 ";
  s.values["PP_SIZE"] = "2";
  s.values["DCP_SIZE"] = "4";  // shares the TP ranks: no extra GPUs
  const Json agg = ProcessClientResult(raw, s, "r.json");
  EXPECT_EQ(agg["isl"], 8192);
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), 13269.76 / 4);
  EXPECT_EQ(agg["dcp_size"], 4);
}

TEST(ProcessResult, ZeroTpotFailsLikeTheReferenceOrIsOmitted) {
  const Json raw = Load(test::Fixture("inferencex-results/raw/local-minimaxm2.5_8k1k_conc64.json"));
  const ProcessSettings s = KimiSettings("8k1k");
  try {
    ProcessClientResult(raw, s, "r.json");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mean_tpot_ms"), std::string::npos) << e.what();
  }
  ProcessOptions lenient;
  lenient.zero_tpot = ZeroTpot::kOmit;
  const Json agg = ProcessClientResult(raw, s, "r.json", lenient);
  // Every TPOT of that run is 0: the seconds stay, no interactivity is invented.
  EXPECT_FALSE(agg.contains("median_intvty"));
  EXPECT_FALSE(agg.contains("std_intvty"));
  EXPECT_EQ(agg["median_tpot"], 0.0);
  EXPECT_TRUE(agg.contains("median_ttft"));
}

TEST(ProcessResult, MultiNodeDividesByPools) {
  const Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  ProcessSettings s = SyntheticSettings();
  s.values["DISAGG"] = "true";
  s.values["IS_MULTINODE"] = "true";
  for (const auto& [k, v] : std::map<std::string, std::string>{{"PREFILL_GPUS", "8"},
                                                               {"DECODE_GPUS", "16"},
                                                               {"PREFILL_NUM_WORKERS", "2"},
                                                               {"PREFILL_TP", "4"},
                                                               {"PREFILL_EP", "4"},
                                                               {"PREFILL_DP_ATTN", "false"},
                                                               {"DECODE_NUM_WORKERS", "1"},
                                                               {"DECODE_TP", "16"},
                                                               {"DECODE_EP", "16"},
                                                               {"DECODE_DP_ATTN", "true"}}) {
    s.values[k] = v;
  }
  const Json agg = ProcessClientResult(raw, s, "r.json");
  EXPECT_EQ(agg["is_multinode"], true);
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), 13269.76 / 24);
  EXPECT_DOUBLE_EQ(agg["output_tput_per_gpu"].get<double>(), 1474.56 / 16);
  EXPECT_DOUBLE_EQ(agg["input_tput_per_gpu"].get<double>(), (13269.76 - 1474.56) / 8);
  EXPECT_EQ(agg["decode_dp_attention"], "true");
  EXPECT_FALSE(agg.contains("tp"));
  s.values["PREFILL_HARDWARE"] = "gb200";
  EXPECT_THROW(ProcessClientResult(raw, s, "r.json"), InputError);  // needs DECODE_HARDWARE too
}

TEST(ProcessResult, RouterMetadataIsStrict) {
  const Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  ProcessSettings s = SyntheticSettings();
  s.values["ROUTER_METADATA"] = R"({"name":"r","version":"1"})";
  EXPECT_EQ(ProcessClientResult(raw, s, "r.json")["router"]["name"], "r");
  s.values["ROUTER_METADATA"] = "null";
  EXPECT_FALSE(ProcessClientResult(raw, s, "r.json").contains("router"));
  for (const char* bad : {R"({"name":"r"})", R"({"name":"","version":"1"})", "{", "[1]"}) {
    s.values["ROUTER_METADATA"] = bad;
    EXPECT_THROW(ProcessClientResult(raw, s, "r.json"), InputError) << bad;
  }
}

TEST(ProcessResult, UpstreamVllmKeyNames) {
  Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  Json upstream = Json::object();
  for (const auto& [key, value] : raw.items()) {
    if (key == "total_token_throughput") continue;
    upstream[key == "request_goodput:" ? "request_goodput" : key] = value;
  }
  NormalizeClientKeys(upstream);
  EXPECT_TRUE(upstream.contains("request_goodput:"));
  EXPECT_FALSE(upstream.contains("request_goodput"));
  const Json agg = ProcessClientResult(upstream, SyntheticSettings(), "u.json");
  // (4718080 + 589824) / 400 s
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), (4718080.0 + 589824.0) / 400.0 / 2);
}

TEST(ProcessResult, NonNumericLatencyIsNamed) {
  Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  raw["p99_ttft_ms"] = nullptr;
  try {
    ProcessClientResult(raw, SyntheticSettings(), "r.json");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("p99_ttft_ms"), std::string::npos) << e.what();
  }
  raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  raw.erase("max_concurrency");
  EXPECT_THROW(ProcessClientResult(raw, SyntheticSettings(), "r.json"), InputError);
}

// The binary: flags win over the environment, the record is written as agg_<stem>.json in the
// current folder, and bad input exits 2 with one message.
TEST(ProcessCommand, FlagsOverEnvironmentAndGoldenFile) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_process_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string golden = ReadFile(test::Fixture("golden-matrix/example_agg_result_from_process_result.json"));
  for (const auto& [name, value] : SyntheticSettings().values) ::setenv(name.c_str(), value.c_str(), 1);
  ::setenv("RUNNER_TYPE", "h100", 1);  // overridden by the flag below
  const auto r = test::RunInfermark({"results", "process", "--runner-type", "mi355x", "-q",
                                     test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")},
                                    dir.string());
  for (const auto& [name, value] : SyntheticSettings().values) ::unsetenv(name.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile((dir / "agg_example_benchmark_result_synthetic.json").string()), golden);

  const auto missing = test::RunInfermark(
      {"results", "process", test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")}, dir.string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing required settings"), std::string::npos) << missing.err;
  const auto absent = test::RunInfermark({"results", "process", "no-such.json"}, dir.string());
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("no-such.json"), std::string::npos) << absent.err;
  fs::remove_all(dir);
}

// A predicted result's bands in its agg record: each band processed as its figure is (per GPU,
// milliseconds to seconds, TPOT to interactivity with the edges swapped), under one key of
// infermark's own after InferenceX's, which stay as they were; and read back de-scaled.
Json Banded(double v, double low, double high) {
  return Json{{"band_p10", v * low}, {"band_p90", v * high}};
}

TEST(PredictionBandFields, TheAggRecordCarriesEachBandProcessedAsItsFigure) {
  const Json raw = Load(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  Json predicted = raw;
  predicted["infermark"]["prediction_band"] = {{"scope", "vllm/amd"},
                                               {"residuals", 403},
                                               {"figures",
                                                {{"total_token_throughput", Banded(13269.76, 0.8, 1.15)},
                                                 {"output_throughput", Banded(1474.56, 0.8, 1.15)},
                                                 {"median_tpot_ms", Banded(40.0, 1 / 1.2, 1 / 0.9)},
                                                 {"p90_ttft_ms", Banded(2900.0, 0.9, 1.3)},
                                                 {"median_e2el_ms", Banded(38500.0, 0.85, 1.2)}}}};
  const Json plain = ProcessClientResult(raw, SyntheticSettings(), "plain.json");
  const Json agg = ProcessClientResult(predicted, SyntheticSettings(), "predicted.json");
  // InferenceX's keys: the same values in the same order; the band comes last.
  ASSERT_EQ(agg.size(), plain.size() + 1);
  auto a = agg.begin();
  for (auto p = plain.begin(); p != plain.end(); ++p, ++a) {
    EXPECT_EQ(a.key(), p.key());
    EXPECT_EQ(*a, *p) << p.key();
  }
  EXPECT_EQ(a.key(), "prediction_band");
  EXPECT_FALSE(plain.contains("prediction_band")) << "a measured result has none";

  const Json& band = agg["prediction_band"];
  EXPECT_EQ(band["scope"], "vllm/amd");
  EXPECT_EQ(band["residuals"], 403);
  const Json& f = band["figures"];
  auto near = [&](const char* key, double low, double high) {
    ASSERT_TRUE(f.contains(key)) << key;
    EXPECT_NEAR(f[key]["band_p10"].get<double>(), low, 1e-9 * std::abs(low)) << key;
    EXPECT_NEAR(f[key]["band_p90"].get<double>(), high, 1e-9 * std::abs(high)) << key;
  };
  const double tput = agg["tput_per_gpu"].get<double>();
  near("tput_per_gpu", 0.8 * tput, 1.15 * tput);
  const double input = agg["input_tput_per_gpu"].get<double>();
  near("input_tput_per_gpu", 0.8 * input, 1.15 * input);
  const double output = agg["output_tput_per_gpu"].get<double>();
  near("output_tput_per_gpu", 0.8 * output, 1.15 * output);
  near("median_tpot", 0.040 / 1.2, 0.040 / 0.9);
  // Interactivity is 1000 / TPOT: its low edge comes from TPOT's high one.
  near("median_intvty", 1000 / (40 / 0.9), 1000 / (40 / 1.2));
  near("p90_ttft", 2.9 * 0.9, 2.9 * 1.3);
  near("median_e2el", 38.5 * 0.85, 38.5 * 1.2);
  EXPECT_FALSE(f.contains("mean_ttft")) << "a figure without a band in the result gets none";

  const BandFields read = BandFieldsOf(agg);
  EXPECT_TRUE(read.Present());
  EXPECT_EQ(read.residuals, 403u);
  ASSERT_TRUE(read.median_intvty);
  EXPECT_NEAR(read.median_intvty->band_p90, 1000 / (40 / 1.2), 1e-9);
  EXPECT_FALSE(read.median_ttft) << "only the median is read back for charts";
  // A run at time scale 2 is read as the modelled hardware: rates halve, times double.
  const BandFields scaled = BandFieldsOf(agg, 2.0);
  EXPECT_NEAR(scaled.tput_per_gpu->band_p90, 1.15 * tput / 2, 1e-9 * tput);
  EXPECT_NEAR(scaled.median_e2el->band_p10, 38.5 * 0.85 * 2, 1e-9);
  EXPECT_FALSE(BandFieldsOf(plain).Present());
}

}  // namespace
}  // namespace infermark::results

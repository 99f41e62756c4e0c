// `infermark results agentic-power` beside InferenceX's utils/agentic/aggregation/power_adapter.py:
// every reason code of the adapter, naive aiperf times in a captured UTC offset, aware and epoch
// times, warm-up and failed records left out, nested artifact folders, and the power aggregation's
// own outcomes. Both run on their own copy of each case and must agree on the exit status and, byte
// for byte, on the patched aggregate, agentic_power_window.json and power_validation.json. The
// adapter and the `utils.aggregate_power` it imports run from ../shared/reference/inferencex/
// (tests/reference.hpp: skipped without them, failed under CI=true).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/subprocess.hpp"
#include "reference.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

constexpr double kStart = 1785585600.25;  // 2026-08-01T12:00:00.250Z
constexpr double kEnd = 1785585700.75;    // 2026-08-01T12:01:40.750Z

std::string Csv(int gpus, double from, double to) {
  std::string out = "timestamp,gpu,socket_power\n";
  char line[128];
  for (double t = from; t < to; t += 1.0) {
    for (int g = 0; g < gpus; ++g) {
      std::snprintf(line, sizeof line, "%.3f,%d,%.3f\n", t + 0.013 * g, g, 520 + 60 * std::sin(t * 0.41 + g));
      out += line;
    }
  }
  return out;
}

// One aiperf record line: metrics as {"value": v} objects, as aiperf writes them.
std::string Record(const std::string& isl, const std::string& osl, const std::string& phase = "profiling",
                   const std::string& error = "null") {
  std::string metrics = "{";
  if (!isl.empty()) metrics += "\"input_sequence_length\": {\"value\": " + isl + ", \"unit\": \"tokens\"}";
  if (!osl.empty()) metrics += std::string(isl.empty() ? "" : ", ") + "\"output_sequence_length\": " + osl;
  metrics += "}";
  return "{\"metadata\": {\"benchmark_phase\": \"" + phase + "\"}, \"metrics\": " + metrics + ", \"error\": " + error +
         "}\n";
}

std::string Records() {
  return Record("1200", "300") + Record("800", "{\"value\": 250}") + Record("5000", "7", "warmup") +
         Record("900", "100", "profiling", "{\"type\": \"timeout\"}") + "\n" + Record("\"1500\"", "410.9");
}

std::string Aggregate(const std::string& start, const std::string& end) {
  std::string out = "{\"benchmark_id\": \"x\"";
  if (!start.empty()) out += ", \"start_time\": " + start;
  if (!end.empty()) out += ", \"end_time\": " + end;
  return out + "}";
}

const std::string kAgg = "{\n  \"request_metrics\": {\"completed\": 3},\n  \"avg_power_w\": 1.0\n}";

struct Case {
  std::string name;
  std::map<std::string, std::string> files;  // under the result folder
  long long gpus = 2;
  bool require = false;
  bool agg = true;
};

Case Base(const std::string& name) {
  Case c{name, {}};
  c.files["aiperf_artifacts/profile_export_aiperf.json"] =
      Aggregate("\"2026-08-01T12:00:00.250Z\"", "\"2026-08-01T12:01:40.750000+00:00\"");
  c.files["aiperf_artifacts/profile_export.jsonl"] = Records();
  c.files["gpu_metrics.csv"] = Csv(2, kStart - 2, kEnd + 2);
  return c;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back(Base("valid_aware"));
  Case c = Base("valid_naive_minus5");
  c.files["aiperf_artifacts/profile_export_aiperf.json"] =
      Aggregate("\"2026-08-01T07:00:00.250000\"", "\"2026-08-01 07:01:40.750\"");
  c.files["agentic_power_timezone_offset.txt"] = "-0500\n";
  cases.push_back(c);
  c = Base("valid_naive_plus0530");
  c.files["aiperf_artifacts/profile_export_aiperf.json"] =
      Aggregate("\"2026-08-01T17:30:00.250\"", "\"2026-08-01T17:31:40.750\"");
  c.files["agentic_power_timezone_offset.txt"] = "+05:30";
  cases.push_back(c);
  c = Base("valid_epoch_nested");
  c.files.erase("aiperf_artifacts/profile_export_aiperf.json");
  c.files.erase("aiperf_artifacts/profile_export.jsonl");
  c.files["aiperf_artifacts/run_b/profile_export_aiperf.json"] = Aggregate("1785585600.25", "1785585700.75");
  c.files["aiperf_artifacts/run_b/profile_export.jsonl"] = Records();
  c.files["aiperf_artifacts/run_a/notes.txt"] = "no export here";
  cases.push_back(c);
  c = Base("profile_artifacts_missing");
  c.files.erase("aiperf_artifacts/profile_export.jsonl");
  cases.push_back(c);
  c = Base("profile_artifacts_invalid");
  c.files["aiperf_artifacts/profile_export.jsonl"] = Records() + "{not json\n";
  cases.push_back(c);
  c = Base("profile_window_missing");
  c.files["aiperf_artifacts/profile_export_aiperf.json"] = Aggregate("\"2026-08-01T12:00:00Z\"", "");
  cases.push_back(c);
  c = Base("profile_window_invalid");
  c.files["aiperf_artifacts/profile_export_aiperf.json"] =
      Aggregate("\"2026-08-01T12:01:40Z\"", "\"2026-08-01T12:00:00Z\"");
  cases.push_back(c);
  c = Base("profile_window_unparseable");
  c.files["aiperf_artifacts/profile_export_aiperf.json"] = Aggregate("\"yesterday\"", "true");
  cases.push_back(c);
  c = Base("profile_timezone_offset_missing");
  c.files["aiperf_artifacts/profile_export_aiperf.json"] =
      Aggregate("\"2026-08-01T12:00:00.250\"", "\"2026-08-01T12:01:40.750Z\"");
  cases.push_back(c);
  c = cases.back();
  c.name = "profile_timezone_offset_invalid";
  c.files["agentic_power_timezone_offset.txt"] = "+2500";
  cases.push_back(c);
  c.name = "profile_timezone_offset_text";
  c.files["agentic_power_timezone_offset.txt"] = "EST";
  cases.push_back(c);
  c = Base("successful_request_count_invalid");
  c.files["aiperf_artifacts/profile_export.jsonl"] =
      Record("10", "10", "warmup") + Record("1", "1", "profiling", "\"boom\"");
  cases.push_back(c);
  c = Base("incomplete_token_accounting");
  c.files["aiperf_artifacts/profile_export.jsonl"] = Records() + Record("100", "");
  cases.push_back(c);
  c = Base("zero_output_tokens");
  c.files["aiperf_artifacts/profile_export.jsonl"] = Record("100", "0") + Record("50", "0.5");
  cases.push_back(c);
  c = Base("power_window_unwritable");
  c.files["agentic_power_window.json/keep"] = "a folder where the window goes";
  cases.push_back(c);
  c = Base("expected_gpu_count_mismatch");
  c.gpus = 4;
  cases.push_back(c);
  c = cases.back();
  c.name = "invalid_required";
  c.require = true;
  cases.push_back(c);
  c = Base("valid_required");
  c.require = true;
  cases.push_back(c);
  c = Base("not_bracketed");
  c.files["gpu_metrics.csv"] = Csv(2, kStart + 3, kEnd + 2);
  cases.push_back(c);
  c = Base("telemetry_file_missing");
  c.files.erase("gpu_metrics.csv");
  cases.push_back(c);
  c = Base("aggregate_missing_window_ok");
  c.agg = false;
  cases.push_back(c);
  c = Base("aggregate_missing_window_failed");
  c.files.erase("aiperf_artifacts/profile_export.jsonl");
  c.agg = false;
  cases.push_back(c);
  return cases;
}

TEST(AgenticPowerParity, AdapterMatchesTheReference) {
  INFERMARK_REQUIRE_REFERENCE({"utils/agentic/aggregation/power_adapter.py", "utils/aggregate_power.py"},
                              "import utils.agentic.aggregation.power_adapter");
  const fs::path root = fs::temp_directory_path() / ("infermark_agentic_power_" + std::to_string(::getpid()));
  fs::remove_all(root);

  std::set<std::string> reasons;
  int cases = 0;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const fs::path ref_dir = root / c.name / "ref";
    const fs::path our_dir = root / c.name / "ours";
    for (const fs::path& dir : {ref_dir, our_dir}) {
      fs::create_directories(dir / "res");
      if (c.agg) std::ofstream(dir / "res" / "agg.json") << kAgg;
      for (const auto& [name, text] : c.files) {
        fs::create_directories((dir / "res" / name).parent_path());
        std::ofstream(dir / "res" / name) << text;
      }
    }
    std::vector<std::string> args{"--result-dir",        "res", "--agg-result", "res/agg.json", "--expected-num-gpus",
                                  std::to_string(c.gpus)};
    if (c.require) args.push_back("--require-power");
    std::vector<std::string> ref_argv{"env",
                                      "-u",
                                      "REQUIRE_POWER",
                                      "TZ=UTC",
                                      "PYTHONPATH=" + test::ReferenceRoot(),
                                      "python3",
                                      "-m",
                                      "utils.agentic.aggregation.power_adapter"};
    ref_argv.insert(ref_argv.end(), args.begin(), args.end());
    std::vector<std::string> our_argv{"env",          "-u",      "REQUIRE_POWER", "TZ=UTC",
                                      test::Binary(), "results", "agentic-power"};
    our_argv.insert(our_argv.end(), args.begin(), args.end());
    const ProcessResult r = RunCapture(ref_argv, ref_dir.string());
    const ProcessResult o = RunCapture(our_argv, our_dir.string());
    ASSERT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    EXPECT_EQ(r.exit_code, o.exit_code) << r.err << "\n" << o.err;
    for (const char* file : {"agg.json", "agentic_power_window.json", "power_validation.json"}) {
      const fs::path a = ref_dir / "res" / file;
      const fs::path b = our_dir / "res" / file;
      ASSERT_EQ(fs::is_regular_file(a), fs::is_regular_file(b)) << file;
      if (!fs::is_regular_file(a)) continue;
      EXPECT_EQ(ReadFile(a.string()), ReadFile(b.string())) << file;
      if (std::string(file) == "power_validation.json") {
        const Json sidecar = Json::parse(ReadFile(a.string()));
        for (const auto& reason : sidecar["reasons"]) reasons.insert(reason.get<std::string>());
        if (sidecar["power_valid"] == true) reasons.insert("valid");
      }
    }
    ++cases;
  }
  std::printf("agentic power parity: %d cases, files identical; reasons seen: %zu\n", cases, reasons.size());
  for (const char* expected :
       {"valid", "profile_artifacts_missing", "profile_artifacts_invalid", "profile_window_missing",
        "profile_window_invalid", "profile_timezone_offset_missing", "profile_timezone_offset_invalid",
        "successful_request_count_invalid", "incomplete_token_accounting", "power_window_unwritable",
        "expected_gpu_count_mismatch", "benchmark_window_not_bracketed", "telemetry_file_missing"}) {
    EXPECT_TRUE(reasons.count(expected)) << expected;
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace infermark

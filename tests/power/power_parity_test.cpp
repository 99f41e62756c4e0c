// `infermark results power` beside InferenceX's aggregate_power.py on constructed telemetry: both
// run on their own copy of every case (same relative paths, TZ=America/New_York) and must agree on
// the exit status, every key, order and value of the patched agg record and of the
// power_validation sidecar (numbers within 1e-9 relative). Real H200 captures placed in
// tests/fixtures/power/h200/ (<name>.csv beside its client result <name>.json, which may add
// "expected_num_gpus" and "tz") are compared the same way. The reference is utils/aggregate_power.py
// of the copy under ../shared/reference/inferencex/ (tests/reference.hpp: skipped without it,
// failed under CI=true).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
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

constexpr const char* kTz = "America/New_York";

// One side-by-side case: files written into each side's folder, then both tools run there.
struct TelemetryCase {
  std::string name;
  std::map<std::string, std::string> files;  // relative path → content
  long long gpus = 1;
  bool require = false;
  std::string validation;  // --validation-result, empty for the default
  std::string tz = kTz;
};

// Local wall-clock text of Unix time `t` in the nvidia-smi format (milliseconds).
std::string NvTime(double t) {
  const auto whole = static_cast<std::time_t>(std::floor(t));
  std::tm tm{};
  localtime_r(&whole, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%Y/%m/%d %H:%M:%S", &tm);
  char out[80];
  std::snprintf(out, sizeof out, "%s.%03d", text, static_cast<int>(std::lround((t - std::floor(t)) * 1000)) % 1000);
  return out;
}

std::string IsoTime(double t) {
  std::string s = NvTime(t);
  for (char& c : s) c = c == '/' ? '-' : c;
  s[10] = 'T';
  return s;
}

std::string Fmt(int digits, double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// Power that varies per GPU and per second, so every integral is distinct.
double Watts(int gpu, double t) {
  return 300 + 40 * std::sin(t * 0.37 + gpu) + 3.1 * gpu;
}

std::string Bench(double start, double end, double duration, const std::string& counts = "") {
  return "{\"benchmark_start_time_unix\": " + Fmt(6, start) + ", \"benchmark_end_time_unix\": " + Fmt(6, end) +
         ", \"duration\": " + Fmt(6, duration) +
         (counts.empty() ? ", \"completed\": 320, \"total_input_tokens\": 2621440, \"total_output_tokens\": 327680"
                         : counts) +
         "}";
}

const std::string kTelemetryAgg =
    "{\n  \"hw\": \"h200\",\n  \"conc\": 64,\n  \"tput_per_gpu\": 1234.5,\n  \"avg_power_w\": 1.0,\n"
    "  \"power_metric_schema_version\": 2,\n  \"power_valid\": 0\n}";

enum class Format { kNvidia, kAmdIso, kAmdEpochMs, kEpoch };

// A 1 Hz stream for `gpus` GPUs over [from, to), each GPU offset by a few milliseconds.
std::string Stream(Format format, int gpus, double from, double to, double step = 1.0) {
  std::string out;
  switch (format) {
    case Format::kNvidia:
      out = "timestamp, index, power.draw [W], temperature.gpu\n";
      break;
    case Format::kAmdIso:
    case Format::kAmdEpochMs:
      out = "timestamp,gpu,gfx_activity,socket_power,power_management\n";
      break;
    case Format::kEpoch:
      out = "timestamp,gpu,socket_power\n";
      break;
  }
  for (double t = from; t < to; t += step) {
    for (int g = 0; g < gpus; ++g) {
      const double ts = std::round((t + 0.007 * g) * 1000) / 1000;
      const double w = Watts(g, ts);
      switch (format) {
        case Format::kNvidia:
          out += NvTime(ts) + ", " + std::to_string(g) + ", " + Fmt(2, w) + " W, 65\n";
          break;
        case Format::kAmdIso:
          out += IsoTime(ts) + "," + std::to_string(g) + ",97," + Fmt(0, w) + ",ENABLED\n";
          break;
        case Format::kAmdEpochMs:
          out += Fmt(0, ts * 1000) + "," + std::to_string(g) + ",97," + Fmt(1, w) + ",ENABLED\n";
          break;
        case Format::kEpoch:
          out += Fmt(3, ts) + "," + std::to_string(g) + "," + Fmt(3, w) + "\n";
          break;
      }
    }
  }
  return out;
}

std::vector<TelemetryCase> TelemetryCases() {
  const double t0 = 1700000000.0;  // 2023-11-14 17:13:20 EST
  const double s = t0 + 5.25;
  const double e = t0 + 65.75;
  const std::string bench = Bench(s, e, e - s);
  const std::string nv8 = Stream(Format::kNvidia, 8, t0, t0 + 72);
  std::vector<TelemetryCase> cases;
  const auto add = [&](std::string name, std::string csv, std::string bench_text = "", long long gpus = 1) {
    TelemetryCase c;
    c.name = std::move(name);
    if (csv != "<none>") c.files["gpu_metrics.csv"] = csv;
    if (bench_text != "<none>") c.files["bench.json"] = bench_text.empty() ? bench : bench_text;
    c.files["agg_bench.json"] = kTelemetryAgg;
    c.gpus = gpus;
    cases.push_back(c);
    return &cases.back();
  };
  add("nvidia_1gpu_local_time", Stream(Format::kNvidia, 1, t0, t0 + 72));
  add("nvidia_8gpu", nv8, "", 8);
  add("amd_iso_2gpu", Stream(Format::kAmdIso, 2, t0, t0 + 72), "", 2);
  add("amd_epoch_ms_4gpu", Stream(Format::kAmdEpochMs, 4, t0, t0 + 72), "", 4);
  add("epoch_half_second", Stream(Format::kEpoch, 2, t0, t0 + 72, 0.5), "", 2);
  {
    std::string dup = Stream(Format::kEpoch, 1, t0, t0 + 72);
    for (int k = 6; k < 60; k += 7) dup += Fmt(3, t0 + k) + ",0," + Fmt(2, 410.0 + k * 0.13) + "\n";
    add("duplicate_timestamps_averaged", dup);
  }
  add("edges_on_samples", Stream(Format::kEpoch, 1, t0, t0 + 72), Bench(t0 + 5, t0 + 65, 60.0));
  add(
      "iso_offsets_and_z", "timestamp,gpu,socket_power\n" + [&] {
        std::string rows;
        for (int k = 0; k < 72; ++k) {
          const double t = t0 + k;
          // Alternate Z, +05:30 and naive rows: all the same instants.
          std::time_t whole = static_cast<std::time_t>(t);
          std::tm tm{};
          gmtime_r(&whole, &tm);
          char z[40];
          std::strftime(z, sizeof z, "%Y-%m-%dT%H:%M:%SZ", &tm);
          whole += 5 * 3600 + 1800;
          gmtime_r(&whole, &tm);
          char off[40];
          std::strftime(off, sizeof off, "%Y-%m-%d %H:%M:%S+05:30", &tm);
          rows += std::string(k % 3 == 0 ? z : k % 3 == 1 ? off : IsoTime(t)) + ",0," + Fmt(1, Watts(0, t)) + "\n";
        }
        return rows;
      }());
  add(
      "csv_quoting_crlf_blank_lines", "\"timestamp\" , \"gpu\" ,\"socket_power\"\r\n\r\n" + [&] {
        std::string rows;
        for (int k = 0; k < 72; ++k)
          rows += "\"" + Fmt(3, t0 + k) + "\", 0 , \"" + Fmt(2, Watts(0, t0 + k)) + " W\"\r\n" +
                  (k % 10 == 0 ? "\r\n" : "");
        return rows;
      }());
  add(
      "gpu_ids_numeric_first",
      "timestamp,gpu_id,power\n" +
          [&] {
            std::string rows;
            const char* ids[] = {"10", "card", "2", "0", "1"};
            for (int k = 0; k < 72; ++k) {
              for (const char* id : ids) rows += Fmt(3, t0 + k) + "," + id + "," + Fmt(2, Watts(k % 3, t0 + k)) + "\n";
            }
            return rows;
          }(),
      "", 5);
  add("telemetry_file_missing", "<none>");
  add("telemetry_file_empty", "");
  add("power_and_gpu_columns_missing", "timestamp,device_id,power_limit\n1,0,100\n");
  add("timestamp_column_missing", "date,gpu,power\n1,0,100\n");
  add("invalid_timestamp_sample",
      "timestamp,gpu,power\ngarbage,0,100\n" + Stream(Format::kEpoch, 1, t0, t0 + 72).substr(27));
  {
    std::string rows = Stream(Format::kNvidia, 1, t0, t0 + 72);
    rows += NvTime(t0 + 30.5) + ", 0, [N/A], 65\n" + NvTime(t0 - 100) + ", 0, [N/A], 65\n";
    add("invalid_power_sample_na", rows);
  }
  add("far_invalid_power_ignored", Stream(Format::kNvidia, 1, t0, t0 + 72) + NvTime(t0 + 200) + ", 0, [N/A], 65\n");
  add("negative_power", Stream(Format::kEpoch, 1, t0, t0 + 72) + Fmt(3, t0 + 30.5) + ",0,-4.5\n");
  add("gpu_identity_missing", Stream(Format::kEpoch, 1, t0, t0 + 72) + Fmt(3, t0 + 30.5) + ",,200\n");
  add("no_usable_power_samples", Stream(Format::kEpoch, 1, t0 + 500, t0 + 520));
  add("expected_gpu_count_mismatch", Stream(Format::kEpoch, 2, t0, t0 + 72), "", 4);
  add("invalid_expected_gpu_count", Stream(Format::kEpoch, 1, t0, t0 + 72), "", 0);
  add("insufficient_power_samples", Stream(Format::kEpoch, 1, t0, t0 + 72) + Fmt(3, t0 + 30) + ",1,300\n", "", 2);
  add("benchmark_window_not_bracketed", Stream(Format::kEpoch, 2, t0 + 6, t0 + 72), "", 2);
  {
    std::string rows = "timestamp,gpu,power\n";
    for (int k = 0; k < 72; ++k) {
      if (k < 20 || k > 24) rows += Fmt(3, t0 + k) + ",0," + Fmt(2, Watts(0, t0 + k)) + "\n";
    }
    add("sampling_gap_exceeded", rows);
  }
  add("telemetry_file_unreadable",
      Stream(Format::kEpoch, 1, t0, t0 + 72) + Fmt(3, t0 + 30.5) + ",0," + std::string(131073, '7') + "\n");
  add("invalid_benchmark_result", Stream(Format::kEpoch, 1, t0, t0 + 72), "{not json");
  add("invalid_benchmark_window", Stream(Format::kEpoch, 1, t0, t0 + 72), Bench(e, s, 60.0));
  add("bench_counts_and_duration_mismatch", Stream(Format::kEpoch, 1, t0, t0 + 72),
      Bench(s, e, 50.0, ", \"completed\": true, \"total_input_tokens\": 12.0"));
  add("benchmark_result_missing", Stream(Format::kEpoch, 1, t0, t0 + 72), "<none>");
  add("aggregate_result_missing", Stream(Format::kEpoch, 1, t0, t0 + 72))->files.erase("agg_bench.json");
  add("aggregate_result_unwritable", Stream(Format::kEpoch, 1, t0, t0 + 72))->files["agg_bench.json"] = "{\"hw\": ";
  add("require_power_invalid", Stream(Format::kEpoch, 1, t0 + 6, t0 + 72))->require = true;
  add("require_power_valid", Stream(Format::kEpoch, 1, t0, t0 + 72))->require = true;
  add("validation_result_in_new_folder", Stream(Format::kEpoch, 1, t0, t0 + 72))->validation = "out/sub/pv.json";
  {
    // 2023-11-05 01:00–01:59 local happens twice; nvidia-smi's local stamps read as the first pass.
    const double f = 1699162200.0;  // 01:30 EDT
    add("dst_repeated_hour", Stream(Format::kNvidia, 1, f, f + 3 * 3600, 30.0), Bench(f + 600, f + 3000, 2400.0));
  }
  // AMD energy-accumulator snapshots beside the stream (advisory check).
  const std::string amd = Stream(Format::kEpoch, 2, t0, t0 + 72);
  const auto snapshot = [](double a, double b, const std::string& extra = "") {
    return "gpu,total_energy_consumption,energy_units\n0," + Fmt(3, a) + ",J\n1," + Fmt(3, b) + ",J\n" + extra;
  };
  TelemetryCase* within = add("accumulator_within_tolerance", amd, "", 2);
  within->files["gpu_metrics_energy_start.csv"] = snapshot(1000, 2000);
  within->files["gpu_metrics_energy_end.csv"] = snapshot(1000 + 21300, 2000 + 21500);
  TelemetryCase* outside = add("accumulator_outside_tolerance_negative_unmatched", amd, "", 2);
  outside->files["gpu_metrics_energy_start.csv"] = snapshot(1000, 90000, "3,5,J\n");
  outside->files["gpu_metrics_energy_end.csv"] = snapshot(60000, 2000);
  add("accumulator_missing_end", amd, "", 2)->files["gpu_metrics_energy_start.csv"] = snapshot(1, 2);
  add("accumulator_unparseable_start", amd, "", 2)->files["gpu_metrics_energy_start.csv"] = "gpu,energy\n0,1\n";
  cases.back().files["gpu_metrics_energy_end.csv"] = snapshot(1, 2);
  add("accumulator_missing_start", amd, "", 2)->files["gpu_metrics_energy_end.csv"] = snapshot(1, 2);
  add("accumulator_unparseable_end", amd, "", 2)->files["gpu_metrics_energy_start.csv"] = snapshot(1, 2);
  cases.back().files["gpu_metrics_energy_end.csv"] = "gpu,total_energy_consumption\n,5\n0,inf\n";
  return cases;
}

// Leaves compared so far, and how many of them were not bit-equal.
struct Tally {
  long long fields = 0;
  long long inexact = 0;
  std::set<std::string> reasons;  // reason codes and accumulator outcomes the reference wrote
};

void ExpectSame(const Json& ref, const Json& ours, const std::string& where, Tally& tally) {
  if (ref.is_number_float() && ours.is_number_float()) {
    ++tally.fields;
    const double a = ref.get<double>();
    const double b = ours.get<double>();
    if (a != b) ++tally.inexact;
    EXPECT_LE(std::fabs(a - b), 1e-9 * std::max(std::fabs(a), std::fabs(b))) << where;
    return;
  }
  ASSERT_EQ(ref.type_name(), std::string(ours.type_name())) << where;
  if (ref.is_object()) {
    std::vector<std::string> rk;
    std::vector<std::string> ok;
    for (const auto& [k, v] : ref.items()) rk.push_back(k);
    for (const auto& [k, v] : ours.items()) ok.push_back(k);
    ASSERT_EQ(rk, ok) << where;
    for (const auto& [k, v] : ref.items()) ExpectSame(v, ours[k], where + "." + k, tally);
  } else if (ref.is_array()) {
    ASSERT_EQ(ref.size(), ours.size()) << where;
    for (std::size_t i = 0; i < ref.size(); ++i)
      ExpectSame(ref[i], ours[i], where + "[" + std::to_string(i) + "]", tally);
  } else {
    ++tally.fields;
    EXPECT_EQ(ref, ours) << where;
  }
}

// A file's JSON; text that is not JSON (an agg record left broken) as a JSON string of itself.
std::optional<Json> ReadJsonFile(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  const std::string text = ReadFile(path.string());
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded()) return Json(text);
  return value;
}

class PowerParity : public ::testing::Test {
 protected:
  void SetUp() override {
    INFERMARK_REQUIRE_REFERENCE({"utils/aggregate_power.py"});
    script_ = test::ReferencePath("utils/aggregate_power.py");
    setenv("TZ", kTz, 1);
    tzset();
    root_ = fs::temp_directory_path() / ("infermark_power_parity_" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Runs one case on both sides, counting the leaves compared.
  void Compare(const TelemetryCase& c, Tally& tally) {
    SCOPED_TRACE(c.name);
    const fs::path ref_dir = root_ / c.name / "ref";
    const fs::path our_dir = root_ / c.name / "ours";
    for (const fs::path& dir : {ref_dir, our_dir}) {
      fs::create_directories(dir);
      for (const auto& [name, text] : c.files) {
        fs::create_directories((dir / name).parent_path());
        std::ofstream(dir / name, std::ios::binary) << text;
      }
    }
    std::vector<std::string> args{"--csv",        "gpu_metrics.csv", "--bench-result",      "bench.json",
                                  "--agg-result", "agg_bench.json",  "--expected-num-gpus", std::to_string(c.gpus)};
    if (!c.validation.empty()) args.insert(args.end(), {"--validation-result", c.validation});
    if (c.require) args.push_back("--require-power");
    std::vector<std::string> ref_argv{"env", "-u", "REQUIRE_POWER", "TZ=" + c.tz, "python3", script_};
    ref_argv.insert(ref_argv.end(), args.begin(), args.end());
    std::vector<std::string> our_argv{"env", "-u", "REQUIRE_POWER", "TZ=" + c.tz, test::Binary(), "results", "power"};
    our_argv.insert(our_argv.end(), args.begin(), args.end());
    const ProcessResult ref = RunCapture(ref_argv, ref_dir.string());
    const ProcessResult ours = RunCapture(our_argv, our_dir.string());
    ASSERT_EQ(ref.err.find("Traceback"), std::string::npos) << ref.err;
    EXPECT_EQ(ref.exit_code, ours.exit_code) << ref.err << "\n" << ours.err;
    ++tally.fields;
    const std::string sidecar = c.validation.empty() ? "power_validation_bench.json" : c.validation;
    for (const std::string& file : {std::string("agg_bench.json"), sidecar}) {
      auto a = ReadJsonFile(ref_dir / file);
      auto b = ReadJsonFile(our_dir / file);
      ASSERT_EQ(a.has_value(), b.has_value()) << file;
      if (!a) continue;
      ExpectSame(*a, *b, file, tally);
      if (file == sidecar) {
        for (const auto& reason : (*a)["reasons"]) tally.reasons.insert(reason.get<std::string>());
        const Json& check = (*a)["accumulator_check"];
        if (check.is_object()) tally.reasons.insert("accumulator:" + check.value("reason", std::string("available")));
        if (a->value("power_valid", false)) tally.reasons.insert("valid");
      }
      EXPECT_EQ(ReadFile((ref_dir / file).string()), ReadFile((our_dir / file).string())) << file << " bytes";
    }
  }

  std::string script_;
  fs::path root_;
};

TEST_F(PowerParity, ConstructedTelemetryMatchesTheReference) {
  const std::vector<TelemetryCase> cases = TelemetryCases();
  ASSERT_GE(cases.size(), 20U);
  Tally tally;
  for (const TelemetryCase& c : cases) Compare(c, tally);
  std::printf("power parity: %zu cases, %lld fields compared, %lld not bit-equal\n", cases.size(), tally.fields,
              tally.inexact);
  // Every reason code run() can reach (invalid_max_sample_gap cannot: its gap is fixed), and every
  // accumulator outcome but a read error.
  const std::set<std::string> expected{"valid",
                                       "invalid_benchmark_result",
                                       "invalid_benchmark_window",
                                       "benchmark_duration_mismatch",
                                       "invalid_successful_query_count",
                                       "invalid_input_token_count",
                                       "invalid_output_token_count",
                                       "invalid_expected_gpu_count",
                                       "telemetry_file_missing",
                                       "telemetry_file_empty",
                                       "telemetry_file_unreadable",
                                       "timestamp_column_missing",
                                       "power_column_missing",
                                       "gpu_identity_column_missing",
                                       "invalid_timestamp_sample",
                                       "invalid_power_sample",
                                       "gpu_identity_missing",
                                       "no_usable_power_samples",
                                       "expected_gpu_count_mismatch",
                                       "insufficient_power_samples",
                                       "benchmark_window_not_bracketed",
                                       "sampling_gap_exceeded",
                                       "aggregate_result_missing",
                                       "aggregate_result_unwritable",
                                       "accumulator:available",
                                       "accumulator:missing_start_snapshot",
                                       "accumulator:missing_end_snapshot",
                                       "accumulator:unparseable_start_snapshot",
                                       "accumulator:unparseable_end_snapshot"};
  EXPECT_EQ(tally.reasons, expected);
}

TEST_F(PowerParity, RecordedH200TelemetryMatchesTheReference) {
  const fs::path folder = test::Fixture("power/h200");
  if (!fs::exists(folder)) GTEST_SKIP() << "no recorded telemetry in tests/fixtures/power/h200/";
  Tally tally;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() != ".csv" || entry.path().stem().string().find("_energy_") != std::string::npos) {
      continue;
    }
    fs::path bench = entry.path();
    bench.replace_extension(".json");
    ASSERT_TRUE(fs::exists(bench)) << "each recorded CSV needs its client result beside it: " << bench;
    const Json meta = Json::parse(ReadFile(bench.string()));
    TelemetryCase c;
    c.name = "h200_" + entry.path().stem().string();
    c.files["gpu_metrics.csv"] = ReadFile(entry.path().string());
    c.files["bench.json"] = ReadFile(bench.string());
    c.files["agg_bench.json"] = kTelemetryAgg;
    c.gpus = meta.value("expected_num_gpus", 8LL);
    c.tz = meta.value("tz", std::string("UTC"));
    Compare(c, tally);
    ++files;
  }
  std::printf("power parity (H200 captures): %d files, %lld fields compared, %lld not bit-equal\n", files, tally.fields,
              tally.inexact);
}

}  // namespace
}  // namespace infermark

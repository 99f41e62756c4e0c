// `infermark results power-multinode` beside InferenceX's utils/aggregate_power_multinode.py on
// constructed srt-slurm DCGM packages: a self-consistent package (manifest, samples.csv, the
// measurement window, the original result under LOGS/ and the launcher's renamed copy), then one
// case per gate the script has, each breaking exactly one thing. Both run on their own copy of each
// case and must agree on the exit status and, byte for byte, on the patched agg record and the
// sidecar. One known difference: after `manifest unreadable: ` the reference quotes Python's JSON
// decoder, so that one failure text is compared up to the colon. `results process` on a multi-node
// row is compared with process_result.py the same way. The scripts come from
// ../shared/reference/inferencex/ (tests/reference.hpp: skipped without them, failed under CI=true).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
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

constexpr const char* kSha = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
constexpr double kMultinodeStart = 1000.0;
constexpr double kMultinodeEnd = 1060.0;
constexpr double kFirst = 998.0;
constexpr double kLast = 1062.0;

struct Device {
  std::string host;
  long long index;
  std::string role;
  std::optional<long long> het;
  double watts;
};

const std::vector<Device> kDevices = {{"node-d", 0, "decode", 1, 300.0},
                                      {"node-d", 1, "decode", 1, 300.0},
                                      {"node-p", 0, "prefill", 0, 400.0},
                                      {"node-p", 1, "prefill", 0, 400.0}};

std::string Uuid(const std::string& host, long long index) {
  return "GPU-" + host + "-" + std::to_string(index);
}

// Python's repr() of a float, which the producer writes into samples.csv.
std::string Repr(double v) {
  return DumpJson(Json(v));
}

using Rows = std::vector<std::vector<std::string>>;
using PowerFn = std::function<double(const Device&, double)>;

std::string CsvText(const Rows& rows) {
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + row[i];
    out += "\r\n";  // csv.writer's line terminator
  }
  return out;
}

Rows ReadRows(const fs::path& path) {
  Rows rows;
  const std::string text = ReadFile(path.string());
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find("\r\n", at);
    if (end == std::string::npos) end = text.size();
    std::vector<std::string> row;
    std::string line = text.substr(at, end - at);
    std::size_t from = 0;
    while (true) {
      const std::size_t comma = line.find(',', from);
      row.push_back(line.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    rows.push_back(row);
    at = end + 2;
  }
  return rows;
}

Json ReadJson(const fs::path& path) {
  return Json::parse(ReadFile(path.string()));
}

void WriteJson(const fs::path& path, const Json& value) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << value.dump(2);
}

Json Bench() {
  return Json{{"model_id", "test-model"},
              {"max_concurrency", 4},
              {"benchmark_start_time_unix", kMultinodeStart},
              {"benchmark_end_time_unix", kMultinodeEnd},
              {"duration", 60.0},
              {"completed", 8},
              {"total_input_tokens", 32768},
              {"total_output_tokens", 4096}};
}

// A self-consistent package under `root`, as the producer writes it, for client result `bench`.
void BuildPackage(const fs::path& root, const PowerFn& power = nullptr, const Json& bench = Bench()) {
  const fs::path power_dir = root / "LOGS" / "power";
  fs::create_directories(power_dir / "windows");
  Rows rows{{"schema_version", "timestamp_unix", "scrape_seq", "hostname", "gpu_index", "gpu_uuid", "power_w"}};
  long long seq = 0;
  for (double ts = kFirst; ts <= kLast; ts += 1.0, ++seq) {
    for (const Device& d : kDevices) {
      rows.push_back({"1", Repr(ts), std::to_string(seq), d.host, std::to_string(d.index), Uuid(d.host, d.index),
                      Repr(power ? power(d, ts) : d.watts)});
    }
  }
  std::ofstream(power_dir / "samples.csv") << CsvText(rows);
  Json observed = Json::array();
  Json gaps = Json::object();
  Json expected = Json::array();
  for (const Device& d : kDevices) {
    observed.push_back({{"hostname", d.host},
                        {"gpu_index", d.index},
                        {"gpu_uuids", {Uuid(d.host, d.index)}},
                        {"first_sample_time_unix", kFirst},
                        {"last_sample_time_unix", kLast}});
    gaps[d.host + "/" + Uuid(d.host, d.index)] = 1.0;
    expected.push_back({{"hostname", d.host},
                        {"gpu_index", d.index},
                        {"assignments",
                         {{{"worker_role", d.role},
                           {"worker_index", 0},
                           {"worker_process", 0},
                           {"het_group", d.het ? Json(*d.het) : Json()}}}}});
  }
  const Json manifest = {
      {"schema_version", 1},
      {"producer", "srt-slurm.dcgm-power"},
      {"producer_version", "1.0"},
      {"producer_git_commit", kSha},
      {"source_metric", "DCGM_FI_DEV_POWER_USAGE"},
      {"unit", "W"},
      {"power_scope", "gpu_device_board_as_reported_by_dcgm"},
      {"timestamp_source", "head_node_unix_clock"},
      {"job_id", "12345"},
      {"sample_interval_seconds", 1.0},
      {"request_timeout_seconds", 2.0},
      {"required", true},
      {"started_at_unix", 990.0},
      {"stopped_at_unix", 1070.0},
      {"status", "complete"},
      {"publication_valid", true},
      {"dcgm_exporter",
       {{"container_image_resolved", "/squash/dcgm-exporter.sqsh"},
        {"container_image_sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}},
      {"expected_devices", expected},
      {"observed_devices", observed},
      {"expected_windows", {{{"benchmark_type", "sa-bench"}, {"concurrency", 4}}}},
      {"scrape_count", seq},
      {"sample_row_count", static_cast<long long>(rows.size() - 1)},
      {"window_validations",
       {{{"benchmark_type", "sa-bench"},
         {"concurrency", 4},
         {"window_file", "windows/my_result.json"},
         {"power_coverage_valid", true},
         {"reason_codes", Json::array()},
         {"per_device_max_sample_gap_seconds", gaps}}}},
      {"artifact_errors", Json::array()},
      {"reason_codes", Json::array()}};
  WriteJson(power_dir / "manifest.json", manifest);
  WriteJson(power_dir / "windows" / "my_result.json", {{"schema_version", 1},
                                                       {"clock_source", "head_node_unix_clock"},
                                                       {"benchmark_type", "sa-bench"},
                                                       {"concurrency", 4},
                                                       {"status", "completed"},
                                                       {"benchmark_start_time_unix", kMultinodeStart},
                                                       {"benchmark_end_time_unix", kMultinodeEnd},
                                                       {"duration", 60.0},
                                                       {"reason", nullptr},
                                                       {"result_path", "my_result.json"}});
  WriteJson(root / "LOGS" / "my_result.json", bench);
  WriteJson(root / "renamed_by_launcher.json", bench);
  WriteJson(root / "agg_renamed_by_launcher.json", {{"hw", "gb200"}, {"conc", 4}});
}

void EditJson(const fs::path& path, const std::function<void(Json&)>& edit) {
  Json value = ReadJson(path);
  edit(value);
  WriteJson(path, value);
}

void EditManifest(const fs::path& root, const std::function<void(Json&)>& edit) {
  EditJson(root / "LOGS/power/manifest.json", edit);
}

void EditRows(const fs::path& root, const std::function<void(Rows&)>& edit) {
  const fs::path path = root / "LOGS/power/samples.csv";
  Rows rows = ReadRows(path);
  Rows body(rows.begin() + 1, rows.end());
  edit(body);
  body.insert(body.begin(), rows.front());
  std::ofstream(path) << CsvText(body);
}

void EditAssignments(const fs::path& root, const std::function<void(Json&)>& edit) {
  EditManifest(root, [&](Json& m) {
    for (Json& device : m["expected_devices"]) {
      for (Json& a : device["assignments"]) edit(a);
    }
  });
}

struct MultinodeCase {
  std::string name;
  std::function<void(const fs::path&)> mutate;  // after BuildPackage
  long long prefill = 2;
  long long decode = 2;
  std::optional<std::string> sha = std::string(kSha);
  bool require = false;
  PowerFn power = nullptr;
};

std::vector<MultinodeCase> MultinodeCases() {
  std::vector<MultinodeCase> cases;
  const auto add = [&](std::string name, std::function<void(const fs::path&)> mutate = nullptr) -> MultinodeCase& {
    cases.push_back({std::move(name), std::move(mutate)});
    return cases.back();
  };
  add("valid");
  add("valid_required").require = true;
  add("valid_ramp").power = [](const Device& d, double ts) {
    return d.host == "node-d" && d.index == 0 ? 300.0 + (ts - kFirst) * 1.37
                                              : d.watts + 0.25 * static_cast<double>(d.index);
  };
  add("valid_non_het", [](const fs::path& r) { EditAssignments(r, [](Json& a) { a["het_group"] = nullptr; }); });
  add("stored_verdict_false",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["publication_valid"] = false; }); });
  add("stored_verdict_missing",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m.erase("publication_valid"); }); });
  add("producer_commit_mismatch").sha = std::string(40, 'b');
  add("producer_pin_missing").sha = std::nullopt;
  add("power_dir_missing", [](const fs::path& r) { fs::remove_all(r / "LOGS/power"); });
  add("power_dir_missing_required", [](const fs::path& r) { fs::remove_all(r / "LOGS/power"); }).require = true;
  add("manifest_missing", [](const fs::path& r) { fs::remove(r / "LOGS/power/manifest.json"); });
  add("manifest_not_json", [](const fs::path& r) { std::ofstream(r / "LOGS/power/manifest.json") << "{oops"; });
  add("manifest_not_object", [](const fs::path& r) { std::ofstream(r / "LOGS/power/manifest.json") << "[1, 2]"; });
  add("manifest_device_without_hostname",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["expected_devices"][1].erase("hostname"); }); });
  add("manifest_bad_worker_role", [](const fs::path& r) {
    EditManifest(r, [](Json& m) { m["expected_devices"][0]["assignments"][0]["worker_role"] = "router"; });
  });
  add("manifest_negative_gpu_index",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["expected_devices"][2]["gpu_index"] = -1; }); });
  add("manifest_devices_not_list",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["expected_devices"] = "node-d"; }); });
  add("manifest_device_not_object",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["expected_devices"][0] = "node-d/0"; }); });
  add("manifest_empty_assignments", [](const fs::path& r) {
    EditManifest(r, [](Json& m) { m["expected_devices"][0]["assignments"] = Json::array(); });
  });
  add("manifest_window_zero_concurrency",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["expected_windows"][0]["concurrency"] = 0; }); });
  add("wire_contract_mismatch", [](const fs::path& r) {
    EditManifest(r, [](Json& m) {
      m["producer"] = "someone-else.power";
      m["unit"] = "mW";
      m["status"] = "running";
      m["stopped_at_unix"] = nullptr;
      m["sample_interval_seconds"] = 0;
      m["scrape_count"] = -1;
      m["required"] = "yes";
      m["dcgm_exporter"]["container_image_resolved"] = "";
    });
  });
  add("lifecycle_failure_reasons", [](const fs::path& r) {
    EditManifest(r, [](Json& m) {
      m["reason_codes"] = {"exporter_startup_timeout", "collector_interrupted", "exporter_exited"};
    });
  });
  add("reason_codes_not_text", [](const fs::path& r) { EditManifest(r, [](Json& m) { m["reason_codes"] = {1}; }); });
  add("exporter_not_object", [](const fs::path& r) { EditManifest(r, [](Json& m) { m["dcgm_exporter"] = "x"; }); });
  add("no_expected_windows",
      [](const fs::path& r) { EditManifest(r, [](Json& m) { m["expected_windows"] = nullptr; }); });
  add("duplicate_expected_keys", [](const fs::path& r) {
    EditManifest(r, [](Json& m) {
      m["expected_devices"].push_back(m["expected_devices"][0]);
      m["expected_windows"].push_back(m["expected_windows"][0]);
    });
  });
  add("samples_missing", [](const fs::path& r) { fs::remove(r / "LOGS/power/samples.csv"); });
  add("samples_header_mismatch", [](const fs::path& r) {
    const std::string text = ReadFile((r / "LOGS/power/samples.csv").string());
    std::ofstream(r / "LOGS/power/samples.csv")
        << "schema_version, timestamp_unix" << text.substr(text.find(",scrape"));
  });
  add("samples_malformed_rows", [](const fs::path& r) {
    EditRows(r, [](Rows& body) {
      body[3][6] = "-1.0";
      body[5][0] = "2";
      body[7][1] = "nan";
      body[9] = {};
      body[11].pop_back();
      body[13][2] = "1.5";
      body[15][3] = "";
    });
  });
  add("duplicate_sample_row", [](const fs::path& r) { EditRows(r, [](Rows& body) { body.push_back(body[10]); }); });
  add("uuid_reused", [](const fs::path& r) {
    EditRows(r, [](Rows& body) {
      for (auto& row : body) {
        if (row[3] == "node-d" && row[4] == "1") row[5] = Uuid("node-d", 0);
      }
    });
  });
  add("uuid_changed_midway", [](const fs::path& r) {
    EditRows(r, [](Rows& body) {
      for (auto& row : body) {
        if (row[3] == "node-p" && row[4] == "1" && std::stoi(row[2]) > 30) row[5] = "GPU-replaced";
      }
    });
  });
  add("timestamps_non_monotonic",
      [](const fs::path& r) { EditRows(r, [](Rows& body) { std::swap(body[0][1], body[4][1]); }); });
  add("sample_gap_exceeded", [](const fs::path& r) {
    EditRows(r, [](Rows& body) {
      std::erase_if(body, [](const auto& row) {
        const int seq = std::stoi(row[2]);
        return row[3] == "node-p" && row[4] == "0" && seq >= 20 && seq <= 24;
      });
    });
  });
  add("window_not_bracketed", [](const fs::path& r) {
    EditRows(r, [](Rows& body) {
      std::erase_if(body, [](const auto& row) {
        return row[3] == "node-d" && row[4] == "0" && std::stod(row[1]) <= kMultinodeStart;
      });
    });
  });
  add("expected_device_missing_unexpected_device", [](const fs::path& r) {
    EditRows(r, [](Rows& body) {
      for (auto& row : body) {
        if (row[3] == "node-p" && row[4] == "1") row[3] = "node-x";
      }
    });
  });
  add("conflicting_worker_roles", [](const fs::path& r) {
    EditManifest(r, [](Json& m) {
      Json extra = m["expected_devices"][0]["assignments"][0];
      extra["worker_role"] = "prefill";
      m["expected_devices"][0]["assignments"].push_back(extra);
    });
  });
  add("conflicting_het_groups", [](const fs::path& r) {
    EditManifest(r, [](Json& m) { m["expected_devices"][1]["assignments"][0]["het_group"] = 5; });
  });
  add("power_overflows").power = [](const Device&, double) { return 9e307; };
  add("result_path_escape", [](const fs::path& r) {
    EditJson(r / "LOGS/power/windows/my_result.json", [](Json& w) { w["result_path"] = "../evil.json"; });
  });
  add("result_path_other_name", [](const fs::path& r) {
    EditJson(r / "LOGS/power/windows/my_result.json", [](Json& w) { w["result_path"] = "other.json"; });
  });
  add("window_malformed", [](const fs::path& r) {
    EditJson(r / "LOGS/power/windows/my_result.json", [](Json& w) { w["clock_source"] = "node_clock"; });
  });
  add("window_not_json", [](const fs::path& r) { std::ofstream(r / "LOGS/power/windows/my_result.json") << "{"; });
  add("window_running", [](const fs::path& r) {
    EditJson(r / "LOGS/power/windows/my_result.json", [](Json& w) {
      w["status"] = "running";
      w["benchmark_end_time_unix"] = nullptr;
      w["duration"] = nullptr;
    });
  });
  add("window_failed", [](const fs::path& r) {
    EditJson(r / "LOGS/power/windows/my_result.json", [](Json& w) {
      w["status"] = "failed";
      w["reason"] = "client_exit_1";
    });
  });
  add("window_missing", [](const fs::path& r) { fs::remove(r / "LOGS/power/windows/my_result.json"); });
  add("window_duplicate_and_unexpected", [](const fs::path& r) {
    EditJson(r / "LOGS/power/windows/my_result.json", [&](Json& w) {
      w["result_path"] = "again.json";
      WriteJson(r / "LOGS/power/windows/again.json", w);
      w["result_path"] = "my_result.json";
    });
    fs::copy_file(r / "LOGS/power/windows/my_result.json", r / "LOGS/power/windows/my_result.v2.json");
    WriteJson(r / "LOGS/power/windows/conc8.json", {{"schema_version", 1},
                                                    {"clock_source", "head_node_unix_clock"},
                                                    {"benchmark_type", "sa-bench"},
                                                    {"concurrency", 8},
                                                    {"status", "completed"},
                                                    {"benchmark_start_time_unix", 2000.0},
                                                    {"benchmark_end_time_unix", 2060.0},
                                                    {"duration", 60.0},
                                                    {"result_path", "conc8.json"}});
    fs::create_directory(r / "LOGS/power/windows/subdir");
  });
  add("window_result_missing", [](const fs::path& r) { fs::remove(r / "LOGS/my_result.json"); });
  add("window_result_mismatch",
      [](const fs::path& r) { EditJson(r / "LOGS/my_result.json", [](Json& b) { b["duration"] = 59.0; }); });
  add("window_clock_mismatch", [](const fs::path& r) {
    const auto edit = [](Json& j) { j["duration"] = 50.0; };
    EditJson(r / "LOGS/power/windows/my_result.json", edit);
    EditJson(r / "LOGS/my_result.json", edit);
    EditJson(r / "renamed_by_launcher.json", edit);
  });
  add("workspace_copy_differs",
      [](const fs::path& r) { EditJson(r / "renamed_by_launcher.json", [](Json& b) { b["completed"] = 9; }); });
  add("workspace_copy_int_for_float", [](const fs::path& r) {
    EditJson(r / "renamed_by_launcher.json", [](Json& b) { b["benchmark_start_time_unix"] = 1000; });
  });
  add("no_window_for_concurrency", [](const fs::path& r) {
    const auto edit = [](Json& b) { b["max_concurrency"] = 8; };
    EditJson(r / "LOGS/my_result.json", edit);
    EditJson(r / "renamed_by_launcher.json", edit);
  });
  add("bench_result_not_json", [](const fs::path& r) { std::ofstream(r / "renamed_by_launcher.json") << "{"; });
  add("bench_counts_invalid", [](const fs::path& r) {
    const auto edit = [](Json& b) {
      b["total_output_tokens"] = 0;
      b["completed"] = 8.0;
    };
    EditJson(r / "LOGS/my_result.json", edit);
    EditJson(r / "renamed_by_launcher.json", edit);
  });
  add("topology_counts_differ").prefill = 4;
  add("topology_both_zero").prefill = 0;
  cases.back().decode = 0;
  add("topology_decode_only_row").prefill = 0;
  add("roles_share_het_group", [](const fs::path& r) { EditAssignments(r, [](Json& a) { a["het_group"] = 0; }); });
  add("mixed_none_and_real_het_groups", [](const fs::path& r) {
    EditAssignments(r, [](Json& a) {
      if (a["worker_role"] == "decode") a["het_group"] = nullptr;
    });
  });
  add("aggregate_missing", [](const fs::path& r) { fs::remove(r / "agg_renamed_by_launcher.json"); });
  add("aggregate_missing_required", [](const fs::path& r) { fs::remove(r / "agg_renamed_by_launcher.json"); }).require =
      true;
  add("invalid_required", [](const fs::path& r) { fs::remove(r / "LOGS/power/samples.csv"); }).require = true;
  return cases;
}

// The reference's sidecar with the one text we do not reproduce (Python's JSON decoder message)
// cut at its colon.
std::string Comparable(const std::string& sidecar) {
  const std::string marker = "\"manifest unreadable: ";
  const std::size_t at = sidecar.find(marker);
  if (at == std::string::npos) return sidecar;
  const std::size_t end = sidecar.find('"', at + marker.size());
  return sidecar.substr(0, at + marker.size()) + sidecar.substr(end);
}

class MultinodePowerParity : public ::testing::Test {
 protected:
  void SetUp() override {
    INFERMARK_REQUIRE_REFERENCE({"utils/aggregate_power_multinode.py", "utils/aggregate_power.py"});
    root_ = fs::temp_directory_path() / ("infermark_multinode_power_" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }
  fs::path root_;
};

// Runs every command line in its folder, a few at a time (each reference run starts Python).
std::vector<ProcessResult> RunAll(const std::vector<std::pair<std::vector<std::string>, fs::path>>& runs) {
  std::vector<ProcessResult> results(runs.size());
  constexpr std::size_t kParallel = 4;
  for (std::size_t first = 0; first < runs.size(); first += kParallel) {
    std::vector<std::future<ProcessResult>> batch;
    for (std::size_t i = first; i < std::min(runs.size(), first + kParallel); ++i) {
      batch.push_back(
          std::async(std::launch::async, [&runs, i] { return RunCapture(runs[i].first, runs[i].second.string()); }));
    }
    for (std::size_t i = 0; i < batch.size(); ++i) results[first + i] = batch[i].get();
  }
  return results;
}

TEST_F(MultinodePowerParity, ConstructedPackagesMatchTheReference) {
  const std::string script = test::ReferencePath("utils/aggregate_power_multinode.py");
  std::set<std::string> reasons;
  int valid = 0;
  const std::vector<MultinodeCase> cases = MultinodeCases();
  std::vector<std::pair<std::vector<std::string>, fs::path>> runs;
  for (const MultinodeCase& c : cases) {
    const fs::path model = root_ / c.name / "model";
    BuildPackage(model, c.power);
    if (c.mutate) c.mutate(model);
    std::vector<std::string> args{"--power-dir",         "LOGS/power",
                                  "--logs-root",         "LOGS",
                                  "--bench-result",      "renamed_by_launcher.json",
                                  "--agg-result",        "agg_renamed_by_launcher.json",
                                  "--prefill-gpus",      std::to_string(c.prefill),
                                  "--decode-gpus",       std::to_string(c.decode),
                                  "--validation-result", "power_validation.json"};
    if (c.sha) args.insert(args.end(), {"--expected-producer-sha", *c.sha});
    if (c.require) args.push_back("--require-power");
    for (const std::string side : {"ref", "ours"}) {
      const fs::path dir = root_ / c.name / side;
      fs::copy(model, dir, fs::copy_options::recursive);
      std::vector<std::string> argv{"env",
                                    "-u",
                                    "REQUIRE_POWER",
                                    "-u",
                                    "POWER_PRODUCER_SHA",
                                    "-u",
                                    "POWER_ARTIFACT_DIR",
                                    "-u",
                                    "POWER_RESULT_ROOT"};
      if (side == "ref") {
        argv.insert(argv.end(), {"python3", script});
      } else {
        argv.insert(argv.end(), {test::Binary(), "results", "power-multinode"});
      }
      argv.insert(argv.end(), args.begin(), args.end());
      runs.emplace_back(argv, dir);
    }
  }
  const std::vector<ProcessResult> ran = RunAll(runs);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const MultinodeCase& c = cases[k];
    SCOPED_TRACE(c.name);
    const ProcessResult& ref = ran[2 * k];
    const ProcessResult& ours = ran[2 * k + 1];
    ASSERT_EQ(ref.err.find("Traceback"), std::string::npos) << ref.err;
    EXPECT_EQ(ref.exit_code, ours.exit_code) << ref.err << "\n" << ours.err;
    for (const std::string file : {"agg_renamed_by_launcher.json", "power_validation.json"}) {
      const fs::path a = root_ / c.name / "ref" / file;
      const fs::path b = root_ / c.name / "ours" / file;
      ASSERT_EQ(fs::exists(a), fs::exists(b)) << file;
      if (!fs::exists(a)) continue;
      EXPECT_EQ(Comparable(ReadFile(a.string())), Comparable(ReadFile(b.string()))) << file;
    }
    const Json sidecar = ReadJson(root_ / c.name / "ref" / "power_validation.json");
    for (const Json& r : sidecar["reasons"]) reasons.insert(r.get<std::string>());
    for (const Json& f : sidecar["failures"]) {
      for (const char* code : {"samples_csv_malformed",
                               "duplicate_sample_row",
                               "timestamp_non_monotonic",
                               "samples_csv_missing",
                               "samples_csv_header_mismatch",
                               "gpu_uuid_changed",
                               "expected_device_missing",
                               "unexpected_device",
                               "conflicting_worker_roles",
                               "conflicting_het_groups",
                               "sample_gap_exceeded",
                               "measurement_window_not_bracketed",
                               "measurement_window_result_path_invalid",
                               "measurement_window_malformed",
                               "measurement_window_incomplete",
                               "measurement_window_missing",
                               "measurement_window_duplicate",
                               "measurement_window_unexpected",
                               "measurement_window_artifact_path_invalid",
                               "measurement_window_result_missing",
                               "measurement_window_result_mismatch",
                               "measurement_window_clock_mismatch"}) {
        if (f.get<std::string>().find(code) != std::string::npos) reasons.insert(std::string("failure:") + code);
      }
    }
    if (sidecar["power_valid"] == true) ++valid;
  }
  std::printf("multinode power parity: %zu cases (%d valid), agg records and sidecars identical\n", cases.size(),
              valid);
  EXPECT_EQ(valid, 4);
  // Every reason code the script writes, and every package failure it recomputes.
  for (const char* expected : {"power_artifacts_missing",
                               "manifest_missing",
                               "manifest_malformed",
                               "producer_pin_missing",
                               "producer_commit_mismatch",
                               "package_recompute_invalid",
                               "producer_verdict_mismatch",
                               "topology_env_mismatch",
                               "window_for_result_missing",
                               "result_content_mismatch",
                               "measurement_window_result_missing",
                               "invalid_benchmark_result",
                               "non_finite_power_metric",
                               "invalid_output_token_count",
                               "invalid_successful_query_count",
                               "aggregate_result_missing",
                               "failure:samples_csv_malformed",
                               "failure:duplicate_sample_row",
                               "failure:timestamp_non_monotonic",
                               "failure:samples_csv_missing",
                               "failure:samples_csv_header_mismatch",
                               "failure:gpu_uuid_changed",
                               "failure:expected_device_missing",
                               "failure:unexpected_device",
                               "failure:conflicting_worker_roles",
                               "failure:conflicting_het_groups",
                               "failure:sample_gap_exceeded",
                               "failure:measurement_window_not_bracketed",
                               "failure:measurement_window_result_path_invalid",
                               "failure:measurement_window_malformed",
                               "failure:measurement_window_incomplete",
                               "failure:measurement_window_missing",
                               "failure:measurement_window_duplicate",
                               "failure:measurement_window_unexpected",
                               "failure:measurement_window_artifact_path_invalid",
                               "failure:measurement_window_result_missing",
                               "failure:measurement_window_result_mismatch",
                               "failure:measurement_window_clock_mismatch"}) {
    EXPECT_TRUE(reasons.count(expected)) << expected;
  }
}

// `results process` on a multi-node row beside process_result.py, which runs the same aggregation
// on $POWER_ARTIFACT_DIR: a valid package, and none at all.
TEST_F(MultinodePowerParity, ProcessResultRunsTheMultinodeAggregation) {
  INFERMARK_REQUIRE_REFERENCE({"utils/process_result.py"});
  const std::string script = test::ReferencePath("utils/process_result.py");
  const std::vector<std::string> env{"env",
                                     "-u",
                                     "REQUIRE_POWER",
                                     "-u",
                                     "GPU_METRICS_CSV",
                                     "TZ=UTC",
                                     "RUNNER_TYPE=gb200",
                                     "FRAMEWORK=dynamo-sglang",
                                     "PRECISION=fp8",
                                     "SPEC_DECODING=none",
                                     "ISL=8192",
                                     "OSL=1024",
                                     "DISAGG=true",
                                     "MODEL_PREFIX=dsr1",
                                     "IMAGE=x:1",
                                     "IS_MULTINODE=true",
                                     "PREFILL_GPUS=2",
                                     "DECODE_GPUS=2",
                                     "PREFILL_NUM_WORKERS=1",
                                     "PREFILL_TP=2",
                                     "PREFILL_EP=2",
                                     "PREFILL_DP_ATTN=false",
                                     "DECODE_NUM_WORKERS=1",
                                     "DECODE_TP=2",
                                     "DECODE_EP=2",
                                     "DECODE_DP_ATTN=false",
                                     "RESULT_FILENAME=renamed_by_launcher",
                                     "POWER_PRODUCER_SHA=" + std::string(kSha)};
  int compared = 0;
  for (const bool with_package : {true, false}) {
    const std::string name = with_package ? "process_valid" : "process_no_package";
    SCOPED_TRACE(name);
    const fs::path model = root_ / name / "model";
    Json bench = Json::parse(ReadFile(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")));
    const Json fields = Bench();
    for (const auto& [key, value] : fields.items()) bench[key] = value;
    BuildPackage(model, nullptr, bench);
    fs::remove(model / "agg_renamed_by_launcher.json");
    if (!with_package) fs::remove_all(model / "LOGS/power");
    std::map<std::string, ProcessResult> ran;
    for (const std::string side : {"ref", "ours"}) {
      const fs::path dir = root_ / name / side;
      fs::copy(model, dir, fs::copy_options::recursive);
      std::vector<std::string> argv = env;
      if (side == "ref") {
        argv.insert(argv.end(), {"python3", script});
      } else {
        argv.insert(argv.end(), {test::Binary(), "results", "process", "-q"});
      }
      ran[side] = RunCapture(argv, dir.string());
    }
    ASSERT_EQ(ran["ref"].exit_code, 0) << ran["ref"].err;
    ASSERT_EQ(ran["ours"].exit_code, 0) << ran["ours"].err;
    const Json ref_agg = ReadJson(root_ / name / "ref" / "agg_renamed_by_launcher.json");
    const Json our_agg = ReadJson(root_ / name / "ours" / "agg_renamed_by_launcher.json");
    EXPECT_EQ(DumpJson(ref_agg), DumpJson(our_agg));
    EXPECT_EQ(ref_agg["power_valid"], with_package ? 1 : 0);
    const std::string sidecar = "power_validation_renamed_by_launcher.json";
    EXPECT_EQ(ReadFile((root_ / name / "ref" / sidecar).string()),
              ReadFile((root_ / name / "ours" / sidecar).string()));
    ++compared;
  }
  EXPECT_EQ(compared, 2);
}

}  // namespace
}  // namespace infermark

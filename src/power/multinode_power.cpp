#include "power/multinode_power.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "power/indented_json.hpp"
#include "power/power_aggregation.hpp"
#include "power/power_integration.hpp"
#include "power/python_csv.hpp"
#include "power/python_path.hpp"
#include "power/python_value.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

// srt-slurm's dcgm-power v1 wire contract.
constexpr int kSchemaVersion = 1;
constexpr const char* kProducer = "srt-slurm.dcgm-power";
constexpr const char* kPowerMetric = "DCGM_FI_DEV_POWER_USAGE";
constexpr const char* kPowerUnit = "W";
constexpr const char* kPowerScope = "gpu_device_board_as_reported_by_dcgm";
constexpr const char* kClockSource = "head_node_unix_clock";
const std::vector<std::string> kSamplesColumns = {"schema_version", "timestamp_unix", "scrape_seq", "hostname",
                                                  "gpu_index",      "gpu_uuid",       "power_w"};
// Fixed by the producer contract, not a multiple of the sample interval.
constexpr double kMaxSampleGapS = 3.0;
constexpr double kClockToleranceS = 0.5;
constexpr double kClockToleranceFraction = 0.01;
constexpr const char* kMultinodeIntegrationMethod = "per_device_trapezoidal_with_linear_boundary_interpolation";
const std::vector<std::string> kFatalLifecycle = {"exporter_exited", "collector_exception", "collector_interrupted",
                                                  "collector_join_timeout", "benchmark_child_reap_timeout"};
const std::vector<std::string> kStartupFailures = {"exporter_startup_timeout", "exporter_launch_failed",
                                                   "endpoint_resolution_failed"};

using DeviceKey = std::pair<std::string, long long>;  // hostname, GPU index
using WindowKey = std::pair<std::string, long long>;  // benchmark type, concurrency

// A Python exception raised while parsing the manifest: its repr() goes into the failure text.
struct PythonError : std::runtime_error {
  explicit PythonError(const std::string& repr) : std::runtime_error(repr) {}
};

[[noreturn]] void Raise(const std::string& type, const std::string& message) {
  throw PythonError(type + "(" + PythonStringRepr(message) + ")");
}

std::string PythonTypeName(const Json& v) {
  if (v.is_null()) return "NoneType";
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "int";
  if (v.is_number_float()) return "float";
  if (v.is_string()) return "str";
  if (v.is_array()) return "list";
  return "dict";
}

// `value.get(key)` of a decoded value: AttributeError unless it is a dict.
Json Get(const Json& value, const std::string& key) {
  if (!value.is_object()) Raise("AttributeError", "'" + PythonTypeName(value) + "' object has no attribute 'get'");
  const auto it = value.find(key);
  return it == value.end() ? Json() : *it;
}

// `value[key]` of a decoded value.
Json Subscript(const Json& value, const std::string& key) {
  if (value.is_object()) {
    const auto it = value.find(key);
    if (it == value.end()) throw PythonError("KeyError(" + PythonStringRepr(key) + ")");
    return *it;
  }
  if (value.is_array()) Raise("TypeError", "list indices must be integers or slices, not str");
  if (value.is_string()) Raise("TypeError", "string indices must be integers, not 'str'");
  Raise("TypeError", "'" + PythonTypeName(value) + "' object is not subscriptable");
}

bool IsInt(const Json& v) {
  return v.is_number_integer();
}
bool IsFinite(const Json& v) {
  return v.is_number() && std::isfinite(v.get<double>());
}
bool IsPositiveFinite(const Json& v) {
  return IsFinite(v) && v.get<double>() > 0;
}

std::string Text(const Json& value, const std::string& label) {
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    Raise("ValueError", label + " is not a non-empty string: " + PythonRepr(value));
  }
  return value.get<std::string>();
}

long long Whole(const Json& value, const std::string& label, long long minimum) {
  if (!IsInt(value) || value.get<long long>() < minimum) {
    Raise("ValueError", label + " is not an integer >= " + std::to_string(minimum) + ": " + PythonRepr(value));
  }
  return value.get<long long>();
}

std::vector<std::string> Dedupe(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) AddPowerReason(out, v);
  return out;
}

struct Assignment {
  std::string role;
  std::optional<long long> het_group;
};

struct ExpectedDevice {
  std::string hostname;
  long long gpu_index = 0;
  std::vector<Assignment> assignments;
  DeviceKey key() const { return {hostname, gpu_index}; }
};

struct SampleRow {
  double time = 0;
  long long seq = 0;
  std::string hostname;
  long long gpu_index = 0;
  std::string uuid;
  double watts = 0;
};

struct ObservedDevice {
  std::string hostname;
  long long gpu_index = 0;
  std::vector<std::string> uuids;
  double first = 0;
  double last = 0;
  std::vector<double> times;  // sorted
  DeviceKey key() const { return {hostname, gpu_index}; }
  Json ToJson() const {
    Json out = Json::object();
    out["hostname"] = hostname;
    out["gpu_index"] = gpu_index;
    out["gpu_uuids"] = uuids;
    out["first_sample_time_unix"] = first;
    out["last_sample_time_unix"] = last;
    return out;
  }
};

struct ParsedWindow {
  std::string relative_path;
  std::string benchmark_type;
  long long concurrency = 0;
  std::string result_path;
  std::string status;
  double start = 0;
  std::optional<double> end;
  std::optional<double> duration;
};

std::vector<ExpectedDevice> ParseExpectedDevices(const Json& manifest) {
  Json entries = Get(manifest, "expected_devices");
  if (!PythonTruthy(entries)) entries = Json::array();
  if (!entries.is_array()) Raise("TypeError", "expected_devices is not a list: " + PythonRepr(entries));
  std::vector<ExpectedDevice> devices;
  for (const Json& entry : entries) {
    Json raw = Get(entry, "assignments");
    if (!PythonTruthy(raw)) raw = Json::array();
    if (!raw.is_array() || raw.empty()) {
      Raise("ValueError", "assignments is not a non-empty list: " + PythonRepr(raw));
    }
    ExpectedDevice device;
    for (const Json& a : raw) {
      Assignment assignment;
      const Json role = Subscript(a, "worker_role");
      if (!(role == "prefill" || role == "decode" || role == "agg")) {
        Raise("ValueError", "worker_role is not one of ('prefill', 'decode', 'agg'): " + PythonRepr(role));
      }
      assignment.role = role.get<std::string>();
      Whole(Subscript(a, "worker_index"), "worker_index", 0);
      Whole(Subscript(a, "worker_process"), "worker_process", 0);
      const Json group = Get(a, "het_group");
      if (!group.is_null()) assignment.het_group = Whole(Subscript(a, "het_group"), "het_group", 0);
      device.assignments.push_back(assignment);
    }
    device.hostname = Text(Subscript(entry, "hostname"), "hostname");
    device.gpu_index = Whole(Subscript(entry, "gpu_index"), "gpu_index", 0);
    devices.push_back(std::move(device));
  }
  return devices;
}

std::vector<WindowKey> ParseExpectedWindows(const Json& manifest) {
  Json entries = Get(manifest, "expected_windows");
  if (!PythonTruthy(entries)) entries = Json::array();
  if (!entries.is_array()) Raise("TypeError", "expected_windows is not a list: " + PythonRepr(entries));
  std::vector<WindowKey> windows;
  for (const Json& entry : entries) {
    std::string type = Text(Subscript(entry, "benchmark_type"), "benchmark_type");
    windows.emplace_back(std::move(type), Whole(Subscript(entry, "concurrency"), "concurrency", 1));
  }
  return windows;
}

std::vector<std::string> CheckWireContract(const Json& manifest) {
  std::vector<std::string> failures;
  const std::pair<const char*, Json> expected[] = {
      {"schema_version", kSchemaVersion}, {"producer", kProducer},
      {"source_metric", kPowerMetric},    {"unit", kPowerUnit},
      {"power_scope", kPowerScope},       {"timestamp_source", kClockSource}};
  for (const auto& [key, want] : expected) {
    const Json have = Get(manifest, key);
    if (!PythonEqual(have, want)) {
      failures.push_back(std::string(key) + " is " + PythonRepr(have) + ", expected " + PythonRepr(want));
    }
  }
  const Json status = Get(manifest, "status");
  if (!(status == "complete")) failures.push_back("status is " + PythonRepr(status) + ", expected 'complete'");
  if (!IsFinite(Get(manifest, "started_at_unix"))) failures.emplace_back("started_at_unix is not a finite number");
  if (!IsFinite(Get(manifest, "stopped_at_unix"))) {
    failures.emplace_back("stopped_at_unix is not finite in a terminal manifest");
  }
  for (const char* key : {"sample_interval_seconds", "request_timeout_seconds"}) {
    if (!IsPositiveFinite(Get(manifest, key))) failures.push_back(std::string(key) + " is not finite and positive");
  }
  for (const char* key : {"scrape_count", "sample_row_count"}) {
    const Json v = Get(manifest, key);
    if (!IsInt(v) || v.get<long long>() < 0) failures.push_back(std::string(key) + " is not a non-negative integer");
  }
  const Json required = Get(manifest, "required");
  if (!required.is_boolean()) failures.push_back("required is " + PythonRepr(required) + ", expected a boolean");
  const Json reasons = Get(manifest, "reason_codes");
  const bool all_text =
      reasons.is_array() && std::all_of(reasons.begin(), reasons.end(), [](const Json& r) { return r.is_string(); });
  if (!all_text) {
    failures.emplace_back("reason_codes is not a list of strings");
  } else {
    std::set<std::string> blocking(kFatalLifecycle.begin(), kFatalLifecycle.end());
    if (required == true) blocking.insert(kStartupFailures.begin(), kStartupFailures.end());
    std::set<std::string> incompatible;
    for (const Json& r : reasons) {
      if (blocking.count(r.get<std::string>())) incompatible.insert(r.get<std::string>());
    }
    if (!incompatible.empty()) {
      std::string list;
      for (const std::string& r : incompatible) list += (list.empty() ? "" : ", ") + r;
      failures.push_back("complete manifest carries lifecycle-failure reasons: " + list);
    }
  }
  const Json exporter = Get(manifest, "dcgm_exporter");
  if (!exporter.is_object()) {
    failures.emplace_back("dcgm_exporter is not an object");
  } else if (!PythonTruthy(Get(exporter, "container_image_resolved"))) {
    failures.emplace_back("dcgm_exporter.container_image_resolved is empty");
  }
  return failures;
}

std::optional<SampleRow> ParseSampleRow(const std::vector<std::string>& raw) {
  if (raw.size() != kSamplesColumns.size()) return std::nullopt;
  const auto schema = PythonInt(raw[0]);
  const auto time = PythonFloat(raw[1]);
  const auto seq = PythonInt(raw[2]);
  const auto index = PythonInt(raw[4]);
  const auto watts = PythonFloat(raw[6]);
  if (!schema || !time || !seq || !index || !watts) return std::nullopt;
  if (*schema != kSchemaVersion || raw[3].empty() || raw[5].empty()) return std::nullopt;
  if (!std::isfinite(*time) || !std::isfinite(*watts) || *watts < 0) return std::nullopt;
  if (*seq < 0 || *index < 0) return std::nullopt;
  return SampleRow{*time, *seq, raw[3], *index, raw[5], *watts};
}

std::vector<SampleRow> ReadSamples(const fs::path& path, std::vector<std::string>& reasons) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    reasons = {"samples_csv_missing"};
    return {};
  }
  std::vector<SampleRow> rows;
  std::string text;
  try {
    text = ReadFile(path.string());
  } catch (const std::exception&) {
    reasons.emplace_back("samples_csv_malformed");
  }
  if (DecodeUtf8Replace(text) != text) {
    reasons.emplace_back("samples_csv_malformed");
    text.clear();
  }
  bool read_error = false;
  const auto records = ParseCsvRecords(text, false, read_error);
  if (records.empty() || records.front() != kSamplesColumns) {
    if (reasons.empty()) reasons = {"samples_csv_header_mismatch"};
    return {};
  }
  for (std::size_t i = 1; i < records.size(); ++i) {
    if (auto row = ParseSampleRow(records[i])) {
      rows.push_back(std::move(*row));
    } else {
      reasons.emplace_back("samples_csv_malformed");
    }
  }
  if (read_error) reasons.emplace_back("samples_csv_malformed");

  std::set<std::tuple<long long, std::string, long long>> seen;
  std::vector<SampleRow> unique;
  for (SampleRow& row : rows) {
    if (!seen.insert({row.seq, row.hostname, row.gpu_index}).second) {
      reasons.emplace_back("duplicate_sample_row");
      continue;
    }
    unique.push_back(std::move(row));
  }
  // Per device in first-seen order, scrape order must be time order.
  std::vector<DeviceKey> order;
  std::map<DeviceKey, std::vector<const SampleRow*>> per_device;
  for (const SampleRow& row : unique) {
    auto& list = per_device[{row.hostname, row.gpu_index}];
    if (list.empty()) order.emplace_back(row.hostname, row.gpu_index);
    list.push_back(&row);
  }
  for (const DeviceKey& key : order) {
    auto ordered = per_device[key];
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const SampleRow* a, const SampleRow* b) { return a->seq < b->seq; });
    bool broken = false;
    for (std::size_t i = 1; i < ordered.size(); ++i) broken = broken || ordered[i]->time <= ordered[i - 1]->time;
    if (broken) {
      reasons.emplace_back("timestamp_non_monotonic");
      break;
    }
  }
  reasons = Dedupe(reasons);
  return unique;
}

std::vector<ObservedDevice> DeriveObserved(const std::vector<SampleRow>& rows) {
  std::map<DeviceKey, std::vector<const SampleRow*>> grouped;
  for (const SampleRow& row : rows) grouped[{row.hostname, row.gpu_index}].push_back(&row);
  std::vector<ObservedDevice> devices;
  for (auto& [key, list] : grouped) {
    std::stable_sort(list.begin(), list.end(), [](const SampleRow* a, const SampleRow* b) { return a->seq < b->seq; });
    ObservedDevice d;
    d.hostname = key.first;
    d.gpu_index = key.second;
    for (const SampleRow* r : list) {
      if (std::find(d.uuids.begin(), d.uuids.end(), r->uuid) == d.uuids.end()) d.uuids.push_back(r->uuid);
      d.times.push_back(r->time);
    }
    std::sort(d.times.begin(), d.times.end());
    d.first = d.times.front();
    d.last = d.times.back();
    devices.push_back(std::move(d));
  }
  return devices;
}

// Each expected device's single role; empty on a conflict.
std::map<DeviceKey, std::string> ResolveRoles(const std::vector<ExpectedDevice>& devices, bool& conflict) {
  std::map<DeviceKey, std::string> roles;
  conflict = false;
  for (const ExpectedDevice& d : devices) {
    std::set<std::string> distinct;
    for (const Assignment& a : d.assignments) distinct.insert(a.role);
    if (distinct.size() != 1) {
      conflict = true;
      return {};
    }
    roles[d.key()] = *distinct.begin();
  }
  return roles;
}

// Each host's single het group (nullopt: none); empty with `conflict` when they disagree.
std::map<std::string, std::optional<long long>> ResolveHetGroups(const std::vector<ExpectedDevice>& devices,
                                                                 bool& conflict) {
  std::map<std::string, std::optional<long long>> groups;
  conflict = false;
  for (const ExpectedDevice& d : devices) {
    std::set<std::optional<long long>> distinct;
    for (const Assignment& a : d.assignments) distinct.insert(a.het_group);
    const auto known = groups.find(d.hostname);
    if (distinct.size() != 1 || (known != groups.end() && known->second != *distinct.begin())) {
      conflict = true;
      return {};
    }
    groups[d.hostname] = *distinct.begin();
  }
  return groups;
}

std::vector<std::string> ValidateDevices(const std::vector<ExpectedDevice>& expected,
                                         const std::vector<ObservedDevice>& observed,
                                         std::map<DeviceKey, std::string>& roles) {
  std::vector<std::string> reasons;
  std::set<DeviceKey> expected_keys;
  std::set<DeviceKey> observed_keys;
  for (const auto& d : expected) expected_keys.insert(d.key());
  for (const auto& d : observed) observed_keys.insert(d.key());
  const bool missing = std::any_of(expected_keys.begin(), expected_keys.end(),
                                   [&](const DeviceKey& k) { return !observed_keys.count(k); });
  if (expected_keys.empty() || missing) reasons.emplace_back("expected_device_missing");
  if (std::any_of(observed_keys.begin(), observed_keys.end(),
                  [&](const DeviceKey& k) { return !expected_keys.count(k); })) {
    reasons.emplace_back("unexpected_device");
  }
  // A UUID must map 1:1 to a device, or one physical GPU is counted twice.
  if (std::any_of(observed.begin(), observed.end(), [](const ObservedDevice& d) { return d.uuids.size() != 1; })) {
    reasons.emplace_back("gpu_uuid_changed");
  } else {
    std::set<std::string> uuids;
    for (const auto& d : observed) uuids.insert(d.uuids.front());
    if (uuids.size() != observed.size()) reasons.emplace_back("gpu_uuid_changed");
  }
  bool role_conflict = false;
  bool group_conflict = false;
  roles = ResolveRoles(expected, role_conflict);
  ResolveHetGroups(expected, group_conflict);
  if (role_conflict) reasons.emplace_back("conflicting_worker_roles");
  if (group_conflict) reasons.emplace_back("conflicting_het_groups");
  return Dedupe(reasons);
}

std::string ReprList(const std::vector<std::string>& items) {
  Json list = Json::array();
  for (const std::string& item : items) list.push_back(item);
  return PythonRepr(list);
}

std::vector<std::string> CheckRoleTopology(const std::vector<ExpectedDevice>& devices,
                                           const std::map<DeviceKey, std::string>& roles,
                                           const std::map<std::string, long long>& expected_roles) {
  std::vector<std::string> failures;
  std::map<std::string, long long> counts;
  for (const auto& [key, role] : roles) ++counts[role];
  std::vector<std::string> want;
  std::vector<std::string> have;
  for (const auto& [role, n] : expected_roles) want.push_back(role);
  for (const auto& [role, n] : counts) have.push_back(role);
  if (want != have) failures.push_back("expected roles " + ReprList(want) + ", found " + ReprList(have));
  for (const auto& [role, count] : expected_roles) {
    const long long found = counts.count(role) ? counts.at(role) : 0;
    if (found != count) {
      failures.push_back("expected " + std::to_string(count) + " " + role + " GPUs, found " + std::to_string(found));
    }
  }
  bool conflict = false;
  const auto groups = ResolveHetGroups(devices, conflict);
  if (conflict) {
    failures.emplace_back("conflicting_het_groups (topology)");
    return failures;
  }
  std::map<std::string, std::set<std::optional<long long>>> per_role;
  for (const ExpectedDevice& d : devices) {
    const auto it = roles.find(d.key());
    if (it != roles.end()) per_role[it->second].insert(groups.at(d.hostname));
  }
  const bool non_het = std::all_of(groups.begin(), groups.end(), [](const auto& g) { return !g.second; });
  std::vector<long long> assigned;
  for (const auto& [role, role_groups] : per_role) {
    if (role_groups.size() != 1) {
      // sorted(role_groups, key=str): numbers as text, None as "None".
      std::vector<std::pair<std::string, std::string>> named;
      for (const auto& g : role_groups) {
        const std::string text = g ? std::to_string(*g) : "None";
        named.emplace_back(text, text);
      }
      std::sort(named.begin(), named.end());
      std::string list;
      for (const auto& [key, text] : named) list += (list.empty() ? "" : ", ") + text;
      failures.push_back("role " + role + " spans het groups [" + list + "], expected exactly one");
      continue;
    }
    const auto group = *role_groups.begin();
    if (!group) {
      if (!non_het) {
        failures.push_back("role " + role + " has het group None while other devices report real het groups");
      }
      continue;
    }
    assigned.push_back(*group);
  }
  if (std::set<long long>(assigned.begin(), assigned.end()).size() != assigned.size()) {
    failures.emplace_back("roles share a het group");
  }
  return failures;
}

// Python's `PurePosixPath(value).parts` holds no `..` and something, and value is relative.
bool IsSafeRelativeSubpath(const std::string& value) {
  if (value.empty() || value.front() == '/' || value.front() == '~') return false;
  bool any = false;
  std::size_t at = 0;
  while (at <= value.size()) {
    const std::size_t end = std::min(value.find('/', at), value.size());
    const std::string part = value.substr(at, end - at);
    if (part == "..") return false;
    if (!part.empty() && part != ".") any = true;
    at = end + 1;
  }
  return any;
}

// `(root / relative).resolve()` stays inside `root.resolve()`.
bool StaysBelow(const fs::path& root, const std::string& relative) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::absolute(root, ec), ec);
  if (ec) return false;
  const fs::path target = fs::weakly_canonical(fs::absolute(root / relative, ec), ec);
  if (ec) return false;
  const auto mismatch = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
  return mismatch.first == base.end();
}

std::optional<Json> ReadJsonFile(const fs::path& path) {
  std::string text;
  try {
    text = ReadFile(path.string());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (DecodeUtf8Replace(text) != text || text.rfind("\xEF\xBB\xBF", 0) == 0) return std::nullopt;
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

bool StatusInvariantsHold(const std::string& status, const Json& end, const Json& duration, const Json& reason) {
  const bool reason_text = reason.is_string() && !reason.get_ref<const std::string&>().empty();
  if (status == "running") return end.is_null() && duration.is_null() && reason.is_null();
  if (status == "interrupted") return end.is_null() && duration.is_null() && reason_text;
  if (!IsFinite(end) || !IsFinite(duration) || duration.get<double>() <= 0) return false;
  if (status == "completed") return reason.is_null();
  return reason_text;
}

std::optional<ParsedWindow> ParseWindow(const fs::path& path, const std::string& relative, const fs::path& result_root,
                                        std::string& reason) {
  reason = "measurement_window_malformed";
  const std::optional<Json> payload = ReadJsonFile(path);
  if (!payload || !payload->is_object()) return std::nullopt;
  const auto get = [&](const char* key) { return payload->contains(key) ? (*payload)[key] : Json(); };
  const Json status = get("status");
  const Json concurrency = get("concurrency");
  const Json type = get("benchmark_type");
  const Json start = get("benchmark_start_time_unix");
  const bool allowed = status == "running" || status == "completed" || status == "failed" || status == "interrupted";
  if (!PythonEqual(get("schema_version"), kSchemaVersion) || !(get("clock_source") == kClockSource) || !allowed ||
      !type.is_string() || !(IsInt(concurrency) || concurrency.is_boolean()) || !IsFinite(start)) {
    return std::nullopt;
  }
  const Json result_path = get("result_path");
  reason = "measurement_window_result_path_invalid";
  if (!result_path.is_string() || !IsSafeRelativeSubpath(result_path.get<std::string>())) return std::nullopt;
  if (!StaysBelow(result_root, result_path.get<std::string>()) ||
      PythonPathStem(result_path.get<std::string>()) != PythonPathStem(path.filename().string())) {
    return std::nullopt;
  }
  const Json end = get("benchmark_end_time_unix");
  const Json duration = get("duration");
  reason = "measurement_window_malformed";
  if (!StatusInvariantsHold(status.get<std::string>(), end, duration, get("reason"))) return std::nullopt;
  reason.clear();
  ParsedWindow w;
  w.relative_path = relative;
  w.benchmark_type = type.get<std::string>();
  w.concurrency = concurrency.is_boolean() ? (concurrency.get<bool>() ? 1 : 0) : concurrency.get<long long>();
  w.result_path = result_path.get<std::string>();
  w.status = status.get<std::string>();
  w.start = start.get<double>();
  if (!end.is_null()) w.end = end.get<double>();
  if (!duration.is_null()) w.duration = duration.get<double>();
  return w;
}

Json ArtifactError(const std::string& path, const std::string& reason) {
  Json e = Json::object();
  e["path"] = path;
  e["reason_codes"] = Json::array({reason});
  return e;
}

// The windows folder's files by key, in file-name order (duplicated keys dropped).
std::vector<std::pair<WindowKey, ParsedWindow>> ScanWindows(const fs::path& windows_dir, const fs::path& result_root,
                                                            Json& artifact_errors, std::set<WindowKey>& duplicates) {
  std::vector<std::pair<WindowKey, ParsedWindow>> parsed;
  std::error_code ec;
  if (!fs::is_directory(windows_dir, ec)) return parsed;
  if (!StaysBelow(windows_dir.parent_path(), "windows")) {
    artifact_errors.push_back(ArtifactError("windows", "measurement_window_artifact_path_invalid"));
    return parsed;
  }
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(windows_dir, ec)) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  for (const fs::path& path : entries) {
    const std::string relative = "windows/" + path.filename().string();
    if (fs::is_symlink(path, ec) || !fs::is_regular_file(path, ec)) {
      artifact_errors.push_back(ArtifactError(relative, "measurement_window_artifact_path_invalid"));
      continue;
    }
    std::string reason;
    std::optional<ParsedWindow> window = ParseWindow(path, relative, result_root, reason);
    if (!window) {
      artifact_errors.push_back(ArtifactError(relative, reason));
      continue;
    }
    const WindowKey key{window->benchmark_type, window->concurrency};
    const auto known = std::find_if(parsed.begin(), parsed.end(), [&](const auto& p) { return p.first == key; });
    if (known != parsed.end()) {
      duplicates.insert(key);
      artifact_errors.push_back(ArtifactError(known->second.relative_path, "measurement_window_duplicate"));
      artifact_errors.push_back(ArtifactError(relative, "measurement_window_duplicate"));
      continue;
    }
    parsed.emplace_back(key, std::move(*window));
  }
  parsed.erase(
      std::remove_if(parsed.begin(), parsed.end(), [&](const auto& p) { return duplicates.count(p.first) > 0; }),
      parsed.end());
  return parsed;
}

std::vector<std::string> CheckWindowResult(const ParsedWindow& w, const fs::path& result_root) {
  const fs::path file = result_root / w.result_path;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {"measurement_window_result_missing"};
  const std::optional<Json> result = ReadJsonFile(file);
  if (!result) return {"measurement_window_result_missing"};
  if (!result->is_object()) return {"measurement_window_result_mismatch"};
  const auto same = [&](const char* key, double want) {
    return result->contains(key) && PythonEqual((*result)[key], Json(want));
  };
  if (!same("benchmark_start_time_unix", w.start) || !same("benchmark_end_time_unix", *w.end) ||
      !same("duration", *w.duration)) {
    return {"measurement_window_result_mismatch"};
  }
  const double wall = *w.end - w.start;
  const double tolerance = std::max(kClockToleranceS, kClockToleranceFraction * *w.duration);
  if (std::fabs(wall - *w.duration) > tolerance) return {"measurement_window_clock_mismatch"};
  return {};
}

// The samples from the last at or before `start` to the first at or after `end`; empty when the
// window is not bracketed.
std::vector<double> BracketingSequence(const std::vector<double>& times, double start, double end) {
  std::optional<double> before;
  std::optional<double> after;
  std::vector<double> inside;
  for (const double t : times) {
    if (t <= start) before = t;
    if (t >= end && !after) after = t;
    if (start < t && t < end) inside.push_back(t);
  }
  if (!before || !after) return {};
  std::vector<double> out{*before};
  out.insert(out.end(), inside.begin(), inside.end());
  out.push_back(*after);
  return out;
}

double LargestGap(const std::vector<double>& sequence) {
  double largest = 0.0;
  for (std::size_t i = 1; i < sequence.size(); ++i) {
    const double gap = sequence[i] - sequence[i - 1];
    if (i == 1 || gap > largest) largest = gap;
  }
  return largest;
}

std::string Label(const ObservedDevice& d) {
  return d.hostname + "/" + d.uuids.front();
}

Json CheckCoverage(double start, double end, const std::set<DeviceKey>& expected_keys,
                   const std::vector<ObservedDevice>& observed, std::vector<std::string>& reasons) {
  Json gaps = Json::object();
  for (const DeviceKey& key : expected_keys) {
    const auto it = std::find_if(observed.begin(), observed.end(), [&](const auto& d) { return d.key() == key; });
    if (it == observed.end()) {
      reasons.emplace_back("measurement_window_not_bracketed");
      continue;
    }
    if (it->uuids.size() != 1) {
      reasons.emplace_back("gpu_uuid_changed");
      continue;
    }
    const std::vector<double> sequence = BracketingSequence(it->times, start, end);
    if (sequence.empty()) {
      reasons.emplace_back("measurement_window_not_bracketed");
      continue;
    }
    const double largest = LargestGap(sequence);
    gaps[Label(*it)] = largest;
    if (largest > kMaxSampleGapS) reasons.emplace_back("sample_gap_exceeded");
  }
  return gaps;
}

// The producer's per-expected-window audit rows, recomputed.
Json ValidateExpectedWindows(const fs::path& power_dir, const fs::path& result_root,
                             const std::vector<WindowKey>& expected_windows, const std::set<DeviceKey>& device_keys,
                             const std::vector<ObservedDevice>& observed, Json& artifact_errors,
                             std::vector<std::pair<WindowKey, ParsedWindow>>& parsed) {
  std::set<WindowKey> duplicates;
  parsed = ScanWindows(power_dir / "windows", result_root, artifact_errors, duplicates);
  const std::set<WindowKey> expected_keys(expected_windows.begin(), expected_windows.end());
  auto by_key = parsed;
  std::sort(by_key.begin(), by_key.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, window] : by_key) {
    if (!expected_keys.count(key)) {
      artifact_errors.push_back(ArtifactError(window.relative_path, "measurement_window_unexpected"));
    }
  }
  Json validations = Json::array();
  for (const WindowKey& want : expected_windows) {
    const auto it = std::find_if(parsed.begin(), parsed.end(), [&](const auto& p) { return p.first == want; });
    Json row = Json::object();
    row["benchmark_type"] = want.first;
    row["concurrency"] = want.second;
    if (it == parsed.end()) {
      row["window_file"] = nullptr;
      row["power_coverage_valid"] = false;
      row["reason_codes"] =
          Json::array({duplicates.count(want) ? "measurement_window_duplicate" : "measurement_window_missing"});
      row["per_device_max_sample_gap_seconds"] = Json::object();
      validations.push_back(row);
      continue;
    }
    const ParsedWindow& window = it->second;
    std::vector<std::string> reasons;
    if (window.status != "completed") {
      reasons.emplace_back("measurement_window_incomplete");
    } else {
      reasons = CheckWindowResult(window, result_root);
    }
    Json gaps = Json::object();
    if (reasons.empty()) {
      std::vector<std::string> coverage;
      gaps = CheckCoverage(window.start, *window.end, device_keys, observed, coverage);
      reasons.insert(reasons.end(), coverage.begin(), coverage.end());
      if (!coverage.empty()) gaps = Json::object();
    }
    row["window_file"] = window.relative_path;
    row["power_coverage_valid"] = reasons.empty();
    row["reason_codes"] = Dedupe(reasons);
    row["per_device_max_sample_gap_seconds"] = gaps;
    validations.push_back(row);
  }
  return validations;
}

std::vector<std::string> CheckStoredEvidence(const Json& manifest, const std::vector<ExpectedDevice>& devices,
                                             const std::vector<WindowKey>& windows, const std::vector<SampleRow>& rows,
                                             const std::vector<ObservedDevice>& observed, const Json& validations,
                                             const Json& artifact_errors) {
  std::vector<std::string> failures;
  const Json stored_rows = Get(manifest, "sample_row_count");
  if (!PythonEqual(stored_rows, Json(static_cast<long long>(rows.size())))) {
    failures.push_back("sample_row_count is " + PythonRepr(stored_rows) + ", disk has " + std::to_string(rows.size()) +
                       " rows");
  }
  const Json stored_scrapes = Get(manifest, "scrape_count");
  if (!rows.empty()) {
    long long least = 0;
    for (const SampleRow& r : rows) least = std::max(least, r.seq + 1);
    if (!IsInt(stored_scrapes) || stored_scrapes.get<long long>() < least) {
      failures.push_back("scrape_count is " + PythonRepr(stored_scrapes) + ", disk needs at least " +
                         std::to_string(least));
    }
  }
  if (observed.empty()) failures.emplace_back("observed_devices is empty");
  Json derived = Json::array();
  for (const ObservedDevice& d : observed) derived.push_back(d.ToJson());
  if (!PythonEqual(Get(manifest, "observed_devices"), derived)) {
    failures.emplace_back("observed_devices does not match the devices derived from samples.csv");
  }
  if (!PythonEqual(Get(manifest, "window_validations"), validations)) {
    failures.emplace_back("window_validations does not match the recomputed window audit");
  }
  if (!PythonEqual(Get(manifest, "artifact_errors"), artifact_errors)) {
    failures.emplace_back("artifact_errors does not match the recomputed artifact scan");
  }
  std::set<DeviceKey> device_keys;
  for (const auto& d : devices) device_keys.insert(d.key());
  if (device_keys.size() != devices.size()) failures.emplace_back("expected_devices contains duplicate keys");
  if (std::set<WindowKey>(windows.begin(), windows.end()).size() != windows.size()) {
    failures.emplace_back("expected_windows contains duplicate keys");
  }
  return failures;
}

// Everything the sidecar needs to explain the verdict.
struct Audit {
  bool power_valid = false;
  std::vector<std::string> reasons;
  std::vector<std::string> failures;
  Json stored_publication_valid;
  Json recomputed_publication_valid;
  Json producer_git_commit;
  Json expected_producer_git_commit;
  Json exporter_image_sha256;
  Json window;
  Json per_gpu_energy_j = Json::object();
  Json per_gpu_role = Json::object();
  Json per_gpu_max_sample_gap_s = Json::object();
  long long observed_gpu_count = 0;
  long long expected_gpu_count = 0;
  Json metrics = Json::object();

  void Add(const std::string& reason, const std::string& detail = "") {
    AddPowerReason(reasons, reason);
    if (!detail.empty()) failures.push_back(detail);
  }
};

// Binds the processed result to its one completed window by content, not by name.
const ParsedWindow* SelectWindow(Audit& audit, const std::vector<std::pair<WindowKey, ParsedWindow>>& parsed,
                                 const fs::path& logs_root, const std::string& bench_path,
                                 const std::optional<PowerBenchmark>& benchmark) {
  const std::optional<Json> processed = ReadJsonFile(bench_path);
  if (!processed) {
    audit.Add("invalid_benchmark_result", "unreadable result: " + PythonPathText(bench_path));
    return nullptr;
  }
  if (!processed->is_object()) {
    audit.Add("invalid_benchmark_result", "processed result is not an object");
    return nullptr;
  }
  const Json concurrency = processed->contains("max_concurrency") ? (*processed)["max_concurrency"] : Json();
  std::vector<const ParsedWindow*> matches;
  for (const auto& [key, window] : parsed) {
    if (window.status == "completed" && PythonEqual(Json(window.concurrency), concurrency)) matches.push_back(&window);
  }
  if (matches.size() != 1) {
    audit.Add("window_for_result_missing", "found " + std::to_string(matches.size()) +
                                               " completed windows for concurrency " + PythonRepr(concurrency));
    return nullptr;
  }
  const ParsedWindow& window = *matches.front();
  const fs::path original_path = logs_root / window.result_path;
  const std::optional<Json> original = ReadJsonFile(original_path);
  if (!original) {
    audit.Add("measurement_window_result_missing",
              "original result unreadable: " + PythonPathText(original_path.string()));
    return nullptr;
  }
  if (DumpJson(*original, kCanonicalJson) != DumpJson(*processed, kCanonicalJson)) {
    audit.Add("result_content_mismatch",
              "workspace copy " + PythonPathName(bench_path) + " differs from original " + window.result_path);
    return nullptr;
  }
  if (benchmark && (benchmark->start != window.start || benchmark->end != *window.end)) {
    audit.Add("measurement_window_result_mismatch", "benchmark window fields do not match the selected window file");
    return nullptr;
  }
  audit.window = Json::object();
  audit.window["window_file"] = window.relative_path;
  audit.window["result_path"] = window.result_path;
  audit.window["benchmark_type"] = window.benchmark_type;
  audit.window["concurrency"] = window.concurrency;
  audit.window["start_time_unix"] = window.start;
  audit.window["end_time_unix"] = *window.end;
  audit.window["duration"] = *window.duration;
  return &window;
}

// Recomputes the package's validity, checks the verdicts and gates, and integrates energy.
Audit ValidateAndIntegrate(const MultinodePowerOptions& options, const std::optional<PowerBenchmark>& benchmark) {
  Audit audit;
  audit.expected_producer_git_commit =
      options.expected_producer_sha ? Json(*options.expected_producer_sha) : Json(nullptr);
  const fs::path power_dir = options.power_dir;
  const fs::path logs_root = options.logs_root;
  std::error_code ec;
  if (!fs::is_directory(power_dir, ec)) {
    audit.Add("power_artifacts_missing", "power dir missing: " + PythonPathText(options.power_dir));
    return audit;
  }
  const fs::path manifest_path = power_dir / "manifest.json";
  if (!fs::is_regular_file(manifest_path, ec)) {
    audit.Add("manifest_missing", "manifest missing: " + PythonPathText(manifest_path.string()));
    return audit;
  }
  const std::optional<Json> read = ReadJsonFile(manifest_path);
  if (!read) {
    audit.Add("manifest_malformed", "manifest unreadable: not a JSON document");
    return audit;
  }
  const Json& manifest = *read;
  if (!manifest.is_object()) {
    audit.Add("manifest_malformed", "manifest is not an object");
    return audit;
  }
  const Json stored = Get(manifest, "publication_valid");
  audit.stored_publication_valid = stored.is_boolean() ? stored : Json(nullptr);
  const Json commit = Get(manifest, "producer_git_commit");
  audit.producer_git_commit = commit.is_string() ? commit : Json(nullptr);
  const Json exporter = Get(manifest, "dcgm_exporter");
  if (exporter.is_object()) {
    const Json sha = Get(exporter, "container_image_sha256");
    audit.exporter_image_sha256 = sha.is_string() ? sha : Json(nullptr);
  }

  // An unknown producer contract never publishes numbers.
  if (!options.expected_producer_sha || options.expected_producer_sha->empty()) {
    audit.Add("producer_pin_missing", "no expected producer SHA configured");
  } else if (!(audit.producer_git_commit == *options.expected_producer_sha)) {
    audit.Add("producer_commit_mismatch", "producer_git_commit " + PythonRepr(audit.producer_git_commit) +
                                              " != expected " + PythonStringRepr(*options.expected_producer_sha));
  }

  std::vector<std::string> recompute = CheckWireContract(manifest);
  std::vector<ExpectedDevice> devices;
  std::vector<WindowKey> windows;
  try {
    devices = ParseExpectedDevices(manifest);
    windows = ParseExpectedWindows(manifest);
  } catch (const PythonError& e) {
    audit.Add("manifest_malformed", std::string("manifest malformed: ") + e.what());
    audit.recomputed_publication_valid = false;
    return audit;
  }

  std::vector<std::string> sample_reasons;
  const std::vector<SampleRow> rows = ReadSamples(power_dir / "samples.csv", sample_reasons);
  for (const std::string& r : sample_reasons) recompute.push_back(r + " in samples.csv");
  const std::vector<ObservedDevice> observed = DeriveObserved(rows);
  std::map<DeviceKey, std::string> roles;
  for (const std::string& r : ValidateDevices(devices, observed, roles)) {
    recompute.push_back(r + " (device identity/topology)");
  }
  Json artifact_errors = Json::array();
  std::set<DeviceKey> device_keys;
  for (const auto& d : devices) device_keys.insert(d.key());
  std::vector<std::pair<WindowKey, ParsedWindow>> parsed;
  const Json validations =
      ValidateExpectedWindows(power_dir, logs_root, windows, device_keys, observed, artifact_errors, parsed);
  if (windows.empty()) recompute.emplace_back("no expected measurement window");
  for (const Json& v : validations) {
    for (const Json& r : v["reason_codes"]) {
      recompute.push_back(r.get<std::string>() + " (window " + v["benchmark_type"].get<std::string>() + "/" +
                          std::to_string(v["concurrency"].get<long long>()) + ")");
    }
  }
  for (const Json& e : artifact_errors) {
    for (const Json& r : e["reason_codes"]) {
      recompute.push_back(r.get<std::string>() + " (" + e["path"].get<std::string>() + ")");
    }
  }
  for (std::string& f : CheckStoredEvidence(manifest, devices, windows, rows, observed, validations, artifact_errors)) {
    recompute.push_back(std::move(f));
  }
  audit.recomputed_publication_valid = recompute.empty();
  audit.failures.insert(audit.failures.end(), recompute.begin(), recompute.end());
  if (!recompute.empty()) AddPowerReason(audit.reasons, "package_recompute_invalid");

  // The stored verdict is never trusted on its own: it must agree with the recomputation and be true.
  if (!(audit.stored_publication_valid == true) ||
      audit.stored_publication_valid != audit.recomputed_publication_valid) {
    if (audit.stored_publication_valid != audit.recomputed_publication_valid) {
      audit.Add("producer_verdict_mismatch", "stored publication_valid=" + PythonRepr(audit.stored_publication_valid) +
                                                 ", recomputed=" + PythonRepr(audit.recomputed_publication_valid));
    } else {
      audit.Add("package_recompute_invalid", "stored and recomputed both invalid");
    }
  }

  // The roles' GPU counts must be the row's.
  std::map<std::string, long long> expected_roles;
  if (options.prefill_gpus > 0) expected_roles["prefill"] = options.prefill_gpus;
  if (options.decode_gpus > 0) expected_roles["decode"] = options.decode_gpus;
  if (expected_roles.empty()) {
    audit.Add("topology_env_mismatch", "PREFILL_GPUS/DECODE_GPUS are both zero");
  } else if (!roles.empty()) {
    for (const std::string& f : CheckRoleTopology(devices, roles, expected_roles))
      audit.Add("topology_env_mismatch", f);
  }

  audit.expected_gpu_count = static_cast<long long>(devices.size());
  audit.observed_gpu_count = static_cast<long long>(observed.size());
  std::map<DeviceKey, std::string> uuid_label;
  for (const ObservedDevice& d : observed) {
    if (d.uuids.size() == 1) uuid_label[d.key()] = Label(d);
  }
  for (const auto& [key, role] : roles) {
    const auto it = uuid_label.find(key);
    audit.per_gpu_role[it != uuid_label.end() ? it->second : key.first + "/" + std::to_string(key.second)] = role;
  }

  const ParsedWindow* window = SelectWindow(audit, parsed, logs_root, options.bench_result, benchmark);
  if (!audit.reasons.empty() || window == nullptr || !benchmark) return audit;

  // Per-GPU trapezoids clipped to the window; the roles sum their GPUs.
  std::map<DeviceKey, std::vector<PowerSample>> samples;
  for (const SampleRow& row : rows) samples[{row.hostname, row.gpu_index}].push_back({row.time, row.watts});
  double prefill_energy = 0.0;
  double decode_energy = 0.0;
  for (const ExpectedDevice& d : devices) {
    std::vector<PowerSample> series = samples[d.key()];
    std::sort(series.begin(), series.end(), [](const PowerSample& a, const PowerSample& b) {
      return std::tie(a.time_unix, a.watts) < std::tie(b.time_unix, b.watts);
    });
    const std::string& label = uuid_label.at(d.key());
    const double energy = IntegrateDeviceEnergy(series, window->start, *window->end);
    audit.per_gpu_energy_j[label] = energy;
    const std::string& role = roles.at(d.key());
    if (role == "prefill") prefill_energy += energy;
    if (role == "decode") decode_energy += energy;
    const auto device =
        std::find_if(observed.begin(), observed.end(), [&](const auto& o) { return o.key() == d.key(); });
    audit.per_gpu_max_sample_gap_s[label] = LargestGap(BracketingSequence(device->times, window->start, *window->end));
  }

  const double duration = *window->end - window->start;
  double total = 0.0;
  for (const auto& [label, energy] : audit.per_gpu_energy_j.items()) total += energy.get<double>();
  const auto input = static_cast<double>(benchmark->input_tokens);
  const auto output = static_cast<double>(benchmark->output_tokens);
  Json metrics = Json::object();
  metrics["avg_power_w"] = total / duration / static_cast<double>(devices.size());
  metrics["avg_total_gpu_power_w"] = total / duration;
  metrics["total_gpu_energy_j"] = total;
  metrics["joules_per_successful_query"] = total / static_cast<double>(benchmark->completed);
  metrics["joules_per_input_token"] = total / input;
  metrics["joules_per_output_token"] = total / output;
  metrics["joules_per_total_token"] = total / static_cast<double>(benchmark->input_tokens + benchmark->output_tokens);
  if (options.prefill_gpus > 0) {
    metrics["prefill_gpu_energy_j"] = prefill_energy;
    metrics["prefill_avg_power_w"] = prefill_energy / duration / static_cast<double>(options.prefill_gpus);
    metrics["prefill_joules_per_input_token"] = prefill_energy / input;
  }
  if (options.decode_gpus > 0) {
    metrics["decode_gpu_energy_j"] = decode_energy;
    metrics["decode_avg_power_w"] = decode_energy / duration / static_cast<double>(options.decode_gpus);
    metrics["decode_joules_per_output_token"] = decode_energy / output;
  }
  // Absurd but finite samples can overflow during integration: invalid, never a stale record.
  std::vector<std::string> non_finite;
  for (const auto& [key, value] : metrics.items()) {
    if (!std::isfinite(value.get<double>())) non_finite.push_back(key);
  }
  if (!non_finite.empty()) {
    std::sort(non_finite.begin(), non_finite.end());
    std::string list;
    for (const std::string& k : non_finite) list += (list.empty() ? "" : ", ") + k;
    audit.Add("non_finite_power_metric", "non-finite: " + list);
    return audit;
  }
  audit.metrics = metrics;
  audit.power_valid = true;
  return audit;
}

Json MultinodeSidecar(const MultinodePowerOptions& options, const Audit& audit,
                      const std::optional<PowerBenchmark>& bench) {
  Json producer = Json::object();
  producer["producer_git_commit"] = audit.producer_git_commit;
  producer["expected_producer_git_commit"] = audit.expected_producer_git_commit;
  producer["exporter_image_sha256"] = audit.exporter_image_sha256;
  producer["stored_publication_valid"] = audit.stored_publication_valid;
  producer["recomputed_publication_valid"] = audit.recomputed_publication_valid;
  Json energy = Json::object();
  for (const auto& [key, value] : audit.per_gpu_energy_j.items()) {
    energy[key] = std::isfinite(value.get<double>()) ? value : Json(nullptr);
  }
  Json rounded = Json::object();
  for (const auto& [key, value] : audit.metrics.items()) {
    if (std::isfinite(value.get<double>())) rounded[key] = PythonRound(value.get<double>(), 6);
  }
  Json out = Json::object();
  out["schema_version"] = 1;
  out["power_valid"] = audit.power_valid;
  out["reasons"] = audit.reasons;
  out["failures"] = audit.failures;
  out["telemetry_source"] = PythonPathText(options.power_dir);
  out["benchmark_result"] = PythonPathText(options.bench_result);
  out["benchmark_window"] = PowerBenchmarkWindow(bench);
  out["selected_window"] = audit.window;
  out["integration_method"] = kMultinodeIntegrationMethod;
  out["producer"] = producer;
  out["expected_gpu_count"] = audit.expected_gpu_count;
  out["observed_gpu_count"] = audit.observed_gpu_count;
  out["per_gpu_role"] = audit.per_gpu_role;
  out["per_gpu_max_sample_gap_s"] = audit.per_gpu_max_sample_gap_s;
  out["per_gpu_energy_j"] = energy;
  out["metrics"] = rounded;
  return out;
}

}  // namespace

MultinodePowerOutcome RunMultinodePowerAggregation(const MultinodePowerOptions& options) {
  MultinodePowerOutcome out;
  if (options.validation_result) {
    out.validation_path = PythonPathText(*options.validation_result);
  } else {
    const auto beside =
        PythonPathWithName(options.bench_result, "power_validation_" + PythonPathStem(options.bench_result) + ".json");
    if (!beside)
      throw InputError(Diagnostic{{options.bench_result, 0, 0}, "", "", "the client result path names no file"});
    out.validation_path = *beside;
  }
  std::vector<std::string> bench_reasons;
  const std::optional<PowerBenchmark> benchmark = LoadPowerBenchmark(options.bench_result, bench_reasons);
  // Integration only ever sees a fully valid benchmark (zero counts would divide by zero).
  const std::optional<PowerBenchmark> effective = bench_reasons.empty() ? benchmark : std::nullopt;
  Audit audit = ValidateAndIntegrate(options, effective);
  for (const std::string& reason : bench_reasons) audit.Add(reason);
  if (!benchmark || !audit.reasons.empty()) {
    audit.power_valid = false;
    audit.metrics = Json::object();
  }

  static const std::vector<std::string> kOwned(std::begin(kMultinodePowerMetricKeys),
                                               std::end(kMultinodePowerMetricKeys));
  std::error_code ec;
  if (options.agg_result.empty() || !fs::is_regular_file(options.agg_result, ec)) {
    audit.Add("aggregate_result_missing", "aggregate missing: " + PythonPathText(options.agg_result));
    audit.power_valid = false;
    audit.metrics = Json::object();
  } else if (const auto error = PatchPowerAggregate(options.agg_result, audit.power_valid, audit.metrics, kOwned)) {
    audit.Add("aggregate_result_unwritable", *error);
    audit.power_valid = false;
    audit.metrics = Json::object();
    out.messages.push_back("Failed to patch " + PythonPathText(options.agg_result) + ": " + *error);
  }

  out.power_valid = audit.power_valid;
  out.reasons = audit.reasons;
  out.failures = audit.failures;
  out.metrics = audit.metrics;
  const std::string validation_file = options.validation_result.value_or(out.validation_path);
  try {
    const fs::path parent = fs::path(validation_file).parent_path();
    if (!parent.empty()) fs::create_directories(parent);
    WriteFileAtomic(validation_file, DumpJsonIndented(MultinodeSidecar(options, audit, benchmark), 2));
  } catch (const std::exception& e) {
    out.messages.push_back("Failed to write validation artifact " + out.validation_path + ": " + e.what());
    out.exit_code = options.require_power ? 1 : 0;
    return out;
  }
  if (!audit.power_valid) {
    std::string list;
    for (const std::string& reason : audit.reasons) list += (list.empty() ? "" : ", ") + reason;
    out.messages.push_back("Power validation failed: " + list + " (details: " + out.validation_path + ")");
    out.exit_code = options.require_power ? 1 : 0;
    return out;
  }
  const auto metric = [&](const char* key) {
    return audit.metrics.contains(key) ? audit.metrics[key].get<double>() : 0.0;
  };
  out.summary = "avg_power_w=" + PythonFixed2(metric("avg_power_w")) +
                " total_gpu_energy_j=" + PythonFixed2(metric("total_gpu_energy_j")) +
                " prefill_gpu_energy_j=" + PythonFixed2(metric("prefill_gpu_energy_j")) +
                " decode_gpu_energy_j=" + PythonFixed2(metric("decode_gpu_energy_j")) +
                " (n=" + std::to_string(audit.expected_gpu_count) + ") -> " + PythonPathText(options.agg_result);
  return out;
}

}  // namespace infermark::results

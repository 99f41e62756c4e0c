#include "agentic/profile_export.hpp"

#include <algorithm>
#include <cmath>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::agentic {
namespace {

[[noreturn]] void Fail(const std::string& file, int line, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{file, line, 0}, "", field, rule});
}

std::optional<std::string> OptionalString(const Json& object, const char* key, const std::string& file, int line,
                                          const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) Fail(file, line, prefix + key, "must be a string");
  return it->get<std::string>();
}

std::optional<std::int64_t> OptionalInt(const Json& object, const char* key, const std::string& file, int line,
                                        const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_float()) {
    const double v = it->get<double>();
    if (std::isfinite(v) && v == std::trunc(v)) return static_cast<std::int64_t>(v);
  }
  Fail(file, line, prefix + key, "must be a whole number");
}

std::optional<double> OptionalNumber(const Json& object, const char* key, const std::string& file,
                                     const std::string& field) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) Fail(file, 0, field, "must be a number");
  return it->get<double>();
}

/// A count written as an integer when it is whole, as aiperf writes counts.
Json CountJson(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
  return v;
}

std::optional<double> AvgOf(const Json& object, const char* key, const std::string& file) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) Fail(file, 0, key, "must be an object with an 'avg'");
  return OptionalNumber(*it, "avg", file, std::string(key) + ".avg");
}

}  // namespace

std::optional<double> ProfileRecord::Metric(std::string_view name) const {
  for (const ProfileMetric& m : metrics) {
    if (m.name == name) return m.value;
  }
  return std::nullopt;
}

void ProfileRecord::SetMetric(std::string_view name, double value, std::string_view unit) {
  for (ProfileMetric& m : metrics) {
    if (m.name == name) {
      m.value = value;
      m.unit = unit;
      return;
    }
  }
  metrics.push_back(ProfileMetric{std::string(name), value, std::string(unit)});
}

Json RequestError(std::string_view type, std::optional<int> code, std::string_view message) {
  Json e = Json::object();
  e["type"] = type;
  e["code"] = code ? Json(*code) : Json(nullptr);
  e["message"] = message;
  return e;
}

Json ProfileRecordJson(const ProfileRecord& record) {
  Json metadata = Json::object();
  metadata["conversation_id"] = record.conversation_id ? Json(*record.conversation_id) : Json(nullptr);
  metadata["turn_index"] = record.turn_index ? Json(*record.turn_index) : Json(nullptr);
  metadata["x_correlation_id"] = record.x_correlation_id;
  metadata["request_start_ns"] = record.request_start_ns ? Json(*record.request_start_ns) : Json(nullptr);
  metadata["request_end_ns"] = record.request_end_ns ? Json(*record.request_end_ns) : Json(nullptr);
  if (record.benchmark_phase) metadata["benchmark_phase"] = *record.benchmark_phase;
  Json metrics = Json::object();
  for (const ProfileMetric& m : record.metrics) {
    Json entry = Json::object();
    entry["value"] = m.value ? Json(*m.value) : Json(nullptr);
    entry["unit"] = m.unit;
    metrics[m.name] = std::move(entry);
  }
  Json out = Json::object();
  out["metadata"] = std::move(metadata);
  out["metrics"] = std::move(metrics);
  out["error"] = record.error;
  return out;
}

ProfileRecord ProfileRecordFromJson(const Json& object, const std::string& file, int line) {
  if (!object.is_object()) Fail(file, line, "", "a record must be a JSON object");
  ProfileRecord r;
  const auto meta = object.find("metadata");
  if (meta != object.end() && !meta->is_null()) {
    if (!meta->is_object()) Fail(file, line, "metadata", "must be an object");
    r.conversation_id = OptionalString(*meta, "conversation_id", file, line, "metadata.");
    r.turn_index = OptionalInt(*meta, "turn_index", file, line, "metadata.");
    r.x_correlation_id = OptionalString(*meta, "x_correlation_id", file, line, "metadata.").value_or("");
    r.request_start_ns = OptionalInt(*meta, "request_start_ns", file, line, "metadata.");
    r.request_end_ns = OptionalInt(*meta, "request_end_ns", file, line, "metadata.");
    r.benchmark_phase = OptionalString(*meta, "benchmark_phase", file, line, "metadata.");
  }
  const auto metrics = object.find("metrics");
  if (metrics != object.end() && !metrics->is_null()) {
    if (!metrics->is_object()) Fail(file, line, "metrics", "must be an object of {value, unit}");
    for (const auto& [name, entry] : metrics->items()) {
      ProfileMetric m{name, std::nullopt, ""};
      const Json* value = &entry;
      if (entry.is_object()) {
        const auto v = entry.find("value");
        value = v == entry.end() ? nullptr : &*v;
        const auto unit = entry.find("unit");
        if (unit != entry.end() && unit->is_string()) m.unit = unit->get<std::string>();
      }
      if (value != nullptr && value->is_number()) m.value = value->get<double>();
      r.metrics.push_back(std::move(m));
    }
  }
  const auto error = object.find("error");
  if (error != object.end()) r.error = *error;
  return r;
}

void WriteProfileExport(const std::string& path, const std::vector<ProfileRecord>& records) {
  std::string out;
  for (const ProfileRecord& r : records) {
    out += ProfileRecordJson(r).dump();
    out += '\n';
  }
  WriteFileAtomic(path, out);
}

std::vector<ProfileRecord> ReadProfileExport(const std::string& path) {
  const std::string text = ReadFile(path);
  std::vector<ProfileRecord> records;
  std::size_t pos = 0;
  int line = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view raw(text.data() + pos, end - pos);
    pos = end + 1;
    ++line;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Json object = Json::parse(raw, nullptr, false);
    if (object.is_discarded()) Fail(path, line, "", "not valid JSON");
    records.push_back(ProfileRecordFromJson(object, path, line));
  }
  return records;
}

Json ProfileSummaryJson(const ProfileSummary& s) {
  Json out = Json::object();
  const auto count = [&](const char* key, const std::optional<double>& v) {
    if (!v) return;
    Json entry = Json::object();
    entry["unit"] = "requests";
    entry["avg"] = CountJson(*v);
    out[key] = std::move(entry);
  };
  count("request_count", s.request_count);
  count("error_request_count", s.error_request_count);
  count("completed_request_count", s.completed_request_count);
  if (s.theoretical_prefix_cache_hit) {
    const PrefixCacheHit& h = *s.theoretical_prefix_cache_hit;
    Json entry = Json::object();
    entry["unit"] = h.unit;
    entry["avg"] = h.avg ? Json(*h.avg) : Json(nullptr);
    entry["sum"] = h.sum ? CountJson(*h.sum) : Json(nullptr);
    entry["count"] = h.count ? CountJson(*h.count) : Json(nullptr);
    out["theoretical_prefix_cache_hit"] = std::move(entry);
  }
  out["start_time"] = s.start_time;
  out["end_time"] = s.end_time;
  Json metadata = Json::object();
  metadata["dataset"] = s.dataset;
  metadata["submission_valid"] = s.submission_valid ? Json(*s.submission_valid) : Json(nullptr);
  metadata["submission_invalid_reasons"] = s.submission_invalid_reasons;
  out["metadata"] = std::move(metadata);
  return out;
}

ProfileSummary ProfileSummaryFromJson(const Json& object, const std::string& file) {
  if (!object.is_object()) Fail(file, 0, "", "the run summary must be a JSON object");
  ProfileSummary s;
  s.request_count = AvgOf(object, "request_count", file);
  s.error_request_count = AvgOf(object, "error_request_count", file);
  s.completed_request_count = AvgOf(object, "completed_request_count", file);
  const auto hit = object.find("theoretical_prefix_cache_hit");
  if (hit != object.end() && !hit->is_null()) {
    if (!hit->is_object()) Fail(file, 0, "theoretical_prefix_cache_hit", "must be an object");
    PrefixCacheHit h;
    h.sum = OptionalNumber(*hit, "sum", file, "theoretical_prefix_cache_hit.sum");
    h.count = OptionalNumber(*hit, "count", file, "theoretical_prefix_cache_hit.count");
    h.avg = OptionalNumber(*hit, "avg", file, "theoretical_prefix_cache_hit.avg");
    const auto unit = hit->find("unit");
    if (unit != hit->end() && unit->is_string()) h.unit = unit->get<std::string>();
    s.theoretical_prefix_cache_hit = h;
  }
  s.start_time = OptionalString(object, "start_time", file, 0, "").value_or("");
  s.end_time = OptionalString(object, "end_time", file, 0, "").value_or("");
  const auto meta = object.find("metadata");
  if (meta != object.end() && meta->is_object()) {
    const auto dataset = meta->find("dataset");
    if (dataset != meta->end()) s.dataset = *dataset;
    const auto valid = meta->find("submission_valid");
    if (valid != meta->end() && !valid->is_null()) {
      if (!valid->is_boolean()) Fail(file, 0, "metadata.submission_valid", "must be true or false");
      s.submission_valid = valid->get<bool>();
    }
    const auto reasons = meta->find("submission_invalid_reasons");
    if (reasons != meta->end() && reasons->is_array()) {
      for (const Json& r : *reasons) {
        if (!r.is_string()) Fail(file, 0, "metadata.submission_invalid_reasons", "must be a list of strings");
        s.submission_invalid_reasons.push_back(r.get<std::string>());
      }
    }
  }
  return s;
}

void WriteProfileSummary(const std::string& path, const ProfileSummary& summary) {
  WriteFileAtomic(path, ProfileSummaryJson(summary).dump(2) + "\n");
}

ProfileSummary ReadProfileSummary(const std::string& path) {
  const Json object = Json::parse(ReadFile(path), nullptr, false);
  if (object.is_discarded()) Fail(path, 0, "", "not valid JSON");
  return ProfileSummaryFromJson(object, path);
}

}  // namespace infermark::agentic

#include "results/agentic_record.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "results/point.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void RecordFail(const std::string& path, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{{path, 0, 0}, "", field, rule});
}

std::string Join(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

// Reads the parts of one aggregate, naming the offending field's dotted path in every message.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  // Member `key` of `parent` (at `where`) as an object; null when absent or null.
  const Json* Object(const Json* parent, const char* key, const std::string& where) const {
    if (parent == nullptr) return nullptr;
    const auto it = parent->find(key);
    if (it == parent->end() || it->is_null()) return nullptr;
    if (!it->is_object()) RecordFail(path_, Join(where, key), "must be a JSON object, got " + DumpJson(*it));
    return &*it;
  }

  std::optional<double> Number(const Json* parent, const char* key, const std::string& where) const {
    if (parent == nullptr) return std::nullopt;
    const auto it = parent->find(key);
    if (it == parent->end() || it->is_null()) return std::nullopt;
    if (!it->is_number()) RecordFail(path_, Join(where, key), "must be a number, got " + DumpJson(*it));
    return it->get<double>();
  }

  // A count: a whole, non-negative number.
  std::optional<long long> Count(const Json* parent, const char* key, const std::string& where) const {
    const auto v = Number(parent, key, where);
    if (!v) return std::nullopt;
    if (*v < 0 || std::floor(*v) != *v) {
      RecordFail(path_, Join(where, key), "must be a whole, non-negative number, got " + DumpJson(parent->at(key)));
    }
    return static_cast<long long>(*v);
  }

  std::string RequiredText(const Json& doc, const char* key) const {
    const auto it = doc.find(key);
    if (it == doc.end() || !it->is_string()) {
      RecordFail(path_, key, "an agentic aggregate needs this field as a string (InferenceX agentic aggregate schema)");
    }
    return it->get<std::string>();
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The stat names of the aggregate's blocks and the flat names the dashboard stores them under.
constexpr std::pair<const char*, const char*> kStats[] = {
    {"mean", "mean"}, {"p50", "median"}, {"median", "median"}, {"p75", "p75"},
    {"p90", "p90"},   {"p95", "p95"},    {"p99", "p99"},       {"std", "std"},
};

constexpr const char* kLatencyBlocks[] = {
    "ttft", "e2el", "itl", "tpot", "intvty", "e2e_norm_intvty", "full_response_itl", "full_response_intvty"};

void FlattenStats(const Reader& r, const Json* block, const std::string& where, const std::string& suffix, Json& out) {
  if (block == nullptr) return;
  for (const auto& [stat, flat] : kStats) {
    if (const auto it = block->find(stat); it != block->end() && !it->is_null()) {
      r.Number(block, stat, where);  // type check
      out[std::string(flat) + "_" + suffix] = *it;
    }
  }
}

void CopyNumber(const Reader& r, const Json* parent, const char* key, const std::string& where, const char* flat,
                Json& out) {
  if (r.Number(parent, key, where)) out[flat] = parent->at(key);
}

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100);
  return text;
}

void CheckIdentity(const Reader& r, const Json& a) {
  for (const char* key : {"hw", "model", "framework", "precision", "spec_decoding"}) r.RequiredText(a, key);
  if (const auto it = a.find("scenario_type"); it != a.end() && *it != Json(kAgenticScenario)) {
    RecordFail(r.path(), "scenario_type",
               "a record with request_metrics must be an agentic-coding aggregate, got " + DumpJson(*it));
  }
  const auto conc = a.find("conc");
  if (conc == a.end() || !conc->is_number_integer() || conc->get<long long>() < 1) {
    RecordFail(
        r.path(), "conc",
        "must be the number of users, a positive integer, got " + (conc == a.end() ? "nothing" : DumpJson(*conc)));
  }
  bool multinode = false;
  if (const auto it = a.find("is_multinode"); it != a.end()) {
    if (!it->is_boolean()) RecordFail(r.path(), "is_multinode", "must be true or false, got " + DumpJson(*it));
    multinode = it->get<bool>();
  }
  if (!multinode) {
    const auto tp = a.find("tp");
    if (tp == a.end() || !tp->is_number_integer() || tp->get<long long>() < 1) {
      RecordFail(r.path(), "tp", "a single-node aggregate needs tp as a positive integer");
    }
  }
  const std::string offloading = r.RequiredText(a, "kv_offloading");
  if (offloading.empty()) RecordFail(r.path(), "kv_offloading", "must not be empty (none or dram)");
  std::string backend;
  if (const auto it = a.find("kv_offload_backend"); it != a.end() && !it->is_null()) {
    if (it->is_string()) {
      backend = it->get<std::string>();
    } else if (it->is_object() && it->contains("name") && (*it)["name"].is_string()) {
      backend = (*it)["name"].get<std::string>();
    } else {
      RecordFail(r.path(), "kv_offload_backend",
                 "must be a backend name, {name, version} or null, got " + DumpJson(*it));
    }
  }
  if (offloading == "none" && !backend.empty()) {
    RecordFail(r.path(), "kv_offload_backend", "must be empty when kv_offloading is none");
  }
  if (offloading != "none" && (backend.empty() || backend == "none")) {
    RecordFail(r.path(), "kv_offload_backend", "is required when kv_offloading is " + offloading);
  }
  if (const auto gb = r.Number(&a, "allocated_cpu_dram_gb", ""); gb && *gb < 0) {
    RecordFail(r.path(), "allocated_cpu_dram_gb", "must not be negative");
  }
  r.Count(&a, "num_requests_total", "");
  r.Count(&a, "num_requests_successful", "");
  r.Count(&a, "kv_cache_pool_tokens", "");
  if (const auto it = a.find("warnings"); it != a.end()) {
    if (!it->is_array()) RecordFail(r.path(), "warnings", "must be an array of strings");
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) RecordFail(r.path(), "warnings[" + std::to_string(i) + "]", "must be a string");
    }
  }
}

void AddReasons(const Reader& r, const Json& holder, const std::string& where, const std::string& fallback,
                std::vector<std::string>& reasons) {
  const auto it = holder.find("submission_invalid_reasons");
  if (it != holder.end() && !it->is_null()) {
    if (!it->is_array()) RecordFail(r.path(), Join(where, "submission_invalid_reasons"), "must be an array of strings");
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) {
        RecordFail(r.path(), Join(where, "submission_invalid_reasons") + "[" + std::to_string(i) + "]",
                   "must be a string");
      }
      reasons.push_back((*it)[i].get<std::string>());
    }
  }
  if (reasons.empty()) reasons.push_back(fallback);
}

// A verdict's `submission_valid`: absent is unknown, anything but a boolean is an error.
std::optional<bool> Valid(const Reader& r, const Json& holder, const std::string& where) {
  const auto it = holder.find("submission_valid");
  if (it == holder.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) RecordFail(r.path(), Join(where, "submission_valid"), "must be true or false");
  return it->get<bool>();
}

std::optional<double> SummaryAvg(const Json& summary, const char* key) {
  const auto it = summary.find(key);
  if (it == summary.end() || !it->is_object()) return std::nullopt;
  const auto avg = it->find("avg");
  if (avg == it->end() || !avg->is_number()) return std::nullopt;
  return avg->get<double>();
}

std::vector<std::string> InvalidReasons(const Reader& r, const Json& a, const Json& summary) {
  std::vector<std::string> reasons;
  if (const auto own = Valid(r, a, ""); own && !*own) {
    AddReasons(r, a, "", "the aggregate is marked invalid", reasons);
  }
  if (summary.is_object()) {
    if (const auto meta = summary.find("metadata"); meta != summary.end() && meta->is_object()) {
      if (const auto valid = Valid(r, *meta, "summary metadata"); valid && !*valid) {
        std::vector<std::string> summary_reasons;
        AddReasons(r, *meta, "summary metadata", "aiperf marked the submission invalid", summary_reasons);
        reasons.insert(reasons.end(), summary_reasons.begin(), summary_reasons.end());
      }
    }
  }
  // InferenceX's gate: the summary's counts, else the aggregate's request accounting.
  std::optional<double> completed;
  double errors = 0;
  if (summary.is_object() && SummaryAvg(summary, "request_count")) {
    const double ok = *SummaryAvg(summary, "request_count");
    errors = SummaryAvg(summary, "error_request_count").value_or(0);
    completed = SummaryAvg(summary, "completed_request_count").value_or(ok + errors);
  } else {
    const Json* accounting = r.Object(&a, "request_accounting", "");
    std::optional<long long> ok = r.Count(&a, "num_requests_successful", "");
    if (!ok) ok = r.Count(accounting, "records_profiled", "request_accounting");
    if (ok) {
      errors = static_cast<double>(r.Count(accounting, "records_error_dropped", "request_accounting").value_or(0));
      completed = static_cast<double>(*ok) + errors;
    }
  }
  if (completed) {
    if (*completed <= 0) {
      reasons.push_back("no request completed (InferenceX agentic gate)");
    } else if (errors / *completed > kAgenticFailedRequestThreshold) {
      reasons.push_back("request error rate " + Percent(errors / *completed) + " is above the " +
                        Percent(kAgenticFailedRequestThreshold) +
                        " failed-request threshold (InferenceX agentic gate)");
    }
  }
  std::vector<std::string> unique;
  for (auto& reason : reasons) {
    if (std::find(unique.begin(), unique.end(), reason) == unique.end()) unique.push_back(std::move(reason));
  }
  return unique;
}

Json ParseSummary(const std::string& file) {
  const std::string text = ReadFile(file);
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    const std::size_t offset = std::min(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
    throw InputError(Diagnostic{{file, line, 0}, "", "", "not valid JSON"});
  }
  if (!doc.is_object())
    throw InputError(Diagnostic{{file, 0, 0}, "", "", "aiperf's run summary must be a JSON object"});
  return doc;
}

}  // namespace

bool IsAgenticAggregate(const Json& doc) {
  if (!doc.is_object()) return false;
  const auto scenario = doc.find("scenario_type");
  return (scenario != doc.end() && *scenario == Json(kAgenticScenario)) || doc.contains("request_metrics");
}

Json ReadAgenticSummaryBeside(const std::string& aggregate_path) {
  const fs::path base = fs::path(aggregate_path).parent_path() / "aiperf_artifacts";
  constexpr const char* kName = "profile_export_aiperf.json";
  std::error_code ec;
  if (fs::is_regular_file(base / kName, ec)) return ParseSummary((base / kName).string());
  if (!fs::is_directory(base, ec)) return Json();
  std::vector<fs::path> children;
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / kName, ec)) children.push_back(entry.path());
  }
  if (children.empty()) return Json();
  std::sort(children.begin(), children.end());
  return ParseSummary((children.front() / kName).string());
}

Json NormalizeAgenticAggregate(const Json& aggregate, const Json& summary, const std::string& path) {
  const Reader r(path);
  if (!aggregate.is_object()) RecordFail(path, "", "an agentic aggregate must be a JSON object");
  CheckIdentity(r, aggregate);
  const Json* request = r.Object(&aggregate, "request_metrics", "");
  if (request == nullptr) {
    RecordFail(path, "request_metrics", "an agentic aggregate needs this object (InferenceX agentic aggregate schema)");
  }
  Json out = aggregate;
  if (!out.contains("scenario_type")) out["scenario_type"] = kAgenticScenario;
  out["benchmark_type"] = "agentic_traces";
  out["users"] = aggregate.at("conc");
  out["offload_mode"] = aggregate.at("kv_offloading") == Json("none") ? "off" : "on";

  const Json* throughput = r.Object(request, "throughput", "request_metrics");
  const Json* per_gpu = r.Object(throughput, "per_gpu", "request_metrics.throughput");
  const std::string tp_where = "request_metrics.throughput.per_gpu";
  CopyNumber(r, per_gpu, "total_tput_tps", tp_where, "tput_per_gpu", out);
  CopyNumber(r, per_gpu, "output_tput_tps", tp_where, "output_tput_per_gpu", out);
  CopyNumber(r, per_gpu, "input_tput_tps", tp_where, "input_tput_per_gpu", out);
  for (const char* side : {"total", "output", "input"}) {
    const std::string where = "request_metrics.throughput";
    const Json* block = r.Object(throughput, side, where);
    CopyNumber(r, block, "tokens_per_second", Join(where, side), (std::string(side) + "_tput_tps").c_str(), out);
  }
  CopyNumber(r, throughput, "duration_seconds", "request_metrics.throughput", "duration_seconds", out);

  const Json* latency = r.Object(request, "latency", "request_metrics");
  for (const char* block : kLatencyBlocks) {
    FlattenStats(r, r.Object(latency, block, "request_metrics.latency"), Join("request_metrics.latency", block), block,
                 out);
  }
  // The dashboard's canonical AgentX interactivity is the full-response one.
  for (const auto& [stat, flat] : kStats) {
    for (const char* kind : {"itl", "intvty"}) {
      const std::string full = std::string(flat) + "_full_response_" + kind;
      if (out.contains(full)) out[std::string(flat) + "_" + kind] = out[full];
    }
  }
  FlattenStats(r, r.Object(request, "qps", "request_metrics"), "request_metrics.qps", "qps", out);

  const Json* cache = r.Object(request, "cache", "request_metrics");
  CopyNumber(r, cache, "theoretical_cache_hit_rate", "request_metrics.cache", "theoretical_cache_hit_rate", out);
  const Json* server = r.Object(&aggregate, "server_metrics", "");
  const Json* server_cache = r.Object(server, "cache", "server_metrics");
  for (const char* tier : {"overall", "gpu", "cpu", "external"}) {
    const std::string key = std::string(tier) + "_cache_hit_rate";
    CopyNumber(r, server_cache, key.c_str(), "server_metrics.cache", ("server_" + key).c_str(), out);
  }
  CopyNumber(r, r.Object(server, "kv_cache", "server_metrics"), "gpu_usage_pct", "server_metrics.kv_cache",
             "gpu_kv_cache_usage_pct", out);
  const Json* tokens = r.Object(server, "tokens", "server_metrics");
  CopyNumber(r, tokens, "prompt_total", "server_metrics.tokens", "total_prompt_tokens", out);
  CopyNumber(r, tokens, "generation_total", "server_metrics.tokens", "total_generation_tokens", out);
  CopyNumber(r, tokens, "requests_completed", "server_metrics.tokens", "total_requests_completed", out);

  const std::vector<std::string> reasons = InvalidReasons(r, aggregate, summary);
  out["submission_valid"] = reasons.empty();
  out["submission_invalid_reasons"] = reasons;
  return out;
}

AgenticFields AgenticFieldsOf(const Json& record) {
  AgenticFields f;
  if (!record.is_object()) return f;
  const auto number = [&](const Json& holder, const char* key) -> std::optional<double> {
    const auto it = holder.find(key);
    if (it == holder.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  const auto count = [&](const Json& holder, const char* key) -> std::optional<long long> {
    const auto v = number(holder, key);
    if (!v) return std::nullopt;
    return std::llround(*v);
  };
  f.users = count(record, "users").value_or(count(record, "conc").value_or(0));
  if (const auto it = record.find("kv_offloading"); it != record.end() && it->is_string()) {
    f.kv_offloading = it->get<std::string>();
  }
  if (const auto it = record.find("kv_offload_backend"); it != record.end()) {
    if (it->is_string()) f.kv_offload_backend = it->get<std::string>();
    if (it->is_object() && it->contains("name") && (*it)["name"].is_string()) {
      f.kv_offload_backend = (*it)["name"].get<std::string>();
    }
  }
  f.allocated_cpu_dram_gb = number(record, "allocated_cpu_dram_gb");
  f.duration_s = number(record, "duration_seconds");
  f.theoretical_cache_hit_rate = number(record, "theoretical_cache_hit_rate");
  f.server_gpu_cache_hit_rate = number(record, "server_gpu_cache_hit_rate");
  f.server_cpu_cache_hit_rate = number(record, "server_cpu_cache_hit_rate");
  f.server_cache_hit_rate = number(record, "server_overall_cache_hit_rate");
  if (!f.server_cache_hit_rate) f.server_cache_hit_rate = f.server_gpu_cache_hit_rate;
  f.kv_cache_pool_tokens = count(record, "kv_cache_pool_tokens");
  f.requests_total = count(record, "num_requests_total");
  f.requests_successful = count(record, "num_requests_successful");
  if (const auto it = record.find("request_accounting"); it != record.end() && it->is_object()) {
    f.requests_error = count(*it, "records_error_dropped");
  }
  if (const auto it = record.find("warnings"); it != record.end() && it->is_array()) {
    for (const auto& w : *it) {
      if (w.is_string()) f.warnings.push_back(w.get<std::string>());
    }
  }
  return f;
}

std::string AgenticVerdict(const Json& record) {
  const auto valid = record.find("submission_valid");
  if (valid == record.end() || !valid->is_boolean() || valid->get<bool>()) return "VALID";
  std::string reasons;
  if (const auto it = record.find("submission_invalid_reasons"); it != record.end() && it->is_array()) {
    for (const auto& r : *it) {
      if (r.is_string()) reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
    }
  }
  return reasons.empty() ? "INVALID" : "INVALID: " + reasons;
}

}  // namespace infermark::results

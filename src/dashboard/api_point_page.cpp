// GET /api/v1/points/ID[/telemetry]: what a point's own page shows. The page itself comes from the
// snapshot (the point as the list serves it, its evaluations, its row's attempts, the other
// concurrencies of its curve); its raw result (figures and their host error), its logs and telemetry
// samples are read from the store for this one point (its timeline: api_point_timeline.cpp).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/numpy_stats.hpp"
#include "dashboard/api_detail_routes.hpp"
#include "dashboard/api_routes.hpp"
#include "dashboard/point_json.hpp"
#include "report/eval_json.hpp"
#include "results/gpu_samples.hpp"
#include "results/point_validity.hpp"

namespace infermark::dashboard::routes {
namespace {

// How a figure scales with a time-scaled run's modelled hardware: latencies by the scale,
// rates by its reciprocal.
enum class Scaling { kLatency, kRate };

struct Figure {
  const char* key;  // the result's own key (the host error's too)
  const char* label;
  const char* unit;
  Scaling scaling;
  const char* agg_key;  // the agg record's key, in seconds for latencies ("": the same key)
};

constexpr Figure kFigures[] = {
    {"request_throughput", "Request throughput", "req/s", Scaling::kRate, ""},
    {"output_throughput", "Output token throughput", "tok/s", Scaling::kRate, ""},
    {"total_token_throughput", "Total token throughput", "tok/s", Scaling::kRate, ""},
    {"input_throughput", "Input token throughput", "tok/s", Scaling::kRate, ""},
    {"tput_per_gpu", "Throughput per GPU", "tok/s/GPU", Scaling::kRate, "tput_per_gpu"},
    {"output_tput_per_gpu", "Output throughput per GPU", "tok/s/GPU", Scaling::kRate, "output_tput_per_gpu"},
    {"input_tput_per_gpu", "Input throughput per GPU", "tok/s/GPU", Scaling::kRate, "input_tput_per_gpu"},
    {"median_intvty", "Median interactivity", "tok/s/user", Scaling::kRate, "median_intvty"},
    {"p90_intvty", "P90 interactivity", "tok/s/user", Scaling::kRate, "p90_intvty"},
    {"p99_intvty", "P99 interactivity", "tok/s/user", Scaling::kRate, "p99_intvty"},
    {"mean_ttft_ms", "Mean TTFT", "ms", Scaling::kLatency, "mean_ttft"},
    {"median_ttft_ms", "Median TTFT", "ms", Scaling::kLatency, "median_ttft"},
    {"p90_ttft_ms", "P90 TTFT", "ms", Scaling::kLatency, "p90_ttft"},
    {"p99_ttft_ms", "P99 TTFT", "ms", Scaling::kLatency, "p99_ttft"},
    {"p99.9_ttft_ms", "P99.9 TTFT", "ms", Scaling::kLatency, "p99.9_ttft"},
    {"mean_tpot_ms", "Mean TPOT", "ms", Scaling::kLatency, "mean_tpot"},
    {"median_tpot_ms", "Median TPOT", "ms", Scaling::kLatency, "median_tpot"},
    {"p90_tpot_ms", "P90 TPOT", "ms", Scaling::kLatency, "p90_tpot"},
    {"p99_tpot_ms", "P99 TPOT", "ms", Scaling::kLatency, "p99_tpot"},
    {"p99.9_tpot_ms", "P99.9 TPOT", "ms", Scaling::kLatency, "p99.9_tpot"},
    {"mean_itl_ms", "Mean ITL", "ms", Scaling::kLatency, "mean_itl"},
    {"median_itl_ms", "Median ITL", "ms", Scaling::kLatency, "median_itl"},
    {"p90_itl_ms", "P90 ITL", "ms", Scaling::kLatency, "p90_itl"},
    {"p99_itl_ms", "P99 ITL", "ms", Scaling::kLatency, "p99_itl"},
    {"p99.9_itl_ms", "P99.9 ITL", "ms", Scaling::kLatency, "p99.9_itl"},
    {"mean_e2el_ms", "Mean E2EL", "ms", Scaling::kLatency, "mean_e2el"},
    {"median_e2el_ms", "Median E2EL", "ms", Scaling::kLatency, "median_e2el"},
    {"p90_e2el_ms", "P90 E2EL", "ms", Scaling::kLatency, "p90_e2el"},
    {"p99_e2el_ms", "P99 E2EL", "ms", Scaling::kLatency, "p99_e2el"},
    {"p99.9_e2el_ms", "P99.9 E2EL", "ms", Scaling::kLatency, "p99.9_e2el"},
};

std::optional<double> NumberAt(const Json& doc, const std::string& key) {
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

const Json& Member(const Json& doc, const char* key) {
  static const Json kNull = nullptr;
  if (!doc.is_object()) return kNull;
  const auto it = doc.find(key);
  return it == doc.end() ? kNull : *it;
}

// Each figure of the result (or its record) with the host error the result states for it,
// de-scaled like every figure the dashboard shows.
Json Figures(const results::Point& point, const Json& raw) {
  const double scale = point.provenance.time_scale > 0 ? point.provenance.time_scale : 1.0;
  const Json& infermark = Member(raw, "infermark");
  const Json& host_error = Member(infermark, "host_error");
  std::map<std::string, Json> marks;
  if (const Json& m = Member(infermark, "host_error_marks"); m.is_array()) {
    for (const Json& mark : m) {
      if (mark.is_object() && mark.contains("key") && mark["key"].is_string()) marks[mark["key"]] = mark;
    }
  }
  Json out = Json::array();
  for (const Figure& f : kFigures) {
    std::optional<double> value = NumberAt(raw, f.key);
    if (!value && *f.agg_key != '\0') {
      value = NumberAt(point.agg, f.agg_key);
      // The record's latencies are seconds.
      if (value && f.scaling == Scaling::kLatency) *value *= 1000;
    }
    if (!value) continue;
    const double factor = f.scaling == Scaling::kLatency ? scale : 1 / scale;
    Json j = Json::object();
    j["key"] = f.key;
    j["label"] = f.label;
    j["unit"] = f.unit;
    j["value"] = *value * factor;
    Json error = nullptr;
    if (const Json& e = Member(host_error, f.key); e.is_object()) {
      error = Json::object();
      const std::optional<double> abs = NumberAt(e, "abs");
      error["abs"] = abs ? Json(*abs * factor) : Json(nullptr);
      const std::optional<double> rel = NumberAt(e, "rel");
      error["rel"] = rel ? Json(*rel) : Json(nullptr);
    }
    j["host_error"] = std::move(error);
    const auto mark = marks.find(f.key);
    j["mark"] = mark == marks.end() ? Json(nullptr) : mark->second;
    out.push_back(std::move(j));
  }
  return out;
}

Json Provenance(const results::Point& point, const DashboardPoint& d) {
  const results::Provenance& v = point.provenance;
  Json j = Json::object();
  j["run_key"] = d.run_key;
  j["run_label"] = d.run_label;
  j["source"] = d.provenance.source;
  j["config_key"] = v.config_key;
  j["image"] = v.image;
  j["flags"] = v.engine_flags;
  j["host"] = v.host;
  j["infermark_version"] = v.infermark_version;
  j["git_commit"] = v.git_commit;
  j["metrics_version"] = v.metrics_version;
  j["time_scale"] = v.time_scale;
  j["started_at"] = v.started_at;
  j["ended_at"] = v.ended_at;
  j["source_path"] = v.source_path;
  j["raw_sha256"] = point.raw_sha256;
  j["created_at"] = point.ingested_at;
  j["matrix_row"] = v.matrix_row;
  return j;
}

Json Agentic(const results::Point& point) {
  const Json& a = point.agg;
  Json j = Json::object();
  j["users"] = point.key.conc;
  j["offload_mode"] = point.key.OffloadMode();
  for (const char* key :
       {"theoretical_cache_hit_rate", "server_cache_hit_rate", "server_gpu_cache_hit_rate", "server_cpu_cache_hit_rate",
        "duration_s", "requests_total", "requests_successful", "requests_error", "kv_cache_pool_tokens"}) {
    const std::optional<double> v = NumberAt(a, key);
    j[key] = v ? Json(*v) : Json(nullptr);
  }
  return j;
}

Json Stats(std::vector<double> values) {
  Json j = Json::object();
  j["n"] = values.size();
  if (values.empty()) {
    for (const char* k : {"min", "max", "mean", "median", "p95", "p99", "std"}) j[k] = nullptr;
    return j;
  }
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  j["min"] = *lo;
  j["max"] = *hi;
  j["mean"] = NumpyMean(values);
  j["median"] = NumpyMedian(values);
  j["p95"] = NumpyPercentile(values, 95);
  j["p99"] = NumpyPercentile(values, 99);
  j["std"] = NumpyStd(values);
  return j;
}

long long PointsLimit(const Query& query) {
  const std::optional<std::string> text = query.Single("points");
  if (!text) return 2000;
  const long long n = ParseCount("points", *text);
  if (n < 2 || n > static_cast<long long>(results::kMaxGpuSamples)) {
    throw QueryError("points", "must be between 2 and " + std::to_string(results::kMaxGpuSamples));
  }
  return n;
}

// The fields whose series `fields=` asks for (every field's when absent); each must be a GpuField key.
std::set<std::string> TelemetryFields(const Query& query) {
  std::set<std::string> wanted;
  for (const std::string& key : query.List("fields")) {
    const bool known = std::any_of(std::begin(results::kGpuFields), std::end(results::kGpuFields),
                                   [&](const results::GpuField& f) { return key == f.key; });
    if (!known) {
      std::string names;
      for (const results::GpuField& f : results::kGpuFields) names += (names.empty() ? "" : ", ") + std::string(f.key);
      throw QueryError("fields", "no telemetry field '" + key + "' (known: " + names + ")");
    }
    wanted.insert(key);
  }
  return wanted;
}

}  // namespace

ApiReply PointPage(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query) {
  query.RequireKnown({"token"});
  const DashboardPoint* d = snapshot.FindPoint(id);
  if (d == nullptr || !sources.with_store) return ErrorReply(404, "", "no point " + std::to_string(id));
  std::optional<results::Point> point;
  results::PointDetails details;
  std::pair<bool, std::size_t> extent{false, 0};
  sources.with_store([&](results::ResultStore& store) {
    point = store.FindPoint(id);
    if (!point) return;
    // The logs here; the timeline and the samples on their own routes.
    details = store.FindPointDetails(id, false, false);
    extent = store.PointDetailsExtent(id);
  });
  if (!point) return ErrorReply(404, "", "no point " + std::to_string(id));
  Json raw = Json::parse(point->raw_json, nullptr, false);
  if (raw.is_discarded()) raw = nullptr;
  const Json& infermark = Member(raw, "infermark");

  Json body = Json::object();
  body["point"] = PointJson(*d);
  body["provenance"] = Provenance(*point, *d);
  results::PointValidity validity = results::ValidityOf(point->provenance.verdict);
  body["verdict"] = {{"verdict", validity.verdict.empty() ? Json(nullptr) : Json(validity.verdict)},
                     {"valid", validity.valid},
                     {"reasons", validity.reasons}};
  body["figures"] = Figures(*point, raw);
  const Json& kind = Member(infermark, "host_error_kind");
  body["host_error_kind"] = kind.is_string() ? kind : Json(nullptr);
  const Json& marks = Member(infermark, "host_error_marks");
  body["host_error_marks"] = marks.is_array() ? marks : Json::array();

  Json attempts = Json::array();
  const std::string stem = std::filesystem::path(point->provenance.source_path).stem().string();
  for (const DashboardAttempt& a : snapshot.attempts) {
    if (a.point_id == id || (a.attempt.run_id == d->run_id && !stem.empty() && a.attempt.result_filename == stem))
      attempts.push_back(AttemptJson(a));
  }
  body["attempts"] = std::move(attempts);

  // The other concurrencies of its curve in its run, for moving along it.
  std::vector<const DashboardPoint*> curve;
  for (const DashboardPoint& p : snapshot.points) {
    if (p.run_id == d->run_id && p.series == d->series && p.model == d->model && p.sequence == d->sequence)
      curve.push_back(&p);
  }
  std::sort(curve.begin(), curve.end(),
            [](const DashboardPoint* a, const DashboardPoint* b) { return a->conc < b->conc; });
  Json siblings = Json::array();
  for (const DashboardPoint* p : curve) {
    siblings.push_back({{"id", p->id},
                        {"conc", p->conc},
                        {"interactivity", p->interactivity},
                        {"tput_per_gpu", p->tput_per_gpu},
                        {"valid", p->valid},
                        {"url", "/point/" + std::to_string(p->id)}});
  }
  body["curve"] = std::move(siblings);

  Json evaluations = Json::array();
  for (const DashboardEvaluation& e : snapshot.evaluations) {
    if (std::find(d->evaluation_ids.begin(), d->evaluation_ids.end(), e.evaluation.id) == d->evaluation_ids.end())
      continue;
    Json j = results::EvaluationToJson(e.evaluation);
    j["run_label"] = e.run_label;
    j["points"] = e.point_ids;
    j["samples_url"] = "/api/v1/evaluations/" + std::to_string(e.evaluation.id) + "/samples";
    evaluations.push_back(std::move(j));
  }
  body["evaluations"] = std::move(evaluations);
  body["agentic"] = d->agentic ? Agentic(*point) : Json(nullptr);
  body["logs"] = {{"server", details.server_log_tail}, {"client", details.client_log_tail}};
  const std::string base = "/api/v1/points/" + std::to_string(id);
  body["timeline_url"] = extent.first ? Json(base + "/timeline") : Json(nullptr);
  body["telemetry_url"] = extent.second > 0 ? Json(base + "/telemetry") : Json(nullptr);
  body["telemetry_gpus"] = extent.second;
  return JsonReply(body);
}

ApiReply PointTelemetry(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query) {
  query.RequireKnown({"token", "points", "fields"});
  const long long most = PointsLimit(query);
  const std::set<std::string> wanted = TelemetryFields(query);
  const DashboardPoint* d = snapshot.FindPoint(id);
  if (d == nullptr || !sources.with_store) return ErrorReply(404, "", "no point " + std::to_string(id));
  results::PointDetails details;
  std::optional<results::Point> point;
  sources.with_store([&](results::ResultStore& store) {
    details = store.FindPointDetails(id, false, true);
    point = store.FindPoint(id);
  });
  if (details.gpus.empty()) return ErrorReply(404, "", "point " + std::to_string(id) + " has no GPU telemetry");
  Json fields = Json::array();
  std::set<std::string> present;
  for (const results::GpuSeries& s : details.gpus) {
    for (const auto& [key, values] : s.fields) present.insert(key);
  }
  for (const results::GpuField& f : results::kGpuFields) {
    if (present.count(f.key)) fields.push_back({{"key", f.key}, {"label", f.label}, {"unit", f.unit}});
  }
  Json gpus = Json::array();
  for (const results::GpuSeries& s : details.gpus) {
    const std::size_t n = s.t_s.size();
    const std::size_t step =
        std::max<std::size_t>(1, (n + static_cast<std::size_t>(most) - 1) / static_cast<std::size_t>(most));
    Json t = Json::array();
    for (std::size_t i = 0; i < n; i += step) t.push_back(s.t_s[i]);
    Json values = Json::object();
    Json stats = Json::object();
    for (const auto& [key, series] : s.fields) {
      if (wanted.empty() || wanted.count(key)) {
        Json list = Json::array();
        for (std::size_t i = 0; i < n; i += step) list.push_back(series[i] ? Json(*series[i]) : Json(nullptr));
        values[key] = std::move(list);
      }
      std::vector<double> all;
      all.reserve(series.size());
      for (const auto& v : series) {
        if (v) all.push_back(*v);
      }
      stats[key] = Stats(std::move(all));
    }
    gpus.push_back({{"source", s.source},
                    {"host", s.host},
                    {"gpu", s.gpu},
                    {"start_unix", s.start_unix},
                    {"samples", n},
                    {"t_s", std::move(t)},
                    {"values", std::move(values)},
                    {"stats", std::move(stats)}});
  }
  Json window = nullptr;
  if (point) {
    const Json raw = Json::parse(point->raw_json, nullptr, false);
    const std::optional<double> start = NumberAt(raw, "benchmark_start_time_unix");
    const std::optional<double> end = NumberAt(raw, "benchmark_end_time_unix");
    if (start && end) window = {{"start_unix", *start}, {"end_unix", *end}};
  }
  Json body = Json::object();
  body["fields"] = std::move(fields);
  body["gpus"] = std::move(gpus);
  body["window"] = std::move(window);
  Json manifest = details.dcgm_manifest.empty() ? Json(nullptr) : Json::parse(details.dcgm_manifest, nullptr, false);
  body["dcgm_manifest"] = manifest.is_discarded() ? Json(nullptr) : std::move(manifest);
  return JsonReply(body);
}

}  // namespace infermark::dashboard::routes

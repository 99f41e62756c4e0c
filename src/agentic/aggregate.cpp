#include "agentic/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "agentic/detail/aggregate_common.hpp"
#include "agentic/detail/aggregate_identity.hpp"
#include "agentic/detail/aggregate_server_metrics.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

using detail::Ints;
using detail::Mean;
using detail::Refuse;

// ---------------------------------------------------------------- statistics

double PopulationStd(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  long double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<long double>(v.size());
  long double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return static_cast<double>(std::sqrt(ss / static_cast<long double>(v.size())));
}

double Percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return 0.0;
  std::sort(sorted.begin(), sorted.end());
  const double k = static_cast<double>(sorted.size() - 1) * (p / 100);
  const auto f = static_cast<std::size_t>(k);
  const std::size_t c = f + 1;
  if (c >= sorted.size()) return sorted[f];
  return sorted[f] + (k - static_cast<double>(f)) * (sorted[c] - sorted[f]);
}

/// 1/x of each positive stat of `stats`, and the population std of the per-sample reciprocals.
Json Interactivity(const Json& stats, const std::vector<double>& samples) {
  Json out = Json::object();
  for (const char* key : {"mean", "p50", "p75", "p90", "p95"}) {
    const auto it = stats.find(key);
    if (it != stats.end() && it->get<double>() > 0) out[key] = 1.0 / it->get<double>();
  }
  std::vector<double> per_sample;
  for (double x : samples) {
    if (x > 0) per_sample.push_back(1.0 / x);
  }
  if (!per_sample.empty()) out["std"] = PopulationStd(per_sample);
  return out;
}

// ---------------------------------------------------------------- records

std::vector<double> Floats(const std::vector<const ProfileRecord*>& records, std::string_view metric) {
  std::vector<double> out;
  for (const ProfileRecord* r : records) {
    if (const auto v = r->Metric(metric)) out.push_back(*v);
  }
  return out;
}

std::vector<double> MsToSeconds(const std::vector<double>& ms) {
  std::vector<double> out;
  for (double x : ms) {
    if (std::isfinite(x) && x > 0) out.push_back(x / 1000.0);
  }
  return out;
}

Json Distribution(const std::vector<std::int64_t>& values) {
  if (values.empty()) return Json::object();
  std::vector<double> d(values.begin(), values.end());
  long double sum = 0;
  for (std::int64_t v : values) sum += static_cast<long double>(v);
  Json out = Json::object();
  const long double mean = sum / static_cast<long double>(values.size());
  if (mean == std::trunc(mean)) {
    out["mean"] = static_cast<std::int64_t>(mean);
  } else {
    out["mean"] = static_cast<double>(mean);
  }
  out["p50"] = Percentile(d, 50);
  out["p75"] = Percentile(d, 75);
  out["p90"] = Percentile(d, 90);
  out["p95"] = Percentile(d, 95);
  out["std"] = PopulationStd(d);
  return out;
}

Json LatencyBlock(const std::vector<const ProfileRecord*>& records) {
  const std::vector<double> ttfts = MsToSeconds(Floats(records, "time_to_first_token"));
  const std::vector<double> e2els = MsToSeconds(Floats(records, "request_latency"));
  const std::vector<double> itls = MsToSeconds(Floats(records, "inter_token_latency"));
  const std::vector<double> full_itls = MsToSeconds(Floats(records, "full_response_inter_token_latency"));
  std::vector<double> e2el_per_osl;
  for (const ProfileRecord* r : records) {
    const auto e2el = r->Metric("request_latency");
    const auto osl = r->Metric("output_sequence_length");
    if (!e2el || !osl || !std::isfinite(*e2el) || !std::isfinite(*osl) || *e2el <= 0 || *osl <= 0) continue;
    e2el_per_osl.push_back(*e2el / 1000.0 / *osl);
  }
  const Json itl = AggregateStats(itls);
  const Json full_itl = AggregateStats(full_itls);
  Json out = Json::object();
  out["ttft"] = AggregateStats(ttfts);
  out["e2el"] = AggregateStats(e2els);
  out["itl"] = itl;
  out["tpot"] = itl;
  out["intvty"] = Interactivity(itl, itls);
  out["e2e_norm_intvty"] = Interactivity(AggregateStats(e2el_per_osl), e2el_per_osl);
  out["full_response_itl"] = full_itl;
  out["full_response_intvty"] = Interactivity(full_itl, full_itls);
  return out;
}

Json QpsBlock(const std::vector<const ProfileRecord*>& records) {
  std::vector<double> ends;
  for (const ProfileRecord* r : records) {
    if (r->request_end_ns && *r->request_end_ns != 0) ends.push_back(static_cast<double>(*r->request_end_ns) / 1e9);
  }
  if (ends.size() < 2) return Json::object();
  std::sort(ends.begin(), ends.end());
  const double duration = ends.back() - ends.front();
  if (duration <= 0) return Json::object();
  const double window = 1.0;
  std::vector<double> qps;
  for (double current = ends.front(); current + window <= ends.back(); current += window) {
    const auto lo = std::lower_bound(ends.begin(), ends.end(), current);
    const auto hi = std::lower_bound(ends.begin(), ends.end(), current + window);
    qps.push_back(static_cast<double>(hi - lo) / window);
  }
  Json out = Json::object();
  out["window_seconds"] = window;
  out["samples"] = qps.size();
  if (qps.empty()) {
    out["mean"] = static_cast<double>(ends.size()) / duration;
  } else {
    const Json stats = AggregateStats(qps);
    for (const auto& [k, v] : stats.items()) out[k] = v;
  }
  return out;
}

Json TokensBlock(const std::vector<const ProfileRecord*>& records, const ExpectedOutputs& expected) {
  std::vector<std::int64_t> expected_lengths;
  if (!expected.empty()) {
    for (const ProfileRecord* r : records) {
      if (!r->conversation_id || r->conversation_id->empty() || !r->turn_index) continue;
      const std::string trace = r->conversation_id->substr(0, r->conversation_id->find("::"));
      const auto it = expected.find({trace, *r->turn_index});
      if (it != expected.end()) expected_lengths.push_back(it->second);
    }
  }
  Json out = Json::object();
  out["input"] = Distribution(Ints(records, "input_sequence_length"));
  out["output_actual"] = Distribution(Ints(records, "output_sequence_length"));
  out["output_expected"] = Distribution(expected_lengths);
  return out;
}

/// The throughput block and its flat totals (tokens per second), or {} when there is no window.
Json ThroughputBlock(const std::vector<const ProfileRecord*>& records) {
  std::optional<std::int64_t> first_start;
  std::optional<std::int64_t> last_end;
  for (const ProfileRecord* r : records) {
    if (r->request_start_ns && *r->request_start_ns != 0) {
      first_start = std::min(first_start.value_or(*r->request_start_ns), *r->request_start_ns);
    }
    if (r->request_end_ns && *r->request_end_ns != 0) {
      last_end = std::max(last_end.value_or(*r->request_end_ns), *r->request_end_ns);
    }
  }
  if (!first_start || !last_end) return Json::object();
  const double duration = static_cast<double>(*last_end - *first_start) / 1e9;
  if (duration <= 0) return Json::object();
  std::int64_t total_in = 0;
  std::int64_t total_out = 0;
  for (std::int64_t v : Ints(records, "input_sequence_length")) total_in += v;
  for (std::int64_t v : Ints(records, "output_sequence_length")) total_out += v;
  const auto tps = [](double v) {
    Json j = Json::object();
    j["tokens_per_second"] = v;
    return j;
  };
  Json out = Json::object();
  out["input"] = tps(static_cast<double>(total_in) / duration);
  out["output"] = tps(static_cast<double>(total_out) / duration);
  out["total"] = tps(static_cast<double>(total_in + total_out) / duration);
  out["duration_seconds"] = duration;
  out["per_gpu"] = Json::object();
  return out;
}

Json TheoreticalHitRate(const std::optional<ProfileSummary>& summary) {
  if (!summary || !summary->theoretical_prefix_cache_hit) return nullptr;
  const PrefixCacheHit& h = *summary->theoretical_prefix_cache_hit;
  if (h.sum && h.count && *h.count > 0) return *h.sum / *h.count;
  if (!h.avg) return nullptr;
  std::string unit = h.unit;
  unit.erase(0, unit.find_first_not_of(" \t\r\n"));
  unit.erase(unit.find_last_not_of(" \t\r\n") + 1);
  return unit == "%" ? *h.avg / 100.0 : *h.avg;
}
}  // namespace

Json AggregateStats(const std::vector<double>& values) {
  Json out = Json::object();
  if (values.empty()) return out;
  out["mean"] = Mean(values);
  out["p50"] = Percentile(values, 50);
  out["p75"] = Percentile(values, 75);
  out["p90"] = Percentile(values, 90);
  out["p95"] = Percentile(values, 95);
  out["std"] = PopulationStd(values);
  return out;
}

std::string ErrorCategory(const Json& error) {
  std::string message;
  if (error.is_object()) {
    for (const char* key : {"type", "error_type", "code", "class", "status"}) {
      const auto it = error.find(key);
      if (it == error.end() || it->is_null() || (it->is_string() && it->get<std::string>().empty())) continue;
      if (it->is_string()) return it->get<std::string>();
      if (it->is_boolean()) return it->get<bool>() ? "True" : "False";
      return it->dump();
    }
    for (const char* key : {"message", "error"}) {
      const auto it = error.find(key);
      if (it == error.end() || it->is_null()) continue;
      if (it->is_string() && it->get<std::string>().empty()) continue;
      message = it->is_string() ? it->get<std::string>() : it->dump();
      break;
    }
  } else if (error.is_string()) {
    message = error.get<std::string>();
  } else if (!error.is_null()) {
    message = error.dump();
  }
  const auto first = message.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string::npos) return "unknown";
  message = message.substr(first);
  message = message.substr(0, message.find_first_of("\r\n"));
  std::string category = message.substr(0, message.find(':'));
  if (category.empty()) category = "unknown";
  return category.substr(0, 120);
}

Json RoundAggregateNumber(double x) {
  if (!std::isfinite(x)) return x;
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%.5f", x);
  const double rounded = std::strtod(buffer, nullptr);
  if (std::fabs(rounded) >= 1 && rounded == std::trunc(rounded) && std::fabs(rounded) < 9.2e18) {
    return static_cast<std::int64_t>(rounded);
  }
  return rounded;
}

void RoundAggregateFloats(Json& value) {
  if (value.is_number_float()) {
    value = RoundAggregateNumber(value.get<double>());
  } else if (value.is_structured()) {
    for (auto& item : value) RoundAggregateFloats(item);
  }
}

using detail::BackendMetadata;
using detail::GpuShape;
using detail::RouterMetadata;
using detail::ServerMetricsBlock;
using detail::Shape;

Json AgenticAggregate(const AgenticArtifacts& artifacts, const AgenticIdentity& id, const ExpectedOutputs& expected) {
  if (id.kv_offloading.empty()) Refuse("KV_OFFLOADING", "Missing required environment variable: KV_OFFLOADING");
  const Json backend = BackendMetadata(id.kv_offload_backend_metadata);
  if (id.kv_offloading == "none") {
    if (!id.kv_offload_backend.empty() || !backend.is_null()) {
      Refuse("KV_OFFLOAD_BACKEND", "KV_OFFLOAD_BACKEND must be empty when KV_OFFLOADING=none");
    }
  } else if (id.kv_offload_backend.empty() || id.kv_offload_backend == "none" || backend.is_null()) {
    Refuse("KV_OFFLOAD_BACKEND", "KV_OFFLOAD_BACKEND is required when KV_OFFLOADING is enabled");
  } else if (backend["name"] != id.kv_offload_backend) {
    Refuse("KV_OFFLOAD_BACKEND", "KV_OFFLOAD_BACKEND must match KV_OFFLOAD_BACKEND_METADATA.name");
  }
  const Json router = RouterMetadata(id.router_metadata);
  const Shape shape = GpuShape(id);

  std::vector<const ProfileRecord*> kept;
  Json accounting = Json::object();
  std::int64_t warmup = 0;
  std::int64_t errors = 0;
  std::vector<std::pair<std::string, std::int64_t>> categories;
  for (const ProfileRecord& r : artifacts.records) {
    const bool is_warmup = r.benchmark_phase.has_value() && *r.benchmark_phase != "profiling";
    const Json& e = r.error;
    const bool failed =
        !(e.is_null() || (e.is_boolean() && !e.get<bool>()) || (e.is_number() && e.get<double>() == 0) ||
          (e.is_string() && e.get<std::string>().empty()) || (e.is_structured() && e.empty()));
    if (is_warmup) ++warmup;
    if (failed) {
      ++errors;
      const std::string category = ErrorCategory(e);
      auto it = std::find_if(categories.begin(), categories.end(), [&](const auto& p) { return p.first == category; });
      if (it == categories.end()) {
        categories.emplace_back(category, 1);
      } else {
        ++it->second;
      }
    }
    if (!failed && !is_warmup) kept.push_back(&r);
  }
  const auto total = static_cast<std::int64_t>(artifacts.records.size());
  accounting["records_total"] = total;
  accounting["records_profiled"] = kept.size();
  accounting["records_dropped_total"] = total - static_cast<std::int64_t>(kept.size());
  accounting["records_warmup_dropped"] = warmup;
  accounting["records_error_dropped"] = errors;
  Json by_category = Json::object();
  for (const auto& [k, v] : categories) by_category[k] = v;
  accounting["error_categories"] = std::move(by_category);

  Json agg = Json::object();
  agg["hw"] = id.runner_type;
  agg["conc"] = id.conc;
  agg["image"] = id.image;
  agg["recipe_fingerprint"] = id.recipe_fingerprint;
  agg["model"] = id.model;
  agg["infmax_model_prefix"] = id.model_prefix;
  agg["framework"] = id.framework;
  agg["precision"] = id.precision;
  agg["spec_decoding"] = id.spec_decoding;
  agg["disagg"] = id.disagg;
  agg["scenario_type"] = "agentic-coding";
  agg["is_multinode"] = id.is_multinode;
  agg["tp"] = shape.tp;
  agg["ep"] = shape.ep;
  agg["dp_attention"] = shape.dp_attention;
  agg["kv_offloading"] = id.kv_offloading;
  agg["kv_offload_backend"] = backend;
  agg["allocated_cpu_dram_gb"] = id.total_cpu_dram_gb;
  agg["num_requests_total"] = total;
  agg["num_requests_successful"] = kept.size();
  agg["request_accounting"] = std::move(accounting);
  for (const auto& [k, v] : shape.fields.items()) agg[k] = v;
  if (!router.is_null()) agg["router"] = router;
  if (!id.kv_p2p_transfer.empty()) agg["kv_p2p_transfer"] = id.kv_p2p_transfer;
  if (artifacts.summary && artifacts.summary->dataset.is_object()) agg["dataset"] = artifacts.summary->dataset;

  Json request = Json::object();
  request["qps"] = QpsBlock(kept);
  request["latency"] = LatencyBlock(kept);
  request["tokens"] = TokensBlock(kept, expected);
  request["throughput"] = ThroughputBlock(kept);
  Json cache = Json::object();
  cache["theoretical_cache_hit_rate"] = TheoreticalHitRate(artifacts.summary);
  request["cache"] = std::move(cache);

  std::vector<std::string> warnings;
  Json server = ServerMetricsBlock(artifacts.server_metrics, id.framework, kept, artifacts.server_logs, warnings);

  Json& throughput = request["throughput"];
  if (!throughput.empty() && shape.num_gpus > 0) {
    const auto gpus = static_cast<double>(shape.num_gpus);
    Json per_gpu = Json::object();
    per_gpu["total_tput_tps"] = throughput["total"]["tokens_per_second"].get<double>() / gpus;
    per_gpu["output_tput_tps"] = throughput["output"]["tokens_per_second"].get<double>() / gpus;
    per_gpu["input_tput_tps"] = throughput["input"]["tokens_per_second"].get<double>() / gpus;
    throughput["per_gpu"] = std::move(per_gpu);
  }
  Json pool = server["kv_cache"]["gpu_total_tokens"];
  agg["request_metrics"] = std::move(request);
  agg["server_metrics"] = std::move(server);
  agg["kv_cache_pool_tokens"] = std::move(pool);
  if (!warnings.empty()) agg["warnings"] = warnings;
  RoundAggregateFloats(agg);
  return agg;
}

std::string WriteAgenticAggregate(const std::string& result_dir, const std::string& output_dir,
                                  const AgenticIdentity& identity, const ExpectedOutputs& expected) {
  if (identity.result_filename.empty()) Refuse("RESULT_FILENAME", "RESULT_FILENAME env var not set");
  const Json agg = AgenticAggregate(ReadAgenticArtifacts(result_dir), identity, expected);
  fs::create_directories(output_dir);
  const std::string path = (fs::path(output_dir) / (identity.result_filename + ".json")).string();
  WriteFileAtomic(path, agg.dump(2));
  return path;
}

}  // namespace infermark::agentic

#include "agentic/aggregate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Refuse(const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", field, rule});
}

// An optional component's JSON metadata from the environment: null when unset, empty or "null".
// `optional_version`: {"name"} or {"name", "version"} (the KV offload backend), else exactly
// {"name", "version"} (the router); every value a non-empty string.
Json ComponentMetadata(const std::string& variable, const std::string& raw, bool optional_version) {
  if (raw.empty() || raw == "null") return nullptr;
  Json metadata = Json::parse(raw, nullptr, false);
  if (metadata.is_discarded()) Refuse(variable, variable + " must contain valid JSON");
  const auto keys_are = [&](std::initializer_list<const char*> keys) {
    if (!metadata.is_object() || metadata.size() != keys.size()) return false;
    return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return metadata.contains(k); });
  };
  if (optional_version) {
    if (!keys_are({"name"}) && !keys_are({"name", "version"})) {
      Refuse(variable, variable + " must contain 'name' and optional 'version'");
    }
  } else if (!keys_are({"name", "version"})) {
    Refuse(variable, variable + " must contain exactly 'name' and 'version'");
  }
  for (const auto& [key, value] : metadata.items()) {
    if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
      Refuse(variable, variable + (optional_version ? " values must be non-empty strings"
                                                    : " name and version must be non-empty strings"));
    }
  }
  return metadata;
}

Json BackendMetadata(const std::string& raw) {
  return ComponentMetadata("KV_OFFLOAD_BACKEND_METADATA", raw, true);
}

Json RouterMetadata(const std::string& raw) {
  return ComponentMetadata("ROUTER_METADATA", raw, false);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

Json Optional(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// ---------------------------------------------------------------- statistics

double Mean(const std::vector<double>& v) {
  long double sum = 0;
  for (double x : v) sum += x;
  return static_cast<double>(sum / static_cast<long double>(v.size()));
}

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

std::vector<std::int64_t> Ints(const std::vector<const ProfileRecord*>& records, std::string_view metric) {
  std::vector<std::int64_t> out;
  for (const ProfileRecord* r : records) {
    const auto v = r->Metric(metric);
    if (v && std::isfinite(*v)) out.push_back(static_cast<std::int64_t>(std::trunc(*v)));
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

// ---------------------------------------------------------------- server metrics

/// A number as Python's float() reads a stat: numbers, booleans and numeric strings.
std::optional<double> ToFloat(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const char* begin = s.c_str();
    char* end = nullptr;
    const double d = std::strtod(begin, &end);
    if (end == begin) return std::nullopt;
    while (*end != '\0' && std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (*end != '\0') return std::nullopt;
    return d;
  }
  return std::nullopt;
}

using Keys = std::vector<const char*>;
const Keys kCounterKeys = {"total", "sum", "max", "avg"};
const Keys kGaugeKeys = {"max", "avg", "total"};
const Keys kRateKeys = {"avg", "max", "total"};
const Keys kCapacityKeys = {"max", "avg", "total", "sum"};
using SeriesFilter = std::function<bool(const Json&)>;

/// Views server_metrics_export.json's `metrics` the way the adapters read it.
class MetricsView {
 public:
  explicit MetricsView(const Json& export_json) {
    if (export_json.is_object()) {
      const auto it = export_json.find("metrics");
      if (it != export_json.end() && it->is_object()) metrics_ = &*it;
    }
  }
  [[nodiscard]] bool empty() const { return metrics_ == nullptr || metrics_->empty(); }
  [[nodiscard]] std::size_t size() const { return metrics_ == nullptr ? 0 : metrics_->size(); }
  [[nodiscard]] std::vector<std::string> Names() const {
    std::vector<std::string> names;
    if (metrics_ != nullptr) {
      for (const auto& [name, entry] : metrics_->items()) names.push_back(name);
    }
    return names;
  }
  [[nodiscard]] bool AnyStartsWith(std::string_view prefix) const {
    for (const std::string& n : Names()) {
      if (StartsWith(n, prefix)) return true;
    }
    return false;
  }
  [[nodiscard]] std::vector<const Json*> Series(const std::vector<std::string>& names) const {
    std::vector<const Json*> out;
    if (metrics_ == nullptr) return out;
    for (const std::string& name : names) {
      const auto entry = metrics_->find(name);
      if (entry == metrics_->end() || !entry->is_object()) continue;
      const auto series = entry->find("series");
      if (series == entry->end() || !series->is_array()) continue;
      for (const Json& s : *series) {
        if (s.is_object()) out.push_back(&s);
      }
    }
    return out;
  }
  [[nodiscard]] std::vector<const Json*> AllSeries() const { return Series(Names()); }

 private:
  const Json* metrics_ = nullptr;
};

std::optional<double> SeriesStat(const Json& series, const Keys& keys) {
  const auto stats = series.find("stats");
  if (stats == series.end() || !stats->is_object()) return std::nullopt;
  for (const char* key : keys) {
    const auto it = stats->find(key);
    if (it == stats->end()) continue;
    if (const auto v = ToFloat(*it)) return v;
  }
  return std::nullopt;
}

std::optional<double> SumStat(const MetricsView& m, const std::vector<std::string>& names,
                              const Keys& keys = kCounterKeys, const SeriesFilter& filter = nullptr) {
  double total = 0.0;
  bool found = false;
  for (const Json* s : m.Series(names)) {
    if (filter && !filter(*s)) continue;
    const auto v = SeriesStat(*s, keys);
    if (!v) continue;
    total += *v;
    found = true;
  }
  return found ? std::optional<double>(total) : std::nullopt;
}

enum class Combine { kMax, kAvg };

std::optional<double> GaugeStat(const MetricsView& m, const std::vector<std::string>& names,
                                const Keys& keys = kGaugeKeys, Combine combine = Combine::kMax,
                                const SeriesFilter& filter = nullptr) {
  std::vector<double> values;
  for (const Json* s : m.Series(names)) {
    if (filter && !filter(*s)) continue;
    if (const auto v = SeriesStat(*s, keys)) values.push_back(*v);
  }
  if (values.empty()) return std::nullopt;
  if (combine == Combine::kAvg) return Mean(values);
  return *std::max_element(values.begin(), values.end());
}

std::optional<std::string> LabelValue(const Json& series, const char* key) {
  const auto labels = series.find("labels");
  if (labels == series.end() || !labels->is_object()) return std::nullopt;
  const auto it = labels->find(key);
  if (it == labels->end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return std::string(it->get<bool>() ? "True" : "False");
  return it->dump();
}

/// Sums per label value, in first-seen order.
std::vector<std::pair<std::string, double>> SumByLabel(const MetricsView& m, const std::string& name,
                                                       const char* label) {
  std::vector<std::pair<std::string, double>> out;
  for (const Json* s : m.Series({name})) {
    const auto labels = s->find("labels");
    if (labels == s->end() || !labels->is_object()) continue;
    const auto value_label = LabelValue(*s, label);
    if (!value_label) continue;
    const auto v = SeriesStat(*s, kCounterKeys);
    if (!v) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == *value_label; });
    if (it == out.end()) {
      out.emplace_back(*value_label, 0.0);
      it = out.end() - 1;
    }
    it->second += *v;
  }
  return out;
}

std::optional<double> Lookup(const std::vector<std::pair<std::string, double>>& by_label, const std::string& key) {
  for (const auto& [k, v] : by_label) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Json ByLabelJson(const std::vector<std::pair<std::string, double>>& by_label) {
  Json out = Json::object();
  for (const auto& [k, v] : by_label) out[k] = v;
  return out;
}

std::optional<double> Rate(const std::optional<double>& num, const std::optional<double>& den) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return *num / *den;
}

std::optional<double> NormalizeFraction(const std::optional<double>& v) {
  if (!v) return std::nullopt;
  return *v > 1.5 ? *v / 100.0 : *v;
}

Json CounterInt(const std::optional<double>& v) {
  if (!v) return nullptr;
  return static_cast<std::int64_t>(std::nearbyint(*v));
}

/// The figures the adapters fill (the reference's flat fields that reach the output).
struct ServerFlat {
  std::optional<double> gpu_hit, cpu_hit, external_hit, overall_hit;
  std::optional<double> gpu_usage, cpu_usage;
  std::optional<double> bytes_g2c, bytes_c2g, time_g2c, time_c2g;
  Json prompt_total = nullptr;
  Json generation_total = nullptr;
};

Json EmptyServerMetrics(bool present, std::size_t metric_count) {
  const auto nulls = [](std::initializer_list<const char*> keys) {
    Json o = Json::object();
    for (const char* k : keys) o[k] = nullptr;
    return o;
  };
  Json out = Json::object();
  out["present"] = present;
  out["adapter"] = "none";
  out["metric_count"] = metric_count;
  Json cache =
      nulls({"gpu_cache_hit_rate", "cpu_cache_hit_rate", "external_cache_hit_rate", "overall_cache_hit_rate",
             "prefix_cache_hits", "prefix_cache_queries", "external_prefix_cache_hits", "external_prefix_cache_queries",
             "cached_tokens_by_source", "frontend_cache_hit_rate", "router_kv_hit_rate", "router_shared_cache_hit_rate",
             "frontend_cached_tokens", "frontend_input_tokens"});
  cache["cached_tokens_by_source"] = Json::object();
  out["cache"] = std::move(cache);
  out["kv_cache"] =
      nulls({"gpu_usage_pct", "gpu_total_tokens", "cpu_usage_pct", "cpu_used_tokens", "cpu_total_tokens"});
  out["kv_offload"] = nulls({"bytes_gpu_to_cpu", "bytes_cpu_to_gpu", "time_gpu_to_cpu", "time_cpu_to_gpu",
                             "bandwidth_gpu_to_cpu_bytes_per_second", "bandwidth_cpu_to_gpu_bytes_per_second"});
  Json tokens = nulls({"prompt_total", "generation_total", "requests_completed"});
  Json by_source = nulls({"gpu_cache_hit", "cpu_or_external_cache_hit", "computed"});
  by_source["raw"] = Json::object();
  tokens["prompt_by_source"] = std::move(by_source);
  out["tokens"] = std::move(tokens);
  out["sources"] = Json::array();
  return out;
}

std::string SourceId(const Json& series) {
  const std::string component = [&] {
    for (const char* key : {"dynamo_component", "component"}) {
      const auto v = LabelValue(series, key);
      if (v && !v->empty()) return *v;
    }
    return std::string();
  }();
  std::string id = component == "prefill"                               ? "prefill"
                   : (component == "backend" || component == "decode")  ? "decode"
                   : (component == "frontend" || component == "router") ? "router"
                                                                        : "combined";
  const auto endpoint = series.find("endpoint_url");
  if (endpoint != series.end() && endpoint->is_string() && !endpoint->get<std::string>().empty()) {
    id += "|" + endpoint->get<std::string>();
  }
  for (const char* key : {"worker_id", "dp_rank", "engine"}) {
    if (const auto v = LabelValue(series, key)) id += std::string("|") + key + "=" + *v;
  }
  return id;
}

Json VllmSources(const MetricsView& m) {
  std::set<std::string> ids;
  for (const Json* s :
       m.Series({"vllm:prompt_tokens", "vllm:generation_tokens", "vllm:prefix_cache_hits", "vllm:prefix_cache_queries",
                 "vllm:kv_cache_usage_perc", "vllm:prompt_tokens_by_source"})) {
    ids.insert(SourceId(*s));
  }
  Json out = Json::array();
  for (const std::string& id : ids) {
    const SeriesFilter same = [&id](const Json& s) { return SourceId(s) == id; };
    Json source = Json::object();
    source["id"] = id;
    source["role"] = id.substr(0, id.find('|'));
    source["prompt_tokens"] = Optional(SumStat(m, {"vllm:prompt_tokens"}, kCounterKeys, same));
    source["generation_tokens"] = Optional(SumStat(m, {"vllm:generation_tokens"}, kCounterKeys, same));
    source["prefix_cache_hit_rate"] = Optional(Rate(SumStat(m, {"vllm:prefix_cache_hits"}, kCounterKeys, same),
                                                    SumStat(m, {"vllm:prefix_cache_queries"}, kCounterKeys, same)));
    source["gpu_kv_cache_usage_pct"] = Optional(NormalizeFraction(
        GaugeStat(m, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, kGaugeKeys, Combine::kMax, same)));
    out.push_back(std::move(source));
  }
  return out;
}

std::optional<double> FirstCounterTotal(const MetricsView& m, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (const auto v = SumStat(m, {name})) return v;
  }
  return std::nullopt;
}

void PopulateVllm(const MetricsView& m, bool dynamo, ServerFlat& flat, Json& nested) {
  const auto prompt_total = dynamo
                                ? FirstCounterTotal(m, {"dynamo_frontend_input_sequence_tokens", "vllm:prompt_tokens"})
                                : SumStat(m, {"vllm:prompt_tokens"});
  const auto generation_total = dynamo
                                    ? FirstCounterTotal(m, {"dynamo_frontend_output_tokens", "vllm:generation_tokens"})
                                    : SumStat(m, {"vllm:generation_tokens"});
  flat.prompt_total = CounterInt(prompt_total);
  flat.generation_total = CounterInt(generation_total);
  const auto prefix_hits = SumStat(m, {"vllm:prefix_cache_hits"});
  const auto prefix_queries = SumStat(m, {"vllm:prefix_cache_queries"});
  const auto gpu_rate = Rate(prefix_hits, prefix_queries);
  flat.gpu_hit = gpu_rate;
  const auto external_hits = SumStat(m, {"vllm:external_prefix_cache_hits"});
  const auto external_queries = SumStat(m, {"vllm:external_prefix_cache_queries"});
  const auto external_rate = Rate(external_hits, external_queries);
  flat.external_hit = external_rate;
  flat.cpu_hit = external_rate;

  const auto by_source = SumByLabel(m, "vllm:prompt_tokens_by_source", "source");
  if (!by_source.empty()) {
    const auto local_hit = Lookup(by_source, "local_cache_hit");
    const auto external = Lookup(by_source, "external_kv_transfer");
    const auto local_compute = Lookup(by_source, "local_compute");
    double source_total = 0;
    for (const auto& [k, v] : by_source) source_total += v;
    if (source_total > 0) {
      if (local_hit) flat.gpu_hit = *local_hit / source_total;
      if (external) {
        flat.cpu_hit = *external / source_total;
        flat.external_hit = *external / source_total;
      }
      flat.overall_hit = (local_hit.value_or(0.0) + external.value_or(0.0)) / source_total;
    }
    Json pbs = Json::object();
    pbs["gpu_cache_hit"] = Optional(local_hit);
    pbs["cpu_or_external_cache_hit"] = Optional(external);
    pbs["computed"] = Optional(local_compute);
    pbs["raw"] = ByLabelJson(by_source);
    nested["tokens"]["prompt_by_source"] = std::move(pbs);
  } else if (gpu_rate) {
    flat.overall_hit = gpu_rate;
  }
  flat.gpu_usage = NormalizeFraction(GaugeStat(m, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}));
  flat.cpu_usage = NormalizeFraction(GaugeStat(m, {"vllm:cpu_kv_cache_usage_perc"}));
  flat.bytes_g2c = SumStat(m, {"vllm:kv_offload_bytes_gpu_to_cpu"});
  flat.bytes_c2g = SumStat(m, {"vllm:kv_offload_bytes_cpu_to_gpu"});
  flat.time_g2c = SumStat(m, {"vllm:kv_offload_time_gpu_to_cpu"});
  flat.time_c2g = SumStat(m, {"vllm:kv_offload_time_cpu_to_gpu"});

  Json& cache = nested["cache"];
  cache["gpu_cache_hit_rate"] = Optional(flat.gpu_hit);
  cache["cpu_cache_hit_rate"] = Optional(flat.cpu_hit);
  cache["external_cache_hit_rate"] = Optional(flat.external_hit);
  cache["overall_cache_hit_rate"] = Optional(flat.overall_hit);
  cache["prefix_cache_hits"] = Optional(prefix_hits);
  cache["prefix_cache_queries"] = Optional(prefix_queries);
  cache["external_prefix_cache_hits"] = Optional(external_hits);
  cache["external_prefix_cache_queries"] = Optional(external_queries);
  nested["kv_cache"]["gpu_usage_pct"] = Optional(flat.gpu_usage);
  nested["kv_cache"]["cpu_usage_pct"] = Optional(flat.cpu_usage);
  Json& offload = nested["kv_offload"];
  offload["bytes_gpu_to_cpu"] = Optional(flat.bytes_g2c);
  offload["bytes_cpu_to_gpu"] = Optional(flat.bytes_c2g);
  offload["time_gpu_to_cpu"] = Optional(flat.time_g2c);
  offload["time_cpu_to_gpu"] = Optional(flat.time_c2g);
  offload["bandwidth_gpu_to_cpu_bytes_per_second"] = Optional(Rate(flat.bytes_g2c, flat.time_g2c));
  offload["bandwidth_cpu_to_gpu_bytes_per_second"] = Optional(Rate(flat.bytes_c2g, flat.time_c2g));
  nested["tokens"]["prompt_total"] = flat.prompt_total;
  nested["tokens"]["generation_total"] = flat.generation_total;
  nested["sources"] = VllmSources(m);

  if (!dynamo) return;
  const auto dynamo_usage =
      NormalizeFraction(GaugeStat(m, {"dynamo_component_gpu_cache_usage_percent"}, kGaugeKeys, Combine::kMax));
  if (!flat.gpu_usage) {
    flat.gpu_usage = dynamo_usage;
    nested["kv_cache"]["gpu_usage_pct"] = Optional(dynamo_usage);
  }
  const auto frontend_cached = SumStat(m, {"dynamo_frontend_cached_tokens"});
  const auto frontend_input = SumStat(m, {"dynamo_frontend_input_sequence_tokens"});
  const auto frontend_rate = Rate(frontend_cached, frontend_input);
  const auto router_kv =
      NormalizeFraction(GaugeStat(m, {"dynamo_component_router_kv_hit_rate"}, kRateKeys, Combine::kAvg));
  const auto router_shared =
      NormalizeFraction(GaugeStat(m, {"dynamo_component_router_shared_cache_hit_rate"}, kRateKeys, Combine::kAvg));
  if (!flat.overall_hit) flat.overall_hit = (frontend_rate && *frontend_rate != 0) ? frontend_rate : router_shared;
  cache["frontend_cache_hit_rate"] = Optional(frontend_rate);
  cache["router_kv_hit_rate"] = Optional(router_kv);
  cache["router_shared_cache_hit_rate"] = Optional(router_shared);
  cache["frontend_cached_tokens"] = Optional(frontend_cached);
  cache["frontend_input_tokens"] = Optional(frontend_input);
}

void PopulateSglang(const MetricsView& m, ServerFlat& flat, Json& nested) {
  const auto prompt_total = SumStat(m, {"sglang:prompt_tokens"});
  const auto generation_total = SumStat(m, {"sglang:generation_tokens"});
  flat.prompt_total = CounterInt(prompt_total);
  flat.generation_total = CounterInt(generation_total);
  const auto cached = SumByLabel(m, "sglang:cached_tokens", "cache_source");
  const auto device_hits = Lookup(cached, "device");
  const auto host_hits = Lookup(cached, "host");
  std::optional<double> total_cached;
  if (!cached.empty()) {
    total_cached = 0.0;
    for (const auto& [k, v] : cached) *total_cached += v;
  }
  flat.gpu_hit = Rate(device_hits, prompt_total);
  flat.cpu_hit = Rate(host_hits, prompt_total);
  flat.external_hit = flat.cpu_hit;
  flat.overall_hit = Rate(total_cached, prompt_total);
  if (!flat.overall_hit) {
    flat.overall_hit = NormalizeFraction(GaugeStat(m, {"sglang:cache_hit_rate"}, kRateKeys, Combine::kAvg));
  }
  flat.gpu_usage = NormalizeFraction(GaugeStat(m, {"sglang:token_usage"}));
  const auto max_total_tokens = SumStat(m, {"sglang:max_total_num_tokens"}, kCapacityKeys);
  const auto host_used = GaugeStat(m, {"sglang:hicache_host_used_tokens"});
  const auto host_total = GaugeStat(m, {"sglang:hicache_host_total_tokens"});
  flat.cpu_usage = Rate(host_used, host_total);
  const SeriesFilter prefill_compute_mode = [](const Json& s) { return LabelValue(s, "mode") == "prefill_compute"; };
  const auto prefill_compute = SumStat(m, {"sglang:realtime_tokens"}, kCounterKeys, prefill_compute_mode);

  Json& cache = nested["cache"];
  cache["gpu_cache_hit_rate"] = Optional(flat.gpu_hit);
  cache["cpu_cache_hit_rate"] = Optional(flat.cpu_hit);
  cache["external_cache_hit_rate"] = Optional(flat.external_hit);
  cache["overall_cache_hit_rate"] = Optional(flat.overall_hit);
  cache["cached_tokens_by_source"] = ByLabelJson(cached);
  Json& kv = nested["kv_cache"];
  kv["gpu_usage_pct"] = Optional(flat.gpu_usage);
  kv["gpu_total_tokens"] = CounterInt(max_total_tokens);
  kv["cpu_usage_pct"] = Optional(flat.cpu_usage);
  kv["cpu_used_tokens"] = Optional(host_used);
  kv["cpu_total_tokens"] = Optional(host_total);
  nested["tokens"]["prompt_total"] = flat.prompt_total;
  nested["tokens"]["generation_total"] = flat.generation_total;
  Json pbs = Json::object();
  pbs["gpu_cache_hit"] = Optional(device_hits);
  pbs["cpu_or_external_cache_hit"] = Optional(host_hits);
  pbs["computed"] = Optional(prefill_compute);
  pbs["raw"] = ByLabelJson(cached);
  nested["tokens"]["prompt_by_source"] = std::move(pbs);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string::npos) end = text.size();
    out.emplace_back(text, pos, end - pos);
    pos = end + 1;
    if (end < text.size() && text[end] == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
  }
  return out;
}

/// vLLM's "GPU KV cache size: N tokens" summed over engines (the last line per engine core).
std::optional<std::int64_t> VllmLogCapacity(const std::string& log) {
  static const std::regex size_re(R"(GPU KV cache size:\s*([\d,]+)\s*tokens)");
  static const std::regex tag_re(R"(\((EngineCore(?:_DP\d+)?)\s+pid=\d+\))");
  std::vector<std::pair<std::string, std::int64_t>> per_engine;
  std::int64_t bare_total = 0;
  bool bare_found = false;
  for (const std::string& line : Lines(log)) {
    if (line.find("GPU KV cache size") == std::string::npos) continue;
    std::smatch size;
    if (!std::regex_search(line, size, size_re)) continue;
    std::string digits = size[1].str();
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    if (digits.empty()) continue;
    const std::int64_t tokens = std::stoll(digits);
    if (tokens <= 0) continue;
    std::smatch tag;
    if (std::regex_search(line, tag, tag_re)) {
      const auto it =
          std::find_if(per_engine.begin(), per_engine.end(), [&](const auto& p) { return p.first == tag[1]; });
      if (it == per_engine.end()) {
        per_engine.emplace_back(tag[1].str(), tokens);
      } else {
        it->second = tokens;
      }
    } else {
      bare_total += tokens;
      bare_found = true;
    }
  }
  if (!per_engine.empty()) {
    std::int64_t sum = 0;
    for (const auto& [k, v] : per_engine) sum += v;
    return sum;
  }
  return bare_found ? std::optional<std::int64_t>(bare_total) : std::nullopt;
}

/// SGLang's `max_total_num_tokens=N` per DP/TP/EP rank, scaled by dp_size when one rank logs it.
std::optional<std::int64_t> SglangLogCapacity(const std::string& log) {
  static const std::regex rank_re(R"(\b(DP\d+\s+TP\d+\s+EP\d+)\b)");
  static const std::regex tokens_re(R"(\bmax_total_num_tokens=(\d+)\b)");
  static const std::regex dp_re(R"(\bdp_size=(\d+)\b)");
  std::optional<std::int64_t> dp_size;
  std::smatch dp;
  if (std::regex_search(log, dp, dp_re)) {
    const std::int64_t v = std::stoll(dp[1].str());
    if (v > 0) dp_size = v;
  }
  std::vector<std::pair<std::string, std::int64_t>> per_rank;
  std::int64_t bare_total = 0;
  int bare_count = 0;
  for (const std::string& line : Lines(log)) {
    if (line.find("max_total_num_tokens") == std::string::npos) continue;
    std::smatch size;
    if (!std::regex_search(line, size, tokens_re)) continue;
    const std::int64_t tokens = std::stoll(size[1].str());
    if (tokens <= 0) continue;
    std::smatch tag;
    if (std::regex_search(line, tag, rank_re)) {
      const auto it = std::find_if(per_rank.begin(), per_rank.end(), [&](const auto& p) { return p.first == tag[1]; });
      if (it == per_rank.end()) {
        per_rank.emplace_back(tag[1].str(), tokens);
      } else {
        it->second = tokens;
      }
    } else {
      bare_total += tokens;
      ++bare_count;
    }
  }
  if (!per_rank.empty()) {
    if (dp_size && per_rank.size() == 1 && *dp_size > 1) return per_rank.front().second * *dp_size;
    std::int64_t sum = 0;
    for (const auto& [k, v] : per_rank) sum += v;
    return sum;
  }
  if (bare_count == 1 && dp_size && *dp_size > 1) return bare_total * *dp_size;
  return bare_count > 0 ? std::optional<std::int64_t>(bare_total) : std::nullopt;
}

enum class Adapter { kNone, kDynamoVllm, kSglang, kVllm };

Adapter DetectAdapter(const MetricsView& m, const std::string& framework) {
  const std::string fw = Lower(framework);
  if (StartsWith(fw, "dynamo") || m.AnyStartsWith("dynamo_")) return Adapter::kDynamoVllm;
  if (m.AnyStartsWith("sglang:") || (m.empty() && fw == "sglang")) return Adapter::kSglang;
  if (m.AnyStartsWith("vllm:") || (m.empty() && fw == "vllm")) return Adapter::kVllm;
  return Adapter::kNone;
}

std::optional<std::int64_t> LogCapacity(Adapter adapter, const std::vector<std::string>& logs) {
  if (adapter == Adapter::kNone) return std::nullopt;
  std::int64_t total = 0;
  bool found = false;
  for (const std::string& log : logs) {
    if (log.empty()) continue;
    const auto v = adapter == Adapter::kSglang ? SglangLogCapacity(log) : VllmLogCapacity(log);
    if (!v) continue;
    total += *v;
    found = true;
  }
  return found ? std::optional<std::int64_t>(total) : std::nullopt;
}

std::optional<std::int64_t> RecordTokenSum(const std::vector<const ProfileRecord*>& records, std::string_view metric) {
  const std::vector<std::int64_t> values = Ints(records, metric);
  if (values.empty()) return std::nullopt;
  std::int64_t total = 0;
  for (std::int64_t v : values) total += v;
  return total;
}

/// The server_metrics block and the warnings it raised.
Json ServerMetricsBlock(const Json& export_json, const std::string& framework,
                        const std::vector<const ProfileRecord*>& records, const std::vector<std::string>& logs,
                        std::vector<std::string>& warnings) {
  const MetricsView m(export_json);
  Json nested = EmptyServerMetrics(!m.empty(), m.size());
  ServerFlat flat;
  const Adapter adapter = DetectAdapter(m, framework);
  if (!m.empty()) {
    if (adapter == Adapter::kNone) {
      std::vector<std::string> names = m.Names();
      std::sort(names.begin(), names.end());
      std::string preview;
      for (std::size_t i = 0; i < names.size() && i < 10; ++i) preview += (i > 0 ? ", " : "") + names[i];
      Refuse("server_metrics_export.json", "Unsupported agentic server metrics backend; framework='" +
                                               Lower(framework) + "', metric_names=[" + preview + "]");
    }
    nested["adapter"] = adapter == Adapter::kSglang ? "sglang" : adapter == Adapter::kVllm ? "vllm" : "dynamo-vllm";
    if (adapter == Adapter::kSglang) {
      PopulateSglang(m, flat, nested);
    } else {
      PopulateVllm(m, adapter == Adapter::kDynamoVllm, flat, nested);
    }
  } else {
    warnings.emplace_back("server_metrics_export.json missing or empty");
  }
  if (const auto capacity = LogCapacity(adapter, logs)) nested["kv_cache"]["gpu_total_tokens"] = *capacity;
  if (flat.prompt_total.is_null()) {
    if (const auto v = RecordTokenSum(records, "input_sequence_length")) flat.prompt_total = *v;
  }
  if (flat.generation_total.is_null()) {
    if (const auto v = RecordTokenSum(records, "output_sequence_length")) flat.generation_total = *v;
  }
  Json& tokens = nested["tokens"];
  if (m.empty() || tokens["prompt_total"].is_null()) tokens["prompt_total"] = flat.prompt_total;
  if (m.empty() || tokens["generation_total"].is_null()) tokens["generation_total"] = flat.generation_total;
  tokens["requests_completed"] = records.size();
  return nested;
}

// ---------------------------------------------------------------- identity

bool EnvTrue(const std::string& value) {
  const std::string v = Lower(value);
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

/// The GPU shape fields and the number of GPUs, tp, ep and dp_attention as the reference derives them.
struct Shape {
  Json fields = Json::object();
  std::int64_t num_gpus = 0;
  std::int64_t tp = 0;
  std::int64_t ep = 0;
  std::string dp_attention;
};

Shape GpuShape(const AgenticIdentity& id) {
  Shape s;
  if (!id.is_multinode) {
    if (id.pp <= 0 || id.dcp_size <= 0 || id.pcp_size <= 0) {
      Refuse("PP_SIZE", "PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.");
    }
    s.fields["pp"] = id.pp;
    s.fields["dcp_size"] = id.dcp_size;
    s.fields["pcp_size"] = id.pcp_size;
    s.num_gpus = id.tp * id.pp * id.pcp_size;
    s.tp = id.tp;
    s.ep = id.ep;
    s.dp_attention = id.dp_attention;
    return s;
  }
  AgenticIdentity::Workers p = id.prefill;
  AgenticIdentity::Workers d = id.decode;
  for (std::int64_t v : {p.pp, p.dcp_size, p.pcp_size, d.pp, d.dcp_size, d.pcp_size}) {
    if (v <= 0) Refuse("PREFILL_PP_SIZE", "Multinode PP, DCP, and PCP sizes must be positive integers.");
  }
  if (p.hardware.empty() != d.hardware.empty()) {
    Refuse("PREFILL_HARDWARE", "PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.");
  }
  const std::int64_t num_prefill = p.num_workers * p.tp * p.pp * p.pcp_size;
  const std::int64_t num_decode = d.num_workers * d.tp * d.pp * d.pcp_size;
  s.num_gpus = num_prefill + num_decode;
  if (num_decode <= 0) {
    d.tp = 0;
    d.ep = 0;
    d.pp = 1;
    d.dcp_size = 1;
    d.pcp_size = 1;
  }
  s.tp = p.tp + d.tp;
  s.ep = std::max(p.ep, d.ep);
  s.dp_attention = EnvTrue(p.dp_attention) || EnvTrue(d.dp_attention) ? "true" : "false";
  const auto side = [&](const char* prefix, const AgenticIdentity::Workers& w, std::int64_t gpus, const char* gpu_key) {
    const std::string k = prefix;
    s.fields[k + "_num_workers"] = w.num_workers;
    s.fields[k + "_tp"] = w.tp;
    s.fields[k + "_pp"] = w.pp;
    s.fields[k + "_dcp_size"] = w.dcp_size;
    s.fields[k + "_pcp_size"] = w.pcp_size;
    s.fields[k + "_ep"] = w.ep;
    s.fields[k + "_dp_attention"] = w.dp_attention;
    s.fields[gpu_key] = gpus;
  };
  side("prefill", p, num_prefill, "num_prefill_gpu");
  side("decode", d, num_decode, "num_decode_gpu");
  if (!p.hardware.empty()) {
    s.fields["prefill_hw"] = p.hardware;
    s.fields["decode_hw"] = d.hardware;
  }
  return s;
}

std::string ReadHead(const fs::path& path) {
  constexpr std::size_t kMax = 64u * 1024u * 1024u;
  std::ifstream in(path, std::ios::binary);
  std::string data(kMax, '\0');
  in.read(data.data(), static_cast<std::streamsize>(kMax));
  data.resize(static_cast<std::size_t>(in.gcount()));
  data.erase(std::remove(data.begin(), data.end(), '\0'), data.end());
  return data;
}

std::vector<fs::path> ServerLogPaths(const fs::path& result_dir) {
  std::vector<fs::path> paths;
  std::error_code ec;
  if (fs::is_regular_file(result_dir / "server.log", ec)) paths.push_back(result_dir / "server.log");
  std::vector<fs::path> roots{result_dir};
  fs::path p = result_dir;
  for (int i = 0; i < 3; ++i) {
    fs::path parent = p.parent_path();
    if (parent.empty()) parent = ".";
    if (parent == p) break;
    roots.push_back(parent);
    p = parent;
    if (parent == ".") break;
  }
  for (const fs::path& root : roots) {
    if (!fs::is_directory(root, ec)) continue;
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (StartsWith(name, "watchtower-") && name.size() >= 15 && name.substr(name.size() - 4) == ".out") {
        found.push_back(entry.path());
      }
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  std::vector<fs::path> unique;
  std::set<fs::path> seen;
  for (const fs::path& path : paths) {
    if (seen.insert(fs::weakly_canonical(path, ec)).second) unique.push_back(path);
  }
  return unique;
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

AgenticIdentity IdentityFromEnvironment(const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  const auto str = [&](const char* name, std::string fallback = {}) {
    const auto v = lookup(name);
    return v && !v->empty() ? *v : fallback;
  };
  const auto integer = [&](const char* name, std::int64_t fallback) -> std::int64_t {
    const auto v = lookup(name);
    if (!v || v->empty()) return fallback;
    std::string s = *v;
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    char* end = nullptr;
    const long long parsed = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') Refuse(name, "must be a whole number, not '" + *v + "'");
    return parsed;
  };
  AgenticIdentity id;
  id.runner_type = str("RUNNER_TYPE");
  id.conc = integer("CONC", 0);
  id.image = str("IMAGE");
  id.model = str("MODEL");
  id.model_prefix = str("MODEL_PREFIX");
  id.framework = str("FRAMEWORK");
  id.precision = str("PRECISION");
  id.spec_decoding = lookup("SPEC_DECODING").value_or("none");
  id.disagg = EnvTrue(str("DISAGG"));
  id.is_multinode = EnvTrue(str("IS_MULTINODE"));
  id.tp = integer("TP", 1);
  id.ep = integer("EP_SIZE", 1);
  id.dp_attention = lookup("DP_ATTENTION").value_or("false");
  id.pp = integer("PP_SIZE", 1);
  id.dcp_size = integer("DCP_SIZE", 1);
  id.pcp_size = integer("PCP_SIZE", 1);
  const auto workers = [&](const std::string& p) {
    AgenticIdentity::Workers w;
    w.num_workers = integer((p + "_NUM_WORKERS").c_str(), 0);
    w.tp = integer((p + "_TP").c_str(), 0);
    w.pp = integer((p + "_PP_SIZE").c_str(), 1);
    w.dcp_size = integer((p + "_DCP_SIZE").c_str(), 1);
    w.pcp_size = integer((p + "_PCP_SIZE").c_str(), 1);
    w.ep = integer((p + "_EP").c_str(), 1);
    w.dp_attention = lookup(p + "_DP_ATTN").value_or("false");
    w.hardware = str((p + "_HARDWARE").c_str());
    return w;
  };
  id.prefill = workers("PREFILL");
  id.decode = workers("DECODE");
  id.kv_offloading = str("KV_OFFLOADING");
  id.kv_offload_backend = lookup("KV_OFFLOAD_BACKEND").value_or("");
  id.kv_offload_backend_metadata = lookup("KV_OFFLOAD_BACKEND_METADATA").value_or("");
  id.recipe_fingerprint = lookup("RECIPE_FINGERPRINT").value_or("");
  id.router_metadata = lookup("ROUTER_METADATA").value_or("");
  id.kv_p2p_transfer = lookup("KV_P2P_TRANSFER").value_or("");
  id.total_cpu_dram_gb = integer("TOTAL_CPU_DRAM_GB", 0);
  id.result_filename = str("RESULT_FILENAME");
  return id;
}

AgenticIdentity IdentityFromEnvironment() {
  return IdentityFromEnvironment([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v == nullptr ? std::nullopt : std::optional<std::string>(v);
  });
}

AgenticArtifacts ReadAgenticArtifacts(const std::string& result_dir) {
  const fs::path base = fs::path(result_dir) / "aiperf_artifacts";
  fs::path dir = base;
  std::error_code ec;
  if (!fs::is_regular_file(base / "profile_export.jsonl", ec) && fs::is_directory(base, ec)) {
    std::vector<fs::path> children;
    for (const auto& entry : fs::directory_iterator(base, ec)) children.push_back(entry.path());
    std::sort(children.begin(), children.end());
    for (const fs::path& child : children) {
      if (fs::is_directory(child, ec) && fs::is_regular_file(child / "profile_export.jsonl", ec)) {
        dir = child;
        break;
      }
    }
  }
  const fs::path jsonl = dir / "profile_export.jsonl";
  if (!fs::exists(jsonl, ec)) throw InputError(Diagnostic{SourceMark{jsonl.string(), 0, 0}, "", "", "not found"});
  AgenticArtifacts a;
  a.records = ReadProfileExport(jsonl.string());
  if (fs::exists(dir / "profile_export_aiperf.json", ec)) {
    a.summary = ReadProfileSummary((dir / "profile_export_aiperf.json").string());
  }
  const fs::path server = dir / "server_metrics_export.json";
  if (fs::exists(server, ec)) {
    a.server_metrics = Json::parse(ReadFile(server.string()), nullptr, false);
    if (a.server_metrics.is_discarded()) {
      throw InputError(Diagnostic{SourceMark{server.string(), 0, 0}, "", "", "not valid JSON"});
    }
  }
  for (const fs::path& log : ServerLogPaths(fs::path(result_dir))) a.server_logs.push_back(ReadHead(log));
  return a;
}

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

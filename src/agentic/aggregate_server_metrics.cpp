#include "agentic/detail/aggregate_server_metrics.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>
#include <set>
#include <utility>

#include "agentic/detail/aggregate_common.hpp"

namespace infermark::agentic::detail {
namespace {

Json Optional(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
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

}  // namespace

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

}  // namespace infermark::agentic::detail

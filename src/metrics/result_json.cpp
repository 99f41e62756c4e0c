#include "metrics/result_json.hpp"

#include <cmath>
#include <cstdio>

#include "core/file_io.hpp"

namespace infermark::metrics {
namespace {

double NsSeconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

Json OrNull(const std::optional<std::int64_t>& v) {
  return v ? Json(*v) : Json(nullptr);
}

const MetricSummary* CompatibleSummary(const BenchmarkMetrics& m, const std::string& name) {
  if (name == "ttft") return &m.ttft;
  if (name == "tpot") return &m.tpot;
  if (name == "itl") return &m.itl;
  if (name == "e2el") return &m.e2el;
  return nullptr;
}

Json SummaryJson(const MetricSummary& s) {
  Json j = Json::object();
  j["count"] = s.count;
  j["mean"] = s.mean;
  j["median"] = s.median;
  j["std"] = s.std;
  j["max"] = s.max;
  for (const auto& [p, value] : s.percentiles) j["p" + PercentileWord(p)] = value;
  return j;
}

}  // namespace

std::string PercentileWord(double p) {
  if (p == std::floor(p)) return std::to_string(static_cast<long long>(p));
  // Python's str(float): the shortest text that reads back (DumpJson writes floats that way).
  return DumpJson(Json(p));
}

Json BuildResultJson(const ResultHeader& h, const BenchmarkMetrics& m, std::span<const RequestRecord> records,
                     const Verdict& verdict, bool complete, Json infermark) {
  Json j = Json::object();
  j["date"] = h.date;
  j["backend"] = h.backend;
  j["model_id"] = h.model_id;
  j["tokenizer_id"] = h.tokenizer_id;
  j["best_of"] = h.best_of;
  j["num_prompts"] = h.num_prompts;
  for (const auto& [key, value] : h.metadata) j[key] = value;
  if (h.request_rate) {
    j["request_rate"] = *h.request_rate;
  } else {
    j["request_rate"] = "inf";
  }
  j["burstiness"] = h.burstiness;
  if (h.max_concurrency) {
    j["max_concurrency"] = *h.max_concurrency;
  } else {
    j["max_concurrency"] = nullptr;
  }
  j["duration"] = h.duration_s;
  j["benchmark_start_time_unix"] = h.start_time_unix;
  j["benchmark_end_time_unix"] = h.end_time_unix;
  j["completed"] = m.completed;
  j["total_input_tokens"] = m.total_input;
  j["total_output_tokens"] = m.total_output;
  j["request_throughput"] = m.request_throughput;
  // The reference's key really ends with a colon; readers look it up by that name.
  if (m.request_goodput) {
    j["request_goodput:"] = *m.request_goodput;
  } else {
    j["request_goodput:"] = nullptr;
  }
  j["output_throughput"] = m.output_throughput;
  j["total_token_throughput"] = m.total_token_throughput;
  j["input_lens"] = m.input_lens;
  j["output_lens"] = m.output_lens;
  if (h.detailed) {
    Json ttfts = Json::array(), itls = Json::array(), texts = Json::array(), errors = Json::array();
    for (const RequestRecord& r : records) {
      ttfts.push_back(r.first_chunk_ns && r.sent_ns ? NsSeconds(*r.first_chunk_ns - *r.sent_ns) : 0.0);
      Json gaps = Json::array();
      for (std::size_t i = 1; i < r.chunk_ns.size(); ++i) gaps.push_back(NsSeconds(r.chunk_ns[i] - r.chunk_ns[i - 1]));
      itls.push_back(std::move(gaps));
      texts.push_back(r.generated_text);
      errors.push_back(r.error);
    }
    j["ttfts"] = std::move(ttfts);
    j["itls"] = std::move(itls);
    j["generated_texts"] = std::move(texts);
    j["errors"] = std::move(errors);
  }
  for (const std::string& name : h.percentile_metrics) {
    const MetricSummary* s = CompatibleSummary(m, name);
    if (s == nullptr) continue;
    j["mean_" + name + "_ms"] = s->mean;
    j["median_" + name + "_ms"] = s->median;
    j["std_" + name + "_ms"] = s->std;
    for (const auto& [p, value] : s->percentiles) j["p" + PercentileWord(p) + "_" + name + "_ms"] = value;
  }
  j["metrics_version"] = kMetricsVersion;
  j["complete"] = complete;
  j["verdict"] = verdict.Name();
  j["verdict_reasons"] = verdict.reasons;
  infermark["metrics"] = OwnMetricsJson(m);
  j["infermark"] = std::move(infermark);
  return j;
}

Json OwnMetricsJson(const BenchmarkMetrics& m) {
  Json j = Json::object();
  j["failed"] = m.failed;
  Json by_kind = Json::object();
  for (const auto& [kind, n] : m.failures_by_kind) by_kind[kind] = n;
  j["failures_by_kind"] = std::move(by_kind);
  j["first_text_ttft_ms"] = SummaryJson(m.first_text_ttft);
  j["intended_ttft_ms"] = SummaryJson(m.intended_ttft);
  j["intended_e2el_ms"] = SummaryJson(m.intended_e2el);
  j["send_lag_ms"] = SummaryJson(m.send_lag);
  j["opening_wave_send_lag_ms"] = SummaryJson(m.opening_wave_send_lag);
  j["tokens_per_chunk"] = SummaryJson(m.tokens_per_chunk);
  j["chunks"] = m.chunks;
  j["requests_with_chunk_usage"] = m.requests_with_chunk_usage;
  Json tokens = Json::object();
  tokens["server_output_tokens"] = m.server_output_tokens;
  tokens["client_output_tokens"] = m.client_output_tokens;
  tokens["output_usage_missing"] = m.output_usage_missing;
  tokens["output_token_mismatches"] = m.output_token_mismatches;
  tokens["prompt_token_mismatches"] = m.prompt_token_mismatches;
  tokens["prompt_token_difference"] = m.prompt_token_difference;
  j["token_counts"] = std::move(tokens);
  return j;
}

Json HostErrorJson(const HostError& error) {
  Json j = Json::object();
  for (const auto& [key, e] : error.figures) {
    Json entry = Json::object();
    entry["abs"] = e.abs;
    entry["rel"] = e.rel ? Json(*e.rel) : Json(nullptr);
    j[key] = std::move(entry);
  }
  return j;
}

Json HostTimingJson(const HostError& error) {
  if (!error.request_path || !error.emission) return nullptr;
  Json j = Json::object();
  j["request_path_ms"] = SummaryJson(*error.request_path);
  j["emission_to_arrival_ms"] = SummaryJson(*error.emission);
  return j;
}

Json FigureMarksJson(std::span<const FigureMark> marks) {
  Json j = Json::array();
  for (const FigureMark& m : marks) {
    Json entry = Json::object();
    entry["key"] = m.key;
    entry["abs"] = m.abs;
    entry["rel"] = m.rel;
    entry["headline"] = m.headline;
    entry["cause"] = m.cause;
    j.push_back(std::move(entry));
  }
  return j;
}

Json RequestRecordJson(const RequestRecord& r) {
  Json j = Json::object();
  j["index"] = r.index;
  j["response_id"] = r.response_id;
  j["success"] = r.success;
  j["error_kind"] = r.error_kind;
  j["error"] = r.error;
  j["http_status"] = r.http_status;
  j["intended_ns"] = OrNull(r.intended_ns);
  j["sent_ns"] = OrNull(r.sent_ns);
  j["first_chunk_ns"] = OrNull(r.first_chunk_ns);
  j["first_text_ns"] = OrNull(r.first_text_ns);
  j["end_ns"] = OrNull(r.end_ns);
  j["done_ns"] = OrNull(r.done_ns);
  j["chunk_ns"] = r.chunk_ns;
  j["chunk_tokens"] = r.chunk_tokens;
  j["prompt_tokens"] = r.prompt_tokens;
  j["expected_output_tokens"] = r.expected_output_tokens;
  j["server_prompt_tokens"] = OrNull(r.server_prompt_tokens);
  j["server_output_tokens"] = OrNull(r.server_output_tokens);
  j["client_output_tokens"] = OrNull(r.client_output_tokens);
  j["freed_by"] = r.freed_by ? Json(*r.freed_by) : Json(nullptr);
  j["model_arrival_ns"] = OrNull(r.model_arrival_ns);
  j["model_first_chunk_ns"] = OrNull(r.model_first_chunk_ns);
  j["model_end_ns"] = OrNull(r.model_end_ns);
  j["model_done_ns"] = OrNull(r.model_done_ns);
  j["chunk_model_ns"] = r.chunk_model_ns;
  return j;
}

void WriteResultJson(const std::string& path, const Json& result) {
  WriteFileAtomic(path, DumpJson(result));
}

void WriteRecordsJsonl(const std::string& path, std::span<const RequestRecord> records) {
  std::string text;
  for (const RequestRecord& r : records) {
    AppendJson(text, RequestRecordJson(r), kCompactJson);
    text.push_back('\n');
  }
  WriteFileAtomic(path, text);
}

}  // namespace infermark::metrics

#include "metrics/benchmark_metrics.hpp"

#include <algorithm>

#include "core/internal_error.hpp"
#include "core/numpy_stats.hpp"

namespace infermark::metrics {
namespace {

// The reference keeps seconds (perf_counter differences) and multiplies summaries by 1000; doing
// the same keeps the last bits of every reported number identical.
double Seconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

MetricSummary SummarizeSeconds(const std::vector<double>& seconds, std::span<const double> percentiles) {
  MetricSummary s = Summarize(seconds, percentiles);
  s.mean *= 1000.0;
  s.median *= 1000.0;
  s.std *= 1000.0;
  s.max *= 1000.0;
  for (auto& [p, value] : s.percentiles) value *= 1000.0;
  return s;
}

}  // namespace

MetricSummary Summarize(std::span<const double> samples, std::span<const double> percentiles) {
  MetricSummary s;
  s.count = samples.size();
  s.mean = NumpyMean(samples);
  s.median = NumpyMedian(samples);
  s.std = NumpyStd(samples);
  s.max = samples.empty() ? 0.0 : *std::max_element(samples.begin(), samples.end());
  for (const double p : percentiles) s.percentiles.emplace_back(p, NumpyPercentile(samples, p));
  return s;
}

BenchmarkMetrics ComputeMetrics(std::span<const RequestRecord> records, double duration_s,
                                const MetricsOptions& options) {
  BenchmarkMetrics m;
  std::vector<double> ttfts, tpots, all_tpots, itls, e2els, first_text, intended_ttft, intended_e2el, send_lag,
      opening_lag, per_chunk;
  for (const RequestRecord& r : records) {
    m.input_lens.push_back(r.prompt_tokens);
    if (r.sent_ns && r.intended_ns) {
      (r.opening_wave ? opening_lag : send_lag).push_back(Seconds(*r.sent_ns - *r.intended_ns));
    }
    if (!r.success) {
      m.output_lens.push_back(0);
      ++m.failed;
      ++m.failures_by_kind[r.error_kind.empty() ? "unknown" : r.error_kind];
      continue;
    }
    // The reference's RequestFuncOutput.output_tokens defaults to 0, so a server that sends no usage
    // yields 0 output tokens; the client's own count is reported beside it, never substituted.
    const std::int64_t output_len = r.server_output_tokens.value_or(0);
    INFERMARK_CHECK(r.sent_ns && r.first_chunk_ns && r.end_ns, "a successful request was sent and received a chunk");
    m.output_lens.push_back(output_len);
    m.total_input += r.prompt_tokens;
    const double ttft = Seconds(*r.first_chunk_ns - *r.sent_ns);
    const double latency = Seconds(*r.end_ns - *r.sent_ns);
    double tpot = 0.0;
    if (output_len > 1) {
      tpot = (latency - ttft) / static_cast<double>(output_len - 1);
      tpots.push_back(tpot);
    }
    all_tpots.push_back(tpot);
    for (std::size_t i = 1; i < r.chunk_ns.size(); ++i) itls.push_back(Seconds(r.chunk_ns[i] - r.chunk_ns[i - 1]));
    ttfts.push_back(ttft);
    e2els.push_back(latency);
    ++m.completed;

    if (r.first_text_ns) first_text.push_back(Seconds(*r.first_text_ns - *r.sent_ns));
    if (r.intended_ns) {
      intended_ttft.push_back(Seconds(*r.first_chunk_ns - *r.intended_ns));
      intended_e2el.push_back(Seconds(*r.end_ns - *r.intended_ns));
    }
    m.chunks += r.chunk_ns.size();
    if (!r.chunk_tokens.empty()) {
      ++m.requests_with_chunk_usage;
      std::uint32_t before = 0;
      for (const std::uint32_t cumulative : r.chunk_tokens) {
        per_chunk.push_back(static_cast<double>(cumulative >= before ? cumulative - before : 0));
        before = cumulative;
      }
    }
    if (r.server_output_tokens) {
      m.server_output_tokens += *r.server_output_tokens;
    } else {
      ++m.output_usage_missing;
    }
    if (r.client_output_tokens) {
      m.client_output_tokens += *r.client_output_tokens;
      if (r.server_output_tokens && *r.server_output_tokens != *r.client_output_tokens) ++m.output_token_mismatches;
    }
    if (r.server_prompt_tokens && *r.server_prompt_tokens != r.prompt_tokens) {
      ++m.prompt_token_mismatches;
      m.prompt_token_difference += *r.server_prompt_tokens - r.prompt_tokens;
    }
  }
  m.total_output = 0;
  for (const std::int64_t n : m.output_lens) m.total_output += n;

  if (!options.goodput_slo_ms.empty()) {
    // A request is good when every chosen SLO holds (`slo_ms / 1000 >= value`); for TPOT the
    // reference uses 0 for single-token outputs.
    std::size_t good = 0;
    for (std::size_t i = 0; i < ttfts.size(); ++i) {
      bool ok = true;
      for (const auto& [metric, slo_ms] : options.goodput_slo_ms) {
        const double value = metric == "ttft" ? ttfts[i] : metric == "tpot" ? all_tpots[i] : e2els[i];
        ok = ok && slo_ms / 1000.0 >= value;
      }
      if (ok) ++good;
    }
    m.request_goodput = static_cast<double>(good) / duration_s;
  }
  m.request_throughput = static_cast<double>(m.completed) / duration_s;
  m.output_throughput = static_cast<double>(m.total_output) / duration_s;
  m.total_token_throughput = static_cast<double>(m.total_input + m.total_output) / duration_s;

  const std::span<const double> ps = options.percentiles;
  m.ttft = SummarizeSeconds(ttfts, ps);
  m.tpot = SummarizeSeconds(tpots, ps);
  m.itl = SummarizeSeconds(itls, ps);
  m.e2el = SummarizeSeconds(e2els, ps);
  m.first_text_ttft = SummarizeSeconds(first_text, ps);
  m.intended_ttft = SummarizeSeconds(intended_ttft, ps);
  m.intended_e2el = SummarizeSeconds(intended_e2el, ps);
  m.send_lag = SummarizeSeconds(send_lag, ps);
  m.opening_wave_send_lag = SummarizeSeconds(opening_lag, ps);
  m.tokens_per_chunk = Summarize(per_chunk, ps);
  return m;
}

}  // namespace infermark::metrics

#include "engine/point_metrics.hpp"

#include <algorithm>
#include <cmath>

namespace infermark::engine {

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const double rank = p / 100.0 * double(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const double frac = rank - double(lo);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (frac == 0 || lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (b - a) * frac;
}

PointMetrics SummarizeLatencies(std::vector<double> ttft, std::vector<double> tpot, std::vector<double> e2el,
                                double total_input, double total_output, double duration_s, int num_gpus,
                                int completed) {
  PointMetrics m;
  m.completed = completed;
  m.duration_s = duration_s;
  m.total_input_tokens = total_input;
  m.total_output_tokens = total_output;
  if (duration_s > 0 && num_gpus > 0) {
    m.tput_per_gpu = (total_input + total_output) / duration_s / num_gpus;
    m.output_tput_per_gpu = total_output / duration_s / num_gpus;
    m.input_tput_per_gpu = total_input / duration_s / num_gpus;
  }
  m.median_ttft = Percentile(ttft, 50);
  m.p90_ttft = Percentile(ttft, 90);
  m.p99_ttft = Percentile(ttft, 99);
  m.median_tpot = Percentile(tpot, 50);
  m.p90_tpot = Percentile(tpot, 90);
  m.p99_tpot = Percentile(tpot, 99);
  m.median_e2el = Percentile(e2el, 50);
  m.median_intvty = m.median_tpot > 0 ? 1.0 / m.median_tpot : 0;
  return m;
}

PointMetrics SummarizeRecords(const std::vector<RequestRecord>& records, double duration_s, int num_gpus) {
  std::vector<double> ttft, tpot, e2el;
  double in = 0, out = 0;
  int completed = 0;
  for (const auto& r : records) {
    if (!r.success) continue;
    ++completed;
    in += r.prompt_tokens;
    out += r.output_tokens;
    ttft.push_back(r.TtftSeconds());
    e2el.push_back(r.E2elSeconds());
    if (r.output_tokens > 1) tpot.push_back(r.TpotSeconds());
  }
  return SummarizeLatencies(std::move(ttft), std::move(tpot), std::move(e2el), in, out, duration_s, num_gpus,
                            completed);
}

}  // namespace infermark::engine

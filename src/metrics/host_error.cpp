#include "metrics/host_error.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "metrics/result_json.hpp"

namespace infermark::metrics {
namespace {

// How a request's events are placed after its (ideal) send.
enum class Service {
  kModel,     // the engine's modelled span since the request entered its model
  kMeasured,  // the measured span since the actual send
};

bool HasModelTimes(const RequestRecord& r) {
  return r.model_arrival_ns && r.model_first_chunk_ns && r.model_end_ns && r.model_done_ns &&
         r.chunk_model_ns.size() == r.chunk_ns.size();
}

struct Placer {
  const RequestRecord& r;
  Service service;
  double scale;  // model ns per real ns

  // Real ns after the send at which the event measured at `measured` (modelled at `model`) falls.
  std::int64_t Offset(std::int64_t measured, std::optional<std::int64_t> model) const {
    if (service == Service::kModel && model) {
      return std::llround(static_cast<double>(*model - *r.model_arrival_ns) / scale);
    }
    return measured - *r.sent_ns;
  }
};

// The run again on the ideal timeline: every request sent as its plan intended (a refill the
// moment its predecessor ended on this same timeline), each event placed by `service`.
std::vector<RequestRecord> IdealRecords(std::span<const RequestRecord> records, Service service, double scale) {
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // A refill's intended time is its predecessor's end, which comes after the predecessor's own
  // intended time, so this order places every predecessor first.
  auto planned = [&records](std::size_t i) {
    const RequestRecord& r = records[i];
    return r.intended_ns.value_or(r.sent_ns.value_or(0));
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return planned(a) < planned(b); });
  std::vector<RequestRecord> ideal(records.begin(), records.end());
  std::unordered_map<std::size_t, std::int64_t> ideal_done;  // by RequestRecord::index
  ideal_done.reserve(records.size());
  for (const std::size_t i : order) {
    const RequestRecord& r = records[i];
    RequestRecord& out = ideal[i];
    if (!r.sent_ns) continue;  // never sent: nothing to place
    std::int64_t send = planned(i);
    if (r.freed_by) {
      if (const auto it = ideal_done.find(*r.freed_by); it != ideal_done.end()) send = it->second;
    }
    const Placer place{
        r, service == Service::kModel && r.success && HasModelTimes(r) ? Service::kModel : Service::kMeasured, scale};
    out.intended_ns = send;
    out.sent_ns = send;
    if (r.first_chunk_ns) out.first_chunk_ns = send + place.Offset(*r.first_chunk_ns, r.model_first_chunk_ns);
    if (r.first_text_ns && r.first_chunk_ns && out.first_chunk_ns) {
      out.first_text_ns = *out.first_chunk_ns + (*r.first_text_ns - *r.first_chunk_ns);
    }
    if (r.end_ns) out.end_ns = send + place.Offset(*r.end_ns, r.model_end_ns);
    for (std::size_t k = 0; k < r.chunk_ns.size(); ++k) {
      const std::optional<std::int64_t> model =
          k < r.chunk_model_ns.size() ? std::optional<std::int64_t>(r.chunk_model_ns[k]) : std::nullopt;
      out.chunk_ns[k] = send + place.Offset(r.chunk_ns[k], model);
    }
    if (r.done_ns) {
      out.done_ns = send + place.Offset(*r.done_ns, r.model_done_ns);
      ideal_done[r.index] = *out.done_ns;
    }
  }
  return ideal;
}

double Duration(std::span<const RequestRecord> records, std::int64_t start_ns) {
  std::int64_t end = start_ns;
  for (const RequestRecord& r : records) {
    if (r.done_ns) end = std::max(end, *r.done_ns);
  }
  return std::max(static_cast<double>(end - start_ns) / 1e9, 1e-9);
}

void AddSummary(std::vector<std::pair<std::string, double>>& out, const std::string& name, const MetricSummary& s) {
  out.emplace_back("mean_" + name + "_ms", s.mean);
  out.emplace_back("median_" + name + "_ms", s.median);
  out.emplace_back("std_" + name + "_ms", s.std);
  for (const auto& [p, value] : s.percentiles) out.emplace_back("p" + PercentileWord(p) + "_" + name + "_ms", value);
}

// InferenceX's interactivity: 1000 / TPOT in ms, per statistic (its std is meaningless and left out).
void AddInteractivity(std::vector<std::pair<std::string, double>>& out, const MetricSummary& tpot) {
  auto inverse = [](double ms) { return ms > 0 ? 1000.0 / ms : 0.0; };
  out.emplace_back("mean_intvty", inverse(tpot.mean));
  out.emplace_back("median_intvty", inverse(tpot.median));
  for (const auto& [p, value] : tpot.percentiles) out.emplace_back("p" + PercentileWord(p) + "_intvty", inverse(value));
}

}  // namespace

const char* HostErrorKindName(HostErrorKind kind) {
  return kind == HostErrorKind::kExact ? "exact" : "client";
}

const FigureError* HostError::Find(std::string_view key) const {
  for (const auto& [name, error] : figures) {
    if (name == key) return &error;
  }
  return nullptr;
}

std::vector<std::pair<std::string, double>> FigureValues(const BenchmarkMetrics& m, double duration_s,
                                                         std::optional<int> gpus) {
  std::vector<std::pair<std::string, double>> out;
  AddSummary(out, "ttft", m.ttft);
  AddSummary(out, "tpot", m.tpot);
  AddSummary(out, "itl", m.itl);
  AddSummary(out, "e2el", m.e2el);
  AddInteractivity(out, m.tpot);
  const double input_throughput = static_cast<double>(m.total_input) / duration_s;
  out.emplace_back("request_throughput", m.request_throughput);
  out.emplace_back("output_throughput", m.output_throughput);
  out.emplace_back("input_throughput", input_throughput);
  out.emplace_back("total_token_throughput", m.total_token_throughput);
  if (gpus && *gpus > 0) {
    const double n = *gpus;
    out.emplace_back("tput_per_gpu", m.total_token_throughput / n);
    out.emplace_back("output_tput_per_gpu", m.output_throughput / n);
    out.emplace_back("input_tput_per_gpu", input_throughput / n);
  }
  return out;
}

HostError ComputeHostError(std::span<const RequestRecord> records, const BenchmarkMetrics& reported, double duration_s,
                           const HostErrorOptions& options) {
  HostError out;
  std::size_t succeeded = 0;
  for (const RequestRecord& r : records) {
    if (!r.success) continue;
    ++succeeded;
    if (HasModelTimes(r)) ++out.exact_requests;
  }
  const bool exact = options.model_time_scale > 0 && succeeded > 0 && out.exact_requests == succeeded;
  out.kind = exact ? HostErrorKind::kExact : HostErrorKind::kClient;

  const std::vector<RequestRecord> ideal =
      IdealRecords(records, exact ? Service::kModel : Service::kMeasured, options.model_time_scale);
  out.ideal_duration_s = Duration(ideal, options.window_start_ns);
  const BenchmarkMetrics ideal_metrics = ComputeMetrics(ideal, out.ideal_duration_s, options.metrics);
  // The client's share: ideal sends, measured service.
  std::vector<RequestRecord> half_storage;
  const std::vector<RequestRecord>* half = &ideal;
  if (exact) {
    half_storage = IdealRecords(records, Service::kMeasured, options.model_time_scale);
    half = &half_storage;
  }
  const double half_duration = Duration(*half, options.window_start_ns);
  const BenchmarkMetrics half_metrics = exact ? ComputeMetrics(*half, half_duration, options.metrics) : ideal_metrics;

  if (exact && options.model_epoch_ns) {
    const double scale = options.model_time_scale;
    const auto real = [&](std::int64_t model) {
      return static_cast<double>(*options.model_epoch_ns) + static_cast<double>(model) / scale;
    };
    std::vector<double> path, emitted;
    for (const RequestRecord& r : records) {
      if (!r.success || !HasModelTimes(r)) continue;
      path.push_back((real(*r.model_arrival_ns) - static_cast<double>(*r.sent_ns)) / 1e6);
      for (std::size_t k = 0; k < r.chunk_ns.size(); ++k) {
        emitted.push_back((static_cast<double>(r.chunk_ns[k]) - real(r.chunk_model_ns[k])) / 1e6);
      }
    }
    const std::span<const double> ps = options.metrics.percentiles;
    out.request_path = Summarize(path, ps);
    out.emission = Summarize(emitted, ps);
  }

  const auto rep = FigureValues(reported, duration_s, options.gpus);
  const auto ide = FigureValues(ideal_metrics, out.ideal_duration_s, options.gpus);
  const auto hal = FigureValues(half_metrics, half_duration, options.gpus);
  out.figures.reserve(rep.size());
  for (std::size_t k = 0; k < rep.size(); ++k) {
    FigureError e;
    e.reported = rep[k].second;
    e.ideal = ide[k].second;
    e.abs = e.reported - e.ideal;
    if (e.ideal != 0.0 && std::isfinite(e.ideal)) e.rel = e.abs / e.ideal;
    e.client_abs = e.reported - hal[k].second;
    out.figures.emplace_back(rep[k].first, e);
  }
  return out;
}

bool IsHeadlineFigure(std::string_view key) {
  static constexpr std::string_view kHeadline[] = {
      "total_token_throughput", "output_throughput",  "input_throughput", "tput_per_gpu",
      "output_tput_per_gpu",    "input_tput_per_gpu", "median_ttft_ms",   "median_tpot_ms",
      "median_itl_ms",          "median_e2el_ms",     "median_intvty"};
  return std::find(std::begin(kHeadline), std::end(kHeadline), key) != std::end(kHeadline);
}

bool IsUnjudgedFigure(std::string_view key) {
  return key.starts_with("std_");
}

}  // namespace infermark::metrics

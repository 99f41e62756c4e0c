// Host error: what the host — the client's and the engine's CPUs, the kernel, the loopback —
// added to each figure of a run, as opposed to what the GPU (modelled or real) set. Every
// statistic is computed a second time on an ideal timeline and the difference is the error:
//
// - each request is sent when the client's plan intended: at its scheduled time (open loop), at
//   the window's start (a closed loop's opening wave), or the moment the request before it on its
//   slot ended *on the ideal timeline* (a closed loop's refill), so a late send delays nothing
//   after it;
// - against the built-in engine, each event arrives at its modelled time: the engine states, on
//   every event, when the request entered its model and which modelled pass produced the event,
//   so the request's ideal service is that modelled span (de-scaled to real time). Against any
//   other server the measured service (send to arrival, on the kernel's clock) stands in for it,
//   and the difference is the client's own share: its sends against its plan.
//
// The figures are recomputed with the same metrics code as the reported ones, so the ideal and the
// reported differ only in their timelines. A second ideal run keeps the measured service but the
// ideal sends: its difference from the reported figures is the client's share of the error, the
// rest is the engine's and the transport's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/benchmark_metrics.hpp"
#include "metrics/request_record.hpp"

namespace infermark::metrics {

/// Which error a result carries.
enum class HostErrorKind {
  kExact,   ///< Against the built-in engine: every figure recomputed on its modelled timeline.
  kClient,  ///< Against any other server: the client's own share (its sends against its plan).
};

/// "exact" or "client", as result files name the kind.
const char* HostErrorKindName(HostErrorKind kind);

/// What the host added to one statistic.
struct FigureError {
  double reported = 0.0;      ///< The figure as reported.
  double ideal = 0.0;         ///< The same statistic on the ideal timeline.
  double abs = 0.0;           ///< reported − ideal, in the statistic's unit.
  std::optional<double> rel;  ///< abs / ideal; none when the ideal is 0.
  double client_abs = 0.0;    ///< The part of abs the client's sending added (the rest: engine and transport).
};

/// What the computation needs besides the records.
struct HostErrorOptions {
  std::int64_t window_start_ns = 0;  ///< Start of the measured window, on the records' clock.
  /// Modelled ns per real ns of the built-in engine (its --time-scale); 0: no model clock (max
  /// speed, or another server), so only the client's share can be known.
  double model_time_scale = 0.0;
  MetricsOptions metrics{};  ///< The run's percentiles (and SLOs), as the reported figures used.
  std::optional<int> gpus;   ///< GPUs of the deployment, for the per-GPU throughputs.
  /// The engine's virtual time 0 on the records' clock (same host): with it the error is also
  /// split by place (HostError::request_path, HostError::emission).
  std::optional<std::int64_t> model_epoch_ns;
};

/// Every statistic's host error, in the result's key order.
struct HostError {
  HostErrorKind kind = HostErrorKind::kClient;               ///< Which error this is.
  std::vector<std::pair<std::string, FigureError>> figures;  ///< (result key, error).
  double ideal_duration_s = 0.0;                             ///< The measured window on the ideal timeline.
  std::size_t exact_requests = 0;  ///< Successful requests with the engine's model times on every event.
  /// With the engine's epoch: per request, from its send to its entry into the model (ms); per
  /// chunk, from its modelled time to its arrival here (ms). Empty otherwise.
  std::optional<MetricSummary> request_path;
  std::optional<MetricSummary> emission;

  /// The error of `key`, or null.
  [[nodiscard]] const FigureError* Find(std::string_view key) const;
};

/// Computes the host error of a run whose `records` gave `reported` over `duration_s`.
HostError ComputeHostError(std::span<const RequestRecord> records, const BenchmarkMetrics& reported, double duration_s,
                           const HostErrorOptions& options);

/// The statistics of a result as (key, value): latency summaries (mean, median, std and each
/// percentile of TTFT, TPOT, ITL, E2EL, in ms), interactivity (1000 / TPOT, as InferenceX derives
/// it), the throughputs (request, output, input, total) and, with `gpus`, the per-GPU throughputs.
std::vector<std::pair<std::string, double>> FigureValues(const BenchmarkMetrics& metrics, double duration_s,
                                                         std::optional<int> gpus);

/// A headline figure: one InferenceX plots and the dashboard draws (the throughputs, per GPU or
/// not, and the median TTFT, TPOT, ITL, E2EL and interactivity). Its host error decides the verdict.
bool IsHeadlineFigure(std::string_view key);

/// A figure whose host error is recorded but never judged or marked (a spread: std).
bool IsUnjudgedFigure(std::string_view key);

}  // namespace infermark::metrics

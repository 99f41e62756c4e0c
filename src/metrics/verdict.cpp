#include "metrics/verdict.hpp"

#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <utility>

namespace infermark::metrics {
namespace {

// printf-style text for one reason line.
__attribute__((format(printf, 1, 2))) std::string Format(const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

double PercentileOf(const MetricSummary& s, double p) {
  for (const auto& [q, value] : s.percentiles) {
    if (q == p) return value;
  }
  return s.max;  // p99 not requested: judge on the maximum, which bounds it
}

// The self-checks past their bounds, as the reasons' explanation of what moved a figure.
std::string Diagnostics(const BenchmarkMetrics& metrics, const ClientSelfCheck& self, const VerdictLimits& limits,
                        const EngineSelfCheck* engine) {
  std::vector<std::string> parts;
  if (engine != nullptr && engine->passes > 0 && engine->lateness_p99_ms > limits.max_engine_lateness_p99_ms) {
    parts.push_back(Format("engine passes late, p99 %.3f ms", engine->lateness_p99_ms));
  }
  if (engine != nullptr && engine->window_s > 0 &&
      engine->clock_slipped_ms / (engine->window_s * 1000.0) > limits.max_engine_slip_fraction) {
    parts.push_back(Format("engine caught up on %llu passes that began over 5 ms late (%.1f ms in all)",
                           static_cast<unsigned long long>(engine->clock_slips), engine->clock_slipped_ms));
  }
  const double send_lag_p99 = PercentileOf(metrics.send_lag, 99.0);
  if (send_lag_p99 > limits.max_send_lag_p99_ms) parts.push_back(Format("client send lag p99 %.3f ms", send_lag_p99));
  if (self.loop_lag_p99_ms > limits.max_loop_lag_p99_ms) {
    parts.push_back(Format("client event-loop lag p99 %.3f ms", self.loop_lag_p99_ms));
  }
  if (parts.empty()) return "no self-check past its bound: a stall shorter than their percentiles";
  std::string out;
  // Never "; ": a stored verdict separates its reasons with it.
  for (const std::string& p : parts) out += (out.empty() ? "" : " + ") + p;
  return out;
}

// Who moved a figure: the client's sending, or the engine's host and the transport (the rest).
std::string Mover(const FigureError& e) {
  const double client = e.client_abs;
  const double rest = e.abs - client;
  const double whole = std::abs(client) + std::abs(rest);
  if (whole == 0.0) return "host";
  if (std::abs(client) < 0.1 * whole) return "engine host";
  if (std::abs(rest) < 0.1 * whole) return "client";
  return "engine host and client";
}

}  // namespace

std::string FigureLabel(std::string_view key) {
  static constexpr std::pair<std::string_view, std::string_view> kWhole[] = {
      {"request_throughput", "request throughput"},
      {"output_throughput", "output throughput"},
      {"input_throughput", "input throughput"},
      {"total_token_throughput", "total throughput"},
      {"tput_per_gpu", "throughput per GPU"},
      {"output_tput_per_gpu", "output throughput per GPU"},
      {"input_tput_per_gpu", "input throughput per GPU"}};
  for (const auto& [k, label] : kWhole) {
    if (k == key) return std::string(label);
  }
  std::string_view rest = key;
  if (rest.ends_with("_ms")) rest.remove_suffix(3);
  const std::size_t cut = rest.rfind('_');
  if (cut == std::string_view::npos) return std::string(key);
  std::string stat(rest.substr(0, cut));
  std::string metric(rest.substr(cut + 1));
  if (metric == "intvty") {
    metric = "interactivity";
  } else {
    for (char& c : metric) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return stat + " " + metric;
}

Verdict Judge(const BenchmarkMetrics& metrics, std::size_t attempted, const ClientSelfCheck& self, bool complete,
              const VerdictLimits& limits, const EngineSelfCheck* engine, const HostError* host_error) {
  Verdict v;
  auto fail = [&v](std::string reason) {
    v.valid = false;
    v.reasons.push_back(std::move(reason));
  };
  if (!complete) fail("the run was interrupted before every request finished");
  if (attempted > 0) {
    // failed / attempted, not the reference's 1 − completed / n: that one reads 95 of 100 as
    // 5.000000000000004 % and fails a run at exactly the limit.
    const double failure = static_cast<double>(attempted - metrics.completed) / static_cast<double>(attempted);
    if (failure > limits.max_failure_fraction) {
      fail(Format("%.2f %% of requests failed (%zu of %zu), over %.2f %%", failure * 100.0,
                  attempted - metrics.completed, attempted, limits.max_failure_fraction * 100.0));
    }
  }
  if (metrics.completed < limits.min_completed) {
    fail(Format("only %zu requests completed in the measured window, fewer than %zu", metrics.completed,
                limits.min_completed));
  }
  if (host_error == nullptr) return v;
  std::string diagnostics;
  for (const auto& [key, e] : host_error->figures) {
    if (!e.rel || IsUnjudgedFigure(key) || std::abs(*e.rel) <= limits.max_host_error_fraction) continue;
    if (diagnostics.empty()) diagnostics = Diagnostics(metrics, self, limits, engine);
    FigureMark mark;
    mark.key = key;
    mark.abs = e.abs;
    mark.rel = *e.rel;
    mark.headline = IsHeadlineFigure(key);
    mark.cause = Mover(e) + " (" + diagnostics + ")";
    if (mark.headline) {
      const double client_rel = e.ideal != 0.0 ? e.client_abs / e.ideal : 0.0;
      fail(
          Format("host error: %s %+.2f %% (%+.4g) against its ideal %.6g, over the %.2f %% tolerance: the engine's "
                 "host and the transport %+.2f %%, the client's sending %+.2f %% (%s)",
                 FigureLabel(key).c_str(), mark.rel * 100.0, mark.abs, e.ideal, limits.max_host_error_fraction * 100.0,
                 (mark.rel - client_rel) * 100.0, client_rel * 100.0, diagnostics.c_str()));
    }
    v.marks.push_back(std::move(mark));
  }
  return v;
}

}  // namespace infermark::metrics

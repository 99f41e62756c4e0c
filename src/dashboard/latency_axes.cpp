#include "dashboard/latency_axes.hpp"

#include <cmath>

#include "dashboard/snapshot.hpp"

namespace infermark::dashboard {
namespace {

Json Value(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// `key` without a `p90_`/`p99_` prefix, and the percentile index it names.
std::pair<std::string_view, std::size_t> Split(std::string_view key) {
  if (key.rfind("p90_", 0) == 0) return {key.substr(4), 1};
  if (key.rfind("p99_", 0) == 0) return {key.substr(4), 2};
  return {key, 0};
}

}  // namespace

LatencyFigures LatencyFiguresOf(const results::Point& point) {
  const double scale = point.provenance.time_scale > 0 ? point.provenance.time_scale : 1.0;
  const bool agentic = point.key.Agentic();
  LatencyFigures f;
  // One pass over the record (keys `<median|p90|p99>_<statistic>`), rather than a lookup per figure:
  // this runs for every point of a snapshot.
  if (!point.agg.is_object()) return f;
  for (const auto& item : point.agg.items()) {
    const std::string& key = item.key();
    std::size_t pct = 0;
    std::string_view name;
    if (key.rfind("median_", 0) == 0) {
      name = std::string_view(key).substr(7);
    } else if (key.rfind("p90_", 0) == 0) {
      pct = 1;
      name = std::string_view(key).substr(4);
    } else if (key.rfind("p99_", 0) == 0) {
      pct = 2;
      name = std::string_view(key).substr(4);
    } else {
      continue;
    }
    const Json& value = item.value();
    if (!value.is_number()) continue;
    const double v = value.get<double>();
    if (!std::isfinite(v)) continue;
    if (name == "ttft") {
      f.ttft_ms[pct] = v * 1000 * scale;
    } else if (name == "tpot") {
      f.tpot_ms[pct] = v * 1000 * scale;
    } else if (name == "itl") {
      f.itl_ms[pct] = v * 1000 * scale;
    } else if (name == "e2el") {
      f.e2el_s[pct] = v * scale;
    } else if (name == (agentic ? "e2e_norm_intvty" : "intvty") && !(agentic && pct == 2)) {
      // Agentic points are charted on their E2E-normalized interactivity (median and p90 only).
      f.interactivity[pct] = v / scale;
    }
  }
  return f;
}

void AddLatencyFigures(Json& j, const LatencyFigures& f) {
  j["p90_ttft_ms"] = Value(f.ttft_ms[1]);
  j["p99_ttft_ms"] = Value(f.ttft_ms[2]);
  j["p90_tpot_ms"] = Value(f.tpot_ms[1]);
  j["p99_tpot_ms"] = Value(f.tpot_ms[2]);
  j["itl_ms"] = Value(f.itl_ms[0]);
  j["p90_itl_ms"] = Value(f.itl_ms[1]);
  j["p99_itl_ms"] = Value(f.itl_ms[2]);
  j["p90_e2el_s"] = Value(f.e2el_s[1]);
  j["p99_e2el_s"] = Value(f.e2el_s[2]);
  j["p90_interactivity"] = Value(f.interactivity[1]);
  j["p99_interactivity"] = Value(f.interactivity[2]);
}

const std::vector<std::string>& FrontierAxes() {
  static const std::vector<std::string> axes = {"interactivity", "p90_interactivity", "p99_interactivity",
                                                "e2el_s",        "p90_e2el_s",        "p99_e2el_s",
                                                "ttft_ms",       "p90_ttft_ms",       "p99_ttft_ms"};
  return axes;
}

bool AxisHigherIsBetter(std::string_view key) {
  return Split(key).first == "interactivity";
}

std::optional<double> AxisValue(const DashboardPoint& p, std::string_view key) {
  const auto [name, pct] = Split(key);
  // The medians are the point's own figures (the default interactivity and latencies it always had).
  if (pct == 0) {
    if (name == "interactivity") return p.interactivity;
    if (name == "e2el_s") return p.e2el_s;
    if (name == "ttft_ms") return p.ttft_ms;
    return std::nullopt;
  }
  if (name == "interactivity") return p.latency.interactivity[pct];
  if (name == "e2el_s") return p.latency.e2el_s[pct];
  if (name == "ttft_ms") return p.latency.ttft_ms[pct];
  return std::nullopt;
}

}  // namespace infermark::dashboard

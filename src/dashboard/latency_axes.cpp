#include "dashboard/latency_axes.hpp"

#include <cmath>

#include "dashboard/snapshot.hpp"

namespace infermark::dashboard {
namespace {

std::optional<double> Number(const Json& agg, const std::string& key) {
  const auto it = agg.find(key);
  if (it == agg.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// `<pct>_<name>` of the record at each chart percentile, times `scale`.
Percentiles Read(const Json& agg, const std::string& name, double scale) {
  Percentiles out;
  for (std::size_t i = 0; i < kChartPercentiles.size(); ++i) {
    if (const auto v = Number(agg, std::string(kChartPercentiles[i]) + "_" + name)) out[i] = *v * scale;
  }
  return out;
}

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
  const Json& agg = point.agg;
  LatencyFigures f;
  f.ttft_ms = Read(agg, "ttft", 1000 * scale);
  f.tpot_ms = Read(agg, "tpot", 1000 * scale);
  f.itl_ms = Read(agg, "itl", 1000 * scale);
  f.e2el_s = Read(agg, "e2el", scale);
  if (point.key.Agentic()) {
    if (const auto v = Number(agg, "median_e2e_norm_intvty")) f.interactivity[0] = *v / scale;
    if (const auto v = Number(agg, "p90_e2e_norm_intvty")) f.interactivity[1] = *v / scale;
  } else {
    f.interactivity = Read(agg, "intvty", 1 / scale);
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

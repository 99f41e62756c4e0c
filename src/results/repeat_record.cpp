#include "results/repeat_record.hpp"

#include <cmath>
#include <string_view>

#include "metrics/repeat_result.hpp"
#include "results/point.hpp"

namespace infermark::results {
namespace {

// What identifies the deployment and the load rather than measuring it: the same in every repeat.
constexpr std::string_view kIdentity[] = {"conc",
                                          "isl",
                                          "osl",
                                          "tp",
                                          "pp",
                                          "ep",
                                          "dcp_size",
                                          "pcp_size",
                                          "num_prefill_gpu",
                                          "num_decode_gpu",
                                          "prefill_tp",
                                          "prefill_ep",
                                          "prefill_pp",
                                          "prefill_num_workers",
                                          "prefill_dcp_size",
                                          "prefill_pcp_size",
                                          "decode_tp",
                                          "decode_ep",
                                          "decode_pp",
                                          "decode_num_workers",
                                          "decode_dcp_size",
                                          "decode_pcp_size",
                                          "power_metric_schema_version"};

bool Identity(const std::string& key) {
  for (std::string_view name : kIdentity) {
    if (key == name) return true;
  }
  return false;
}

// How a figure is de-scaled: -1 divided by the time scale (rates), +1 multiplied (latencies), 0 as is.
int ScaleDirection(const std::string& key) {
  if (key.find("tput") != std::string::npos || key.find("intvty") != std::string::npos ||
      key.find("throughput") != std::string::npos || key.find("qps") != std::string::npos) {
    return -1;
  }
  for (const char* latency : {"ttft", "tpot", "itl", "e2el"}) {
    if (key.find(latency) != std::string::npos) return 1;
  }
  return 0;
}

}  // namespace

std::vector<Json> RepeatClientResults(const Json& result) {
  const Json* block = metrics::RepeatsBlock(result);
  if (block == nullptr) return {};
  const auto values = block->find("values");
  const std::size_t n = block->value("count", std::size_t{0});
  if (values == block->end() || !values->is_object() || n == 0) return {};
  Json base = result;
  base["infermark"].erase("repeats");
  std::vector<Json> out(n, base);
  for (const auto& [key, list] : values->items()) {
    if (!list.is_array() || list.size() != n || !base.contains(key)) continue;
    const bool integer = base[key].is_number_integer();
    for (std::size_t k = 0; k < n; ++k) {
      if (!list[k].is_number()) continue;
      const double v = list[k].get<double>();
      if (integer) {
        out[k][key] = static_cast<long long>(std::llround(v));
      } else {
        out[k][key] = v;
      }
    }
  }
  return out;
}

Json RepeatRecordFromRecords(const std::vector<Json>& records, const Json& block) {
  Json out = Json::object();
  out["count"] = records.size();
  for (const char* field : {"server", "files", "verdicts"}) {
    if (const auto it = block.find(field); it != block.end()) out[field] = *it;
  }
  out["confidence_level"] = kRepeatConfidenceLevel;
  out["method"] = "order-statistics";
  Json values = Json::object();
  Json intervals = Json::object();
  if (!records.empty()) {
    for (const auto& [key, first] : records.front().items()) {
      if (!first.is_number() || Identity(key)) continue;
      std::vector<double> xs;
      for (const Json& r : records) {
        const auto it = r.find(key);
        if (it == r.end() || !it->is_number()) break;
        xs.push_back(it->get<double>());
      }
      if (xs.size() != records.size()) continue;
      const MedianInterval m = MedianWithInterval(xs, kRepeatConfidenceLevel);
      values[key] = xs;
      intervals[key] = Json{{"median", m.median},         {"low", m.low}, {"high", m.high},
                            {"confidence", m.confidence}, {"min", m.min}, {"max", m.max}};
    }
  }
  out["values"] = std::move(values);
  out["intervals"] = std::move(intervals);
  return out;
}

int RepeatCount(const Json& agg) {
  const auto it = agg.find("repeats");
  if (it == agg.end() || !it->is_object()) return 1;
  return std::max(1, it->value("count", 1));
}

std::optional<RepeatFigure> RepeatFigureOf(const Json& agg, const std::string& key) {
  const auto block = agg.find("repeats");
  if (block == agg.end() || !block->is_object()) return std::nullopt;
  const auto values = block->find("values");
  if (values == block->end() || !values->is_object()) return std::nullopt;
  const auto list = values->find(key);
  if (list == values->end() || !list->is_array() || list->empty()) return std::nullopt;
  RepeatFigure figure;
  for (const Json& v : *list) {
    if (!v.is_number()) return std::nullopt;
    figure.values.push_back(v.get<double>());
  }
  figure.interval = MedianWithInterval(figure.values, kRepeatConfidenceLevel);
  return figure;
}

std::optional<RepeatFigure> DeScaledRepeatFigure(const Point& point, const std::string& key) {
  std::optional<RepeatFigure> figure = RepeatFigureOf(point.agg, key);
  const double s = point.provenance.time_scale > 0 ? point.provenance.time_scale : 1.0;
  const int direction = ScaleDirection(key);
  if (!figure || s == 1 || direction == 0) return figure;
  for (double& v : figure->values) v = direction < 0 ? v / s : v * s;
  figure->interval = MedianWithInterval(figure->values, kRepeatConfidenceLevel);
  return figure;
}

}  // namespace infermark::results

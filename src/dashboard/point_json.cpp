#include "dashboard/point_json.hpp"

#include "core/repeat_stats.hpp"

namespace infermark::dashboard {
namespace {

Json Optional(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}
Json Optional(const std::optional<long long>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// Each figure's median interval over a repeated point's repeats (null for a point measured once):
// what the charts draw as error bars and the tooltip prints.
Json RepeatIntervals(const DashboardPoint& p) {
  if (p.repeats < 2) return nullptr;
  Json out = Json::object();
  const DashboardPoint::Repeats& r = p.repeat_values;
  const std::pair<const char*, const std::vector<double>*> figures[] = {{"tput_per_gpu", &r.tput_per_gpu},
                                                                        {"input_tput_per_gpu", &r.input_tput_per_gpu},
                                                                        {"output_tput_per_gpu", &r.output_tput_per_gpu},
                                                                        {"interactivity", &r.interactivity},
                                                                        {"e2el_s", &r.e2el_s},
                                                                        {"ttft_ms", &r.ttft_ms},
                                                                        {"tpot_ms", &r.tpot_ms}};
  for (const auto& [name, values] : figures) {
    if (values->size() < 2) continue;
    const MedianInterval m = MedianWithInterval(*values, kRepeatConfidenceLevel);
    out[name] = {{"median", m.median},         {"low", m.low},     {"high", m.high}, {"min", m.min}, {"max", m.max},
                 {"confidence", m.confidence}, {"values", *values}};
  }
  return out;
}

// A point's model-error bands: null without, else the group and each figure's band_p10/band_p90.
Json BandsJson(const PointBands& b) {
  if (b.scope.empty()) return nullptr;
  Json j = {{"scope", b.scope}, {"residuals", b.residuals}};
  const std::pair<const char*, const std::optional<results::FigureBand>*> figures[] = {
      {"tput_per_gpu", &b.tput_per_gpu},
      {"input_tput_per_gpu", &b.input_tput_per_gpu},
      {"output_tput_per_gpu", &b.output_tput_per_gpu},
      {"interactivity", &b.interactivity},
      {"e2el_s", &b.e2el_s},
      {"ttft_ms", &b.ttft_ms},
      {"cost_per_m_tokens", &b.cost_per_m_tokens}};
  for (const auto& [key, band] : figures) {
    j[key] = *band ? Json{{"band_p10", (*band)->band_p10}, {"band_p90", (*band)->band_p90}} : Json(nullptr);
  }
  return j;
}

}  // namespace

Json PointJson(const DashboardPoint& p) {
  Json j = Json::object();
  j["id"] = p.id;
  j["run_id"] = p.run_id;
  j["run_label"] = p.run_label;
  j["series"] = p.series;
  j["model"] = p.model;
  j["hardware"] = p.hardware;
  j["framework"] = p.framework;
  j["precision"] = p.precision;
  j["sequence"] = p.sequence;
  j["isl"] = Optional(p.isl);
  j["osl"] = Optional(p.osl);
  j["agentic"] = p.agentic;
  j["conc"] = p.conc;
  j["tp"] = Optional(p.tp);
  j["ep"] = Optional(p.ep);
  j["dp_attn"] = p.dp_attn;
  j["disagg"] = p.disagg;
  j["prefill_gpus"] = Optional(p.prefill_gpus);
  j["decode_gpus"] = Optional(p.decode_gpus);
  j["spec_decoding"] = p.spec_decoding;
  j["num_gpus"] = p.num_gpus;
  j["kind"] = p.predicted ? "predicted" : "measured";
  j["date"] = p.date;
  j["tput_per_gpu"] = p.tput_per_gpu;
  j["input_tput_per_gpu"] = p.input_tput_per_gpu;
  j["output_tput_per_gpu"] = p.output_tput_per_gpu;
  j["interactivity"] = p.interactivity;
  j["e2el_s"] = p.e2el_s;
  j["ttft_ms"] = p.ttft_ms;
  j["tpot_ms"] = p.tpot_ms;
  AddLatencyFigures(j, p.latency);
  j["w_per_gpu"] = Optional(p.w_per_gpu);
  j["j_per_token"] = Optional(p.j_per_token);
  j["cost_per_m_tokens"] = Optional(p.cost_per_m_tokens);
  j["valid"] = p.valid;
  j["verdict"] = p.verdict.empty() ? Json(nullptr) : Json(p.verdict);
  j["invalid_reasons"] = p.invalid_reasons;
  j["power_valid"] = p.power_valid ? Json(*p.power_valid) : Json(nullptr);
  j["power_invalid_reasons"] = p.power_invalid_reasons;
  const results::HostErrorSummary& h = p.host_error;
  j["host_error_kind"] = h.Known() ? Json(h.kind) : Json(nullptr);
  j["host_error_worst"] =
      h.worst_headline_rel ? Json{{"key", h.worst_headline}, {"rel", *h.worst_headline_rel}} : Json(nullptr);
  Json marks = Json::array();
  for (const results::HostErrorMark& m : h.marks) {
    marks.push_back({{"key", m.key}, {"rel", m.rel}, {"headline", m.headline}, {"cause", m.cause}});
  }
  j["host_error_marks"] = std::move(marks);
  j["prediction_band"] = BandsJson(p.band);
  j["receipt_id"] = p.provenance.receipt_id.empty() ? Json(nullptr) : Json(p.provenance.receipt_id);
  j["evaluations"] = p.evaluation_ids;
  j["evaluations_url"] =
      p.evaluation_ids.empty() ? Json(nullptr) : Json("/api/v1/evaluations?point=" + std::to_string(p.id));
  j["repeats"] = p.repeats;
  j["repeat_server"] = p.repeat_server.empty() ? Json(nullptr) : Json(p.repeat_server);
  j["intervals"] = RepeatIntervals(p);
  const PointProvenance& v = p.provenance;
  j["provenance"] = {{"image", v.image},
                     {"flags", v.flags},
                     {"host", v.host},
                     {"infermark_version", v.infermark_version},
                     {"time_scale", v.time_scale},
                     {"created_at", v.created_at},
                     {"source", v.source}};
  return j;
}

std::string PointJsonText(const DashboardPoint& point) {
  return PointJson(point).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace infermark::dashboard

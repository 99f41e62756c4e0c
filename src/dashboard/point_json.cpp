#include "dashboard/point_json.hpp"

namespace infermark::dashboard {
namespace {

Json Optional(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}
Json Optional(const std::optional<long long>& v) {
  return v ? Json(*v) : Json(nullptr);
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
  j["evaluations"] = p.evaluation_ids;
  j["evaluations_url"] =
      p.evaluation_ids.empty() ? Json(nullptr) : Json("/api/v1/evaluations?point=" + std::to_string(p.id));
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

#include "results/point.hpp"

#include "core/diagnostic.hpp"

namespace infermark::results {

const char* PointKindName(PointKind kind) {
  return kind == PointKind::kPredicted ? "predicted" : "measured";
}

namespace {

std::string Text(const Json& agg, const char* field, const std::string& path) {
  const auto it = agg.find(field);
  if (it == agg.end() || !it->is_string()) {
    throw InputError(Diagnostic{{path, 0, 0}, "", field, "the processed record needs this field as a string"});
  }
  return it->get<std::string>();
}

long long Int(const Json& agg, const char* field, const std::string& path) {
  const auto it = agg.find(field);
  if (it == agg.end() || !it->is_number_integer()) {
    throw InputError(Diagnostic{{path, 0, 0}, "", field, "the processed record needs this field as an integer"});
  }
  return it->get<long long>();
}

std::string Scalar(const Json& agg, const char* field) {
  const auto it = agg.find(field);
  if (it == agg.end()) return "";
  return it->is_string() ? it->get<std::string>() : DumpJson(*it);
}

double Number(const Json& agg, const char* field) {
  const auto it = agg.find(field);
  return it != agg.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

PointKey KeyFromAgg(const Json& agg, const std::string& path) {
  if (!agg.is_object()) throw InputError(Diagnostic{{path, 0, 0}, "", "", "a processed record must be a JSON object"});
  PointKey key;
  key.model = Text(agg, "model", path);
  key.hw = Text(agg, "hw", path);
  key.framework = Text(agg, "framework", path);
  key.precision = Text(agg, "precision", path);
  key.spec_decoding = Text(agg, "spec_decoding", path);
  const auto disagg = agg.find("disagg");
  key.disagg = disagg != agg.end() && disagg->is_boolean() && disagg->get<bool>();
  const auto multinode = agg.find("is_multinode");
  if (multinode != agg.end() && multinode->is_boolean() && multinode->get<bool>()) {
    key.topology = "p" + Scalar(agg, "prefill_num_workers") + "x-tp" + Scalar(agg, "prefill_tp") + "-ep" +
                   Scalar(agg, "prefill_ep") + "-dpa" + Scalar(agg, "prefill_dp_attention") + "+d" +
                   Scalar(agg, "decode_num_workers") + "x-tp" + Scalar(agg, "decode_tp") + "-ep" +
                   Scalar(agg, "decode_ep") + "-dpa" + Scalar(agg, "decode_dp_attention");
  } else {
    // Older records have no pp/dcp/pcp: they were 1.
    const auto or_one = [&](const char* field) {
      const std::string v = Scalar(agg, field);
      return v.empty() ? std::string("1") : v;
    };
    key.topology = "tp" + std::to_string(Int(agg, "tp", path)) + "-ep" + Scalar(agg, "ep") + "-dpa" +
                   Scalar(agg, "dp_attention") + "-pp" + or_one("pp") + "-dcp" + or_one("dcp_size") + "-pcp" +
                   or_one("pcp_size");
  }
  key.isl = Int(agg, "isl", path);
  key.osl = Int(agg, "osl", path);
  key.conc = Int(agg, "conc", path);
  return key;
}

std::string PointKey::Curve() const {
  return model + " " + hw + " " + framework + " " + precision + " spec-" + spec_decoding + (disagg ? " disagg" : "") +
         " " + topology + " " + std::to_string(isl) + "/" + std::to_string(osl);
}

std::string PointKey::Canonical() const {
  return Curve() + " conc" + std::to_string(conc);
}

std::string PointKey::Group() const {
  return hw + " " + framework + " " + precision + (spec_decoding == "none" ? "" : " " + spec_decoding);
}

std::string PointKey::Scenario() const {
  return model + " " + std::to_string(isl) + "/" + std::to_string(osl);
}

PointMetrics DeScaled(const Point& point) {
  const double s = point.provenance.time_scale > 0 ? point.provenance.time_scale : 1.0;
  const Json& a = point.agg;
  PointMetrics m;
  m.tput_per_gpu = Number(a, "tput_per_gpu") / s;
  m.output_tput_per_gpu = Number(a, "output_tput_per_gpu") / s;
  m.input_tput_per_gpu = Number(a, "input_tput_per_gpu") / s;
  m.median_intvty = Number(a, "median_intvty") / s;
  m.median_e2el = Number(a, "median_e2el") * s;
  m.median_ttft = Number(a, "median_ttft") * s;
  m.p99_ttft = Number(a, "p99_ttft") * s;
  m.median_tpot = Number(a, "median_tpot") * s;
  m.p99_itl = Number(a, "p99_itl") * s;
  return m;
}

}  // namespace infermark::results

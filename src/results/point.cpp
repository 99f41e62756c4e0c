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
    // Pipeline and context parallelism only when not 1, so keys of records that have none (they
    // were 1) stay what they were.
    const auto pool = [&](const std::string& role) {
      std::string text = Scalar(agg, (role + "_num_workers").c_str()) + "x-tp" + Scalar(agg, (role + "_tp").c_str()) +
                         "-ep" + Scalar(agg, (role + "_ep").c_str()) + "-dpa" +
                         Scalar(agg, (role + "_dp_attention").c_str());
      for (const char* size : {"pp", "dcp_size", "pcp_size"}) {
        const std::string v = Scalar(agg, (role + "_" + size).c_str());
        if (!v.empty() && v != "1") text += "-" + std::string(size).substr(0, std::string(size).find('_')) + v;
      }
      return text;
    };
    key.topology = "p" + pool("prefill") + "+d" + pool("decode");
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
  key.conc = Int(agg, "conc", path);
  const auto scenario = agg.find("scenario_type");
  if (scenario != agg.end() && scenario->is_string() && scenario->get<std::string>() == kAgenticScenario) {
    key.scenario_type = kAgenticScenario;
    key.kv_offloading = Text(agg, "kv_offloading", path);
    // The reference writes the backend as its name; the documented form is {name, version}.
    const auto backend = agg.find("kv_offload_backend");
    if (backend != agg.end() && backend->is_string()) key.kv_offload_backend = backend->get<std::string>();
    if (backend != agg.end() && backend->is_object() && backend->contains("name") && (*backend)["name"].is_string()) {
      key.kv_offload_backend = (*backend)["name"].get<std::string>();
    }
    return key;
  }
  key.isl = Int(agg, "isl", path);
  key.osl = Int(agg, "osl", path);
  return key;
}

bool PointKey::Agentic() const {
  return scenario_type == kAgenticScenario;
}

std::string PointKey::OffloadMode() const {
  if (!Agentic()) return "";
  if (kv_offloading.empty() || kv_offloading == "none") return "kvnone";
  return "kv" + kv_offloading + (kv_offload_backend.empty() ? "" : "-" + kv_offload_backend);
}

std::string PointKey::Curve() const {
  const std::string head = model + " " + hw + " " + framework + " " + precision + " spec-" + spec_decoding +
                           (disagg ? " disagg" : "") + " " + topology + " ";
  if (Agentic()) return head + kAgenticScenario + " " + OffloadMode();
  return head + std::to_string(isl) + "/" + std::to_string(osl);
}

std::string PointKey::Canonical() const {
  return Curve() + " conc" + std::to_string(conc);
}

std::string PointKey::Group() const {
  return hw + " " + framework + " " + precision + (spec_decoding == "none" ? "" : " " + spec_decoding) +
         (Agentic() ? " " + OffloadMode() : "");
}

std::string PointKey::Scenario() const {
  if (Agentic()) return model + " " + kAgenticScenario;
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
  m.p90_intvty = Number(a, "p90_intvty") / s;
  m.median_e2e_norm_intvty = Number(a, "median_e2e_norm_intvty") / s;
  m.p90_e2e_norm_intvty = Number(a, "p90_e2e_norm_intvty") / s;
  m.median_full_response_intvty = Number(a, "median_full_response_intvty") / s;
  m.p90_full_response_intvty = Number(a, "p90_full_response_intvty") / s;
  m.p90_ttft = Number(a, "p90_ttft") * s;
  m.p90_e2el = Number(a, "p90_e2el") * s;
  return m;
}

double DefaultInteractivity(const Point& point, const PointMetrics& metrics) {
  return point.key.Agentic() ? metrics.median_e2e_norm_intvty : metrics.median_intvty;
}

}  // namespace infermark::results

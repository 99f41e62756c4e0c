#include "store/app_evaluations.hpp"

#include <cmath>
#include <optional>

#include "core/diagnostic.hpp"
#include "core/sha256.hpp"

namespace infermark::results {
namespace {

// Reads one row's fields, each failure naming the file, the record and the field.
class RowFields {
 public:
  RowFields(const Json& row, const std::string& path, std::size_t index)
      : row_(row), path_(path), entry_("record " + std::to_string(index)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& rule) const {
    throw InputError(Diagnostic{{path_, 0, 0}, entry_, field, rule});
  }

  const Json* Find(const Json& object, const char* field) const {
    const auto it = object.find(field);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }

  std::string Text(const char* field, const std::optional<std::string>& fallback = std::nullopt) const {
    const Json* v = Find(row_, field);
    if (v == nullptr) {
      if (fallback) return *fallback;
      Fail(field, "field required");
    }
    if (!v->is_string() || v->get<std::string>().empty()) Fail(field, "must be a non-empty string");
    return v->get<std::string>();
  }

  bool Bool(const char* field) const {
    const Json* v = Find(row_, field);
    if (v == nullptr) return false;
    if (!v->is_boolean()) Fail(field, "must be true or false");
    return v->get<bool>();
  }

  long long Int(const char* field, std::optional<long long> fallback, long long minimum) const {
    const Json* v = Find(row_, field);
    if (v == nullptr) {
      if (fallback) return *fallback;
      Fail(field, "field required");
    }
    if (!v->is_number_integer()) Fail(field, "must be an integer");
    const long long value = v->get<long long>();
    if (value < minimum) Fail(field, "must be at least " + std::to_string(minimum));
    return value;
  }

  std::optional<double> Metric(const Json& metrics, const char* name, bool score) const {
    const Json* v = Find(metrics, name);
    if (v == nullptr) return std::nullopt;
    const std::string field = std::string("metrics.") + name;
    if (!v->is_number() || !std::isfinite(v->get<double>())) Fail(field, "must be a finite number");
    const double x = v->get<double>();
    if (score && (x < 0 || x > 1)) Fail(field, "must be a score between 0 and 1");
    if (x < 0) Fail(field, "must not be negative");
    return x;
  }

 private:
  const Json& row_;
  const std::string& path_;
  std::string entry_;
};

std::string BoolText(bool value) {
  return value ? "true" : "false";
}

}  // namespace

bool IsAppEvaluationRow(const Json& row) {
  return row.is_object() && row.contains("hardware") && row.contains("task") && row.contains("metrics") &&
         row["metrics"].is_object();
}

Evaluation EvaluationFromAppRow(const Json& row, const std::string& path, std::size_t index,
                                const EvalThresholds* thresholds) {
  const RowFields r(row, path, index);
  if (!row.is_object()) r.Fail("", "an evaluation row must be a JSON object");
  Json agg = Json::object();
  agg["hw"] = r.Text("hardware");
  agg["model"] = r.Text("model");
  agg["framework"] = r.Text("framework");
  agg["precision"] = r.Text("precision");
  agg["spec_decoding"] = r.Text("spec_method", std::string("none"));
  agg["disagg"] = r.Bool("disagg");
  const bool multinode = r.Bool("is_multinode");
  agg["is_multinode"] = multinode;
  if (multinode) {
    for (const char* role : {"prefill", "decode"}) {
      const std::string p = role;
      agg[p + "_tp"] = r.Int((p + "_tp").c_str(), std::nullopt, 1);
      agg[p + "_ep"] = r.Int((p + "_ep").c_str(), std::nullopt, 1);
      agg[p + "_dp_attention"] = BoolText(r.Bool((p + "_dp_attention").c_str()));
      agg[p + "_num_workers"] = r.Int((p + "_num_workers").c_str(), std::nullopt, 0);
    }
  } else {
    agg["tp"] = r.Int("decode_tp", 1, 1);
    agg["ep"] = r.Int("decode_ep", 1, 1);
    agg["dp_attention"] = BoolText(r.Bool("decode_dp_attention"));
  }
  agg["conc"] = r.Int("conc", std::nullopt, 1);
  agg["isl"] = r.Int("isl", 0, 0);
  agg["osl"] = r.Int("osl", 0, 0);

  Evaluation e;
  e.key = KeyFromAgg(agg, path);
  e.model_prefix = agg["model"].get<std::string>();
  e.is_multinode = multinode;
  e.task = r.Text("task");
  e.eval_concurrency = e.key.conc;
  const Json* metrics = r.Find(row, "metrics");
  if (metrics == nullptr || !metrics->is_object()) r.Fail("metrics", "field required (an object of numbers)");
  const auto score = r.Metric(*metrics, "score", true);
  const auto strict = r.Metric(*metrics, "em_strict", true);
  e.score = score ? score : strict;
  e.score_stderr = score ? r.Metric(*metrics, "score_se", false) : r.Metric(*metrics, "em_strict_se", false);
  e.flexible_score = r.Metric(*metrics, "em_flexible", true);
  e.flexible_stderr = r.Metric(*metrics, "em_flexible_se", false);
  if (const Json* n = r.Find(*metrics, "n_eff"); n != nullptr) {
    if (!n->is_number_integer() || n->get<long long>() < 0) r.Fail("metrics.n_eff", "must be a count");
    e.n = n->get<long long>();
  }
  e.metric = "exact_match,strict-match";
  if (e.score) {
    e.status = EvalStatus::kScored;
  } else {
    e.status = EvalStatus::kInvalid;
    e.reasons.push_back("the row has no score (metrics.score or metrics.em_strict)");
  }
  e.date = r.Text("timestamp", r.Text("date", std::string()));
  if (const Json* url = r.Find(row, "run_url"); url != nullptr) {
    if (!url->is_string()) r.Fail("run_url", "must be a string or null");
    e.run_url = url->get<std::string>();
  }
  e.origin = kEvalOriginInferenceXApp;
  e.source_path = path;
  e.server = "InferenceX";
  ApplyDefaultThreshold(e, thresholds);
  e.raw_json = DumpJson(row, kCanonicalJson);
  e.raw_sha256 = Sha256Hex(e.raw_json);
  return e;
}

}  // namespace infermark::results

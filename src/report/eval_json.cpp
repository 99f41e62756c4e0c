#include "report/eval_json.hpp"

namespace infermark::results {
namespace {

template <typename T>
Json OrNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

}  // namespace

Json EvaluationToJson(const Evaluation& e) {
  Json j = Json::object();
  j["id"] = e.id;
  j["run_id"] = e.run_id;
  j["run_key"] = e.run_key;
  j["model"] = e.key.model;
  j["model_prefix"] = e.model_prefix;
  j["hardware"] = e.key.hw;
  j["framework"] = e.key.framework;
  j["precision"] = e.key.precision;
  j["spec_decoding"] = e.key.spec_decoding;
  j["disagg"] = e.key.disagg;
  j["is_multinode"] = e.is_multinode;
  j["parallelism"] = e.key.topology;
  j["isl"] = e.key.isl > 0 ? Json(e.key.isl) : Json(nullptr);
  j["osl"] = e.key.osl > 0 ? Json(e.key.osl) : Json(nullptr);
  j["conc"] = e.key.conc;
  j["configuration"] = e.key.Canonical();
  j["runner"] = e.runner;
  j["task"] = e.task;
  j["metric"] = e.metric;
  j["status"] = EvalStatusName(e.status);
  j["reasons"] = e.reasons;
  // Only a scored evaluation has figures: anything else is null, never a 0.
  const bool scored = e.Scored();
  j["score"] = scored ? OrNull(e.score) : Json(nullptr);
  j["stderr"] = scored ? OrNull(e.score_stderr) : Json(nullptr);
  j["flexible_score"] = scored ? OrNull(e.flexible_score) : Json(nullptr);
  j["flexible_stderr"] = scored ? OrNull(e.flexible_stderr) : Json(nullptr);
  j["n"] = OrNull(e.n);
  j["threshold"] = OrNull(e.threshold);
  j["threshold_source"] = e.threshold_source.empty() ? Json(nullptr) : Json(e.threshold_source);
  j["passed"] = OrNull(e.passed);
  j["verdict"] = e.Verdict();
  j["eval_concurrency"] = e.eval_concurrency;
  j["date"] = e.date;
  j["duration_s"] = OrNull(e.duration_s);
  j["origin"] = e.origin;
  j["server"] = e.server;
  j["result_filename"] = e.result_filename;
  j["results_file"] = e.results_file;
  j["source_path"] = e.source_path;
  j["run_url"] = e.run_url.empty() ? Json(nullptr) : Json(e.run_url);
  return j;
}

}  // namespace infermark::results

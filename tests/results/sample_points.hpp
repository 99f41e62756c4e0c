// Points built in memory for store, compare and report tests: a curve of a recipe whose
// throughput falls and interactivity rises as concurrency drops, as real sweeps do.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "results/evaluation.hpp"
#include "results/point.hpp"
#include "results/repeat_record.hpp"

namespace infermark::results::sample {

/// What varies between sample points.
struct SampleSpec {
  std::string hw = "mi355x";              ///< Hardware.
  std::string framework = "vllm";         ///< Framework.
  std::string precision = "fp4";          ///< Precision.
  std::string spec_decoding = "none";     ///< Speculative decoding.
  int tp = 8;                             ///< Tensor parallelism.
  int isl = 1024;                         ///< Input length.
  int osl = 1024;                         ///< Output length.
  PointKind kind = PointKind::kMeasured;  ///< Measured or predicted.
  double time_scale = 1;                  ///< Time scale of the run.
  double speed = 1;                       ///< Multiplies throughput (a faster or slower candidate).
};

/// One agg record and point at concurrency `conc`, figures as measured (scaled by the time scale).
inline Point SamplePoint(const SampleSpec& s, int conc) {
  const double tput = s.speed * 40.0 * std::pow(conc, 0.8) * 8 / s.tp;  // tok/s/GPU, modelled hardware
  const double intvty = 120.0 / std::pow(conc, 0.35);                   // tok/s/user (speed changes throughput only)
  Json agg = Json::object();
  agg["hw"] = s.hw;
  agg["conc"] = conc;
  agg["image"] = "vllm/vllm-openai-rocm:test";
  agg["model"] = "amd/MiniMax-M3-MXFP4";
  agg["infmax_model_prefix"] = "minimaxm3";
  agg["framework"] = s.framework;
  agg["precision"] = s.precision;
  agg["spec_decoding"] = s.spec_decoding;
  agg["disagg"] = false;
  agg["recipe_fingerprint"] = "";
  agg["isl"] = s.isl;
  agg["osl"] = s.osl;
  agg["is_multinode"] = false;
  agg["tp"] = s.tp;
  agg["pp"] = 1;
  agg["dcp_size"] = 1;
  agg["pcp_size"] = 1;
  agg["ep"] = 1;
  agg["dp_attention"] = "false";
  agg["tput_per_gpu"] = tput * s.time_scale;
  agg["output_tput_per_gpu"] = tput * s.time_scale / 2;
  agg["input_tput_per_gpu"] = tput * s.time_scale / 2;
  agg["median_ttft"] = 0.2 * std::sqrt(conc) / s.time_scale;
  agg["p99_ttft"] = 0.5 * std::sqrt(conc) / s.time_scale;
  agg["median_tpot"] = 1.0 / intvty / s.time_scale;
  agg["median_intvty"] = intvty * s.time_scale;
  agg["median_e2el"] = s.osl / intvty / s.time_scale;
  Point p;
  p.key = KeyFromAgg(agg, "sample");
  p.agg = agg;
  p.raw_json = DumpJson(agg);
  p.provenance.kind = s.kind;
  p.provenance.time_scale = s.time_scale;
  p.provenance.config_key = "minimaxm3-fp4-mi355x-vllm";
  p.provenance.image = "vllm/vllm-openai-rocm:test";
  p.provenance.engine_flags = "--tp " + std::to_string(s.tp);
  p.provenance.host = "testhost";
  p.provenance.infermark_version = "0.1.0";
  p.provenance.verdict = "VALID";
  return p;
}

/// One point per concurrency.
inline std::vector<Point> SampleCurve(const SampleSpec& s, const std::vector<int>& concs) {
  std::vector<Point> points;
  for (int c : concs) points.push_back(SamplePoint(s, c));
  return points;
}

/// `p` measured once per factor of `factors` (repeats): each repeat's throughputs and
/// interactivity multiplied by its factor and its latencies divided by it, the record's `repeats`
/// block as `results process` writes it, the figures the repeats' medians, and each repeat kept.
inline Point WithRepeats(Point p, const std::vector<double>& factors, const std::string& server = "same") {
  constexpr const char* kFaster[] = {"tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu", "median_intvty"};
  constexpr const char* kSooner[] = {"median_ttft", "p99_ttft", "median_e2el", "median_tpot"};
  std::vector<Json> records;
  for (const double f : factors) {
    Json r = p.agg;
    for (const char* k : kFaster) r[k] = r[k].get<double>() * f;
    for (const char* k : kSooner) r[k] = r[k].get<double>() / f;
    records.push_back(r);
  }
  p.agg["repeats"] = RepeatRecordFromRecords(records, Json{{"server", server}});
  for (const char* k : kFaster) p.agg[k] = p.agg["repeats"]["intervals"][k]["median"];
  for (const char* k : kSooner) p.agg[k] = p.agg["repeats"]["intervals"][k]["median"];
  p.repeats.clear();
  for (std::size_t k = 0; k < records.size(); ++k) {
    PointRepeat r;
    r.index = static_cast<int>(k + 1);
    r.verdict = "VALID";
    r.source_path = "sample.repeat-" + std::to_string(k + 1) + ".json";
    r.raw_json = DumpJson(records[k]);
    r.agg = records[k];
    p.repeats.push_back(std::move(r));
  }
  p.raw_json = DumpJson(p.agg);
  return p;
}

/// A GSM8K evaluation of the configuration of SamplePoint(s, conc): scored (`score` with stderr
/// 0.006, gated at 0.92 by the model prefix minimaxm3) or, for another status, without a score.
inline Evaluation SampleEvaluation(const SampleSpec& s, int conc, EvalStatus status, double score = 0) {
  Evaluation e;
  e.key = SamplePoint(s, conc).key;
  e.model_prefix = "minimaxm3";
  e.task = "gsm8k";
  e.metric = "exact_match,strict-match";
  e.status = status;
  e.eval_concurrency = conc;
  e.threshold = 0.92;
  e.threshold_source = "minimaxm3";
  e.date = "2026-11-08T04:00:00Z";
  if (status == EvalStatus::kScored) {
    e.score = score;
    e.score_stderr = 0.006;
    e.n = 1319;
    ApplyThreshold(e);
  } else {
    e.reasons = {std::string(EvalStatusName(status)) + " in the sample"};
  }
  e.raw_json = "{\"sample\":\"" + e.EvalKey() + " " + EvalStatusName(status) + " " + std::to_string(score) + "\"}";
  return e;
}

/// `point` with a model-error band in its record as a prediction carries one (group `vllm/amd`):
/// its throughputs within `rate` below and above (a fraction), its interactivity likewise and its
/// latencies within `time`.
inline Point WithPredictionBand(Point point, double rate = 0.1, double time = 0.2) {
  Json figures = Json::object();
  const std::pair<const char*, double> spreads[] = {{"tput_per_gpu", rate},       {"output_tput_per_gpu", rate},
                                                    {"input_tput_per_gpu", rate}, {"median_intvty", rate},
                                                    {"median_e2el", time},        {"median_ttft", time}};
  for (const auto& [key, spread] : spreads) {
    const double v = point.agg[key].get<double>();
    figures[key] = {{"band_p10", v * (1 - spread)}, {"band_p90", v * (1 + spread)}};
  }
  point.agg["prediction_band"] = {{"scope", "vllm/amd"}, {"residuals", 403}, {"figures", figures}};
  return point;
}

}  // namespace infermark::results::sample

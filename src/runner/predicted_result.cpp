#include "runner/predicted_result.hpp"

#include <ctime>

#include "core/version.hpp"
#include "metrics/benchmark_metrics.hpp"
#include "metrics/request_record.hpp"
#include "metrics/result_json.hpp"
#include "metrics/verdict.hpp"

namespace infermark::runner {

Json PredictedResultJson(const VirtualRun& run, const VirtualRowSpec& spec, const std::string& model_id,
                         const Json& row, PredictedFigures* figures) {
  const std::vector<metrics::RequestRecord>& records = run.records;
  const metrics::BenchmarkMetrics m = metrics::ComputeMetrics(records, run.duration_s);
  const metrics::Verdict verdict = metrics::Judge(m, records.size(), metrics::ClientSelfCheck{}, true);
  metrics::ResultHeader h;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y%m%d-%H%M%S", &tm);
  h.date = date;
  h.backend = "vllm";
  h.model_id = model_id;
  h.tokenizer_id = model_id;
  h.num_prompts = records.size();
  h.max_concurrency = spec.conc;
  h.duration_s = run.duration_s;
  h.start_time_unix = static_cast<double>(now);
  h.end_time_unix = static_cast<double>(now) + run.duration_s;
  Json own = Json::object();
  own["predicted"] = true;
  own["kind"] = "predicted";
  own["engine"] = run.description;
  own["matrix_row"] = row;
  own["infermark_version"] = kVersion;
  Json result = metrics::BuildResultJson(h, m, records, verdict, true, own);
  if (figures != nullptr) {
    const double gpus = run.num_gpus > 0 ? run.num_gpus : 1;
    figures->tput_per_gpu = m.total_token_throughput / gpus;
    figures->output_tput_per_gpu = m.output_throughput / gpus;
    figures->median_tpot_ms = m.tpot.median;
    figures->median_intvty = m.tpot.median > 0 ? 1000.0 / m.tpot.median : 0;
    figures->median_ttft_s = m.ttft.median / 1000.0;
    figures->median_e2el_s = m.e2el.median / 1000.0;
  }
  return result;
}

void WritePredictedResult(const std::string& path, const Json& result) {
  metrics::WriteResultJson(path, result);
}

}  // namespace infermark::runner

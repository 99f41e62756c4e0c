#include "sim/predict.hpp"

#include "loadgen/bench_plan.hpp"
#include "perfmodel/step_time.hpp"
#include "sim/sim_executor.hpp"

namespace infermark::sim {
namespace {

double PercentileMs(const metrics::MetricSummary& s, double p) {
  for (const auto& [q, value] : s.percentiles) {
    if (q == p) return value;
  }
  return 0;
}

}  // namespace

PredictedFigures FiguresOf(const metrics::BenchmarkMetrics& m, double duration_s, int num_gpus) {
  PredictedFigures f;
  const double gpus = num_gpus > 0 ? num_gpus : 1;
  f.tput_per_gpu = m.total_token_throughput / gpus;
  f.output_tput_per_gpu = m.output_throughput / gpus;
  f.input_tput_per_gpu = (m.total_token_throughput - m.output_throughput) / gpus;
  f.median_tpot = m.tpot.median / 1000.0;
  f.median_intvty = m.tpot.median > 0 ? 1000.0 / m.tpot.median : 0;
  f.median_ttft = m.ttft.median / 1000.0;
  f.median_e2el = m.e2el.median / 1000.0;
  f.p90_ttft = PercentileMs(m.ttft, 90) / 1000.0;
  f.p99_ttft = PercentileMs(m.ttft, 99) / 1000.0;
  f.p90_tpot = PercentileMs(m.tpot, 90) / 1000.0;
  f.p99_tpot = PercentileMs(m.tpot, 99) / 1000.0;
  f.completed = m.completed;
  f.duration_s = duration_s;
  return f;
}

Prediction Predict(const perfmodel::Deployment& deployment, const loadgen::BenchConfig& config,
                   const VirtualTargetOptions& options) {
  const loadgen::BenchPlan plan = loadgen::PlanBenchmark(config, loadgen::PromptForm::kLengths, deployment.model.vocab);
  const perfmodel::StepTimeModel model(deployment);
  SimExecutor executor;
  VirtualTargetOptions o = options;
  o.ignore_eos = config.ignore_eos;
  VirtualTarget target(deployment, model, executor, o);
  Prediction p;
  p.result = loadgen::RunBenchmark(plan, target, executor);
  p.figures = FiguresOf(p.result.metrics, p.result.result.value("duration", 0.0), deployment.NumGpus());
  p.stats = target.stats();
  if (options.record_trace) p.trace = target.trace();
  return p;
}

loadgen::BenchConfig ReferenceClient(const std::string& model, int isl, int osl, int conc, int prompts, int warmups,
                                     double range_ratio) {
  loadgen::BenchConfig c;
  c.backend = "vllm";
  c.model = model;
  c.dataset_name = "random";
  c.random.input_len = isl;
  c.random.output_len = osl;
  c.random.range_ratio = range_ratio;
  c.num_prompts = static_cast<std::size_t>(prompts);
  c.max_concurrency = conc;
  c.ignore_eos = true;
  c.num_warmups = warmups;
  c.seed = 0;
  return c;
}

perfmodel::Trace RecordTrace(const perfmodel::Deployment& deployment, const calibration::MeasuredPoint& point) {
  const loadgen::BenchConfig client = ReferenceClient(deployment.model.name, point.isl, point.osl, point.conc,
                                                      point.prompts > 0 ? point.prompts : 10 * point.conc, 0);
  VirtualTargetOptions o;
  o.record_trace = true;
  return Predict(deployment, client, o).trace;
}

}  // namespace infermark::sim

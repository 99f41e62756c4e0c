#include "sim/disagg_run.hpp"

#include "loadgen/bench_plan.hpp"
#include "sim/sim_executor.hpp"

namespace infermark::sim {

DisaggPrediction PredictDisagg(const perfmodel::DisaggDeployment& deployment, const loadgen::BenchConfig& config,
                               const VirtualTargetOptions& options, RouterPolicy router) {
  const loadgen::BenchPlan plan =
      loadgen::PlanBenchmark(config, loadgen::PromptForm::kLengths, deployment.prefill.model.vocab);
  SimExecutor executor;
  VirtualTargetOptions o = options;
  o.ignore_eos = config.ignore_eos;
  o.record_trace = false;
  DisaggTarget target(deployment, executor, o, router);
  DisaggPrediction p;
  p.result = loadgen::RunBenchmark(plan, target, executor);
  p.figures = FiguresOf(p.result.metrics, p.result.result.value("duration", 0.0), deployment.NumGpus());
  // As InferenceX processes multi-node results: output per decode GPU, input per prefill GPU.
  const metrics::BenchmarkMetrics& m = p.result.metrics;
  const int decode = deployment.DecodeGpus() > 0 ? deployment.DecodeGpus() : deployment.NumGpus();
  p.figures.output_tput_per_gpu = m.output_throughput / decode;
  p.figures.input_tput_per_gpu = (m.total_token_throughput - m.output_throughput) / deployment.PrefillGpus();
  p.transfers = target.transfers();
  return p;
}

}  // namespace infermark::sim

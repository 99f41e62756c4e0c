#include "engine/predict.hpp"

namespace infermark::engine {

std::vector<PredictedPoint> Predict(const Deployment& deployment, const PredictSweep& sweep) {
  const StepTimeModel model(deployment);
  std::vector<PredictedPoint> out;
  for (const int conc : sweep.concurrencies) {
    const Workload w = ReferenceWorkload(conc, sweep.isl, sweep.osl, sweep.range_ratio, sweep.num_prompts);
    const ClosedLoopResult r = RunClosedLoop(deployment.scheduler, model, w);
    PredictedPoint p;
    p.conc = conc;
    p.metrics = SummarizeRecords(r.records, double(r.duration_ns) * 1e-9, deployment.NumGpus());
    p.stats = r.stats;
    out.push_back(p);
  }
  return out;
}

}  // namespace infermark::engine

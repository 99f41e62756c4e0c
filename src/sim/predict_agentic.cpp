#include "sim/predict_agentic.hpp"

#include <cmath>

#include "sim/sim_executor.hpp"

namespace infermark::sim {

AgenticPrediction PredictAgentic(const perfmodel::Deployment& deployment, const agentic::TraceCorpus& corpus,
                                 const agentic::ReplayOptions& options, const VirtualTargetOptions& target_options) {
  const perfmodel::StepTimeModel model(deployment);
  SimExecutor executor;
  VirtualTargetOptions o = target_options;
  o.ignore_eos = true;  // the replay asks for exactly the recorded output
  VirtualTarget target(deployment, model, executor, o);
  agentic::ReplayOptions replay = options;
  replay.build_text = false;
  AgenticPrediction p;
  p.run = agentic::Replay(corpus, replay, nullptr, target, executor);
  p.stats = target.stats();
  p.virtual_start_unix_ns = static_cast<std::int64_t>(std::llround(executor.UnixAt(0) * 1e9));
  return p;
}

}  // namespace infermark::sim

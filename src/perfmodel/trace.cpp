#include "perfmodel/trace.hpp"

#include "core/numpy_stats.hpp"

namespace infermark::perfmodel {

TraceFigures RetimeTrace(const Trace& trace, const StepTimeModel& model, int num_gpus) {
  std::vector<double> end(trace.steps.size());
  double t = 0;
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    t += model.Seconds(trace.steps[i].shape) * double(trace.steps[i].steps);
    end[i] = t;
  }
  thread_local std::vector<double> tpot;
  thread_local std::vector<double> e2el;
  tpot.clear();
  e2el.clear();
  double tokens = 0;
  for (const RequestSteps& r : trace.requests) {
    if (r.finish < 0 || r.first < 0) continue;
    const double sent = r.arrival < 0 ? 0 : end[static_cast<std::size_t>(r.arrival)];
    const double first = end[static_cast<std::size_t>(r.first)] - sent;
    const double last = end[static_cast<std::size_t>(r.finish)] - sent;
    tokens += r.prompt_tokens + r.output_tokens;
    if (r.output_tokens > 1) tpot.push_back((last - first) / (r.output_tokens - 1));
    e2el.push_back(last);
  }
  TraceFigures f;
  if (t > 0 && num_gpus > 0) f.tput_per_gpu = tokens / t / num_gpus;
  const double median_tpot = NumpyMedianInPlace(tpot);
  f.median_intvty = median_tpot > 0 ? 1.0 / median_tpot : 0;
  f.median_e2el = e2el.empty() ? 0 : NumpyMedianInPlace(e2el);
  return f;
}

}  // namespace infermark::perfmodel

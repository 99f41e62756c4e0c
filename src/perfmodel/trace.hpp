// A closed loop's batch compositions, and their re-timing under other efficiency factors.
//
// In a closed loop the passes the scheduler plans do not depend on how long they take: arrivals
// follow completions, which follow token counts. A trace recorded once (by the virtual-time
// target, src/sim/) can therefore be re-timed under any factors without running the scheduler
// again, which is what calibration does thousands of times per fit.
#pragma once

#include <cstdint>
#include <vector>

#include "perfmodel/step_time.hpp"

namespace infermark::perfmodel {

/// One plan of a trace: its average step shape and how many steps it covered.
struct TraceStep {
  BatchShape shape;        ///< Average shape.
  std::int64_t steps = 1;  ///< Forward passes.
};

/// Where a measured request's events fall in a trace (indices into `Trace::steps`).
struct RequestSteps {
  std::int64_t arrival = -1;  ///< The plan after whose end it was sent (-1: before the first plan).
  std::int64_t first = -1;    ///< The plan that produced its first token (-1: none).
  std::int64_t finish = -1;   ///< The plan that produced its last token (-1: it never finished).
  int prompt_tokens = 0;      ///< Prompt length.
  int output_tokens = 0;      ///< Output length.
};

/// The batch compositions of a closed-loop run, from the start of its measured window.
struct Trace {
  std::vector<TraceStep> steps;        ///< Every plan, in order.
  std::vector<RequestSteps> requests;  ///< Every measured request, in send order.
};

/// The two figures calibration fits, InferenceX's throughput per GPU and median interactivity, and
/// the median end-to-end latency its prediction bands are also measured on.
struct TraceFigures {
  double tput_per_gpu = 0;   ///< (input + output tokens of completed requests) / duration / GPUs.
  double median_intvty = 0;  ///< 1 / numpy median of TPOT = (E2EL − TTFT)/(output − 1), tokens/s/user.
  double median_e2el = 0;    ///< numpy median of the completed requests' end-to-end latency, s.
};

/// Re-times `trace` with `model` and computes its figures with the metric definitions of
/// src/metrics/ (numpy's median); agrees with a full virtual run under the same factors to
/// rounding (the virtual clock rounds each pass to whole nanoseconds).
TraceFigures RetimeTrace(const Trace& trace, const StepTimeModel& model, int num_gpus);

}  // namespace infermark::perfmodel

// Virtual time: the reference client's closed loop (InferenceX's benchmark_serving with
// --request-rate inf and --max-concurrency C) run against the scheduler on a simulated clock.
// C requests start at time 0; each completion sends the next prompt at once. The warm-up
// requests the reference sends first are not simulated: they end before timing starts and leave
// the engine idle, so they cannot change the measured numbers (random prompts share no prefix).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/point_metrics.hpp"
#include "engine/request_record.hpp"
#include "engine/scheduler.hpp"

namespace infermark::engine {

/// The requests of one benchmark point.
struct Workload {
  int concurrency = 1;           ///< Requests in flight.
  std::vector<int> input_lens;   ///< Prompt length of each request, in send order.
  std::vector<int> output_lens;  ///< Output length of each request (ignore_eos).
};

/// The reference client's workload: num_prompts = 10 × concurrency (unless given), lengths drawn
/// as `np.random.randint(int(L·r), L + 1, n)` for inputs then outputs, seed 0.
Workload ReferenceWorkload(int concurrency, int isl, int osl, double range_ratio = 0.8, int num_prompts = 0,
                           std::uint32_t seed = 0);

/// One plan of a trace: its average step shape and how many steps it covered.
struct TraceStep {
  BatchShape shape;        ///< Average shape.
  std::int64_t steps = 1;  ///< Forward passes.
};

/// Where a request's events fall in a trace (indices into `Trace::steps`).
struct RequestSteps {
  std::int64_t arrival = -1;  ///< The plan after whose end it was sent (-1: at time 0).
  std::int64_t first = -1;    ///< The plan that produced its first token.
  std::int64_t finish = -1;   ///< The plan that produced its last token.
  int prompt_tokens = 0;      ///< Prompt length.
  int output_tokens = 0;      ///< Output length.
};

/// The batch compositions of a closed-loop run. In a closed loop they do not depend on time
/// (arrivals follow completions, which follow token counts), so a trace recorded once can be
/// re-timed under any efficiency factors: calibration does this thousands of times.
struct Trace {
  std::vector<TraceStep> steps;        ///< Every plan, in order.
  std::vector<RequestSteps> requests;  ///< Every request, by id.
};

/// What to keep from a run.
struct ClosedLoopOptions {
  bool record_chunks = false;  ///< Fill RequestRecord::chunks (one entry per streamed chunk).
  bool keep_trace = false;     ///< Fill ClosedLoopResult::trace.
};

/// The outcome of a run.
struct ClosedLoopResult {
  std::vector<RequestRecord> records;  ///< One per request, by id.
  TimeNs duration_ns = 0;              ///< From the first send to the last token.
  SchedulerStats stats;                ///< Scheduler counters.
  Trace trace;                         ///< When asked for.
};

/// Runs `workload` through a fresh scheduler in virtual time.
ClosedLoopResult RunClosedLoop(const SchedulerConfig& config, const StepTimeModel& model, const Workload& workload,
                               const ClosedLoopOptions& options = {});

/// The metrics of a trace re-timed with `model`.
PointMetrics RetimeTrace(const Trace& trace, const StepTimeModel& model, int num_gpus);

}  // namespace infermark::engine

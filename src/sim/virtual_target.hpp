// The target of a predicted run: the performance model's scheduler, driven on the simulated
// clock. A request is submitted when issued; each pass the scheduler plans is an event at its
// end, whose tokens reach the requests' trackers as chunks, so the client's records, metrics and
// result file come out of the same code as a measured run's. It answers as the built-in engine
// would: a request that cannot fit fails with HTTP 400, and without ignore_eos the output length
// follows the engine's EOS model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loadgen/target.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/scheduler.hpp"
#include "perfmodel/step_time.hpp"
#include "perfmodel/trace.hpp"
#include "sim/sim_executor.hpp"

namespace infermark::sim {

/// How the target answers.
struct VirtualTargetOptions {
  bool ignore_eos = true;        ///< Requests produce exactly max_tokens (the client's --ignore-eos).
  double eos_mean_tokens = 256;  ///< Otherwise: the engine's EOS model (mean output length).
  std::uint64_t seed = 0;        ///< Seed of the EOS model (the engine's --seed).
  /// Time every chunk (one event per pass, so inter-token latencies are known). Off, runs of
  /// identical decode passes are one event and only the first and last token's times are known:
  /// TTFT, TPOT, E2EL and throughputs are exact, ITL is not recorded.
  bool chunk_times = false;
  bool record_trace = false;  ///< Keep the measured window's trace (calibration re-times it).
};

/// The performance model as a target.
class VirtualTarget final : public loadgen::Target {
 public:
  /// `deployment`, `model` and `executor` must outlive the target.
  VirtualTarget(const perfmodel::Deployment& deployment, const perfmodel::StepTimeModel& model, SimExecutor& executor,
                VirtualTargetOptions options = {});
  ~VirtualTarget() override;
  VirtualTarget(const VirtualTarget&) = delete;
  VirtualTarget& operator=(const VirtualTarget&) = delete;

  void PreparePhase(std::span<const loadgen::Prompt> prompts, std::span<const std::size_t> order) override;
  void PrepareOpenPhase(std::size_t /*slots*/) override {}
  void Issue(const loadgen::RequestSpec& spec, loadgen::RequestTracker& tracker) override;
  void CancelAll(std::string_view why) override;
  void OpenWindow() override;
  void CloseWindow() override;
  [[nodiscard]] loadgen::TargetReport Report() const override;

  /// The measured window's trace (with `record_trace`).
  [[nodiscard]] const perfmodel::Trace& trace() const { return trace_; }
  /// The scheduler's counters.
  [[nodiscard]] const perfmodel::SchedulerStats& stats() const { return scheduler_.stats(); }
  /// "minimax-m3 fp4 on 4x mi355x, vllm (factors: …)".
  [[nodiscard]] std::string Description() const;

 private:
  struct Live;
  class Sink;
  void Step();
  void StepEnd();
  void Deliver(const perfmodel::TokenEvent& event);
  void RequestStep();
  void CancelNow();

  const perfmodel::Deployment& deployment_;
  const perfmodel::StepTimeModel& model_;
  SimExecutor& executor_;
  VirtualTargetOptions options_;
  perfmodel::Scheduler scheduler_;
  std::vector<Live> live_;  // by scheduler id (ids are issue numbers)
  std::vector<perfmodel::TokenEvent> events_;
  std::uint64_t issued_ = 0;
  bool in_flight_ = false;        // a pass is planned and its end is an event
  bool step_pending_ = false;     // a Step is posted
  bool window_ = false;           // the measured window is open (trace recording)
  std::int64_t plan_index_ = -1;  // the window's last completed pass (trace indices)
  perfmodel::Trace trace_;
  std::optional<std::string> cancel_why_;  // CancelAll waits for the pass in flight
};

}  // namespace infermark::sim

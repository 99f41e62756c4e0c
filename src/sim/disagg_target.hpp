// The target of a predicted disaggregated run: every prefill and decode worker of a
// DisaggDeployment, each the performance model's scheduler, on the one simulated clock. A request
// goes to a prefill worker (the router's choice), which computes its prompt and samples its first
// token; its KV then crosses the link (each prefill worker's link carries one transfer at a time,
// in order); when it has arrived a decode worker (the router's choice) admits the request with
// its KV present, holding its blocks without prefill compute, and generates the rest. The first
// token reaches the client when the decode worker admits the request (its stream carries it), so
// TTFT is queueing, prefill, transfer and the wait for a decode slot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loadgen/target.hpp"
#include "perfmodel/disaggregation.hpp"
#include "perfmodel/scheduler.hpp"
#include "perfmodel/step_time.hpp"
#include "perfmodel/worker_picker.hpp"
#include "sim/sim_executor.hpp"
#include "sim/virtual_target.hpp"

namespace infermark::sim {

/// How the router picks a worker of a role.
enum class RouterPolicy {
  kRoundRobin,   ///< In turn.
  kLeastLoaded,  ///< The worker holding the fewest requests (the first of equals).
  /// The worker believed to hold the longest prefix of the prompt (perfmodel::WorkerPicker's
  /// kv-aware choice: ties go to the least loaded, in turn).
  kKvAware,
};

/// Parses `round-robin`, `least-loaded` or `kv-aware`; throws InputError otherwise.
RouterPolicy ParseRouterPolicy(const std::string& text);

/// The policy's name as --router spells it.
const char* RouterPolicyName(RouterPolicy policy);

/// KV transfer counters.
struct TransferStats {
  std::int64_t transfers = 0;  ///< Prompts whose KV crossed the link.
  std::int64_t tokens = 0;     ///< Prompt tokens whose KV crossed it.
  /// Prompt tokens whose KV did not cross it: the decode worker held them already (KV-aware routing).
  std::int64_t reused_tokens = 0;
  double bytes = 0;         ///< Bytes sent, per prefill rank, summed over transfers.
  double busy_seconds = 0;  ///< Link time (wire time), summed.
  double wait_seconds = 0;  ///< Time transfers queued behind earlier ones on their link, summed.
  double seconds = 0;       ///< From the end of prefill to the KV's arrival, summed.
  double max_seconds = 0;   ///< The longest of those.
};

/// The disaggregated performance model as a target.
class DisaggTarget final : public loadgen::Target {
 public:
  /// `deployment` and `executor` must outlive the target. `options.record_trace` is not supported.
  DisaggTarget(const perfmodel::DisaggDeployment& deployment, SimExecutor& executor, VirtualTargetOptions options = {},
               RouterPolicy router = RouterPolicy::kRoundRobin);
  ~DisaggTarget() override;
  DisaggTarget(const DisaggTarget&) = delete;
  DisaggTarget& operator=(const DisaggTarget&) = delete;

  void PreparePhase(std::span<const loadgen::Prompt> /*prompts*/, std::span<const std::size_t> /*order*/) override {}
  void PrepareOpenPhase(std::size_t /*slots*/) override {}
  void Issue(const loadgen::RequestSpec& spec, loadgen::RequestTracker& tracker) override;
  void CancelAll(std::string_view why) override;
  [[nodiscard]] loadgen::TargetReport Report() const override;

  /// The link's counters.
  [[nodiscard]] const TransferStats& transfers() const { return transfer_; }
  /// A prefill worker's scheduler counters.
  [[nodiscard]] const perfmodel::SchedulerStats& prefill_stats(std::size_t worker) const;
  /// The prefill workers' counters summed (max_running: the largest of theirs).
  [[nodiscard]] perfmodel::SchedulerStats PrefillTotals() const;
  /// A decode worker's scheduler counters.
  [[nodiscard]] const perfmodel::SchedulerStats& decode_stats(std::size_t worker) const;

 private:
  struct Worker;
  struct Live;
  class Sink;
  struct Pool;
  std::size_t Route(Pool& pool, const std::shared_ptr<const std::vector<std::uint64_t>>& blocks,
                    std::size_t* held_blocks);
  void RequestStep(Worker& w);
  void Step(Worker& w);
  void StepEnd(Worker& w);
  void OnPrefilled(const perfmodel::TokenEvent& e, std::size_t worker);
  void Arrived(std::uint64_t id);
  void OnDecoded(const perfmodel::TokenEvent& e, Worker& w);
  void SendFirst(Live& live, std::int64_t at);
  void Finish(Live& live, std::int64_t at);
  void Fail(loadgen::RequestTracker& tracker, std::int64_t now, const std::string& why);
  void AbortEnded(Worker& w);

  const perfmodel::DisaggDeployment& deployment_;
  SimExecutor& executor_;
  VirtualTargetOptions options_;
  RouterPolicy router_;
  perfmodel::StepTimeModel prefill_model_;
  perfmodel::StepTimeModel decode_model_;
  std::vector<std::unique_ptr<Worker>> prefill_;
  std::vector<std::unique_ptr<Worker>> decode_;
  std::unique_ptr<Pool> prefill_pool_;
  std::unique_ptr<Pool> decode_pool_;
  std::vector<Live> live_;               // by request id (issue numbers)
  std::vector<std::int64_t> link_free_;  // per prefill worker: when its link is free
  TransferStats transfer_;
};

}  // namespace infermark::sim

// One phase of sending (the warm-ups, or the measured window): which prompts, when, how many at
// once, each request stamped with its intended time. Closed loop: the opening wave goes out at
// the start and every request that ends frees its slot for the next one at once, from the lane it
// ended on, with no lock (a shared ticket); open loop: arrivals paced by a timer on lane 0, a
// queue (and its mutex) only when a concurrency bound makes arrivals wait. Counters are kept per
// lane and summed by readers (wrk2's per-thread statistics).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "loadgen/executor.hpp"
#include "loadgen/target.hpp"
#include "metrics/request_record.hpp"

namespace infermark::loadgen {

/// What one phase sends.
struct PhaseSpec {
  std::vector<std::size_t> order;  ///< Prompt index of each request, in send order.
  std::optional<int> concurrency;  ///< Requests in flight at most; none: no bound.
  /// Open loop: seconds after the start at which each request is due. Empty: a closed loop (all
  /// due at the start, each further one the moment a slot frees).
  std::vector<double> offsets;
  bool keep_text = false;  ///< Keep the answers' text.
  /// Send nothing once this many seconds have passed since the start (--duration; requests in
  /// flight then finish normally); 0: no limit.
  double duration_s = 0;
};

/// Sends one phase through a target on an executor.
class Dispatcher final : public RequestListener {
 public:
  /// `target`, `executor` and `prompts` must outlive the dispatcher.
  Dispatcher(Target& target, Executor& executor, std::span<const Prompt> prompts, PhaseSpec phase);
  ~Dispatcher() override;
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// Starts sending: request i is due at `start_ns` + offsets[i] (closed loop: the opening wave at `start_ns`).
  void Start(std::int64_t start_ns);
  /// No request is sent after this (a stop signal).
  void StopSending();
  /// Whether every request that will be sent has ended.
  [[nodiscard]] bool Done() const;

  /// Requests sent so far.
  [[nodiscard]] std::size_t Sent() const;
  /// Requests ended so far.
  [[nodiscard]] std::size_t Finished() const;
  /// Requests failed so far.
  [[nodiscard]] std::size_t Failed() const;
  /// Output tokens the server reported for ended requests.
  [[nodiscard]] std::int64_t OutputTokens() const;
  /// Requests in the phase.
  [[nodiscard]] std::size_t Total() const { return records_.size(); }

  /// The records of every request that was sent, in order. Only once Done() and the lanes no
  /// longer run (or no longer touch this phase).
  std::vector<metrics::RequestRecord> TakeSentRecords();

  void OnFreed(std::size_t ordinal, std::int64_t done_ns) override;
  void OnClosed(std::size_t ordinal) override;

 private:
  struct alignas(64) LaneCounters {
    std::atomic<std::size_t> sent{0};
    std::atomic<std::size_t> finished{0};
    std::atomic<std::size_t> failed{0};
    std::atomic<std::int64_t> output_tokens{0};
  };
  LaneCounters& Mine();
  // A counter summed over the lanes.
  template <typename T>
  T Sum(std::atomic<T> LaneCounters::*counter, std::memory_order order) const;
  void Issue(std::size_t i, std::optional<std::size_t> lane);
  void Pace(std::size_t from);
  [[nodiscard]] bool Stopped() const;

  Target& target_;
  Executor& executor_;
  std::span<const Prompt> prompts_;
  PhaseSpec phase_;
  std::vector<metrics::RequestRecord> records_;
  std::vector<RequestTracker> trackers_;
  std::vector<LaneCounters> counters_;  // one per lane, the last for threads off the lanes
  std::int64_t start_ns_ = 0;
  std::optional<std::int64_t> stop_at_ns_;  // from duration_s
  std::atomic<bool> stopped_{false};
  std::atomic<std::size_t> next_{0};  // closed loop: the ticket; open loop: the next to pace
  // What an armed pacing timer checks before it touches the dispatcher.
  struct Pacer {
    std::mutex mu;
    bool alive = true;
  };
  std::shared_ptr<Pacer> pacer_ = std::make_shared<Pacer>();
  // Open loop with a concurrency bound only.
  mutable std::mutex mu_;
  std::deque<std::size_t> waiting_;
  std::size_t in_flight_ = 0;
  bool all_due_at_start_ = false;
};

}  // namespace infermark::loadgen

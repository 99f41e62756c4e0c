#include "eval/eval_client.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

#include "loadgen/event_loops_executor.hpp"
#include "loadgen/http_target.hpp"
#include "loadgen/request_tracker.hpp"
#include "metrics/request_record.hpp"

namespace infermark::eval {
namespace {

// Every callback runs on lane 0 (one event loop), so the state needs no lock; the main thread
// only reads `finished` and `in_flight` (atomics) while it waits.
class Sender final : public loadgen::RequestListener {
 public:
  Sender(const EvalClientOptions& options, std::vector<std::string> bodies, loadgen::Target& target,
         loadgen::Executor& executor)
      : options_(options),
        bodies_(std::move(bodies)),
        target_(target),
        executor_(executor),
        outcomes_(bodies_.size()),
        slots_(std::max<std::size_t>(1, std::min(options.concurrency, bodies_.size()))) {
    for (std::size_t i = 0; i < bodies_.size(); ++i) queue_.push_back(i);
    for (std::size_t s = 0; s < slots_.size(); ++s) free_.push_back(s);
  }

  void Start() {
    executor_.Post(0, [this] { Fill(); });
  }

  void Stop() {
    executor_.Post(0, [this] {
      stopping_ = true;
      finished_.fetch_add(queue_.size());
      queue_.clear();
    });
  }

  [[nodiscard]] std::size_t finished() const { return finished_.load(); }
  [[nodiscard]] std::size_t in_flight() const { return in_flight_.load(); }
  [[nodiscard]] bool done() const { return finished_.load() >= outcomes_.size() && in_flight_.load() == 0; }
  std::vector<EvalOutcome> Take() { return std::move(outcomes_); }

  void OnFreed(std::size_t /*slot*/, std::int64_t /*done_ns*/) override {}

  void OnClosed(std::size_t slot) override {
    Slot& s = slots_[slot];
    const metrics::RequestRecord& r = s.record;
    EvalOutcome& o = outcomes_[s.request];
    s.tracker.reset();
    if (r.success) {
      o.ok = true;
      o.text = r.generated_text;
      Finish(slot);
      return;
    }
    o.error_kind = r.error_kind.empty() ? "failed" : r.error_kind;
    o.error = r.error;
    if (o.attempts >= options_.max_retries || stopping_) {
      Finish(slot);
      return;
    }
    const double wait = RetryWait(o.attempts, options_.retry_wait_min_s, options_.retry_wait_max_s);
    const std::size_t request = s.request;
    executor_.At(0, executor_.NowNs() + static_cast<std::int64_t>(wait * 1e9), [this, slot, request] {
      if (stopping_) {
        Finish(slot);
        return;
      }
      Issue(slot, request);
    });
  }

 private:
  struct Slot {
    std::size_t request = 0;
    metrics::RequestRecord record;
    std::optional<loadgen::RequestTracker> tracker;
    std::string body;
  };

  void Fill() {
    while (!stopping_ && !queue_.empty() && !free_.empty()) {
      const std::size_t slot = free_.back();
      free_.pop_back();
      const std::size_t request = queue_.front();
      queue_.pop_front();
      in_flight_.fetch_add(1);
      Issue(slot, request);
    }
  }

  void Issue(std::size_t slot, std::size_t request) {
    Slot& s = slots_[slot];
    s.request = request;
    s.record = metrics::RequestRecord{};
    s.record.index = request;
    s.tracker.emplace(s.record, *this, slot, true);
    s.body = bodies_[request];  // kept: a retry sends it again
    EvalOutcome& o = outcomes_[request];
    o.sent = true;
    ++o.attempts;
    loadgen::RequestSpec spec;
    spec.ordinal = slot;
    spec.lane = 0;
    spec.body = &s.body;
    target_.Issue(spec, *s.tracker);
  }

  void Finish(std::size_t slot) {
    free_.push_back(slot);
    in_flight_.fetch_sub(1);
    finished_.fetch_add(1);
    Fill();
  }

  const EvalClientOptions& options_;
  std::vector<std::string> bodies_;
  loadgen::Target& target_;
  loadgen::Executor& executor_;
  std::vector<EvalOutcome> outcomes_;
  std::vector<Slot> slots_;
  std::deque<std::size_t> queue_;
  std::vector<std::size_t> free_;
  bool stopping_ = false;
  std::atomic<std::size_t> finished_{0};
  std::atomic<std::size_t> in_flight_{0};
};

}  // namespace

double RetryWait(int failed_attempts, double min_s, double max_s) {
  const double wait = 0.5 * std::pow(2.0, failed_attempts - 1);
  return std::max(std::max(0.0, min_s), std::min(wait, max_s));
}

std::vector<EvalOutcome> SendAll(const EvalClientOptions& options, std::vector<std::string> bodies,
                                 const std::atomic<bool>* stop, const std::function<void(std::size_t)>& progress) {
  if (bodies.empty()) return {};
  loadgen::HttpTargetOptions o;
  o.base_url = options.base_url;
  o.api = options.api;
  o.endpoint = options.endpoint.empty() ? loadgen::DefaultEndpoint(options.api) : options.endpoint;
  o.threads = 1;
  o.idle_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout);
  loadgen::HttpTarget http(o);
  const std::size_t lanes = std::min(options.concurrency, bodies.size());
  http.Connect(lanes);
  http.PrepareOpenPhase(lanes);
  loadgen::EventLoopsExecutor executor(http.loops());
  Sender sender(options, std::move(bodies), http, executor);
  sender.Start();
  bool stopped = false;
  executor.RunUntil([&] { return sender.done(); },
                    [&] {
                      if (!stopped && stop != nullptr && stop->load()) {
                        stopped = true;
                        sender.Stop();
                        http.CancelAll("interrupted");
                      }
                      if (progress) progress(sender.finished());
                    });
  http.Shutdown();
  return sender.Take();
}

}  // namespace infermark::eval

// The system under test, as the load generator sees it (after MLPerf LoadGen's SUT): a request
// spec goes in, chunks and a completion come out through the request's tracker. The client —
// schedules, warm-ups, intended times, records, metrics, the result file — is written once
// against this interface; an HTTP server (http_target.hpp) and the performance model on a virtual
// clock (src/sim/) are two implementations, so measured and predicted runs differ only here.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/json_text.hpp"
#include "loadgen/dataset.hpp"
#include "loadgen/request_tracker.hpp"
#include "metrics/verdict.hpp"

namespace infermark::loadgen {

/// One request to issue.
struct RequestSpec {
  std::size_t ordinal = 0;            ///< Position in the phase (the order PreparePhase was given).
  const Prompt* prompt = nullptr;     ///< What to send.
  std::optional<std::size_t> lane{};  ///< The executor lane to issue it on (the calling lane when empty).
  /// The body built ahead with Target::BuildBody (an open phase's request made before it is due);
  /// the target may move from it. Null: the target builds it.
  std::string* body = nullptr;
};

/// What a target learned about the run, for the result file and the verdict.
struct TargetReport {
  Json client = Json::object();  ///< The client's own figures (connections, reads, read delays…).
  /// The server as the target saw it (for the built-in engine: what it models, its time scale and
  /// how late its passes ran); null when nothing is known.
  Json server = nullptr;
  std::optional<metrics::EngineSelfCheck> engine;  ///< The built-in engine's self-check over the window.
  double time_scale = 1.0;                         ///< The served hardware runs this many times faster than modelled.
  /// The built-in engine's model clock: modelled ns per real ns (0: none known, or max speed).
  double model_time_scale = 0.0;
  std::optional<int> gpus;  ///< GPUs behind the server, when it said (the built-in engine's model card).
  /// The built-in engine's virtual time 0 on this host's monotonic clock, when it said.
  std::optional<std::int64_t> model_epoch_ns;
  double setup_s = 0;      ///< Seconds the target spent getting ready (probe, connections).
  bool predicted = false;  ///< The answers came from a model on a virtual clock.
};

/// Where requests go.
class Target {
 public:
  virtual ~Target() = default;
  /// A phase will issue `order.size()` requests, the k-th with `prompts[order[k]]`: work that can
  /// be done before the clock starts (request bodies) is done here.
  virtual void PreparePhase(std::span<const Prompt> prompts, std::span<const std::size_t> order) = 0;
  /// A phase whose requests are made as they are sent (a replay): at most `slots` are in flight at
  /// once, RequestSpec::ordinal names a slot in [0, slots), and Issue must not keep the prompt.
  virtual void PrepareOpenPhase(std::size_t slots) = 0;
  /// The body `prompt` will be sent with, built now so that Issue only writes bytes when the
  /// request is due (empty for targets that send no bytes).
  [[nodiscard]] virtual std::string BuildBody(const Prompt& /*prompt*/) const { return {}; }
  /// Issues one request; progress goes to `tracker`, on the executor's lanes. Never throws for a
  /// failure of the request itself (that is reported through the tracker).
  virtual void Issue(const RequestSpec& spec, RequestTracker& tracker) = 0;
  /// Ends every request in flight (each Done with `why`): the drain window after a stop ran out.
  virtual void CancelAll(std::string_view why) = 0;
  /// The measured window opens (after the warm-ups, before its first request).
  virtual void OpenWindow() {}
  /// The measured window closed (every request of it has ended).
  virtual void CloseWindow() {}
  /// What the target learned (after CloseWindow).
  [[nodiscard]] virtual TargetReport Report() const = 0;
};

}  // namespace infermark::loadgen

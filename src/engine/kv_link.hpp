// A prefill worker's KV link (`engine serve --role prefill`): every prompt whose KV is handed to a
// decode worker crosses it, one transfer at a time in the order the prompts finished, so a busy
// link queues the next transfer. Times are the engine's virtual clock (modelled time); the figures
// are the perfmodel's (DisaggDeployment::WireSeconds and the link's latency plus the backend's
// overhead) for this worker's own deployment.
#pragma once

#include <cstdint>
#include <string>

#include "perfmodel/disaggregation.hpp"

namespace infermark::engine {

/// One prompt's KV hand-off, in modelled seconds.
struct KvHandoff {
  double wire_s = 0;      ///< Link time of its bytes.
  double queued_s = 0;    ///< Time it waited behind earlier transfers on the link.
  double transfer_s = 0;  ///< From the end of its prefill until its KV is usable on the decode side.
  double bytes = 0;       ///< Bytes per prefill rank.
};

/// Link counters since start (modelled seconds).
struct KvLinkStats {
  std::uint64_t transfers = 0;  ///< Prompts handed off.
  double bytes = 0;             ///< Bytes per prefill rank, summed.
  double wire_seconds = 0;      ///< Link busy time, summed.
  double queued_seconds = 0;    ///< Queueing behind earlier transfers, summed.
  double transfer_seconds = 0;  ///< Whole hand-offs, summed.
};

/// The serialised link. Not thread-safe: the engine loop owns it.
class KvLinkQueue {
 public:
  /// `model` gives the worker's bytes per token, the link and the backend.
  explicit KvLinkQueue(perfmodel::DisaggDeployment model);
  /// Hands off a prompt of `prompt_tokens` tokens whose prefill ended at virtual time `now_ns`.
  KvHandoff Send(int prompt_tokens, std::int64_t now_ns);
  /// The figures the queue uses.
  [[nodiscard]] const perfmodel::DisaggDeployment& model() const { return model_; }
  /// Counters so far.
  [[nodiscard]] const KvLinkStats& stats() const { return stats_; }

 private:
  perfmodel::DisaggDeployment model_;
  std::int64_t free_ns_ = 0;  // virtual time the link is free again
  KvLinkStats stats_;
};

/// The modelled hand-off of one worker of `worker`'s deployment: both roles alike, the backend
/// `kv_transfer`, and the link `link` (`auto`: the NVLink domain when the hardware is a rack-scale
/// domain that holds a prefill and a decode worker, else the scale-out NICs; `nvlink`;
/// `scale-out`). Throws InputError for an unknown backend or link.
perfmodel::DisaggDeployment WorkerHandoffModel(const perfmodel::Deployment& worker, const std::string& kv_transfer,
                                               const std::string& link);

}  // namespace infermark::engine

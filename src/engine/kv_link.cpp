#include "engine/kv_link.hpp"

#include <algorithm>
#include <cmath>

#include "core/diagnostic.hpp"

namespace infermark::engine {

KvLinkQueue::KvLinkQueue(perfmodel::DisaggDeployment model) : model_(std::move(model)) {}

KvHandoff KvLinkQueue::Send(int prompt_tokens, std::int64_t now_ns) {
  KvHandoff h;
  h.wire_s = model_.WireSeconds(prompt_tokens);
  h.bytes = double(prompt_tokens) * model_.prefill.memory.kv_bytes_per_token;
  const std::int64_t start = std::max(now_ns, free_ns_);
  free_ns_ = start + static_cast<std::int64_t>(std::llround(h.wire_s * 1e9));
  h.queued_s = double(start - now_ns) * 1e-9;
  h.transfer_s = double(free_ns_ - now_ns) * 1e-9 + model_.link.latency_s + model_.backend.overhead_s;
  ++stats_.transfers;
  stats_.bytes += h.bytes;
  stats_.wire_seconds += h.wire_s;
  stats_.queued_seconds += h.queued_s;
  stats_.transfer_seconds += h.transfer_s;
  return h;
}

perfmodel::DisaggDeployment WorkerHandoffModel(const perfmodel::Deployment& worker, const std::string& kv_transfer,
                                               const std::string& link) {
  perfmodel::DisaggDeployment d;
  d.prefill = worker;
  d.decode = worker;
  std::string known;
  for (const perfmodel::KvTransferBackend& b : perfmodel::KvTransferBackends()) {
    if (b.name == kv_transfer) d.backend = b;
    known += (known.empty() ? "" : ", ") + b.name;
  }
  if (d.backend.name.empty())
    throw InputError(Diagnostic{SourceMark{}, "", "--kv-transfer",
                                "unknown KV transfer backend '" + kv_transfer + "' (known: " + known + ")"});
  const perfmodel::HardwareSpec& hw = worker.hardware;
  if (link == "auto") {
    d.link = perfmodel::SelectKvLink(hw, 2 * worker.NumGpus());
  } else if (link == "nvlink") {
    d.link = perfmodel::KvLink{"nvlink", hw.link_bytes_per_s, hw.allreduce_latency_s};
  } else if (link == "scale-out") {
    d.link = perfmodel::KvLink{hw.scale_out_kind, hw.scale_out_bytes_per_s, hw.scale_out_latency_s};
  } else {
    throw InputError(
        Diagnostic{SourceMark{}, "", "--kv-link", "must be auto, nvlink or scale-out, not '" + link + "'"});
  }
  return d;
}

}  // namespace infermark::engine

#include "perfmodel/disaggregation.hpp"

#include <algorithm>
#include <cctype>

#include "core/diagnostic.hpp"

namespace infermark::perfmodel {
namespace {

InputError Bad(const std::string& field, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", field, rule});
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

Deployment ResolveRole(const EngineData& data, const DeploymentOptions& options, const char* role) {
  try {
    return ResolveDeployment(data, options);
  } catch (const InputError& e) {
    throw Bad(role, std::string("the ") + role + " worker cannot be deployed: " + e.what());
  }
}

}  // namespace

const std::vector<KvTransferBackend>& KvTransferBackends() {
  // Priors, not measurements: RDMA engines that post one-sided writes of whole KV blocks reach
  // most of a 400 Gb/s NIC's line rate on large messages, and each request pays a metadata
  // exchange and a completion notification on top of the wire time.
  static const std::vector<KvTransferBackend> kBackends = {
      {"nixl", 0.85, 0.5e-3,
       "NVIDIA NIXL over UCX (Dynamo, llm-d): block-list RDMA writes, one notification per request"},
      {"mooncake", 0.80, 1.0e-3,
       "Mooncake transfer engine (SGLang, vLLM): batched RDMA writes through its own engine and metadata service"},
      {"mori", 0.80, 0.5e-3, "AMD MoRI-IO (ROCm vLLM/SGLang, ATOM): RDMA writes over AINIC/ConnectX, GPU-initiated"},
      {"moriio", 0.80, 0.5e-3, "AMD MoRI-IO (ROCm vLLM/SGLang, ATOM): RDMA writes over AINIC/ConnectX, GPU-initiated"},
  };
  return kBackends;
}

const KvTransferBackend& FindKvTransferBackend(const std::string& name) {
  const std::string key = Lower(name);
  std::string known;
  for (const KvTransferBackend& b : KvTransferBackends()) {
    if (b.name == key) return b;
    known += (known.empty() ? "" : ", ") + b.name;
  }
  throw Bad("kv-p2p-transfer", "unknown KV transfer backend '" + name + "' (known: " + known + ")");
}

KvLink SelectKvLink(const HardwareSpec& hw, int total_gpus) {
  // A rack-scale NVLink domain (NVL72) holding both roles moves the KV over NVLink; otherwise the
  // roles are on different nodes and the KV crosses the scale-out network.
  if (hw.domain_gpus > 8 && total_gpus <= hw.domain_gpus)
    return KvLink{"nvlink", hw.link_bytes_per_s, hw.allreduce_latency_s};
  return KvLink{hw.scale_out_kind, hw.scale_out_bytes_per_s, hw.scale_out_latency_s};
}

int DisaggDeployment::NumGpus() const {
  return PrefillGpus() + DecodeGpus();
}

double DisaggDeployment::WireSeconds(int prompt_tokens) const {
  // kv_bytes_per_token is what one prefill rank holds of a token (the whole MLA latent, or its
  // share of the KV heads); every rank sends its own over its own link at once. With attention
  // data-parallel a sequence lives on one rank and that rank's link carries it.
  const double bytes = double(prompt_tokens) * prefill.memory.kv_bytes_per_token;
  return bytes / (link.bytes_per_s * backend.efficiency);
}

double DisaggDeployment::TransferSeconds(int prompt_tokens) const {
  return WireSeconds(prompt_tokens) + link.latency_s + backend.overhead_s;
}

std::string DisaggDeployment::Description() const {
  const Deployment& p = prefill;
  return std::to_string(prefill_workers) + "P" + std::to_string(decode_workers) + "D tp" + std::to_string(p.tp) +
         "/tp" + std::to_string(decode.tp) + " " + p.model.name + " " + p.precision.precision + " on " +
         p.hardware.name + ", " + p.framework.name + ", " + backend.name + " over " + link.kind +
         " (factors: " + p.efficiency_source + ")";
}

DisaggDeployment ResolveDisaggDeployment(const EngineData& data, const DisaggOptions& o) {
  if (o.prefill_workers < 1) throw Bad("prefill.num-worker", "must be at least 1");
  if (o.decode_workers < 0) throw Bad("decode.num-worker", "must be at least 0");
  DisaggDeployment d;
  d.prefill = ResolveRole(data, o.prefill, "prefill");
  // No decode workers: an aggregated multi-node deployment, the prefill pool serving whole requests.
  d.decode = o.decode_workers > 0 ? ResolveRole(data, o.decode, "decode") : d.prefill;
  d.prefill_workers = o.prefill_workers;
  d.decode_workers = o.decode_workers;
  if (d.prefill.hardware.name != d.decode.hardware.name)
    throw Bad("decode", "both roles must run on one GPU kind (prefill " + d.prefill.hardware.name + ", decode " +
                            d.decode.hardware.name + ")");
  if (d.prefill.model.name != d.decode.model.name)
    throw Bad("decode", "both roles must serve one model (prefill " + d.prefill.model.name + ", decode " +
                            d.decode.model.name + ")");
  d.backend = FindKvTransferBackend(o.kv_transfer);
  d.link = SelectKvLink(d.prefill.hardware, d.NumGpus());
  return d;
}

}  // namespace infermark::perfmodel

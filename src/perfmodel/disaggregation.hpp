// A disaggregated deployment: a pool of prefill workers and a pool of decode workers, each worker
// one Deployment with its own role's parallelism, and the link a prompt's KV crosses from the
// prefill worker that computed it to the decode worker that generates from it (the GPUs'
// scale-out RDMA NICs, or the NVLink domain when both roles sit in one NVL72 rack), at the
// efficiency of the KV transfer backend (`kv-p2p-transfer`: nixl, mooncake, mori).
#pragma once

#include <string>
#include <vector>

#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"

namespace infermark::perfmodel {

/// A KV transfer backend's figures on the link (data/engine/kv_transfer.yaml; priors, no
/// measurement of ours yet).
struct KvTransferBackend {
  std::string name;       ///< `nixl`, `mooncake`, `mori`, `moriio`.
  double efficiency = 1;  ///< Fraction of the link's bandwidth one transfer reaches.
  double overhead_s = 0;  ///< Per-request cost beyond the wire: metadata exchange, completion notification.
  std::string reasoning;  ///< What the backend is (the file's description).
};

/// Reads a KV transfer backend file (kv_transfer.yaml); throws InputError listing every problem.
std::vector<KvTransferBackend> LoadKvTransferFile(const std::string& path);

/// The backends of the default engine data folder's kv_transfer.yaml (read once).
const std::vector<KvTransferBackend>& KvTransferBackends();

/// A backend by name (case-insensitive); throws InputError listing the known ones.
const KvTransferBackend& FindKvTransferBackend(const std::string& name);

/// The link KV crosses between the roles.
struct KvLink {
  std::string kind;        ///< `nvlink` (one scale-up domain) or the scale-out NIC's kind (`rdma-400g`…).
  double bytes_per_s = 0;  ///< Per GPU per direction, before the backend's efficiency.
  double latency_s = 0;    ///< Wire latency of one transfer.
};

/// The link KV crosses when `total_gpus` GPUs of kind `hw` serve both roles: the NVLink domain
/// when one rack-scale domain (NVL72) holds them all, else the GPUs' scale-out RDMA NICs.
KvLink SelectKvLink(const HardwareSpec& hw, int total_gpus);

/// What a disaggregated deployment is made of (flags of `predict`, fields of a multi-node row).
struct DisaggOptions {
  DeploymentOptions prefill;         ///< One prefill worker.
  int prefill_workers = 1;           ///< Prefill workers.
  DeploymentOptions decode;          ///< One decode worker.
  int decode_workers = 1;            ///< Decode workers (0: the prefill workers serve whole requests).
  std::string kv_transfer = "nixl";  ///< The KV transfer backend.
};

/// A resolved disaggregated deployment.
struct DisaggDeployment {
  Deployment prefill;         ///< One prefill worker.
  int prefill_workers = 1;    ///< Prefill workers.
  Deployment decode;          ///< One decode worker.
  int decode_workers = 1;     ///< Decode workers.
  KvLink link;                ///< The link between the roles.
  KvTransferBackend backend;  ///< The transfer backend.

  /// GPUs of both roles.
  [[nodiscard]] int NumGpus() const;
  /// GPUs of the prefill pool.
  [[nodiscard]] int PrefillGpus() const { return prefill_workers * prefill.NumGpus(); }
  /// GPUs of the decode pool.
  [[nodiscard]] int DecodeGpus() const { return decode_workers * decode.NumGpus(); }
  /// Seconds the link is busy with one prompt's KV: every prefill rank sends its shard of
  /// `prompt_tokens` tokens (the MLA latent or its KV heads) over its own link, in parallel.
  [[nodiscard]] double WireSeconds(int prompt_tokens) const;
  /// Seconds from the end of a prompt's prefill until its KV is usable on the decode worker,
  /// with the link free: WireSeconds, the link's latency and the backend's overhead.
  [[nodiscard]] double TransferSeconds(int prompt_tokens) const;
  /// "1P1D tp4/tp4 minimax-m3 fp4 on mi355x, vllm, moriio over rdma-400g".
  [[nodiscard]] std::string Description() const;
};

/// Resolves both roles against the catalog and picks the link; throws InputError naming the role
/// for unknown names, a worker the hardware cannot hold, different GPUs or models per role, or
/// no prefill worker. No decode workers is an aggregated multi-node deployment (InferenceX's
/// D = 0): the prefill workers serve whole requests and nothing crosses the link.
DisaggDeployment ResolveDisaggDeployment(const EngineData& data, const DisaggOptions& options);

}  // namespace infermark::perfmodel

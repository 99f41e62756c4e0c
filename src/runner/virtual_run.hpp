// One matrix row on the built-in engine's virtual clock: the reference client's closed loop run
// through the scheduler and step-time model in simulated time. The requests come back as the
// metrics module's records, so the result file is built by the same code a measured run uses
// (predicted_result.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/request_record.hpp"

namespace infermark::runner {

/// The deployment and workload of one row.
struct VirtualRowSpec {
  std::string model;                    ///< Built-in model.
  std::string hardware;                 ///< GPU.
  std::string framework = "vllm";       ///< vllm, sglang, trt.
  std::string precision = "fp8";        ///< Engine precision.
  std::string kv_cache_dtype = "auto";  ///< KV dtype.
  int tp = 1;                           ///< Tensor-parallel GPUs.
  int ep = 1;                           ///< Expert-parallel degree.
  bool dp_attention = false;            ///< Attention data-parallel.
  int max_model_len = 0;                ///< 0: the model's.
  std::string spec_decoding = "none";   ///< none or mtp.
  int conc = 1;                         ///< Concurrency.
  int isl = 1024;                       ///< Input length.
  int osl = 1024;                       ///< Output length.
  double range_ratio = 0.8;             ///< Lengths uniform in [ratio L, L].
  int num_prompts = 0;                  ///< 0: 10 × conc.
  /// Keep every chunk's time (inter-token latencies in the result). Off by default: a sweep's
  /// millions of chunks cost more than the simulation, and the processed figures (TTFT, TPOT,
  /// E2EL, throughputs) do not use them.
  bool record_chunks = false;
};

/// A simulated run.
struct VirtualRun {
  /// In send order; virtual time is shifted by 1 s, since records reserve 0 for "never".
  std::vector<metrics::RequestRecord> records;
  double duration_s = 0;    ///< First send to last token.
  int num_gpus = 1;         ///< GPUs of the deployment.
  std::string description;  ///< "minimax-m3 fp4 on 4x mi355x, vllm (factors: …)".
};

/// Resolved deployments, kept across the rows of a sweep (a deployment resolves once).
class VirtualEngineCache {
 public:
  VirtualEngineCache();
  ~VirtualEngineCache();
  VirtualEngineCache(const VirtualEngineCache&) = delete;
  VirtualEngineCache& operator=(const VirtualEngineCache&) = delete;

  /// Simulates `spec`. Throws InputError for an unknown model, GPU or an impossible deployment.
  VirtualRun Run(const VirtualRowSpec& spec);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace infermark::runner

// One matrix row on the built-in engine's virtual clock: the reference client's closed loop run
// through the scheduler and step-time model in simulated time. The requests come back as plain
// timings, so the result file is built by the same metrics code a measured run uses
// (predicted_result.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace infermark::runner {

/// One simulated request, times in virtual nanoseconds from the start of the run.
struct VirtualRequest {
  std::int64_t intended_ns = 0;             ///< When its slot freed.
  std::int64_t sent_ns = 0;                 ///< When it was sent (equal in a simulated closed loop).
  std::int64_t first_chunk_ns = -1;         ///< First streamed chunk.
  std::int64_t last_chunk_ns = -1;          ///< Last streamed chunk.
  std::vector<std::int64_t> chunk_ns;       ///< Every streamed chunk.
  std::vector<std::uint32_t> chunk_tokens;  ///< Output tokens produced as of each chunk (cumulative).
  std::int64_t prompt_tokens = 0;           ///< Prompt length.
  std::int64_t output_tokens = 0;           ///< Output length.
  bool success = false;                     ///< Completed.
};

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
  std::vector<VirtualRequest> requests;  ///< In send order.
  double duration_s = 0;                 ///< First send to last token.
  int num_gpus = 1;                      ///< GPUs of the deployment.
  std::string description;               ///< "minimax-m3 fp4 on 4x mi355x, vllm (factors: …)".
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

// A measured hardware profile: what `infermark gpu probe` timed on one GPU (HBM bandwidth, GEMM
// rates at the built-in models' shapes, grouped GEMMs at MoE shapes, launch and graph overheads,
// power and clocks). `engine serve`, `predict` and `calibrate` take one with --hardware-profile;
// its figures replace the datasheet's and the fitted fractions where it measured them
// (docs/engine-model.md, "Hardware profiles"; the file format: docs/gpu.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace infermark::perfmodel {

/// One GEMM (or grouped GEMM) the probe timed.
struct ProbedGemm {
  std::string model;        ///< Built-in model whose layer has this shape ("" for reference shapes).
  std::string op;           ///< Operator: `qkv`, `o_proj`, `gate_up`, `down`, `lm_head`, `expert_gate_up`, ….
  std::string phase;        ///< `decode` or `prefill`.
  std::string dtype;        ///< Operand type: `bf16` or `fp8`.
  int tp = 1;               ///< Tensor-parallel degree the shape is one rank's share of.
  std::int64_t m = 0;       ///< Rows of the activation (tokens; per expert for grouped GEMMs).
  std::int64_t n = 0;       ///< Output features.
  std::int64_t k = 0;       ///< Input features.
  int experts = 0;          ///< Grouped GEMMs: problems in the group (0 = one plain GEMM).
  double seconds = 0;       ///< Median time of one call (all experts of a group), cold L2.
  double spread = 0;        ///< (p90 − p10) / median over the repeats.
  double avg_power_w = 0;   ///< Mean board power while it ran (0 = not sampled).
  double sm_clock_mhz = 0;  ///< Median SM clock while it ran (0 = not sampled).
  std::string algo;         ///< cuBLASLt algorithm every call ran (`id:tile:stages:splitk:…`; "" = cuBLAS chose).

  /// Bytes one call must move at least: A, B (weights) and C once each.
  [[nodiscard]] double Bytes() const;
  /// FLOPs of one call (2·m·n·k per problem).
  [[nodiscard]] double Flops() const;
};

/// Power and clocks sampled during one probe test.
struct ProbedPower {
  std::string test;          ///< Test name: `hbm_read`, `gemm_bf16_peak`, ….
  double avg_power_w = 0;    ///< Mean board power, W.
  double sm_clock_mhz = 0;   ///< Median SM clock, MHz.
  double mem_clock_mhz = 0;  ///< Median memory clock, MHz.
};

/// One NCCL collective the probe timed at one message size over one GPU count.
struct ProbedCollective {
  std::string op;              ///< `all_reduce`, `all_gather`, `reduce_scatter` or `all_to_all`.
  int gpus = 1;                ///< Ranks of the communicator (one per GPU of one host).
  std::int64_t bytes = 0;      ///< Message size, nccl-tests' convention (collective_shapes.hpp).
  double seconds = 0;          ///< Median time of one call.
  double bus_bytes_per_s = 0;  ///< NCCL's bus bandwidth: bytes / seconds × BusFactor (0 for one GPU).
  double spread = 0;           ///< (p90 − p10) / median over the timed batches.
  bool graph = false;          ///< Whether the calls were replayed from CUDA graphs.
};

/// What `infermark gpu probe --collectives` measured over the GPUs of one host.
struct ScaleUpProfile {
  std::string nccl_version;                   ///< NCCL's version (`2.27.7`); "" = no collectives measured.
  bool nvls = false;                          ///< Whether NVLink multicast (NVLS) was allowed (the probe turns it off).
  std::vector<ProbedCollective> collectives;  ///< Every op, GPU count and size timed.

  /// The entries of `op` over `gpus` GPUs, smallest message first.
  [[nodiscard]] std::vector<const ProbedCollective*> Sizes(const std::string& op, int gpus) const;
};

/// Everything one probe run measured on one GPU.
struct HardwareProfile {
  int version = 1;                 ///< Format version (1).
  std::string hardware;            ///< Catalog key it refines (`h200`).
  std::string gpu_name;            ///< The driver's name for the GPU (`NVIDIA H200`).
  std::string gpu_uuid;            ///< The GPU's UUID.
  std::string driver;              ///< Driver version.
  std::string cuda_runtime;        ///< CUDA runtime version the probe ran with.
  std::string compute_capability;  ///< `9.0`.
  int sm_count = 0;                ///< Multiprocessors.
  double memory_bytes = 0;         ///< Device memory, bytes.
  std::string measured_at;         ///< UTC time of the run, ISO 8601.
  std::string host;                ///< Host name.
  std::string infermark_version;   ///< Version of the probe.
  std::string command;             ///< The command line that ran the probe.
  double sm_clock_max_mhz = 0;     ///< Maximum SM clock the driver reports.
  double mem_clock_max_mhz = 0;    ///< Maximum memory clock the driver reports.

  double hbm_read_bytes_per_s = 0;   ///< Streaming read bandwidth (0 = not measured).
  double hbm_write_bytes_per_s = 0;  ///< Streaming write bandwidth.
  double hbm_copy_bytes_per_s = 0;   ///< Device-to-device copy, bytes read plus written per second.
  double gemm_peak_bf16 = 0;         ///< Large square bf16 GEMM, FLOP/s.
  double gemm_peak_fp8 = 0;          ///< Large square fp8 GEMM, FLOP/s (0 = not measured).
  double kernel_launch_s = 0;        ///< One empty kernel launched back to back on a stream.
  double graph_kernel_s = 0;         ///< One empty kernel node of a replayed CUDA graph.
  double graph_launch_s = 0;         ///< Fixed cost of one graph replay.

  std::vector<ProbedGemm> gemms;   ///< GEMMs and grouped GEMMs at model shapes.
  std::vector<ProbedPower> power;  ///< Power and clocks per test.
  ScaleUpProfile scale_up;         ///< Collectives over the host's GPUs (empty unless probed with --collectives).
  std::string path;                ///< File it was read from.
};

/// Reads a profile; throws InputError naming file:line, field and rule for every problem.
HardwareProfile LoadHardwareProfile(const std::string& path);

/// The profile's YAML text (what LoadHardwareProfile reads back unchanged).
std::string FormatHardwareProfile(const HardwareProfile& profile);

}  // namespace infermark::perfmodel

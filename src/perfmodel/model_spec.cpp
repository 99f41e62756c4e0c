#include "perfmodel/model_spec.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/diagnostic.hpp"
#include "core/field_reader.hpp"
#include "core/file_io.hpp"
#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

double ParamCounts::Total(const ModelSpec& model) const {
  const double moe_layers = model.MoeLayers();
  return model.layers * attention_per_layer + model.dense_layers * dense_ffn_per_layer +
         moe_layers * (model.moe.experts * expert + shared_per_layer + router_per_layer) + embedding + lm_head;
}

double ParamCounts::Active(const ModelSpec& model) const {
  const double moe_layers = model.MoeLayers();
  // The embedding is a lookup, but published "active" figures count it (DeepSeek's 37B does).
  return model.layers * attention_per_layer + model.dense_layers * dense_ffn_per_layer +
         moe_layers * (model.moe.active * expert + shared_per_layer + router_per_layer) + embedding +
         (model.tied_embeddings ? embedding : lm_head);
}

ParamCounts CountParams(const ModelSpec& m) {
  ParamCounts p;
  const double h = m.hidden;
  const AttentionSpec& a = m.attention;
  if (a.kind == AttentionSpec::Kind::kMla) {
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const double q = a.q_lora_rank > 0 ? h * a.q_lora_rank + double(a.q_lora_rank) * a.heads * qk : h * a.heads * qk;
    const double kv = h * (a.kv_lora_rank + a.qk_rope_head_dim) +
                      double(a.kv_lora_rank) * a.heads * (a.qk_nope_head_dim + a.v_head_dim);
    p.attention_per_layer = q + kv + double(a.heads) * a.v_head_dim * h;
  } else {
    p.attention_per_layer = h * a.heads * a.head_dim * 2.0 + h * a.kv_heads * a.head_dim * 2.0;
  }
  p.dense_ffn_per_layer = 3.0 * h * m.dense_intermediate;
  p.expert = 3.0 * h * m.moe.expert_intermediate;
  p.shared_per_layer = 3.0 * h * m.moe.shared_intermediate;
  p.router_per_layer = m.moe.experts > 0 ? h * m.moe.experts : 0;
  p.embedding = double(m.vocab) * h;
  p.lm_head = m.tied_embeddings ? 0 : double(m.vocab) * h;
  return p;
}

namespace {

// Model-level rules checked once the fields are valid.
void CheckModel(const ModelSpec& m, const ReadContext& ctx, const YamlNode* node) {
  auto fail = [&](const std::string& field, const std::string& rule) { ctx.Report(node, field, rule); };
  if (m.layers <= 0 || m.hidden <= 0 || m.vocab <= 0) fail("", "layers, hidden and vocab must be positive");
  const AttentionSpec& a = m.attention;
  if (a.heads <= 0) fail("attention.heads", "must be positive");
  if (a.kind == AttentionSpec::Kind::kGqa) {
    if (a.kv_heads <= 0 || a.head_dim <= 0) fail("attention", "gqa needs kv_heads and head_dim");
    if (a.kv_heads > 0 && a.heads % a.kv_heads != 0) fail("attention.kv_heads", "must divide heads");
  } else if (a.kv_lora_rank <= 0 || a.qk_rope_head_dim <= 0 || a.qk_nope_head_dim <= 0 || a.v_head_dim <= 0) {
    fail("attention", "mla needs kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim and v_head_dim");
  }
  if (a.sliding_layers > m.layers) fail("attention.sliding_layers", "exceeds layers");
  if ((a.sliding_layers > 0) != (a.sliding_window > 0))
    fail("attention", "sliding_window and sliding_layers go together");
  if (a.sparse.enabled && (a.sparse.first_layer >= m.layers || a.sparse.block_size <= 0))
    fail("attention.sparse", "first_layer must be below layers and block_size positive");
  if (m.dense_layers > m.layers) fail("ffn.dense_layers", "exceeds layers");
  if (m.moe.experts > 0) {
    if (m.moe.active <= 0 || m.moe.active > m.moe.experts) fail("moe.active", "must be in 1..experts");
    if (m.moe.expert_intermediate <= 0) fail("moe.expert_intermediate", "must be positive");
  } else if (m.dense_layers != m.layers) {
    fail("ffn.dense_layers", "a model without moe must have every layer dense");
  }
  if (m.dense_layers > 0 && m.dense_intermediate <= 0) fail("ffn.intermediate", "dense layers need a width");
}

}  // namespace

ModelSpec LoadModelFile(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  const std::string entry = std::filesystem::path(path).stem().string();
  ReadContext ctx{&doc.file, entry, &problems};
  FieldReader r(ctx, doc.root, "");
  ModelSpec m;
  m.name = r.String("name", Need::kRequired, 1).value_or(entry);
  m.description = r.String("description", Need::kDefaulted).value_or(m.name);
  m.aliases = r.StringList("aliases", Need::kDefaulted).value_or(std::vector<std::string>{});
  m.source = r.String("source", Need::kRequired, 1).value_or("");
  r.String("architecture", Need::kDefaulted);
  m.layers = Count(r, "layers", Need::kRequired, 0);
  m.hidden = Count(r, "hidden", Need::kRequired, 0);
  m.vocab = Count(r, "vocab", Need::kRequired, 0);
  m.tied_embeddings = r.Bool("tied_embeddings", Need::kDefaulted).value_or(false);
  m.max_context = r.Int("max_context", Need::kRequired, 1).value_or(0);
  bool attention_ok = false;
  if (const YamlNode* n = r.Mapping("attention", Need::kRequired)) {
    FieldReader a(ctx, *n, "attention");
    AttentionSpec& at = m.attention;
    const std::string kind = a.Choice("kind", Need::kRequired, {"gqa", "mla"}).value_or("gqa");
    at.kind = kind == "mla" ? AttentionSpec::Kind::kMla : AttentionSpec::Kind::kGqa;
    at.heads = Count(a, "heads", Need::kRequired, 0);
    at.kv_heads = Count(a, "kv_heads", Need::kDefaulted, 0);
    at.head_dim = Count(a, "head_dim", Need::kDefaulted, 0);
    at.q_lora_rank = Count(a, "q_lora_rank", Need::kDefaulted, 0);
    at.kv_lora_rank = Count(a, "kv_lora_rank", Need::kDefaulted, 0);
    at.qk_nope_head_dim = Count(a, "qk_nope_head_dim", Need::kDefaulted, 0);
    at.qk_rope_head_dim = Count(a, "qk_rope_head_dim", Need::kDefaulted, 0);
    at.v_head_dim = Count(a, "v_head_dim", Need::kDefaulted, 0);
    at.sliding_window = Count(a, "sliding_window", Need::kDefaulted, 0);
    at.sliding_layers = Count(a, "sliding_layers", Need::kDefaulted, 0);
    if (const YamlNode* s = a.Mapping("sparse", Need::kDefaulted)) {
      FieldReader sr(ctx, *s, "attention.sparse");
      at.sparse.enabled = true;
      at.sparse.first_layer = Count(sr, "first_layer", Need::kRequired, 0);
      at.sparse.block_size = Count(sr, "block_size", Need::kRequired, 128);
      at.sparse.top_k_blocks = Count(sr, "top_k_blocks", Need::kRequired, 16);
      at.sparse.local_blocks = Count(sr, "local_blocks", Need::kDefaulted, 1);
      at.sparse.index_heads = Count(sr, "index_heads", Need::kDefaulted, 0);
      at.sparse.index_head_dim = Count(sr, "index_head_dim", Need::kDefaulted, 0);
      sr.RejectUnknown();
    }
    a.RejectUnknown();
    attention_ok = true;
  }
  if (const YamlNode* n = r.Mapping("ffn", Need::kDefaulted)) {
    FieldReader f(ctx, *n, "ffn");
    m.dense_intermediate = Count(f, "intermediate", Need::kRequired, 0);
    m.dense_layers = Count(f, "dense_layers", Need::kRequired, 0);
    f.RejectUnknown();
  }
  if (const YamlNode* n = r.Mapping("moe", Need::kDefaulted)) {
    FieldReader f(ctx, *n, "moe");
    m.moe.experts = Count(f, "experts", Need::kRequired, 0);
    m.moe.active = Count(f, "active", Need::kRequired, 0);
    m.moe.expert_intermediate = Count(f, "expert_intermediate", Need::kRequired, 0);
    m.moe.shared_experts = Count(f, "shared_experts", Need::kDefaulted, 0);
    m.moe.shared_intermediate = Count(f, "shared_intermediate", Need::kDefaulted, 0);
    f.RejectUnknown();
  }
  m.mtp_layers = Count(r, "mtp_layers", Need::kDefaulted, 0);
  if (const YamlNode* n = r.Mapping("published", Need::kDefaulted)) {
    FieldReader f(ctx, *n, "published");
    m.published_total_params = PositiveNumber(f, "total_params_b", Need::kDefaulted) * 1e9;
    m.published_active_params = PositiveNumber(f, "active_params_b", Need::kDefaulted) * 1e9;
    f.RejectUnknown();
  }
  if (const YamlNode* n = r.Mapping("precisions", Need::kDefaulted)) {
    for (const auto& [key, value] : n->entries) {
      FieldReader f(ctx, value, "precisions." + key.text);
      PrecisionOverride o;
      o.format = f.String("format", Need::kDefaulted, 1).value_or("");
      o.scope = f.Choice("scope", Need::kDefaulted, {"all_linear", "experts"}).value_or("");
      o.kv_dtype = f.String("kv_dtype", Need::kDefaulted, 1).value_or("");
      f.RejectUnknown();
      m.precisions[key.text] = o;
    }
  }
  if (const YamlNode* n = r.Mapping("tokenizer", Need::kDefaulted)) {
    FieldReader f(ctx, *n, "tokenizer");
    m.tokenizer = f.String("package", Need::kRequired, 1).value_or("");
    m.tokenizer_stand_in = f.Bool("stand_in", Need::kDefaulted).value_or(false);
    f.RejectUnknown();
  }
  m.reasoning = r.Bool("reasoning", Need::kDefaulted).value_or(false);
  r.RejectUnknown();
  if (problems.empty() && attention_ok) CheckModel(m, ctx, &doc.root);
  if (problems.empty() && m.published_total_params > 0) {
    // The derived size must match the published one: a typo in a width shows up here.
    const double derived = CountParams(m).Total(m);
    if (derived < 0.9 * m.published_total_params || derived > 1.1 * m.published_total_params)
      ctx.Report(&doc.root, "published.total_params_b",
                 "the shapes give " + std::to_string(derived / 1e9) + "B parameters, more than 10% off the published " +
                     std::to_string(m.published_total_params / 1e9) + "B");
  }
  if (!problems.empty()) throw InputError(problems);
  return m;
}

namespace {

int JsonInt(const nlohmann::json& j, std::initializer_list<const char*> keys, int fallback) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it != j.end() && it->is_number_integer()) return it->get<int>();
  }
  return fallback;
}

}  // namespace

ModelSpec LoadHfConfig(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "", std::string("not a JSON file: ") + e.what()});
  }
  // Multimodal configs nest the language model under text_config.
  if (j.contains("text_config") && j["text_config"].is_object() && !j.contains("num_hidden_layers"))
    j = j["text_config"];
  auto need = [&](std::initializer_list<const char*> keys) {
    const int v = JsonInt(j, keys, -1);
    if (v <= 0)
      throw InputError(
          Diagnostic{SourceMark{path, 0, 0}, "", *keys.begin(), "required by the engine and missing or not positive"});
    return v;
  };
  ModelSpec m;
  std::filesystem::path p(path);
  m.name = p.has_parent_path() ? p.parent_path().filename().string() : "hf-model";
  if (j.contains("_name_or_path") && j["_name_or_path"].is_string()) m.name = j["_name_or_path"].get<std::string>();
  m.description = m.name;
  m.source = path;
  m.layers = need({"num_hidden_layers", "n_layer", "num_layers"});
  m.hidden = need({"hidden_size", "n_embd", "d_model"});
  m.vocab = need({"vocab_size"});
  m.tied_embeddings = j.value("tie_word_embeddings", false);
  m.max_context = JsonInt(j, {"max_position_embeddings", "max_sequence_length", "seq_length"}, 131072);
  AttentionSpec& a = m.attention;
  a.heads = need({"num_attention_heads", "n_head"});
  if (JsonInt(j, {"kv_lora_rank"}, 0) > 0) {
    a.kind = AttentionSpec::Kind::kMla;
    a.q_lora_rank = JsonInt(j, {"q_lora_rank"}, 0);
    a.kv_lora_rank = need({"kv_lora_rank"});
    a.qk_nope_head_dim = need({"qk_nope_head_dim"});
    a.qk_rope_head_dim = need({"qk_rope_head_dim"});
    a.v_head_dim = need({"v_head_dim"});
  } else {
    a.kv_heads = JsonInt(j, {"num_key_value_heads"}, a.heads);
    a.head_dim = JsonInt(j, {"head_dim"}, m.hidden / a.heads);
  }
  if (const int window = JsonInt(j, {"sliding_window"}, 0); window > 0 && j.contains("layer_types")) {
    int sliding = 0;
    for (const auto& t : j["layer_types"])
      if (t.is_string() && t.get<std::string>() == "sliding_attention") ++sliding;
    if (sliding > 0) {
      a.sliding_window = window;
      a.sliding_layers = sliding;
    }
  }
  const int experts = JsonInt(j, {"n_routed_experts", "num_experts", "num_local_experts"}, 0);
  const int dense_width = JsonInt(j, {"intermediate_size", "ffn_dim"}, 0);
  if (experts > 0) {
    m.moe.experts = experts;
    m.moe.active = need({"num_experts_per_tok", "num_experts_per_token", "moe_topk"});
    m.moe.expert_intermediate = JsonInt(j, {"moe_intermediate_size"}, dense_width);
    m.moe.shared_experts = JsonInt(j, {"n_shared_experts", "num_shared_experts"}, 0);
    m.moe.shared_intermediate = JsonInt(j, {"shared_expert_intermediate_size"}, 0);
    if (m.moe.shared_intermediate == 0) m.moe.shared_intermediate = m.moe.shared_experts * m.moe.expert_intermediate;
    m.dense_layers = JsonInt(j, {"first_k_dense_replace"}, 0);
    m.dense_intermediate = dense_width;
  } else {
    m.dense_layers = m.layers;
    m.dense_intermediate = need({"intermediate_size", "ffn_dim"});
  }
  m.mtp_layers = JsonInt(j, {"num_nextn_predict_layers", "num_mtp_modules"}, 0);
  return m;
}

}  // namespace infermark::perfmodel

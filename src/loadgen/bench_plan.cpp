#include "loadgen/bench_plan.hpp"

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "loadgen/schedule.hpp"
#include "tokenizer/locate.hpp"

namespace infermark::loadgen {
namespace {

[[noreturn]] void BadFlag(const std::string& flag, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

Api CheckedApi(const BenchConfig& c) {
  const std::optional<Api> api = ApiOfBackend(c.backend);
  if (!api) {
    BadFlag("--backend",
            "'" + c.backend +
                "' is not driven by infermark (vllm, sglang, openai, openai-chat, tensorrt-llm, lmdeploy, scalellm)");
  }
  return *api;
}

void CheckSettings(const BenchConfig& c) {
  if (c.model.empty()) BadFlag("--model", "is required");
  if (c.num_prompts == 0) BadFlag("--num-prompts", "must be at least 1");
  if (c.max_concurrency && *c.max_concurrency < 1) BadFlag("--max-concurrency", "must be at least 1");
  if (c.request_rate && !(*c.request_rate > 0)) BadFlag("--request-rate", "must be positive (or inf)");
  if (!(c.burstiness > 0)) BadFlag("--burstiness", "must be positive");
  if (c.threads < 1) BadFlag("--threads", "must be at least 1");
  if (c.num_warmups < 0) BadFlag("--num-warmups", "must not be negative");
  if (!(c.duration_s >= 0)) BadFlag("--duration", "must not be negative");
  for (const auto& [metric, ms] : c.goodput) {
    if (metric != "ttft" && metric != "tpot" && metric != "e2el")
      BadFlag("--goodput", "'" + metric + "' is not ttft, tpot or e2el");
    if (!(ms >= 0)) BadFlag("--goodput", "SLO values must be non-negative milliseconds");
  }
  for (const std::string& m : c.percentile_metrics) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el")
      BadFlag("--percentile-metrics", "'" + m + "' is not ttft, tpot, itl or e2el");
  }
  for (const double p : c.metric_percentiles) {
    if (!(p >= 0 && p <= 100)) BadFlag("--metric-percentiles", "percentiles must lie in [0, 100]");
  }
  if (c.dataset_name != "random" && c.dataset_name != "jsonl") {
    BadFlag("--dataset-name", "'" + c.dataset_name + "' is not supported (random, jsonl)");
  }
  if (c.dataset_name == "jsonl" && c.dataset_path.empty()) {
    BadFlag("--dataset-path", "is required with --dataset-name jsonl");
  }
}

}  // namespace

BenchPlan PlanBenchmark(const BenchConfig& c, PromptForm form, std::int64_t vocab_size) {
  const std::int64_t t_begin = MonotonicNs();
  BenchPlan plan;
  plan.config = c;
  plan.date = LocalStamp();
  plan.api = CheckedApi(c);
  CheckSettings(c);

  // Text prompts need a tokenizer to build them (random) or to count them (JSONL, when there is
  // one), and a named tokenizer must exist. Token counts alone need one only to count a JSONL
  // file's prompts: a lengths-only random dataset loads none (loading costs more than predicting).
  plan.tokenizer_id = c.tokenizer.empty() ? c.model : c.tokenizer;
  const bool needed =
      form == PromptForm::kText ? !c.tokenizer.empty() || c.dataset_name == "random" : c.dataset_name == "jsonl";
  const bool wanted = form == PromptForm::kText || c.dataset_name == "jsonl";
  if (const auto path = wanted ? tokenizer::Locate(plan.tokenizer_id) : std::nullopt) {
    plan.tokenizer = tokenizer::Tokenizer::Load(*path);
  } else if (needed) {
    BadFlag("--tokenizer", "'" + plan.tokenizer_id +
                               "' is neither a tokenizer.json, a folder holding one, nor a model in the local Hugging "
                               "Face cache");
  }

  NumpyRandomState global(c.seed);
  RandomDatasetOptions options = c.random;
  options.num_prompts = c.num_prompts;
  const tokenizer::Tokenizer* tok = plan.tokenizer ? &*plan.tokenizer : nullptr;
  if (c.dataset_name == "random" && form == PromptForm::kText) {
    plan.dataset = BuildRandomDataset(*tok, options, global);
  } else if (c.dataset_name == "random") {
    const std::int64_t vocab = tok != nullptr ? static_cast<std::int64_t>(tok->ModelVocabSize()) : vocab_size;
    if (vocab < 1) BadFlag("--tokenizer", "the random dataset needs a vocabulary size: give a tokenizer");
    plan.dataset = BuildRandomLengths(options, vocab, global);
  } else {
    plan.dataset = LoadJsonlDataset(c.dataset_path, tok, c.random.output_len, c.num_prompts);
  }
  if (c.send_token_ids && plan.api == Api::kCompletions) {
    // Token ids reach the server as they are: no special tokens are added to them.
    for (Prompt& p : plan.dataset.prompts) {
      if (!p.ids.empty()) p.prompt_len = static_cast<std::int64_t>(p.ids.size());
    }
  }
  const std::vector<double> offsets = ArrivalOffsets(c.num_prompts, c.request_rate, c.burstiness, global);
  if (c.request_rate) plan.offsets = offsets;
  plan.keep_text = form == PromptForm::kText && (plan.tokenizer.has_value() || c.save_detailed);
  plan.planning_s = static_cast<double>(MonotonicNs() - t_begin) / 1e9;
  return plan;
}

}  // namespace infermark::loadgen

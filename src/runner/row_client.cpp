#include "runner/row_client.hpp"

#include <algorithm>

namespace infermark::runner {

loadgen::BenchConfig RowClientConfig(const matrix::MatrixRow& row, const std::string& base_url, int prompts_per_conc,
                                     int warmups_per_conc, const std::string& result_dir,
                                     const std::string& result_filename, const std::string& tokenizer) {
  loadgen::BenchConfig c;
  const int conc = row.Conc();
  c.model = row.model;
  c.backend = "vllm";
  c.base_url = base_url;
  c.dataset_name = "random";
  c.random.input_len = row.isl;
  c.random.output_len = row.osl;
  c.random.range_ratio = 0.8;  // the workflow hard-codes it (its input is unused)
  c.num_prompts = static_cast<std::size_t>(conc) * static_cast<std::size_t>(prompts_per_conc);
  c.max_concurrency = conc;
  c.request_rate.reset();
  c.ignore_eos = true;
  c.save_result = true;
  c.num_warmups = conc * warmups_per_conc;
  c.percentile_metrics = {"ttft", "tpot", "itl", "e2el"};
  c.result_dir = result_dir;
  c.result_filename = result_filename + ".json";
  c.tokenizer = tokenizer;
  return c;
}

void ApplyClientOptions(loadgen::BenchConfig& c, const PlanOptions& options) {
  if (options.min_prompts) c.num_prompts = std::max(c.num_prompts, static_cast<std::size_t>(*options.min_prompts));
  if (options.max_host_error_percent) c.limits.max_host_error_fraction = *options.max_host_error_percent / 100.0;
}

std::vector<std::string> BenchServeArgv(const std::string& infermark, const loadgen::BenchConfig& c) {
  auto join = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
    return out;
  };
  auto number = [](double v) {
    std::string text = DumpJson(Json(v));
    return text;
  };
  std::vector<std::string> argv = {infermark,
                                   "bench",
                                   "serve",
                                   "--model",
                                   c.model,
                                   "--backend",
                                   c.backend,
                                   "--base-url",
                                   c.base_url,
                                   "--dataset-name",
                                   c.dataset_name,
                                   "--random-input-len",
                                   std::to_string(c.random.input_len),
                                   "--random-output-len",
                                   std::to_string(c.random.output_len),
                                   "--random-range-ratio",
                                   number(c.random.range_ratio),
                                   "--num-prompts",
                                   std::to_string(c.num_prompts)};
  if (c.max_concurrency) {
    argv.push_back("--max-concurrency");
    argv.push_back(std::to_string(*c.max_concurrency));
  }
  argv.push_back("--request-rate");
  argv.push_back(c.request_rate ? number(*c.request_rate) : "inf");
  if (c.ignore_eos) argv.push_back("--ignore-eos");
  if (c.send_token_ids) argv.push_back("--send-token-ids");
  if (c.save_result) argv.push_back("--save-result");
  argv.push_back("--num-warmups");
  argv.push_back(std::to_string(c.num_warmups));
  argv.push_back("--percentile-metrics");
  argv.push_back(join(c.percentile_metrics));
  if (!c.result_dir.empty()) {
    argv.push_back("--result-dir");
    argv.push_back(c.result_dir);
  }
  if (!c.result_filename.empty()) {
    argv.push_back("--result-filename");
    argv.push_back(c.result_filename);
  }
  if (!c.cpus.empty()) {
    std::string cpus;
    for (const int cpu : c.cpus) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
    argv.push_back("--cpus");
    argv.push_back(cpus);
  }
  if (!c.tokenizer.empty()) {
    argv.push_back("--tokenizer");
    argv.push_back(c.tokenizer);
  }
  if (!c.timeline_path.empty()) {
    argv.push_back("--save-timeline");
    argv.push_back(c.timeline_path);
  }
  if (c.limits.max_host_error_fraction != metrics::VerdictLimits{}.max_host_error_fraction) {
    argv.push_back("--max-host-error-percent");
    argv.push_back(number(c.limits.max_host_error_fraction * 100.0));
  }
  return argv;
}

}  // namespace infermark::runner

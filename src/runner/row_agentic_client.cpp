#include "runner/row_agentic_client.hpp"

#include "core/json_text.hpp"

namespace infermark::runner {

std::string DefaultTraceSource(const std::string& model_prefix) {
  for (const char* p : {"dsv4", "glm5.2", "minimaxm3", "kimik3"}) {
    if (model_prefix.rfind(p, 0) == 0) return "semianalysisai/cc-traces-weka-062126";
  }
  return "semianalysisai/cc-traces-weka-062126-256k";
}

agentic::AgenticBenchConfig RowAgenticConfig(const matrix::MatrixRow& row, const std::string& base_url,
                                             const std::string& tokenizer, const std::string& traces,
                                             double duration_s) {
  agentic::AgenticBenchConfig c;
  c.base_url = base_url;
  c.model = row.model;
  c.tokenizer = tokenizer;
  c.traces = traces.empty() ? DefaultTraceSource(row.model_prefix) : traces;
  agentic::ReplayOptions& r = c.replay;
  r.concurrency = static_cast<std::size_t>(row.Conc());
  r.duration_s = duration_s > 0 ? duration_s : row.duration;
  r.warmup_requests_per_lane = 10;
  r.start_min_ratio = 0.25;
  r.start_max_ratio = 0.75;
  r.trace_idle_gap_cap_s = 300;
  r.failed_request_threshold = 0.10;
  r.seed = 42;
  // InferenceX adds --unsafe-override to runs shorter than the 900 s minimum.
  c.unsafe_override = r.duration_s < c.min_duration_s;
  return c;
}

std::vector<std::string> BenchAgenticArgv(const std::string& infermark, const agentic::AgenticBenchConfig& c,
                                          const std::string& result_dir, const std::string& result_filename,
                                          const std::string& artifact_dir, const std::string& timeline) {
  auto number = [](double v) { return DumpJson(Json(v)); };
  const agentic::ReplayOptions& r = c.replay;
  std::vector<std::string> argv = {infermark,
                                   "bench",
                                   "agentic",
                                   "--base-url",
                                   c.base_url,
                                   "--model",
                                   c.model,
                                   "--traces",
                                   c.traces,
                                   "--concurrency",
                                   std::to_string(r.concurrency),
                                   "--duration",
                                   number(r.duration_s),
                                   "--warmup-requests-per-lane",
                                   std::to_string(r.warmup_requests_per_lane),
                                   "--trajectory-start-min-ratio",
                                   number(r.start_min_ratio),
                                   "--trajectory-start-max-ratio",
                                   number(r.start_max_ratio),
                                   "--trace-idle-gap-cap-seconds",
                                   number(r.trace_idle_gap_cap_s),
                                   "--failed-request-threshold",
                                   number(r.failed_request_threshold),
                                   "--seed",
                                   std::to_string(r.seed),
                                   "--result-dir",
                                   result_dir,
                                   "--result-filename",
                                   result_filename,
                                   "--output-artifact-dir",
                                   artifact_dir};
  if (!c.tokenizer.empty()) {
    argv.push_back("--tokenizer");
    argv.push_back(c.tokenizer);
  }
  if (c.max_context_length > 0) {
    argv.push_back("--max-context-length");
    argv.push_back(std::to_string(c.max_context_length));
  }
  if (c.unsafe_override) argv.push_back("--unsafe-override");
  if (!timeline.empty()) {
    argv.push_back("--save-timeline");
    argv.push_back(timeline);
  }
  return argv;
}

}  // namespace infermark::runner

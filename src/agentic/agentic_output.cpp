#include "agentic/agentic_output.hpp"

#include <filesystem>

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;

std::string DefaultName(const AgenticOutputOptions& o) {
  std::string base = o.model.substr(o.model.find_last_of('/') == std::string::npos ? 0 : o.model.find_last_of('/') + 1);
  return "agentic_" + base + "_conc" + std::to_string(o.concurrency);
}

}  // namespace

AgenticRunView ViewOf(const AgenticBench& bench) {
  AgenticRunView v;
  v.corpus = &bench.traces.corpus;
  v.run = &bench.run;
  v.unix_at_zero = bench.unix_at_zero;
  v.metrics_before = bench.metrics_texts_before;
  v.metrics_after = bench.metrics_texts_after;
  v.metrics_urls = bench.metrics_urls;
  v.invalid_reasons = bench.invalid_reasons;
  return v;
}

AgenticOutputs WriteAgenticOutputs(const AgenticRunView& view, const AgenticOutputOptions& options) {
  AgenticOutputs out;
  const std::string name = options.result_filename.empty() ? DefaultName(options) : options.result_filename;
  out.artifact_dir = options.artifact_dir.empty() ? (fs::path(options.result_dir) / "aiperf_artifacts").string()
                                                  : options.artifact_dir;
  out.aggregate_path = (fs::path(options.result_dir) / (name + ".json")).string();
  fs::create_directories(out.artifact_dir);
  (void)view;
  return out;
}

}  // namespace infermark::agentic

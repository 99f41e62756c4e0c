#include "runner/result_sink.hpp"

#include <filesystem>

#include "core/file_io.hpp"
#include "core/host.hpp"
#include "core/version.hpp"
#include "report/report.hpp"
#include "results/process_settings.hpp"
#include "results/result_files.hpp"
#include "results/runner_label.hpp"
#include "store/ingest.hpp"
#include "store/store_url.hpp"

namespace infermark::runner {
namespace {

results::RunInfo RunInfoOf(const SweepRunInfo& info) {
  results::RunInfo run;
  run.run_key = info.run_key;
  run.label = info.label.empty() ? info.run_key : info.label;
  run.recipe = info.recipe;
  run.host = HostName();
  run.infermark_version = kVersion;
  run.source = info.predicted ? "predict" : "sweep";
  return run;
}

}  // namespace

std::string SweepRunKey(const std::string& kind, const std::string& recipe, const std::string& result_dir) {
  return kind + ":" + recipe + "@" + result_dir;
}

StoreResult MakeStoreHook(const SweepRunInfo& info) {
  auto store = std::make_shared<std::unique_ptr<results::ResultStore>>();
  const results::RunInfo run = RunInfoOf(info);
  return [store, run, info](const matrix::MatrixRow& row, const RowPlan& plan, const RowOutcome&) -> std::string {
    if (!*store) *store = results::OpenStoreUrl(info.database);
    // The row's eval folders (evcontract: eval_status.json beside lm-eval's files), scored or
    // recorded as not run, under the same run as its point.
    std::error_code exists_ec;
    if (plan.eval && plan.eval->RunsHere() && std::filesystem::exists(plan.eval->dir, exists_ec)) {
      results::IngestEvalFolders(**store, run, {plan.eval->dir}, nullptr);
    }
    if (plan.eval && plan.eval->only) return {};
    const std::string raw = ReadFile(plan.result_path);
    const Json result = Json::parse(raw);
    results::ReadOptions options;
    options.flags = results::SettingsFromMatrixRow(row.raw);
    options.flags.values["RUNNER_TYPE"] = results::HardwareOfLabel(plan.label);
    options.kind = info.predicted ? results::PointKind::kPredicted : results::PointKind::kMeasured;
    options.time_scale = plan.time_scale;
    options.config_key = info.recipe;
    // An agentic row's result is InferenceX's agentic aggregate, with aiperf's run summary in the
    // row's artifact folder.
    Json summary = nullptr;
    const std::string summary_path = plan.log_dir + "/aiperf_artifacts/profile_export_aiperf.json";
    if (std::error_code ec; plan.agentic_config && std::filesystem::exists(summary_path, ec))
      summary = Json::parse(ReadFile(summary_path));
    results::Point point = plan.agentic_config
                               ? results::PointFromAgenticAggregate(raw, result, summary, options, plan.result_path)
                               : results::PointFromClientResult(raw, result, options, plan.result_path);
    if (!plan.agentic_config) point.repeats = results::ReadRepeatFiles(result, options, plan.result_path);
    if (point.provenance.matrix_row.is_null()) point.provenance.matrix_row = row.raw;
    if (point.provenance.engine_flags.empty()) {
      for (const auto& a : plan.server.argv)
        point.provenance.engine_flags += (point.provenance.engine_flags.empty() ? "" : " ") + a;
    }
    (*store)->Ingest(run, {point});
    // Details are the point page's, not the point: one that cannot be read leaves the point stored.
    StoreRowDetails(**store, run, plan.result_path, point.key.Canonical());
    return {};
  };
}

AttemptSink MakeAttemptSink(const SweepRunInfo& info) {
  auto store = std::make_shared<std::unique_ptr<results::ResultStore>>();
  const results::RunInfo run = RunInfoOf(info);
  return [store, run, info](const results::RowAttempt& attempt) -> std::string {
    if (!*store) *store = results::OpenStoreUrl(info.database);
    (*store)->IngestAttempts(run, {attempt});
    return {};
  };
}

std::string StoreRowDetails(results::ResultStore& store, const results::RunInfo& run, const std::string& result_path,
                            const std::string& point_key) {
  std::vector<std::string> problems;
  const results::PointDetails details = results::ReadPointDetails(result_path, &problems);
  if (!details.Empty()) store.StorePointDetails(run, point_key, details);
  std::string why;
  for (const std::string& p : problems) why += (why.empty() ? "" : "; ") + p;
  return why;
}

int WriteSweepReport(const SweepRunInfo& info, const std::string& out_path) {
  auto store = results::OpenStoreUrl(info.database);
  results::ReportOptions options;
  options.store_path = results::DisplayStoreUrl(info.database);
  options.title = "infermark: " + (info.label.empty() ? info.run_key : info.label);
  return results::WriteReport(*store, {info.run_key}, out_path, options);
}

}  // namespace infermark::runner

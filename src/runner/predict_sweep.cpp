#include "runner/predict_sweep.hpp"

#include <chrono>
#include <filesystem>
#include <map>

#include "core/diagnostic.hpp"
#include "metrics/result_json.hpp"
#include "perfmodel/engine_data.hpp"
#include "runner/result_sink.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

// Resolved deployments, kept across the rows of a sweep (a deployment resolves once).
class Deployments {
 public:
  const perfmodel::Deployment& Get(const perfmodel::DeploymentOptions& o) {
    const std::string key = o.model + "|" + o.hardware + "|" + o.framework + "|" + o.precision + "|" +
                            o.kv_cache_dtype + "|" + std::to_string(o.tp) + "|" + std::to_string(o.ep) + "|" +
                            (o.dp_attention ? "dpa" : "") + "|" + std::to_string(o.max_model_len.value_or(0)) + "|" +
                            o.spec_decoding;
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = cache_.emplace(key, perfmodel::ResolveDeployment(perfmodel::DefaultEngineData(), o)).first;
    }
    return it->second;
  }

 private:
  std::map<std::string, perfmodel::Deployment> cache_;
};

}  // namespace

PredictSummary RunPredictSweep(const SweepCommandOptions& o) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const SiteConfig site = LoadSite(o);
  const std::vector<matrix::MatrixRow> rows = SelectRows(o);
  if (rows.empty()) throw InputError(Diagnostic{SourceMark{}, "", "", "the selection holds no rows"});
  PredictSummary summary;
  summary.result_dir = (fs::path(ResultDir(o, site)) / "predicted").lexically_normal().string();
  SweepRunInfo& info = summary.store;
  info.database = site.Resolve(o.database.empty() ? site.defaults.database : o.database);
  for (const auto& k : o.config_keys) info.recipe += (info.recipe.empty() ? "" : ",") + k;
  if (info.recipe.empty()) info.recipe = fs::path(o.matrix_file).filename().string();
  info.run_key = o.run_key.empty() ? SweepRunKey("predict", info.recipe, summary.result_dir) : o.run_key;
  info.label = o.run_label.empty() ? info.recipe + " predicted" : o.run_label;
  info.predicted = true;
  summary.stored = !o.no_store;
  const StoreResult store = o.no_store ? StoreResult() : MakeStoreHook(info);
  std::error_code ec;
  fs::create_directories(summary.result_dir, ec);

  Deployments deployments;
  for (const matrix::MatrixRow& row : rows) {
    PredictedRow out;
    out.row = row;
    const auto r0 = Clock::now();
    RowPlan plan;
    try {
      plan = PlanPredictedRow(row, site, o.plan, summary.result_dir);
      out.result_filename = plan.result_filename;
      const sim::Prediction p = sim::Predict(deployments.Get(*plan.deployment), *plan.client_config);
      Json result = p.result.result;
      result["infermark"]["matrix_row"] = row.raw;
      metrics::WriteResultJson(plan.result_path, result);
      out.figures = p.figures;
      out.outcome.status = p.result.verdict.valid ? RowStatus::kDone : RowStatus::kInvalid;
      if (!p.result.verdict.valid) {
        for (const auto& reason : p.result.verdict.reasons)
          out.outcome.reason += (out.outcome.reason.empty() ? "" : "; ") + reason;
      }
      if (store) {
        const std::string why = store(row, plan, out.outcome);
        if (!why.empty()) throw std::runtime_error("storing the result failed: " + why);
      }
    } catch (const std::exception& e) {
      out.outcome.status = RowStatus::kFailed;
      out.outcome.reason = e.what();
      ++summary.failed;
    }
    out.outcome.seconds = std::chrono::duration<double>(Clock::now() - r0).count();
    if (!plan.state_path.empty()) WriteRowState(plan, row, out.outcome);
    summary.rows.push_back(std::move(out));
  }
  summary.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return summary;
}

}  // namespace infermark::runner

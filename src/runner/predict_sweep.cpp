#include "runner/predict_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>

#include "agentic/agentic_output.hpp"
#include "agentic/trace_reader.hpp"
#include "calibration/prediction_band.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "metrics/result_json.hpp"
#include "perfmodel/disaggregation.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/kernel_classes.hpp"
#include "runner/launch_env.hpp"
#include "runner/result_sink.hpp"
#include "runner/row_disagg.hpp"
#include "runner/row_engine.hpp"
#include "sim/disagg_run.hpp"
#include "sim/predict_agentic.hpp"
#include "sim/prediction_band.hpp"
#include "store/store_url.hpp"

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
                            o.spec_decoding + "|" + std::to_string(o.prefix_caching.value_or(-1)) + "|" +
                            std::to_string(o.kv_offloading_size_gib.value_or(0)) + "|" + o.kv_offloading_backend + "|" +
                            (o.hierarchical_cache ? "hicache" : "") + "|" +
                            std::to_string(o.hicache_size_gb.value_or(0));
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = cache_.emplace(key, perfmodel::ResolveDeployment(perfmodel::DefaultEngineData(), o)).first;
    }
    return it->second;
  }

 private:
  std::map<std::string, perfmodel::Deployment> cache_;
};

// Resolved disaggregated deployments, kept across the rows of a sweep.
class DisaggDeployments {
 public:
  const perfmodel::DisaggDeployment& Get(const perfmodel::DisaggOptions& o) {
    auto role = [](const perfmodel::DeploymentOptions& d) {
      return std::to_string(d.tp) + "/" + std::to_string(d.ep) + "/" + (d.dp_attention ? "dpa" : "");
    };
    const perfmodel::DeploymentOptions& p = o.prefill;
    const std::string key =
        p.model + "|" + p.hardware + "|" + p.framework + "|" + p.precision + "|" + p.kv_cache_dtype + "|" +
        std::to_string(p.max_model_len.value_or(0)) + "|" + p.spec_decoding + "|" + role(p) + "x" +
        std::to_string(o.prefill_workers) + "|" + role(o.decode) + "x" + std::to_string(o.decode_workers) + "|" +
        o.kv_transfer + "|" + std::to_string(p.prefix_caching.value_or(-1)) + "|" +
        std::to_string(p.kv_offloading_size_gib.value_or(0)) + "|" + p.kv_offloading_backend + "|" +
        (p.hierarchical_cache ? "hicache" : "") + "|" + std::to_string(p.hicache_size_gb.value_or(0));
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = cache_.emplace(key, perfmodel::ResolveDisaggDeployment(perfmodel::DefaultEngineData(), o)).first;
    }
    return it->second;
  }

 private:
  std::map<std::string, perfmodel::DisaggDeployment> cache_;
};

// The deployment of a multi-node row as the performance model takes it. A pool with attention
// data-parallel whose experts span more GPUs than its tp (`tp: 1, ep: 4, dp-attn: true`: vLLM's
// DEP4, four data-parallel ranks of one GPU each with experts over all four) is a worker of `ep`
// GPUs, the model's tp being the worker's GPU count (attention data-parallel over them).
perfmodel::DisaggOptions ModelDisaggOptions(const matrix::MatrixRow& row, const SiteConfig& site) {
  const ModelSite* model = site.FindModel(row.model);
  if (model == nullptr) throw std::runtime_error("model '" + row.model + "' has no entry in the site file");
  perfmodel::DisaggOptions o = RowDisaggDeployment(row, LabelHardware(site, row.runner), *model);
  for (perfmodel::DeploymentOptions* role : {&o.prefill, &o.decode})
    if (role->dp_attention && role->ep > role->tp) role->tp = role->ep;
  return o;
}

// Trace corpora, loaded once per sweep.
class Corpora {
 public:
  const agentic::TraceLoad& Get(const std::string& source, std::int64_t max_context) {
    const std::string key = source + "|" + std::to_string(max_context);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      agentic::TraceReadOptions o;
      o.max_context_tokens = max_context;
      it = cache_.emplace(key, agentic::ReadTraces(source, o)).first;
    }
    return it->second;
  }

 private:
  std::map<std::string, agentic::TraceLoad> cache_;
};

// Replays a corpus on the virtual clock against a row's deployment.
using AgenticPredictor =
    std::function<sim::AgenticPrediction(const agentic::TraceCorpus& corpus, const agentic::ReplayOptions& replay)>;

// An agentic row on the virtual clock: the replay a measured row would run (against one
// deployment, or every worker of a disaggregated one: `predict`), its artifacts and aggregate
// written where a measured row's go. Returns the reasons it is invalid.
std::vector<std::string> PredictAgenticRow(const matrix::MatrixRow& row, const RowPlan& plan,
                                           const AgenticPredictor& predict, Corpora& corpora,
                                           sim::PredictedFigures& figures) {
  const agentic::AgenticBenchConfig& c = *plan.agentic_config;
  const agentic::TraceLoad& load = corpora.Get(c.traces, c.max_context_length);
  agentic::ReplayOptions replay = c.replay;
  replay.run_id = 0;  // a fresh virtual engine: no other run's cache to avoid
  const sim::AgenticPrediction p = predict(load.corpus, replay);
  agentic::AgenticRunView view;
  view.corpus = &load.corpus;
  view.run = &p.run;
  view.unix_at_zero = static_cast<double>(p.virtual_start_unix_ns) / 1e9;
  view.predicted = true;
  view.server_metrics = p.server_metrics;
  const double duration_s = static_cast<double>(p.run.window_close_ns - p.run.window_open_ns) / 1e9;
  view.invalid_reasons =
      agentic::JudgeReplay(p.run, duration_s, c.min_duration_s, c.unsafe_override, {}, c.max_send_lag_p99_ms);
  agentic::AgenticOutputOptions o;
  o.result_dir = plan.result_dir;
  o.result_filename = plan.result_filename;
  o.artifact_dir = (fs::path(plan.log_dir) / "aiperf_artifacts").string();
  o.model = c.model;
  o.concurrency = c.replay.concurrency;
  LaunchContext ctx;
  ctx.result_filename = plan.result_filename;
  ctx.result_dir = plan.result_dir;
  const EnvList env = LaunchEnvironment(row.raw, ctx);
  o.identity = agentic::IdentityFromEnvironment([&env](const std::string& name) -> std::optional<std::string> {
    const std::string v = EnvValue(env, name);
    return v.empty() ? std::nullopt : std::optional<std::string>(v);
  });
  agentic::AgenticOutputs written = agentic::WriteAgenticOutputs(view, o);
  if (!p.server_report.empty()) {
    // A disaggregated deployment's workers, router and KV transfers go with the aggregate.
    written.aggregate["infermark"]["server"] = p.server_report;
    WriteFileAtomic(written.aggregate_path, written.aggregate.dump(2));
  }
  // The figures a fixed-length point reports, from the aggregate.
  const Json& m = written.aggregate["request_metrics"];
  auto number = [](const Json& j, std::initializer_list<const char*> path) {
    const Json* at = &j;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key)) return 0.0;
      at = &(*at)[key];
    }
    return at->is_number() ? at->get<double>() : 0.0;
  };
  figures.tput_per_gpu = number(m, {"throughput", "per_gpu", "total_tput_tps"});
  figures.output_tput_per_gpu = number(m, {"throughput", "per_gpu", "output_tput_tps"});
  figures.input_tput_per_gpu = number(m, {"throughput", "per_gpu", "input_tput_tps"});
  figures.median_intvty = number(m, {"latency", "intvty", "p50"});
  figures.median_ttft = number(m, {"latency", "ttft", "p50"});
  figures.p90_ttft = number(m, {"latency", "ttft", "p90"});
  figures.median_tpot = number(m, {"latency", "tpot", "p50"});
  figures.p90_tpot = number(m, {"latency", "tpot", "p90"});
  figures.median_e2el = number(m, {"latency", "e2el", "p50"});
  figures.completed = static_cast<std::size_t>(number(written.aggregate, {"num_requests_successful"}));
  figures.duration_s = duration_s;
  return view.invalid_reasons;
}

// A multi-node row on the virtual clock: every worker of both pools in one simulation, one client
// run and one result file per concurrency of the row's list (each a row of the summary, its
// concurrency alone in `row.conc`), the row's state written once. A row whose workers cannot be
// deployed is one failed row with the reason.
void PredictMultiNodeRow(const matrix::MatrixRow& row, const SiteConfig& site, const SweepCommandOptions& o,
                         const StoreResult& store, DisaggDeployments& deployments, PredictSummary& summary) {
  using SteadyClock = std::chrono::steady_clock;
  const auto r0 = SteadyClock::now();
  RowPlan plan;
  RowOutcome outcome;
  std::vector<PredictedRow> points;
  outcome.status = RowStatus::kDone;
  try {
    plan = PlanPredictedRow(row, site, o.plan, summary.result_dir);
    const perfmodel::DisaggDeployment& d = deployments.Get(ModelDisaggOptions(row, site));
    const loadgen::BenchConfig& first = *plan.client_config;
    const std::size_t c0 = static_cast<std::size_t>(std::max(1, row.Conc()));
    for (const int conc : row.conc) {
      if (!o.conc.empty() && std::find(o.conc.begin(), o.conc.end(), std::int64_t{conc}) == o.conc.end()) continue;
      const auto p0 = SteadyClock::now();
      PredictedRow out;
      out.row = row;
      out.row.conc = {conc};
      out.result_filename = MultiNodePointStem(plan.result_filename, conc, d.PrefillGpus(), d.DecodeGpus());
      RowPlan point = plan;
      point.result_filename = out.result_filename;
      point.result_path = (fs::path(plan.result_dir) / (out.result_filename + ".json")).string();
      loadgen::BenchConfig client = first;
      client.max_concurrency = conc;
      client.num_prompts = first.num_prompts / c0 * static_cast<std::size_t>(conc);
      client.num_warmups =
          static_cast<int>(static_cast<std::size_t>(first.num_warmups) / c0 * static_cast<std::size_t>(conc));
      client.result_filename = out.result_filename + ".json";
      const sim::DisaggPrediction p = sim::PredictDisagg(d, client);
      Json result = p.result.result;
      result["infermark"]["matrix_row"] = row.raw;
      result["infermark"]["unmeasured_kernel_classes"] = perfmodel::UnmeasuredKernelClasses(d.prefill);
      out.figures = p.figures;
      // The decode pool sets the figures a disaggregated point is read by (interactivity, TPOT).
      sim::AddPredictionBand(result, out.figures, d.decode, calibration::DefaultPredictionBands());
      for (const perfmodel::Deployment* role : {&d.prefill, &d.decode}) {
        const std::string warning = perfmodel::TransferWarning(*role);
        if (!warning.empty() &&
            std::find(summary.warnings.begin(), summary.warnings.end(), warning) == summary.warnings.end())
          summary.warnings.push_back(warning);
      }
      metrics::WriteResultJson(point.result_path, result);
      out.outcome.status = p.result.verdict.valid ? RowStatus::kDone : RowStatus::kInvalid;
      for (const auto& reason : p.result.verdict.reasons)
        out.outcome.reason += (out.outcome.reason.empty() ? "" : "; ") + reason;
      if (store) {
        const std::string why = store(out.row, point, out.outcome);
        if (!why.empty()) throw std::runtime_error("storing the result failed: " + why);
      }
      out.outcome.seconds = std::chrono::duration<double>(SteadyClock::now() - p0).count();
      if (out.outcome.status != RowStatus::kDone && outcome.status == RowStatus::kDone) {
        outcome.status = out.outcome.status;
        outcome.reason = "conc " + std::to_string(conc) + ": " + out.outcome.reason;
      }
      points.push_back(std::move(out));
    }
  } catch (const std::exception& e) {
    outcome.status = RowStatus::kFailed;
    outcome.reason = e.what();
    ++summary.failed;
    PredictedRow out;
    out.row = row;
    out.result_filename = plan.result_filename;
    out.outcome = outcome;
    points.assign(1, std::move(out));
  }
  outcome.seconds = std::chrono::duration<double>(SteadyClock::now() - r0).count();
  if (outcome.status == RowStatus::kFailed) points.front().outcome.seconds = outcome.seconds;
  if (!plan.state_path.empty()) WriteRowState(plan, row, outcome);
  for (auto& p : points) summary.rows.push_back(std::move(p));
}

}  // namespace

PredictSummary RunPredictSweep(const SweepCommandOptions& o) {
  using SteadyClock = std::chrono::steady_clock;
  const auto t0 = SteadyClock::now();
  const SiteConfig site = LoadSite(o);
  const std::vector<matrix::MatrixRow> rows = SelectRows(o);
  if (rows.empty()) throw InputError(Diagnostic{SourceMark{}, "", "", "the selection holds no rows"});
  PredictSummary summary;
  summary.result_dir = (fs::path(ResultDir(o, site)) / "predicted").lexically_normal().string();
  SweepRunInfo& info = summary.store;
  info.database = results::ResolveStoreUrl(o.database.empty() ? site.defaults.database : o.database, site.base_dir);
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
  DisaggDeployments disagg;
  Corpora corpora;
  for (const matrix::MatrixRow& row : rows) {
    // An agentic multi-node row of one aggregated worker (no decode workers) is that worker's
    // deployment, replayed as a single-node agentic row is.
    const bool one_worker_agentic =
        IsMultiNodeRow(row) && row.Agentic() && row.decode->num_worker == 0 && row.prefill->num_worker == 1;
    // Any other agentic multi-node row is replayed against every worker of its deployment on one
    // clock, the router KV-aware (Dynamo's KV router, the router of the catalog's disaggregated
    // agentic rows): a conversation's turns go back to the workers holding its prefix.
    const bool disagg_agentic = IsMultiNodeRow(row) && row.Agentic() && !one_worker_agentic;
    if (IsMultiNodeRow(row) && !one_worker_agentic && !disagg_agentic) {
      PredictMultiNodeRow(row, site, o, store, disagg, summary);
      continue;
    }
    PredictedRow out;
    out.row = row;
    const auto r0 = SteadyClock::now();
    RowPlan plan;
    try {
      plan = PlanPredictedRow(row, site, o.plan, summary.result_dir);
      out.result_filename = plan.result_filename;
      if (one_worker_agentic) {
        plan.deployment->tp = row.prefill->tp;
        plan.deployment->ep = row.prefill->ep;
        plan.deployment->dp_attention = row.prefill->dp_attn;
      }
      std::vector<std::string> invalid;
      if (plan.agentic_config && disagg_agentic) {
        const perfmodel::DisaggDeployment& d = disagg.Get(ModelDisaggOptions(row, site));
        const AgenticPredictor predict = [&d](const agentic::TraceCorpus& corpus, const agentic::ReplayOptions& r) {
          return sim::PredictAgenticDisagg(d, corpus, r, sim::RouterPolicy::kKvAware).agentic;
        };
        invalid = PredictAgenticRow(row, plan, predict, corpora, out.figures);
      } else if (plan.agentic_config) {
        const perfmodel::Deployment& d = deployments.Get(*plan.deployment);
        const AgenticPredictor predict = [&d](const agentic::TraceCorpus& corpus, const agentic::ReplayOptions& r) {
          return sim::PredictAgentic(d, corpus, r);
        };
        invalid = PredictAgenticRow(row, plan, predict, corpora, out.figures);
      } else {
        const perfmodel::Deployment& d = deployments.Get(*plan.deployment);
        const sim::Prediction p = sim::Predict(d, *plan.client_config);
        Json result = p.result.result;
        result["infermark"]["matrix_row"] = row.raw;
        result["infermark"]["unmeasured_kernel_classes"] = perfmodel::UnmeasuredKernelClasses(d);
        const std::string warning = perfmodel::TransferWarning(d);
        if (!warning.empty() &&
            std::find(summary.warnings.begin(), summary.warnings.end(), warning) == summary.warnings.end())
          summary.warnings.push_back(warning);
        out.figures = p.figures;
        sim::AddPredictionBand(result, out.figures, d, calibration::DefaultPredictionBands());
        metrics::WriteResultJson(plan.result_path, result);
        if (!p.result.verdict.valid) invalid = p.result.verdict.reasons;
      }
      out.outcome.status = invalid.empty() ? RowStatus::kDone : RowStatus::kInvalid;
      for (const auto& reason : invalid) out.outcome.reason += (out.outcome.reason.empty() ? "" : "; ") + reason;
      if (store) {
        const std::string why = store(row, plan, out.outcome);
        if (!why.empty()) throw std::runtime_error("storing the result failed: " + why);
      }
    } catch (const std::exception& e) {
      out.outcome.status = RowStatus::kFailed;
      out.outcome.reason = e.what();
      ++summary.failed;
    }
    out.outcome.seconds = std::chrono::duration<double>(SteadyClock::now() - r0).count();
    if (!plan.state_path.empty()) WriteRowState(plan, row, out.outcome);
    summary.rows.push_back(std::move(out));
  }
  summary.seconds = std::chrono::duration<double>(SteadyClock::now() - t0).count();
  return summary;
}

}  // namespace infermark::runner

#include "runner/predict_sweep.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "matrix/generator.hpp"
#include "matrix/result_filename.hpp"
#include "runner/predicted_result.hpp"
#include "runner/result_sink.hpp"
#include "runner/virtual_run.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

int IntField(const Json& row, const char* key, int fallback) {
  auto it = row.find(key);
  return it != row.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

std::string StrField(const Json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The GPU a label runs on: its engine target's, else the label's own name (`cluster:mi355x-amds` → mi355x).
std::string HardwareOf(const SiteConfig& site, const std::string& label) {
  const RunnerSite* r = site.FindRunner(label);
  if (r != nullptr && r->target.kind == TargetKind::kEngine) return r->target.hardware;
  std::string gpu = label.rfind("cluster:", 0) == 0 ? label.substr(8) : label;
  return gpu.substr(0, gpu.find('-'));
}

std::string Framework(const std::string& framework) {
  if (framework.find("sglang") != std::string::npos) return "sglang";
  if (framework.find("trt") != std::string::npos) return "trt";
  return "vllm";
}

}  // namespace

int RunPredictSweep(const SweepCommandOptions& o, bool table) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const SiteConfig site = LoadSite(o);
  const std::vector<Json> rows = SelectRows(o);
  if (rows.empty()) throw InputError(Diagnostic{SourceMark{}, "", "", "the selection holds no rows"});
  const std::string base = site.Resolve(o.plan.result_dir.empty() ? site.defaults.result_dir : o.plan.result_dir);
  const std::string result_dir = (fs::absolute(base) / "predicted").lexically_normal().string();
  const std::string runner_name = !o.plan.runner_name.empty()          ? o.plan.runner_name
                                  : !site.defaults.runner_name.empty() ? site.defaults.runner_name
                                                                       : matrix::DefaultRunnerName();
  const int ppc = o.plan.prompts_per_conc.value_or(site.defaults.num_prompts_per_conc);
  SweepRunInfo info;
  info.database = site.Resolve(o.database.empty() ? site.defaults.database : o.database);
  for (const auto& k : o.config_keys) info.recipe += (info.recipe.empty() ? "" : ",") + k;
  if (info.recipe.empty()) info.recipe = fs::path(o.matrix_file).filename().string();
  info.run_key = o.run_key.empty() ? SweepRunKey("predict", info.recipe, result_dir) : o.run_key;
  info.label = o.run_label.empty() ? info.recipe + " predicted" : o.run_label;
  info.predicted = true;
  const StoreResult store = o.no_store ? StoreResult() : MakeStoreHook(info);
  std::error_code ec;
  fs::create_directories(result_dir, ec);

  VirtualEngineCache engine;
  int failed = 0;
  if (table) {
    std::printf("%-5s %3s %5s %12s %12s %10s %10s %10s  %s\n", "seq", "tp", "conc", "tok/s/GPU", "tok/s/user", "TTFT s",
                "TPOT ms", "E2EL s", "status");
  }
  for (const auto& row : rows) {
    RowPlan plan;
    plan.label = StrField(row, "runner");
    plan.result_filename = matrix::ResultFilename(row, runner_name);
    plan.result_dir = result_dir;
    plan.result_path = (fs::path(result_dir) / (plan.result_filename + ".json")).string();
    plan.state_path = (fs::path(result_dir) / (plan.result_filename + ".row.json")).string();
    plan.log_dir = (fs::path(result_dir) / "logs" / plan.result_filename).string();
    RowOutcome outcome;
    const auto r0 = Clock::now();
    PredictedFigures f;
    try {
      const ModelSite* model = site.FindModel(StrField(row, "model"));
      if (model == nullptr) {
        throw InputError(
            Diagnostic{SourceMark{site.file, 0, 0}, plan.result_filename, "models",
                       "model '" + StrField(row, "model") + "' has no entry under models: in the site file"});
      }
      VirtualRowSpec spec;
      spec.model = model->builtin;
      spec.hardware = HardwareOf(site, plan.label);
      spec.framework = Framework(StrField(row, "framework"));
      spec.precision = model->precision.empty() ? StrField(row, "precision") : model->precision;
      spec.kv_cache_dtype = model->kv_cache_dtype;
      spec.tp = IntField(row, "tp", 1);
      spec.ep = IntField(row, "ep", 1);
      spec.dp_attention = row.contains("dp-attn") && row["dp-attn"].is_boolean() && row["dp-attn"].get<bool>();
      spec.max_model_len = IntField(row, "max-model-len", 0);
      spec.spec_decoding = StrField(row, "spec-decoding") == "mtp" ? "mtp" : "none";
      spec.conc = IntField(row, "conc", 1);
      spec.isl = IntField(row, "isl", 1024);
      spec.osl = IntField(row, "osl", 1024);
      spec.num_prompts = spec.conc * ppc;
      plan.server.argv = {"predict", spec.model, spec.hardware, spec.precision, "tp" + std::to_string(spec.tp)};
      const VirtualRun run = engine.Run(spec);
      const Json result = PredictedResultJson(run, spec, StrField(row, "model"), row, &f);
      WritePredictedResult(plan.result_path, result);
      outcome.status = RowStatus::kDone;
      outcome.seconds = std::chrono::duration<double>(Clock::now() - r0).count();
      if (store) {
        const std::string why = store(row, plan, outcome);
        if (!why.empty()) throw std::runtime_error(why);
      }
    } catch (const std::exception& e) {
      outcome.status = RowStatus::kFailed;
      outcome.reason = e.what();
      ++failed;
    }
    outcome.seconds = std::chrono::duration<double>(Clock::now() - r0).count();
    WriteRowState(plan, row, outcome);
    if (table) {
      std::printf("%-5s %3d %5d %12.1f %12.2f %10.3f %10.2f %10.2f  %s%s%s\n",
                  matrix::SeqLenName(IntField(row, "isl", 0), IntField(row, "osl", 0)).c_str(), IntField(row, "tp", 0),
                  IntField(row, "conc", 0), f.tput_per_gpu, f.median_intvty, f.median_ttft_s, f.median_tpot_ms,
                  f.median_e2el_s, StatusName(outcome.status), outcome.reason.empty() ? "" : ": ",
                  outcome.reason.c_str());
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("%zu rows predicted in %.2f s (virtual clock); results in %s",
              rows.size() - static_cast<std::size_t>(failed), seconds, result_dir.c_str());
  if (store) std::printf("; stored in %s (run '%s')", info.database.c_str(), info.run_key.c_str());
  std::printf("\n");
  std::fflush(stdout);
  return failed > 0 ? kExitRunFailed : kExitOk;
}

}  // namespace infermark::runner

// `infermark predict`: what a deployment would measure under InferenceX's client, in virtual
// time. Both forms run the load generator's client against the performance model (src/sim/):
// `--model M --hardware H …` sweeps concurrencies for one deployment and prints InferenceX's
// processed figures; `--config-keys KEY…` predicts every row of recipes as the runner would run
// them (result files and store rows like a real run, marked as predicted).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "calibration/prediction_band.hpp"
#include "cli/cmd_run_flags.hpp"
#include "cli/commands.hpp"
#include "cli/deployment_flags.hpp"
#include "cli/list_flags.hpp"
#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "core/json_text.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/kernel_classes.hpp"
#include "runner/predict_sweep.hpp"
#include "runner/row_eval.hpp"
#include "sim/predict.hpp"
#include "sim/prediction_band.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

struct PredictOptions {
  DeploymentFlags flags;
  int isl = 1024;
  int osl = 1024;
  double range_ratio = 0.8;
  int num_prompts = 0;
  int num_warmups = -1;
  std::string conc = "1,2,4,8,16,32,64";
  std::string format;
  bool verbose = false;
  runner::SweepCommandOptions recipes;  ///< --config-keys mode.
};

Json FiguresJson(const sim::PredictedFigures& f) {
  Json j = Json::object();
  j["tput_per_gpu"] = f.tput_per_gpu;
  j["output_tput_per_gpu"] = f.output_tput_per_gpu;
  j["median_intvty"] = f.median_intvty;
  j["median_e2el"] = f.median_e2el;
  j["median_ttft"] = f.median_ttft;
  j["median_tpot"] = f.median_tpot;
  j["input_tput_per_gpu"] = f.input_tput_per_gpu;
  j["p90_ttft"] = f.p90_ttft;
  j["p99_ttft"] = f.p99_ttft;
  j["p90_tpot"] = f.p90_tpot;
  j["p99_tpot"] = f.p99_tpot;
  j["num_prompts"] = f.completed;
  j["duration"] = f.duration_s;
  return j;
}

// A point's bands as the agg record carries them: its group and each figure's band_p10/band_p90.
Json BandJson(const sim::FigureBands& b) {
  Json figures = Json::object();
  const std::pair<const char*, const calibration::Band*> bands[] = {{"tput_per_gpu", &b.tput_per_gpu},
                                                                    {"output_tput_per_gpu", &b.output_tput_per_gpu},
                                                                    {"input_tput_per_gpu", &b.input_tput_per_gpu},
                                                                    {"median_intvty", &b.median_intvty},
                                                                    {"median_e2el", &b.median_e2el},
                                                                    {"median_ttft", &b.median_ttft},
                                                                    {"median_tpot", &b.median_tpot},
                                                                    {"p90_ttft", &b.p90_ttft},
                                                                    {"p99_ttft", &b.p99_ttft},
                                                                    {"p90_tpot", &b.p90_tpot},
                                                                    {"p99_tpot", &b.p99_tpot}};
  for (const auto& [key, band] : bands) figures[key] = Json{{"band_p10", band->p10}, {"band_p90", band->p90}};
  return Json{{"scope", b.scope}, {"residuals", b.residuals}, {"figures", std::move(figures)}};
}

// A figure's band in a table cell ("–" without one).
std::string BandCell(const std::optional<sim::FigureBands>& band, calibration::Band sim::FigureBands::*figure,
                     int digits) {
  if (!band) return "–";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f–%.*f", digits, ((*band).*figure).p10, digits, ((*band).*figure).p90);
  return text;
}

// Where the table's bands come from, one line (or why there are none).
std::string BandLine(const std::optional<sim::FigureBands>& band) {
  if (!band) return "bands: none (the factors are the framework's priors, or no bands file)";
  return "bands: p10–p90 of calibration's held-out residuals, group " + band->scope + " (" +
         std::to_string(band->residuals) + " residuals; docs/engine-model.md, \"Prediction bands\")";
}

std::string Format(const PredictOptions& o) {
  if (!o.format.empty()) return o.format;
  return isatty(STDOUT_FILENO) ? "table" : "json";
}

// A row's parallelism for the table: `tp8`, or a multi-node row's pools (`1P1D tp4/tp4`, `2x tp8`).
std::string Parallelism(const matrix::MatrixRow& row) {
  if (!row.prefill) return "tp" + std::to_string(row.tp);
  const matrix::WorkerPool& p = *row.prefill;
  if (!row.decode || row.decode->num_worker == 0) return std::to_string(p.num_worker) + "x tp" + std::to_string(p.tp);
  const matrix::WorkerPool& d = *row.decode;
  return std::to_string(p.num_worker) + "P" + std::to_string(d.num_worker) + "D tp" + std::to_string(p.tp) + "/tp" +
         std::to_string(d.tp);
}

// Why an eval row's accuracy has no prediction.
constexpr const char* kAccuracyNotPredicted =
    "the virtual clock models speed, not answers; run the eval against a server with weights (docs/evals.md)";

// Recipe mode: every row of the selected configs on the virtual clock.
int RunPredictRecipes(const PredictOptions& o, bool conc_given) {
  runner::SweepCommandOptions r = o.recipes;
  if (conc_given) {
    for (const int c : ParsePositiveInts("--conc", o.conc)) r.conc.push_back(c);
  }
  FillProjectDefaults(r);
  if (r.site_file.empty() && runner::FindSiteFile().empty()) {
    r.site_file = (std::filesystem::path(RecipesDir()).parent_path() / "infermark.yaml").string();
  }
  const runner::PredictSummary s = runner::RunPredictSweep(r);
  for (const auto& w : s.warnings) std::cerr << "predict: warning: " << w << '\n';
  if (Format(o) == "json") {
    Json out = Json::array();
    for (const auto& row : s.rows) {
      Json j = FiguresJson(row.figures);
      if (row.figures.band) j["prediction_band"] = BandJson(*row.figures.band);
      j["result_filename"] = row.result_filename;
      j["status"] = runner::StatusName(row.outcome.status);
      j["reason"] = row.outcome.reason;
      if (runner::IsEvalRow(row.row)) j["eval"] = std::string("not predicted: ") + kAccuracyNotPredicted;
      out.push_back(std::move(j));
    }
    std::cout << DumpJson(out) << '\n';
  } else {
    std::printf("%-11s %-13s %5s %12s %15s %12s %13s %10s %10s %10s  %s\n", "seq", "parallelism", "conc", "tok/s/GPU",
                "p10–p90", "tok/s/user", "p10–p90", "TTFT s", "TPOT ms", "E2EL s", "status");
    std::set<std::string> band_lines;
    for (const auto& row : s.rows) {
      const sim::PredictedFigures& f = row.figures;
      // Agentic rows: the offload mode where a sequence length would be (conc = users).
      const std::string seq = row.row.Agentic() ? "agentic/kv" + row.row.kv_offloading : row.row.SeqLen();
      std::printf("%-11s %-13s %5d %12.1f %15s %12.2f %13s %10.3f %10.2f %10.2f  %s%s%s\n", seq.c_str(),
                  Parallelism(row.row).c_str(), row.row.Conc(), f.tput_per_gpu,
                  BandCell(f.band, &sim::FigureBands::tput_per_gpu, 0).c_str(), f.median_intvty,
                  BandCell(f.band, &sim::FigureBands::median_intvty, 1).c_str(), f.median_ttft, f.median_tpot * 1e3,
                  f.median_e2el, runner::StatusName(row.outcome.status), row.outcome.reason.empty() ? "" : ": ",
                  row.outcome.reason.c_str());
      if (row.outcome.status != runner::RowStatus::kFailed) band_lines.insert(BandLine(f.band));
    }
    for (const std::string& line : band_lines) std::printf("%s\n", line.c_str());
  }
  // With JSON on stdout the summary line goes to stderr, so the output stays one document.
  std::FILE* summary = Format(o) == "json" ? stderr : stdout;
  const auto evals =
      std::count_if(s.rows.begin(), s.rows.end(), [](const auto& row) { return runner::IsEvalRow(row.row); });
  if (evals > 0) {
    std::fprintf(summary, "%ld eval row(s): throughput predicted, accuracy not: %s\n", static_cast<long>(evals),
                 kAccuracyNotPredicted);
  }
  std::fprintf(summary, "%zu rows predicted in %.2f s (virtual clock); results in %s",
               s.rows.size() - static_cast<std::size_t>(s.failed), s.seconds, s.result_dir.c_str());
  if (s.stored) {
    std::fprintf(summary, "; stored in %s (run '%s')", results::DisplayStoreUrl(s.store.database).c_str(),
                 s.store.run_key.c_str());
  }
  std::fprintf(summary, "\n");
  return s.failed > 0 ? kExitRunFailed : kExitOk;
}

int RunPredict(const PredictOptions& o) {
  if (o.flags.options.model.empty() || o.flags.options.hardware.empty()) {
    throw InputError(Diagnostic{SourceMark{}, "", o.flags.options.model.empty() ? "--model" : "--hardware",
                                "required (or predict recipes with --config-keys)"});
  }
  const std::vector<int> concs = ParsePositiveInts("--conc", o.conc);
  if (o.isl < 1 || o.osl < 1)
    throw InputError(Diagnostic{SourceMark{}, "", "--isl", "--isl and --osl must be positive"});
  if (!(o.range_ratio > 0 && o.range_ratio <= 1))
    throw InputError(Diagnostic{SourceMark{}, "", "--random-range-ratio", "must be in (0, 1]"});
  const perfmodel::Deployment d =
      perfmodel::ResolveDeployment(perfmodel::DefaultEngineData(), ResolveDeploymentFlags(o.flags));
  const std::string format = Format(o);
  const std::string warning = perfmodel::TransferWarning(d);
  if (!warning.empty()) std::cerr << "predict: warning: " << warning << '\n';
  if (o.verbose) {
    std::cerr << "predict: " << d.model.name << " " << d.precision.precision << " (" << d.precision.format << ", KV "
              << d.precision.kv_dtype << ") on " << d.tp << "x " << d.hardware.name << " with " << d.framework.name
              << "; memory fraction " << d.memory.memory_fraction << " (" << d.memory.memory_fraction_source << ") of "
              << d.hardware.memory_bytes / 1e9 << " GB; weights " << d.memory.weight_bytes_per_gpu / 1e9
              << " GB/GPU, KV capacity " << d.memory.kv_capacity_tokens << " tokens (" << d.scheduler.num_blocks
              << " blocks of " << d.scheduler.block_size << "); factors: " << d.efficiency_source << '\n';
    for (const auto& change : d.profile_changes) std::cerr << "predict: hardware profile: " << change << '\n';
  }
  Json out = Json::array();
  if (format == "table") {
    std::printf("%s %s on %dx %s, %s, ISL %d / OSL %d (factors: %s)\n", d.model.name.c_str(),
                d.precision.precision.c_str(), d.tp, d.hardware.name.c_str(), d.framework.name.c_str(), o.isl, o.osl,
                d.efficiency_source.c_str());
    std::printf("%6s %12s %15s %12s %12s %13s %10s %10s %10s %9s\n", "conc", "tok/s/GPU", "p10–p90", "out/s/GPU",
                "tok/s/user", "p10–p90", "TTFT s", "TPOT ms", "E2EL s", "preempt");
  }
  std::optional<sim::FigureBands> last_band;
  for (const int conc : concs) {
    const int prompts = o.num_prompts > 0 ? o.num_prompts : 10 * conc;
    const int warmups = o.num_warmups >= 0 ? o.num_warmups : 2 * conc;
    sim::Prediction p = sim::Predict(
        d, sim::ReferenceClient(o.flags.options.model, o.isl, o.osl, conc, prompts, warmups, o.range_ratio));
    sim::AddPredictionBand(p.result.result, p.figures, d, calibration::DefaultPredictionBands());
    const sim::PredictedFigures& f = p.figures;
    last_band = f.band;
    if (format == "json") {
      Json j = Json::object();
      j["conc"] = conc;
      const Json figures = FiguresJson(f);
      for (auto it = figures.begin(); it != figures.end(); ++it) j[it.key()] = *it;
      j["isl"] = o.isl;
      j["osl"] = o.osl;
      j["tp"] = d.tp;
      j["ep"] = d.ep;
      j["dp_attention"] = d.dp_attention;
      j["verdict"] = p.result.verdict.Name();
      j["unmeasured_kernel_classes"] = perfmodel::UnmeasuredKernelClasses(d);
      if (f.band) j["prediction_band"] = BandJson(*f.band);
      out.push_back(std::move(j));
    } else {
      std::printf("%6d %12.1f %15s %12.1f %12.2f %13s %10.3f %10.2f %10.2f %9lld\n", conc, f.tput_per_gpu,
                  BandCell(f.band, &sim::FigureBands::tput_per_gpu, 0).c_str(), f.output_tput_per_gpu, f.median_intvty,
                  BandCell(f.band, &sim::FigureBands::median_intvty, 1).c_str(), f.median_ttft, f.median_tpot * 1e3,
                  f.median_e2el, static_cast<long long>(p.stats.preemptions));
    }
  }
  if (format == "table") std::printf("%s\n", BandLine(last_band).c_str());
  if (format == "json") std::cout << DumpJson(out) << '\n';
  return kExitOk;
}

void AddPredictCommand(CLI::App& app, CommandResult& result) {
  auto o = std::make_shared<PredictOptions>();
  auto* cmd = app.add_subcommand(
      "predict",
      "Predict InferenceX's figures in virtual time: the load generator's client (10 x conc prompts after 2 x conc "
      "warm-ups, lengths in [0.8 L, L]) against the built-in engine's performance model");
  AddDeploymentFlags(cmd, o->flags);
  cmd->add_option("--isl", o->isl, "Input length")->capture_default_str();
  cmd->add_option("--osl", o->osl, "Output length")->capture_default_str();
  cmd->add_option("--conc", o->conc, "Concurrencies, comma-separated")->capture_default_str();
  cmd->add_option("--random-range-ratio", o->range_ratio, "Lengths are uniform in [ratio L, L]")->capture_default_str();
  cmd->add_option("--num-prompts", o->num_prompts, "Requests per point (default 10 x conc)");
  cmd->add_option("--num-warmups", o->num_warmups, "Warm-up requests per point (default 2 x conc)");
  cmd->add_option("--format", o->format, "json (default when piped) or table")->check(CLI::IsMember({"json", "table"}));
  cmd->add_flag("-v,--verbose", o->verbose, "Describe the resolved deployment on stderr");
  // Recipe mode: the flags of `infermark sweep`'s selection and outputs.
  runner::SweepCommandOptions& r = o->recipes;
  cmd->add_option("--config-keys", r.config_keys, "Predict every row of these recipes (config keys or globs)");
  cmd->add_option("--config-files", r.config_files, "Master configs (default: the project's recipes/configs)");
  cmd->add_option("--runner-config", r.runner_config, "runners.yaml (default: beside the first config file)");
  cmd->add_option("--seq-lens", r.seq_lens, "Recipes: only these sequence lengths")
      ->check(CLI::IsMember({"1k1k", "8k1k"}));
  cmd->add_option("--tp-filter", r.tp, "Recipes: only these TP sizes");
  cmd->add_option("--site", r.site_file, "Recipes: site file (default: infermark.yaml here, above, or the project's)");
  cmd->add_option("--result-dir", r.plan.result_dir, "Recipes: result folder (files go to its predicted/)");
  cmd->add_option("--database", r.database, "Recipes: results store (default: the site's)");
  cmd->add_option("--runner-name", r.plan.runner_name, "Recipes: runner name in result file names");
  cmd->add_option("--prompts-per-conc", r.plan.prompts_per_conc, "Recipes: prompts = this x conc (default 10)");
  cmd->add_option("--warmups-per-conc", r.plan.warmups_per_conc, "Recipes: warm-ups = this x conc (default 2)");
  cmd->add_option("--min-prompts", r.plan.min_prompts,
                  "Recipes: a point sends at least this many prompts (default: no floor)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-store", r.no_store, "Recipes: result files only");
  for (const char* name : {"--model", "--hardware"}) {
    if (auto* opt = cmd->get_option_no_throw(name)) opt->required(false);
  }
  cmd->callback([o, cmd, &result] {
    const bool conc_given = cmd->get_option("--conc")->count() > 0;
    result.exit_code = o->recipes.config_keys.empty() ? RunPredict(*o) : RunPredictRecipes(*o, conc_given);
  });
}

[[maybe_unused]] const bool kPredictRegistered = RegisterCommand("predict", &AddPredictCommand);

}  // namespace
}  // namespace infermark::cli

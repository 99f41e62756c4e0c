// `infermark predict`: what a deployment would measure under InferenceX's client, in virtual
// time — the built-in engine's scheduler and step-time model with a simulated closed-loop client
// (10 × conc prompts, lengths uniform in [0.8·L, L], ignore_eos). Prints InferenceX's processed
// figures per concurrency (seconds, tok/s/GPU, tok/s/user). With --config-keys it predicts every
// row of recipes instead (the runner's virtual-clock sweep): result files and store rows like a
// real run, marked as predicted.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/deployment_flags.hpp"
#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "core/json_text.hpp"
#include "engine/predict.hpp"
#include "runner/predict_sweep.hpp"

namespace infermark::cli {
namespace {

struct PredictOptions {
  DeploymentFlags flags;
  engine::DeploymentOptions deployment;
  engine::PredictSweep sweep;
  std::string conc = "1,2,4,8,16,32,64";
  std::string format;
  bool verbose = false;
  runner::SweepCommandOptions recipes;  ///< --config-keys mode.
};

std::vector<int> ParseIntList(const std::string& text, const std::string& flag) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(item, &used);
      if (used != item.size() || v < 1) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw InputError(
          Diagnostic{SourceMark{}, "", flag, "expected positive integers separated by commas, got '" + item + "'"});
    }
  }
  if (out.empty()) throw InputError(Diagnostic{SourceMark{}, "", flag, "needs at least one value"});
  return out;
}

Json PointJson(const engine::Deployment& d, const engine::PredictSweep& s, const engine::PredictedPoint& p) {
  const engine::PointMetrics& m = p.metrics;
  Json j = Json::object();
  j["conc"] = p.conc;
  j["tput_per_gpu"] = m.tput_per_gpu;
  j["output_tput_per_gpu"] = m.output_tput_per_gpu;
  j["median_intvty"] = m.median_intvty;
  j["median_e2el"] = m.median_e2el;
  j["median_ttft"] = m.median_ttft;
  j["median_tpot"] = m.median_tpot;
  j["input_tput_per_gpu"] = m.input_tput_per_gpu;
  j["p90_ttft"] = m.p90_ttft;
  j["p99_ttft"] = m.p99_ttft;
  j["p90_tpot"] = m.p90_tpot;
  j["num_prompts"] = m.completed;
  j["duration"] = m.duration_s;
  j["isl"] = s.isl;
  j["osl"] = s.osl;
  j["tp"] = d.tp;
  j["ep"] = d.ep;
  j["dp_attention"] = d.dp_attention;
  return j;
}

// Recipe mode: every row of the selected configs on the virtual clock.
int RunPredictRecipes(const PredictOptions& o, bool conc_given) {
  runner::SweepCommandOptions r = o.recipes;
  if (conc_given) {
    for (int c : ParseIntList(o.conc, "--conc")) r.conc.push_back(c);
  }
  if (r.config_files.empty()) r.config_files = ProjectMasterConfigs();
  if (r.runner_config.empty()) {
    r.runner_config = (std::filesystem::path(r.config_files.front()).parent_path() / "runners.yaml").string();
  }
  if (r.site_file.empty() && runner::FindSiteFile().empty()) {
    r.site_file = (std::filesystem::path(RecipesDir()).parent_path() / "infermark.yaml").string();
  }
  return runner::RunPredictSweep(r, o.format != "json");
}

int RunPredict(const PredictOptions& o) {
  if (o.flags.options.model.empty() || o.flags.options.hardware.empty()) {
    throw InputError(Diagnostic{SourceMark{}, "", o.flags.options.model.empty() ? "--model" : "--hardware",
                                "required (or predict recipes with --config-keys)"});
  }
  PredictOptions opts = o;
  opts.sweep.concurrencies = ParseIntList(o.conc, "--conc");
  opts.deployment = ResolveDeploymentFlags(o.flags);
  if (opts.sweep.isl < 1 || opts.sweep.osl < 1)
    throw InputError(Diagnostic{SourceMark{}, "", "--isl", "--isl and --osl must be positive"});
  if (!(opts.sweep.range_ratio > 0 && opts.sweep.range_ratio <= 1))
    throw InputError(Diagnostic{SourceMark{}, "", "--random-range-ratio", "must be in (0, 1]"});
  const engine::Deployment d = engine::ResolveDeployment(engine::DefaultEngineData(), opts.deployment);
  const auto points = engine::Predict(d, opts.sweep);
  std::string format = o.format;
  if (format.empty()) format = isatty(STDOUT_FILENO) ? "table" : "json";
  if (o.verbose) {
    std::cerr << "predict: " << d.model.name << " " << d.precision.precision << " (" << d.precision.format << ", KV "
              << d.precision.kv_dtype << ") on " << d.tp << "x " << d.hardware.name << " with " << d.framework.name
              << "; weights " << d.memory.weight_bytes_per_gpu / 1e9 << " GB/GPU, KV capacity "
              << d.memory.kv_capacity_tokens << " tokens (" << d.scheduler.num_blocks << " blocks of "
              << d.scheduler.block_size << "); factors: " << d.efficiency_source << '\n';
  }
  if (format == "json") {
    Json out = Json::array();
    for (const auto& p : points) out.push_back(PointJson(d, opts.sweep, p));
    std::cout << DumpJson(out) << '\n';
    return kExitOk;
  }
  std::printf("%s %s on %dx %s, %s, ISL %d / OSL %d (factors: %s)\n", d.model.name.c_str(),
              d.precision.precision.c_str(), d.tp, d.hardware.name.c_str(), d.framework.name.c_str(), opts.sweep.isl,
              opts.sweep.osl, d.efficiency_source.c_str());
  std::printf("%6s %12s %12s %12s %10s %10s %10s %9s\n", "conc", "tok/s/GPU", "out/s/GPU", "tok/s/user", "TTFT s",
              "TPOT ms", "E2EL s", "preempt");
  for (const auto& p : points) {
    const auto& m = p.metrics;
    std::printf("%6d %12.1f %12.1f %12.2f %10.3f %10.2f %10.2f %9lld\n", p.conc, m.tput_per_gpu, m.output_tput_per_gpu,
                m.median_intvty, m.median_ttft, m.median_tpot * 1e3, m.median_e2el,
                static_cast<long long>(p.stats.preemptions));
  }
  return kExitOk;
}

void AddPredictCommand(CLI::App& app, CommandResult& result) {
  auto o = std::make_shared<PredictOptions>();
  auto* cmd = app.add_subcommand(
      "predict",
      "Predict InferenceX's figures for a deployment in virtual time: the built-in engine's scheduler and "
      "step-time model under a simulated closed-loop client (10 x conc prompts, lengths in [0.8 L, L])");
  AddDeploymentFlags(cmd, o->flags);
  cmd->add_option("--isl", o->sweep.isl, "Input length")->capture_default_str();
  cmd->add_option("--osl", o->sweep.osl, "Output length")->capture_default_str();
  cmd->add_option("--conc", o->conc, "Concurrencies, comma-separated")->capture_default_str();
  cmd->add_option("--random-range-ratio", o->sweep.range_ratio, "Lengths are uniform in [ratio L, L]")
      ->capture_default_str();
  cmd->add_option("--num-prompts", o->sweep.num_prompts, "Requests per point (default 10 x conc)");
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
  cmd->add_flag("--no-store", r.no_store, "Recipes: result files only");
  for (const char* name : {"--model", "--hardware"}) {
    if (auto* opt = cmd->get_option_no_throw(name)) opt->required(false);
  }
  cmd->callback([o, cmd, &result] {
    const bool conc_given = cmd->get_option("--conc")->count() > 0;
    result.exit_code = o->recipes.config_keys.empty() ? RunPredict(*o) : RunPredictRecipes(*o, conc_given);
  });
}

[[maybe_unused]] const bool kRegistered = RegisterCommand("predict", &AddPredictCommand);

}  // namespace
}  // namespace infermark::cli

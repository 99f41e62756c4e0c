#include "cli/cmd_run_flags.hpp"

#include <filesystem>

#include "cli/project_paths.hpp"

namespace infermark::cli {

void AddSweepFlags(CLI::App* cmd, runner::SweepCommandOptions& o) {
  cmd->add_option("--config-files", o.config_files, "Master configs (default: the project's recipes/configs)");
  cmd->add_option("--runner-config", o.runner_config, "runners.yaml (default: beside the first config file)");
  cmd->add_option("--seq-lens", o.seq_lens, "Only these sequence lengths")->check(CLI::IsMember({"1k1k", "8k1k"}));
  cmd->add_option("--conc", o.conc, "Only these concurrencies");
  cmd->add_option("--tp", o.tp, "Only these TP sizes");
  cmd->add_option("--site", o.site_file, "Site file (default: $INFERMARK_SITE, else infermark.yaml here or above)");
  cmd->add_option("--executor", o.executor, "local or slurm (default: the site file's per runner label)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--result-dir", o.plan.result_dir, "Result folder (default: the site's)");
  cmd->add_option("--database", o.database, "Results database (default: the site's)");
  cmd->add_option("--runner-name", o.plan.runner_name, "Concrete runner name in result file names");
  cmd->add_option("--port", o.plan.port, "Server port (default: the site's)");
  cmd->add_option("--time-scale", o.plan.time_scale, "Built-in engine: run the modelled GPU this many times faster");
  cmd->add_option("--prompts-per-conc", o.plan.prompts_per_conc, "Prompts per point = this x conc (InferenceX: 10)");
  cmd->add_option("--warmups-per-conc", o.plan.warmups_per_conc, "Warm-up requests = this x conc (InferenceX: 2)");
  cmd->add_option("--startup-timeout", o.startup_timeout_s, "Seconds a server may take to become ready");
  cmd->add_option("--row-timeout", o.row_timeout_s, "Seconds a whole row may take");
  cmd->add_flag("--no-resume", o.no_resume, "Run rows again even when their result is complete");
  cmd->add_flag("--dry-run", o.dry_run, "Print each row's server and client command lines; start nothing");
  cmd->add_flag("--no-store", o.no_store, "Write result files only (no results store, no report)");
  cmd->add_option("--report", o.report, "Report to write at the end (default: RESULT_DIR/report.html)");
  cmd->add_option("--run-key", o.run_key, "Store the points under this run (default: from the selection and folder)");
  cmd->add_option("--run-label", o.run_label, "Label of the stored run");
}

int RunSweepWithDefaults(runner::SweepCommandOptions o) {
  if (o.matrix_file.empty()) {
    if (o.config_files.empty()) o.config_files = ProjectMasterConfigs();
    if (o.runner_config.empty()) {
      o.runner_config = (std::filesystem::path(o.config_files.front()).parent_path() / "runners.yaml").string();
    }
  }
  return runner::RunSweepCommand(o);
}

}  // namespace infermark::cli

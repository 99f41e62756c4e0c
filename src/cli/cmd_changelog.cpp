// `infermark changelog --base-ref A --head-ref B`: what the perf-changelog entries added between
// two revisions ask to run, as InferenceX's process_changelog.py prints it.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "matrix/changelog_between.hpp"

namespace infermark::cli {
namespace {

int Run(matrix::ChangelogRequest& request) {
  if (request.config_files.empty()) request.config_files = ProjectMasterConfigs();
  if (request.runner_config.empty()) request.runner_config = RecipesDir() + "/configs/runners.yaml";
  TuneHeapForInputs(request.config_files);
  const std::string text = DumpJson(matrix::ExpandChangelogBetween(request), kCompactJson) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

void AddChangelogCommand(CLI::App& app, CommandResult& result) {
  auto cmd = std::make_shared<matrix::ChangelogRequest>();
  auto* sub = app.add_subcommand(
      "changelog",
      "Expand the perf-changelog entries added between two git revisions into the jobs to run (InferenceX's "
      "process_changelog.py output)");
  sub->add_option("--base-ref", cmd->options.base_ref, "Base git revision")->required();
  sub->add_option("--head-ref", cmd->options.head_ref, "Head git revision")->required();
  sub->add_option("--changelog-file", cmd->changelog_file, "Changelog path inside the repository")
      ->capture_default_str();
  sub->add_option("--config-files", cmd->config_files,
                  "Master configs to expand against (default: the project's recipes/configs/*-master.yaml)");
  sub->add_option("--runner-config", cmd->runner_config, "runners.yaml (default: the project's)");
  sub->add_option("-C,--repo", cmd->repo, "Run git in this directory (default: the current one)");
  sub->add_flag("--trim-conc", cmd->options.trim_conc, "Keep only the smallest concurrency of each curve");
  sub->add_flag("--all-evals", cmd->options.all_evals, "Expand every entry's eval selection");
  sub->add_flag("--evals-only", cmd->options.evals_only, "Suppress throughput rows for every entry");
  sub->callback([cmd, &result] { result.exit_code = Run(*cmd); });
}

[[maybe_unused]] const bool kChangelogRegistered = RegisterCommand("changelog", &AddChangelogCommand);

}  // namespace

}  // namespace infermark::cli

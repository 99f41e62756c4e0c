// `infermark changelog --base-ref A --head-ref B`: what the perf-changelog entries added between
// two revisions ask to run, as InferenceX's process_changelog.py prints it.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/project_paths.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "matrix/changelog_between.hpp"
#include "matrix/matrix_output.hpp"

namespace infermark::cli {
namespace {

struct ChangelogCommand {
  matrix::ChangelogRequest request;
  std::string format = "json";
  std::string shard;
};

int Run(ChangelogCommand& cmd) {
  matrix::ChangelogRequest& request = cmd.request;
  if (request.config_files.empty()) request.config_files = ProjectMasterConfigs();
  if (request.runner_config.empty()) request.runner_config = RecipesDir() + "/configs/runners.yaml";
  TuneHeapForInputs(request.config_files);
  const Json doc = matrix::ExpandChangelogBetween(request);
  std::string text;
  if (cmd.format == "github-outputs") {
    std::vector<Json> rows = matrix::ChangelogRows(doc);
    if (!cmd.shard.empty()) rows = matrix::SelectShard(rows, matrix::ParseShard(cmd.shard));
    text = matrix::FormatGithubOutputs(rows);
  } else {
    if (!cmd.shard.empty()) {
      throw InputError(
          Diagnostic{{}, "", "--shard", "splits the github-outputs format only (the JSON is one document)"});
    }
    text = DumpJson(doc, kCompactJson) + "\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

void AddChangelogCommand(CLI::App& app, CommandResult& result) {
  auto command = std::make_shared<ChangelogCommand>();
  matrix::ChangelogRequest* cmd = &command->request;
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
  sub->add_option("--format", command->format,
                  "json (process_changelog.py's document) or github-outputs (its rows as single-node and multi-node "
                  "GitHub Actions matrices, NAME=VALUE lines for $GITHUB_OUTPUT)")
      ->check(CLI::IsMember({"json", "github-outputs"}))
      ->capture_default_str();
  sub->add_option("--shard", command->shard, "github-outputs: only part K of N of the rows (K/N)");
  sub->callback([command, &result] { result.exit_code = Run(*command); });
}

[[maybe_unused]] const bool kChangelogRegistered = RegisterCommand("changelog", &AddChangelogCommand);

}  // namespace

}  // namespace infermark::cli

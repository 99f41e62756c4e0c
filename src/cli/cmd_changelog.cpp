// `infermark changelog --base-ref A --head-ref B`: what the perf-changelog entries added between
// two revisions ask to run, as InferenceX's process_changelog.py prints it.
#include <cstdio>
#include <iostream>

#include "catalog/catalog_loader.hpp"
#include "cli/commands.hpp"
#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "matrix/changelog_sweep.hpp"

namespace infermark::cli {
namespace {

struct ChangelogCommand {
  matrix::ChangelogOptions options;
  std::string changelog_file = "perf-changelog.yaml";
  std::vector<std::string> config_files;
  std::string runner_config;
  std::string repo;
};

// Diagnostics about the added text point at the head file's own lines.
InputError Remap(const InputError& e, const matrix::AddedLines& added, const std::string& file,
                 const std::string& head_ref) {
  std::vector<Diagnostic> out = e.diagnostics();
  for (auto& d : out) {
    if (d.mark.line > 0 && static_cast<std::size_t>(d.mark.line) <= added.head_line.size()) {
      d.mark.line = added.head_line[static_cast<std::size_t>(d.mark.line) - 1];
    }
    d.mark.file = file + "@" + head_ref;
  }
  return InputError(std::move(out));
}

int Run(ChangelogCommand& cmd) {
  const std::string& file = cmd.changelog_file;
  const std::string head_text = matrix::GitShow(cmd.options.head_ref, file, cmd.repo);
  if (!head_text.empty() && head_text.back() != '\n') {
    throw InputError(
        Diagnostic{{file + "@" + cmd.options.head_ref, 0, 0}, "", "", "the changelog must end with a newline"});
  }
  const matrix::AddedLines added =
      matrix::ParseAddedLines(matrix::GitDiff(cmd.options.base_ref, cmd.options.head_ref, file, cmd.repo), file);
  std::vector<catalog::ChangelogEntry> entries;
  try {
    const YamlDocument doc = ParseYaml(added.text, file);
    std::vector<Diagnostic> problems;
    entries = catalog::ReadChangelog(doc, problems);
    if (!problems.empty()) throw InputError(std::move(problems));
  } catch (const InputError& e) {
    throw Remap(e, added, file, cmd.options.head_ref);
  }
  if (entries.empty())
    throw InputError(Diagnostic{{file, 0, 0}, "", "", "No valid YAML entries found in the changelog additions."});

  if (cmd.config_files.empty()) cmd.config_files = ProjectMasterConfigs();
  if (cmd.runner_config.empty()) cmd.runner_config = RecipesDir() + "/configs/runners.yaml";
  TuneHeapForInputs(cmd.config_files);
  const catalog::MasterCatalog catalog = catalog::LoadMasterConfigs(cmd.config_files);
  const catalog::RunnerConfig runners = catalog::LoadRunnerConfig(cmd.runner_config);

  std::optional<catalog::MasterCatalog> base;
  if (std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.append_only; })) {
    base.emplace();
    std::vector<Diagnostic> problems;
    for (const auto& config : cmd.config_files) {
      const YamlDocument doc =
          ParseYaml(matrix::GitShow(cmd.options.base_ref, config, cmd.repo), config + "@" + cmd.options.base_ref);
      catalog::MergeCatalog(*base, catalog::ReadMasterConfig(doc, problems), problems);
    }
    if (!problems.empty()) throw InputError(std::move(problems));
  }
  const Json doc = matrix::ExpandChangelog(entries, catalog, runners, cmd.options, base ? &*base : nullptr);
  const std::string text = DumpJson(doc, kCompactJson) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

namespace {

void AddChangelogCommand(CLI::App& app, CommandResult& result) {
  auto cmd = std::make_shared<ChangelogCommand>();
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

[[maybe_unused]] const bool kRegistered = RegisterCommand("changelog", &AddChangelogCommand);

}  // namespace

}  // namespace infermark::cli

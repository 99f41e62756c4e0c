// `infermark validate [FILES…]`: checks master configs, runners.yaml and perf-changelog.yaml files
// against the InferenceX schema and reports every problem in one pass (exit 2 if any).
#include <filesystem>
#include <iostream>
#include <set>

#include "catalog/catalog_loader.hpp"
#include "cli/commands.hpp"
#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "core/yaml_split.hpp"

namespace infermark::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  bool merged = false;
  bool quiet = false;
};

int RunValidate(const ValidateOptions& options) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files = ProjectCatalogFiles();
  TuneHeapForInputs(files);
  std::vector<Diagnostic> problems;
  catalog::MasterCatalog merged;
  std::size_t entries = 0, runner_files = 0, changelog_entries = 0, master_files = 0;
  for (const auto& file : files) {
    try {
      const YamlDocument doc = LoadYamlFileSplit(file);
      switch (catalog::DetectKind(doc)) {
        case catalog::FileKind::kChangelog:
          changelog_entries += catalog::ReadChangelog(doc, problems).size();
          break;
        case catalog::FileKind::kRunners:
          catalog::ReadRunnerConfig(doc, problems);
          ++runner_files;
          break;
        case catalog::FileKind::kMasterConfig: {
          auto catalog = catalog::ReadMasterConfig(doc, problems);
          entries += catalog.entries.size();
          ++master_files;
          if (options.merged) catalog::MergeCatalog(merged, std::move(catalog), problems);
          break;
        }
      }
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  for (const auto& p : problems) std::cerr << p.ToString() << '\n';
  std::set<std::string> bad_entries;
  for (const auto& p : problems) bad_entries.insert(p.mark.file + "\n" + p.entry);
  const std::string summary = std::to_string(files.size()) + " files (" + std::to_string(master_files) +
                              " master configs with " + std::to_string(entries) + " entries, " +
                              std::to_string(runner_files) + " runner configs, " + std::to_string(changelog_entries) +
                              " changelog entries)";
  if (!problems.empty()) {
    std::cerr << "validate: " << problems.size() << (problems.size() == 1 ? " problem" : " problems") << " in "
              << bad_entries.size() << (bad_entries.size() == 1 ? " entry" : " entries") << " of " << summary << '\n';
    return kExitBadInput;
  }
  if (!options.quiet) std::cout << "validate: ok, " << summary << '\n';
  return kExitOk;
}

}  // namespace

namespace {

void AddValidateCommand(CLI::App& app, CommandResult& result) {
  auto options = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Check master configs, runners.yaml and perf-changelog.yaml against the InferenceX schema; every problem is "
      "reported with file:line:column, entry, field and rule (exit 2 if any). Without files: the project's catalog.");
  cmd->add_option("files", options->files, "Catalog files (kind detected from content)");
  cmd->add_flag("--merged", options->merged,
                "Also treat the master configs as one catalog, as `matrix` loads them: a key defined in two files is "
                "an error");
  cmd->add_flag("-q,--quiet", options->quiet, "Print nothing when everything is valid");
  cmd->callback([options, &result] { result.exit_code = RunValidate(*options); });
}

[[maybe_unused]] const bool kValidateRegistered = RegisterCommand("validate", &AddValidateCommand);

}  // namespace

}  // namespace infermark::cli

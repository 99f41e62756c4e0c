#include "matrix/changelog_between.hpp"

#include <algorithm>
#include <optional>

#include "catalog/catalog_loader.hpp"

namespace infermark::matrix {
namespace {

// Diagnostics about the added text point at the head file's own lines.
InputError Remap(const InputError& e, const AddedLines& added, const std::string& file, const std::string& head_ref) {
  std::vector<Diagnostic> out = e.diagnostics();
  for (auto& d : out) {
    if (d.mark.line > 0 && static_cast<std::size_t>(d.mark.line) <= added.head_line.size()) {
      d.mark.line = added.head_line[static_cast<std::size_t>(d.mark.line) - 1];
    }
    d.mark.file = file + "@" + head_ref;
  }
  return InputError(std::move(out));
}

}  // namespace

Json ExpandChangelogBetween(const ChangelogRequest& r) {
  const std::string& file = r.changelog_file;
  const ChangelogOptions& o = r.options;
  const std::string head_text = GitShow(o.head_ref, file, r.repo);
  if (!head_text.empty() && head_text.back() != '\n') {
    throw InputError(Diagnostic{{file + "@" + o.head_ref, 0, 0}, "", "", "the changelog must end with a newline"});
  }
  const AddedLines added = ParseAddedLines(GitDiff(o.base_ref, o.head_ref, file, r.repo), file);
  std::vector<catalog::ChangelogEntry> entries;
  try {
    const YamlDocument doc = ParseYaml(added.text, file);
    std::vector<Diagnostic> problems;
    entries = catalog::ReadChangelog(doc, problems);
    if (!problems.empty()) throw InputError(std::move(problems));
  } catch (const InputError& e) {
    throw Remap(e, added, file, o.head_ref);
  }
  if (entries.empty()) {
    throw InputError(Diagnostic{{file, 0, 0}, "", "", "No valid YAML entries found in the changelog additions."});
  }
  const catalog::MasterCatalog catalog = catalog::LoadMasterConfigs(r.config_files);
  const catalog::RunnerConfig runners = catalog::LoadRunnerConfig(r.runner_config);
  std::optional<catalog::MasterCatalog> base;
  if (std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.append_only; })) {
    base.emplace();
    std::vector<Diagnostic> problems;
    for (const auto& config : r.config_files) {
      const YamlDocument doc = ParseYaml(GitShow(o.base_ref, config, r.repo), config + "@" + o.base_ref);
      catalog::MergeCatalog(*base, catalog::ReadMasterConfig(doc, problems), problems);
    }
    if (!problems.empty()) throw InputError(std::move(problems));
  }
  return ExpandChangelog(entries, catalog, runners, o, base ? &*base : nullptr);
}

}  // namespace infermark::matrix

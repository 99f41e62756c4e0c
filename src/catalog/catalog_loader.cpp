#include "catalog/catalog_loader.hpp"

namespace infermark::catalog {

FileKind DetectKind(const YamlDocument& doc) {
  if (doc.root.kind == YamlKind::kSequence) return FileKind::kChangelog;
  if (doc.root.kind == YamlKind::kMapping &&
      (doc.root.Find("labels") != nullptr || doc.root.Find("hardware") != nullptr)) {
    return FileKind::kRunners;
  }
  return FileKind::kMasterConfig;
}

MasterCatalog LoadMasterConfigs(const std::vector<std::string>& files) {
  MasterCatalog merged;
  std::vector<Diagnostic> problems;
  for (const auto& file : files) {
    try {
      auto doc = std::make_shared<const YamlDocument>(LoadYamlFile(file));
      MergeCatalog(merged, ReadMasterConfig(*doc, problems), problems);
      merged.documents.push_back(std::move(doc));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  return merged;
}

RunnerConfig LoadRunnerConfig(const std::string& file) {
  std::vector<Diagnostic> problems;
  RunnerConfig config = ReadRunnerConfig(LoadYamlFile(file), problems);
  if (!problems.empty()) throw InputError(std::move(problems));
  return config;
}

std::vector<ChangelogEntry> LoadChangelog(const std::string& file) {
  std::vector<Diagnostic> problems;
  auto entries = ReadChangelog(LoadYamlFile(file), problems);
  if (!problems.empty()) throw InputError(std::move(problems));
  return entries;
}

}  // namespace infermark::catalog

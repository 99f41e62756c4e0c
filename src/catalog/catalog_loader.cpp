#include "catalog/catalog_loader.hpp"

#include <memory>

#include "core/parallel_chunks.hpp"
#include "core/yaml_split.hpp"

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
  // Files are parsed and read on threads of their own; merging stays in file order, so the
  // catalog and every message come out as a sequential load would give them.
  struct Loaded {
    std::shared_ptr<const YamlDocument> doc;
    MasterCatalog catalog;
    std::vector<Diagnostic> problems;
  };
  auto loaded = MapChunks(files.size(), ChunkCount(files.size(), 1), [&files](std::size_t begin, std::size_t end) {
    std::vector<Loaded> out(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      Loaded& l = out[i - begin];
      try {
        l.doc = std::make_shared<const YamlDocument>(LoadYamlFileSplit(files[i]));
        l.catalog = ReadMasterConfig(*l.doc, l.problems);
      } catch (const InputError& e) {
        l.doc.reset();
        l.problems.insert(l.problems.end(), e.diagnostics().begin(), e.diagnostics().end());
      }
    }
    return out;
  });
  MasterCatalog merged;
  std::vector<Diagnostic> problems;
  for (auto& chunk : loaded) {
    for (Loaded& l : chunk) {
      problems.insert(problems.end(), l.problems.begin(), l.problems.end());
      if (!l.doc) continue;
      MergeCatalog(merged, std::move(l.catalog), problems);
      merged.documents.push_back(std::move(l.doc));
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

}  // namespace infermark::catalog

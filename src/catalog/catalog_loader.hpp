// Reading and validating InferenceX catalog files — master configs, runners.yaml and
// perf-changelog.yaml — with every rule InferenceX's validator enforces. Readers collect every
// problem of a file in one pass; loaders throw an InputError listing them all.
#pragma once

#include <string>
#include <vector>

#include "catalog/changelog.hpp"
#include "catalog/master_config.hpp"
#include "catalog/runners.hpp"
#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"

namespace infermark::catalog {

/// What a catalog file holds, judged from its shape.
enum class FileKind { kMasterConfig, kRunners, kChangelog };

/// A list root is a changelog; a mapping with `labels` or `hardware` a runners file; else a master config.
FileKind DetectKind(const YamlDocument& doc);

/// Reads one master-config document, appending every problem to `problems`.
MasterCatalog ReadMasterConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems);

/// Reads a runners.yaml document, appending every problem to `problems`.
RunnerConfig ReadRunnerConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems);

/// Reads a perf-changelog.yaml document (its schema only), appending every problem to `problems`.
std::vector<ChangelogEntry> ReadChangelog(const YamlDocument& doc, std::vector<Diagnostic>& problems);

/// Appends `next` to `merged`, reporting keys already present (InferenceX's duplicate-key rule).
void MergeCatalog(MasterCatalog& merged, MasterCatalog next, std::vector<Diagnostic>& problems);

/// Loads and merges master-config files; throws InputError with every problem found.
MasterCatalog LoadMasterConfigs(const std::vector<std::string>& files);

/// Loads runners.yaml; throws InputError with every problem found.
RunnerConfig LoadRunnerConfig(const std::string& file);

}  // namespace infermark::catalog

// runners.yaml schema: `labels` (label -> non-empty list of runner names) and optional
// `hardware` (label -> available-cpu-dram-mib, gpus-per-node), nothing else.
#include "catalog/catalog_loader.hpp"
#include "core/field_reader.hpp"

namespace infermark::catalog {
namespace {

// `Dict[str, …]` keys must be strings: YAML `123:` or `true:` is not a label.
bool CheckKey(const ReadContext& ctx, const YamlNode& key, const std::string& parent) {
  if (key.kind == YamlKind::kString) return true;
  ctx.Report(&key, parent, "keys must be strings, got " + std::string(key.TypeName()) + " ('" + key.text + "')");
  return false;
}

}  // namespace

RunnerConfig ReadRunnerConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems) {
  RunnerConfig config;
  config.file = doc.file;
  ReadContext ctx{&doc.file, "", &problems};
  const YamlNode* labels_node = doc.root.kind == YamlKind::kMapping ? doc.root.Find("labels") : nullptr;
  if (labels_node == nullptr || labels_node->kind != YamlKind::kMapping) {
    const SourceMark mark = labels_node != nullptr && labels_node->line > 0
                                ? SourceMark{doc.file, labels_node->line, labels_node->column}
                                : DocumentMark(doc);
    problems.push_back(Diagnostic{mark, "", "labels", "Runner config must define a labels mapping"});
    return config;
  }
  FieldReader top(ctx, doc.root, "");
  const YamlNode* labels = top.Mapping("labels", Need::kRequired);
  for (const auto& [key, value] : labels->entries) {
    if (!CheckKey(ctx, key, "labels")) continue;
    const std::string path = JoinPath("labels", key.text);
    config.label_marks[key.text] = {doc.file, key.line, key.column};
    if (value.kind != YamlKind::kSequence) {
      ctx.Report(&value, path,
                 "Runner config entry '" + key.text + "' must be a list, got " + std::string(value.TypeName()));
      continue;
    }
    std::vector<std::string> names;
    bool strings = true;
    for (const auto& item : value.items) {
      if (item.kind != YamlKind::kString) {
        strings = false;
        ctx.Report(&item, path,
                   "Runner config entry '" + key.text + "' must contain only strings, got " +
                       std::string(item.TypeName()) + " ('" + item.text + "')");
      } else {
        names.push_back(item.text);
      }
    }
    if (strings && names.empty()) {
      ctx.Report(&value, path, "Runner config entry '" + key.text + "' cannot be an empty list");
    }
    config.labels.emplace_back(key.text, std::move(names));
  }
  if (const YamlNode* hardware = top.Mapping("hardware", Need::kDefaulted)) {
    for (const auto& [key, value] : hardware->entries) {
      if (!CheckKey(ctx, key, "hardware")) continue;
      FieldReader r(ctx, value, JoinPath("hardware", key.text));
      if (!r.ok()) continue;
      auto mib = r.Int("available-cpu-dram-mib", Need::kRequired, 1);
      auto gpus = r.Int("gpus-per-node", Need::kRequired, 1);
      r.RejectUnknown();
      if (mib && gpus) config.hardware[key.text] = RunnerHardware{*mib, *gpus};
    }
  }
  top.RejectUnknown();
  return config;
}

}  // namespace infermark::catalog

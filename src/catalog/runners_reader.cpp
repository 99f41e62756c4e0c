// runners.yaml schema: `labels` (label -> non-empty list of runner names) and optional
// `hardware` (label -> available-cpu-dram-mib, gpus-per-node), nothing else.
#include "catalog/catalog_loader.hpp"
#include "catalog/field_reader.hpp"

namespace infermark::catalog {

RunnerConfig ReadRunnerConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems) {
  RunnerConfig config;
  config.file = doc.file;
  ReadContext ctx{&doc.file, "", &problems};
  if (doc.root.kind != YamlKind::kMapping || doc.root.Find("labels") == nullptr ||
      doc.root.Find("labels")->kind != YamlKind::kMapping) {
    ctx.Report(&doc.root, "labels", "Runner config must define a labels mapping");
    return config;
  }
  FieldReader top(ctx, doc.root, "");
  const YamlNode* labels = top.Mapping("labels", Need::kRequired);
  for (const auto& [key, value] : labels->entries) {
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

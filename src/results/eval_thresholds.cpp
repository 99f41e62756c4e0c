#include "results/eval_thresholds.hpp"

#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"

namespace infermark::results {
namespace {

[[noreturn]] void Fail(const std::string& path, const YamlNode& node, const std::string& field,
                       const std::string& rule) {
  throw InputError(Diagnostic{{path, node.line, node.column}, "", field, rule});
}

std::map<std::string, double> ReadTasks(const std::string& path, const YamlNode& node, const std::string& field) {
  if (node.kind == YamlKind::kNull) return {};
  if (node.kind != YamlKind::kMapping) Fail(path, node, field, "must be a mapping of task to minimum score");
  std::map<std::string, double> tasks;
  for (const auto& [key, value] : node.entries) {
    const std::string name = field.empty() ? key.text : field + "." + key.text;
    double v = 0;
    if (value.kind == YamlKind::kInt) {
      v = static_cast<double>(value.int_value);
    } else if (value.kind == YamlKind::kFloat) {
      v = value.float_value;
    } else {
      Fail(path, value, name, "must be a number, got " + std::string(value.TypeName()));
    }
    if (!(v >= 0 && v <= 1)) Fail(path, value, name, "must be a score between 0 and 1");
    tasks[key.text] = v;
  }
  return tasks;
}

}  // namespace

std::optional<ResolvedThreshold> EvalThresholds::For(const std::string& task, const std::string& model_prefix) const {
  if (const auto m = models.find(model_prefix); !model_prefix.empty() && m != models.end()) {
    if (const auto t = m->second.find(task); t != m->second.end()) return ResolvedThreshold{t->second, model_prefix};
  }
  if (const auto t = defaults.find(task); t != defaults.end()) return ResolvedThreshold{t->second, "default"};
  return std::nullopt;
}

EvalThresholds LoadEvalThresholds(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  const YamlNode& root = doc.root;
  if (root.kind != YamlKind::kMapping) Fail(path, root, "", "thresholds must be a mapping");
  EvalThresholds t;
  const YamlNode* defaults = root.Find("default");
  const YamlNode* models = root.Find("models");
  if (defaults == nullptr && models == nullptr) {
    t.defaults = ReadTasks(path, root, "");
    return t;
  }
  for (const auto& [key, value] : root.entries) {
    if (key.text != "default" && key.text != "models") Fail(path, key, key.text, "unknown section (default, models)");
  }
  if (defaults != nullptr) t.defaults = ReadTasks(path, *defaults, "default");
  if (models != nullptr && models->kind != YamlKind::kNull) {
    if (models->kind != YamlKind::kMapping) Fail(path, *models, "models", "must be a mapping of model prefix to tasks");
    for (const auto& [key, value] : models->entries) {
      t.models[key.text] = ReadTasks(path, value, "models." + key.text);
    }
  }
  return t;
}

}  // namespace infermark::results

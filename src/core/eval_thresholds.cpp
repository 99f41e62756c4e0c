#include "core/eval_thresholds.hpp"

#include <cmath>

#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"

namespace infermark {
namespace {

[[noreturn]] void BadThresholds(const std::string& file, const YamlNode& at, const std::string& field,
                                const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{file, at.line, at.column}, "", field, rule});
}

// task → score, every value a number in [0, 1] (scores are fractions).
std::map<std::string, double> TaskScores(const std::string& file, const YamlNode& node, const std::string& field) {
  if (node.kind == YamlKind::kNull) return {};
  if (node.kind != YamlKind::kMapping) BadThresholds(file, node, field, "must be a mapping of task to minimum score");
  std::map<std::string, double> out;
  for (const auto& [key, value] : node.entries) {
    const std::string path = field.empty() ? key.text : field + "." + key.text;
    double v = 0;
    if (value.kind == YamlKind::kInt && !value.int_overflow) {
      v = static_cast<double>(value.int_value);
    } else if (value.kind == YamlKind::kFloat && std::isfinite(value.float_value)) {
      v = value.float_value;
    } else {
      BadThresholds(file, value, path,
                    "must be a number (the task's minimum score), got " + std::string(value.TypeName()));
    }
    if (!(v >= 0 && v <= 1)) BadThresholds(file, value, path, "must be a score between 0 and 1");
    out[key.text] = v;
  }
  return out;
}

}  // namespace

std::string ThresholdRule::SourceName() const {
  return source.rfind("models.", 0) == 0 ? source.substr(7) : source;
}

ThresholdRule EvalThresholds::Resolve(const std::string& task, const std::string& prefix, double fallback) const {
  if (!prefix.empty() && prefix != "unknown") {
    if (const auto m = models.find(prefix); m != models.end()) {
      if (const auto v = m->second.find(task); v != m->second.end()) return {v->second, "models." + prefix};
    }
  }
  if (const auto v = defaults.find(task); v != defaults.end()) return {v->second, "default"};
  return {fallback, "min-score"};
}

EvalThresholds LoadEvalThresholds(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  EvalThresholds t;
  t.file = path;
  const YamlNode& root = doc.root;
  if (root.kind != YamlKind::kMapping) BadThresholds(path, root, "", "thresholds config must be a mapping");
  const YamlNode* defaults = root.Find("default");
  const YamlNode* models = root.Find("models");
  if (defaults == nullptr && models == nullptr) {
    // The legacy flat format: the whole mapping is the per-task default.
    t.defaults = TaskScores(path, root, "");
    return t;
  }
  for (const auto& [key, value] : root.entries) {
    if (key.text != "default" && key.text != "models") {
      BadThresholds(path, key, key.text, "unknown key (a thresholds file holds 'default' and 'models')");
    }
  }
  if (defaults != nullptr) t.defaults = TaskScores(path, *defaults, "default");
  if (models != nullptr && models->kind != YamlKind::kNull) {
    if (models->kind != YamlKind::kMapping) {
      BadThresholds(path, *models, "models", "must be a mapping of model prefix to tasks");
    }
    for (const auto& [key, value] : models->entries) t.models[key.text] = TaskScores(path, value, "models." + key.text);
  }
  return t;
}

}  // namespace infermark

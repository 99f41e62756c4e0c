#include "eval/thresholds.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"
#include "eval/task_data.hpp"

namespace infermark::eval {
namespace {

[[noreturn]] void Bad(const std::string& file, const YamlNode& at, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{file, at.line, at.column}, "", field, rule});
}

// task → score, every value a number.
std::map<std::string, double> Scores(const std::string& file, const YamlNode& node, const std::string& field) {
  if (node.kind == YamlKind::kNull) return {};
  if (node.kind != YamlKind::kMapping) Bad(file, node, field, "must be a mapping of task to minimum score");
  std::map<std::string, double> out;
  for (const auto& [key, value] : node.entries) {
    const std::string path = field.empty() ? key.text : field + "." + key.text;
    if (value.kind == YamlKind::kInt && !value.int_overflow) {
      out[key.text] = static_cast<double>(value.int_value);
    } else if (value.kind == YamlKind::kFloat && std::isfinite(value.float_value)) {
      out[key.text] = value.float_value;
    } else {
      Bad(file, value, path, "must be a number (the task's minimum score), got " + std::string(value.TypeName()));
    }
  }
  return out;
}

// Two decimals for thresholds written that way (0.9 → "0.90"), else as many as it takes.
std::string ThresholdText(double v) {
  char buf[32];
  if (std::fabs(v * 100 - std::round(v * 100)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

}  // namespace

Thresholds LoadThresholds(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  Thresholds t;
  t.file = path;
  const YamlNode& root = doc.root;
  if (root.kind != YamlKind::kMapping) Bad(path, root, "", "thresholds config must be a mapping");
  const YamlNode* defaults = root.Find("default");
  const YamlNode* models = root.Find("models");
  if (defaults == nullptr && models == nullptr) {
    // The legacy flat format: the whole mapping is the per-task default.
    t.defaults = Scores(path, root, "");
    return t;
  }
  for (const auto& [key, value] : root.entries) {
    if (key.text != "default" && key.text != "models") {
      Bad(path, key, key.text, "unknown key (a thresholds file holds 'default' and 'models')");
    }
  }
  if (defaults != nullptr) t.defaults = Scores(path, *defaults, "default");
  if (models != nullptr && models->kind != YamlKind::kNull) {
    if (models->kind != YamlKind::kMapping) Bad(path, *models, "models", "must be a mapping of model prefix to tasks");
    for (const auto& [key, value] : models->entries) t.models[key.text] = Scores(path, value, "models." + key.text);
  }
  return t;
}

Thresholds BuiltInThresholds() {
  return LoadThresholds((std::filesystem::path(EvalDataDir()) / "thresholds.yaml").string());
}

ThresholdRule ResolveThreshold(const Thresholds& t, const std::string& prefix, const std::string& task,
                               double fallback) {
  if (!prefix.empty() && prefix != "unknown") {
    if (const auto m = t.models.find(prefix); m != t.models.end()) {
      if (const auto v = m->second.find(task); v != m->second.end()) return {v->second, "models." + prefix};
    }
  }
  if (const auto v = t.defaults.find(task); v != t.defaults.end()) return {v->second, "default"};
  return {fallback, "min-score"};
}

GateVerdict JudgeResults(const Json& file, const Thresholds& thresholds, const std::string& prefix) {
  GateVerdict v;
  const auto results = file.find("results");
  if (results != file.end() && results->is_object()) {
    for (const auto& [task, metrics] : results->items()) {
      if (!metrics.is_object()) continue;
      const ThresholdRule rule = ResolveThreshold(thresholds, prefix, task);
      for (const auto& [name, value] : metrics.items()) {
        if (name.rfind("exact_match,", 0) != 0 || name.find("stderr") != std::string::npos) continue;
        if (!value.is_number()) continue;
        GateCheck c{task, name, value.get<double>(), rule, true};
        c.passed = !(c.score < rule.value);
        if (!c.passed) v.failures.push_back(FailureText(c, prefix));
        v.checks.push_back(std::move(c));
      }
    }
  }
  if (v.checks.empty()) v.failures.push_back("no exact_match score in the results to check against a threshold");
  v.passed = v.failures.empty();
  return v;
}

std::string FailureText(const GateCheck& c, const std::string& prefix) {
  const std::string threshold = ThresholdText(c.rule.value);
  char score[32];
  std::snprintf(score, sizeof score, "%.2f", c.score);
  // Two decimals unless they would round the score up to the threshold.
  if (std::round(c.score * 100) / 100 >= c.rule.value) std::snprintf(score, sizeof score, "%.4f", c.score);
  const std::string filter = c.metric.substr(c.metric.find(',') + 1);
  std::string source = c.rule.source;
  if (source.rfind("models.", 0) == 0) {
    source = source.substr(7);
  } else if (source == "default" && !prefix.empty() && prefix != "unknown") {
    source = "default, " + prefix + " has no override";
  }
  return c.task + (filter == "strict-match" ? "" : " " + filter) + " " + score + " < " + threshold + " (" + source +
         ")";
}

}  // namespace infermark::eval

// Site file reader: every key is known or an error, as the catalog readers are.
#include "runner/site_config.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/field_reader.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

bool StringKey(const ReadContext& ctx, const YamlNode& key, const std::string& parent) {
  if (key.kind == YamlKind::kString) return true;
  ctx.Report(&key, parent, "keys must be strings, got " + std::string(key.TypeName()) + " ('" + key.text + "')");
  return false;
}

void ReadDefaults(const ReadContext& ctx, const YamlNode& node, SiteDefaults& d) {
  FieldReader r(ctx, node, "defaults");
  if (!r.ok()) return;
  if (auto v = r.Int("port", Need::kDefaulted, 1)) {
    if (*v > 65535) {
      ctx.Report(r.Get("port"), "defaults.port", "must be a TCP port (1-65535)");
    } else {
      d.port = static_cast<int>(*v);
    }
  }
  auto positive = [&](std::string_view key, double& out) {
    if (auto v = r.Float(key, Need::kDefaulted)) {
      if (*v <= 0) {
        ctx.Report(r.Get(key), r.PathOf(key), "must be greater than 0");
      } else {
        out = *v;
      }
    }
  };
  positive("startup-timeout-s", d.startup_timeout_s);
  positive("row-timeout-s", d.row_timeout_s);
  positive("stop-grace-s", d.stop_grace_s);
  positive("time-scale", d.time_scale);
  if (auto v = r.String("result-dir", Need::kDefaulted, 1)) d.result_dir = *v;
  if (auto v = r.String("database", Need::kDefaulted, 1)) d.database = *v;
  if (auto v = r.Int("prompts-per-conc", Need::kDefaulted, 1)) d.num_prompts_per_conc = static_cast<int>(*v);
  if (auto v = r.Int("warmups-per-conc", Need::kDefaulted, 0)) d.warmups_per_conc = static_cast<int>(*v);
  if (auto v = r.String("runner-name", Need::kDefaulted, 1)) d.runner_name = *v;
  if (auto v = r.String("agentic-traces", Need::kDefaulted, 1)) d.agentic_traces = *v;
  positive("agentic-duration-s", d.agentic_duration_s);
  if (auto v = r.Bool("pin-cpus", Need::kDefaulted)) d.pin_cpus = *v;
  if (auto v = r.Int("repeats", Need::kDefaulted, 1)) {
    if (*v > 1000) {
      ctx.Report(r.Get("repeats"), "defaults.repeats", "must be from 1 to 1000");
    } else {
      d.repeats = static_cast<int>(*v);
    }
  }
  if (auto v = r.Bool("repeat-fresh-server", Need::kDefaulted)) d.repeat_fresh_server = *v;
  r.RejectUnknown();
}

void ReadSlurm(const ReadContext& ctx, const YamlNode& node, const std::string& path, SlurmSpec& s) {
  FieldReader r(ctx, node, path);
  if (!r.ok()) return;
  if (auto v = r.String("partition", Need::kDefaulted, 1)) s.partition = *v;
  if (auto v = r.Int("time-limit-min", Need::kDefaulted, 1)) s.time_limit_min = static_cast<int>(*v);
  if (auto v = r.Int("gpus-per-node", Need::kDefaulted, 0)) s.gpus_per_node = static_cast<int>(*v);
  if (auto v = r.StringList("sbatch-args", Need::kDefaulted)) s.sbatch_args = *v;
  r.RejectUnknown();
}

// The target of a runner entry: exactly one of engine, script, container, command.
void ReadTarget(const ReadContext& ctx, FieldReader& entry, const std::string& path, TargetSpec& t) {
  int kinds = 0;
  if (const YamlNode* n = entry.Mapping("engine", Need::kDefaulted)) {
    ++kinds;
    t.kind = TargetKind::kEngine;
    FieldReader r(ctx, *n, JoinPath(path, "engine"));
    if (auto v = r.String("hardware", Need::kRequired, 1)) t.hardware = *v;
    if (auto v = r.StringList("args", Need::kDefaulted)) t.engine_args = *v;
    if (auto v = r.Choice("router-policy", Need::kDefaulted, {"round-robin", "least-loaded", "kv-aware"}))
      t.router_policy = *v;
    r.RejectUnknown();
  }
  if (const YamlNode* n = entry.Mapping("script", Need::kDefaulted)) {
    ++kinds;
    t.kind = TargetKind::kScript;
    FieldReader r(ctx, *n, JoinPath(path, "script"));
    if (auto v = r.String("dir", Need::kRequired, 1)) t.script_dir = *v;
    r.RejectUnknown();
  }
  if (const YamlNode* n = entry.Mapping("container", Need::kDefaulted)) {
    ++kinds;
    t.kind = TargetKind::kContainer;
    FieldReader r(ctx, *n, JoinPath(path, "container"));
    if (auto v = r.Choice("engine", Need::kRequired, {"docker", "podman", "enroot"})) t.container_engine = *v;
    if (auto v = r.String("image", Need::kDefaulted, 1)) t.image = *v;
    if (auto v = r.String("script-dir", Need::kRequired, 1)) t.script_dir = *v;
    if (auto v = r.StringList("mounts", Need::kDefaulted)) t.mounts = *v;
    if (auto v = r.StringList("args", Need::kDefaulted)) t.container_args = *v;
    r.RejectUnknown();
  }
  if (auto v = entry.StringList("command", Need::kDefaulted, 1)) {
    ++kinds;
    t.kind = TargetKind::kCommand;
    t.command = *v;
  }
  if (kinds != 1) {
    ctx.Report(&entry.node(), path,
               kinds == 0 ? "needs a target: one of engine, script, container, command"
                          : "has more than one target: give exactly one of engine, script, container, command");
  }
}

void ReadRunner(const ReadContext& ctx, const YamlNode& key, const YamlNode& value, SiteConfig& site) {
  const std::string path = JoinPath("runners", key.text);
  FieldReader r(ctx, value, path);
  if (!r.ok()) return;
  RunnerSite runner;
  runner.label = key.text;
  runner.mark = SourceMark{*ctx.file, key.line, key.column};
  if (auto v = r.Choice("executor", Need::kDefaulted, {"local", "slurm"})) {
    runner.executor = *v == "slurm" ? ExecutorKind::kSlurm : ExecutorKind::kLocal;
  }
  ReadTarget(ctx, r, path, runner.target);
  if (const YamlNode* s = r.Mapping("slurm", Need::kDefaulted))
    ReadSlurm(ctx, *s, JoinPath(path, "slurm"), runner.slurm);
  r.RejectUnknown();
  site.runners.push_back(std::move(runner));
}

void ReadModel(const ReadContext& ctx, const YamlNode& key, const YamlNode& value, SiteConfig& site) {
  FieldReader r(ctx, value, JoinPath("models", key.text));
  if (!r.ok()) return;
  ModelSite model;
  model.id = key.text;
  if (auto v = r.String("model", Need::kRequired, 1)) model.builtin = *v;
  if (auto v = r.String("precision", Need::kDefaulted, 1)) model.precision = *v;
  if (auto v = r.String("kv-cache-dtype", Need::kDefaulted, 1)) model.kv_cache_dtype = *v;
  if (auto v = r.String("tokenizer", Need::kDefaulted, 1)) model.tokenizer = *v;
  r.RejectUnknown();
  site.models[model.id] = std::move(model);
}

}  // namespace

const RunnerSite* SiteConfig::FindRunner(const std::string& label) const {
  for (const auto& r : runners) {
    if (r.label == label) return &r;
  }
  return nullptr;
}

const ModelSite* SiteConfig::FindModel(const std::string& model_id) const {
  auto it = models.find(model_id);
  return it == models.end() ? nullptr : &it->second;
}

std::string SiteConfig::Resolve(const std::string& path) const {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir.empty() ? "." : base_dir) / path).lexically_normal().string();
}

SiteConfig ReadSiteConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems) {
  SiteConfig site;
  site.file = doc.file;
  site.base_dir = fs::absolute(fs::path(doc.file)).parent_path().string();
  ReadContext ctx{&doc.file, "", &problems};
  if (doc.root.kind != YamlKind::kMapping) {
    problems.push_back(
        Diagnostic{DocumentMark(doc), "", "", "a site file is a mapping with defaults, runners and models"});
    return site;
  }
  FieldReader top(ctx, doc.root, "");
  if (const YamlNode* d = top.Mapping("defaults", Need::kDefaulted)) ReadDefaults(ctx, *d, site.defaults);
  if (const YamlNode* runners = top.Mapping("runners", Need::kRequired)) {
    for (const auto& [key, value] : runners->entries) {
      if (StringKey(ctx, key, "runners")) ReadRunner(ctx, key, value, site);
    }
  }
  if (const YamlNode* models = top.Mapping("models", Need::kDefaulted)) {
    for (const auto& [key, value] : models->entries) {
      if (StringKey(ctx, key, "models")) ReadModel(ctx, key, value, site);
    }
  }
  top.RejectUnknown();
  return site;
}

SiteConfig LoadSiteConfig(const std::string& path) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  SiteConfig site = ReadSiteConfig(doc, problems);
  if (!problems.empty()) throw InputError(std::move(problems));
  return site;
}

std::string FindSiteFile() {
  if (const char* env = std::getenv("INFERMARK_SITE"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
    const fs::path candidate = dir / "infermark.yaml";
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    if (dir == dir.parent_path()) break;
  }
  return {};
}

}  // namespace infermark::runner

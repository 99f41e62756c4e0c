// Row planning. Engine and command targets: the runner starts the server, waits for it and runs
// `infermark bench serve` with the reference client's flags. Script and container targets: the
// launcher does both, as in an InferenceX workflow, and the runner supervises it.
#include "runner/row_plan.hpp"

#include <unistd.h>

#include <filesystem>
#include <functional>

#include "core/diagnostic.hpp"
#include "matrix/result_filename.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

std::string Str(const Json& row, const char* key) {
  auto it = row.find(key);
  if (it == row.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  return it->dump();
}

long long Int(const Json& row, const char* key, long long fallback) {
  auto it = row.find(key);
  return it != row.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

[[noreturn]] void Fail(const std::string& result_filename, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, result_filename, field, rule});
}

// The built-in engine models three schedulers; other frameworks run as their closest kin.
std::string EngineFramework(const std::string& framework) {
  if (framework.find("sglang") != std::string::npos) return "sglang";
  if (framework.find("trt") != std::string::npos) return "trt";
  return "vllm";
}

std::vector<std::string> ClientArgv(const std::string& infermark, const Json& row, int port, int prompts_per_conc,
                                    int warmups_per_conc, const std::string& result_dir,
                                    const std::string& result_filename, const std::string& tokenizer) {
  const long long conc = Int(row, "conc", 1);
  std::vector<std::string> argv = {infermark,
                                   "bench",
                                   "serve",
                                   "--model",
                                   Str(row, "model"),
                                   "--backend",
                                   "vllm",
                                   "--base-url",
                                   "http://127.0.0.1:" + std::to_string(port),
                                   "--dataset-name",
                                   "random",
                                   "--random-input-len",
                                   Str(row, "isl"),
                                   "--random-output-len",
                                   Str(row, "osl"),
                                   "--random-range-ratio",
                                   "0.8",
                                   "--num-prompts",
                                   std::to_string(conc * prompts_per_conc),
                                   "--max-concurrency",
                                   std::to_string(conc),
                                   "--request-rate",
                                   "inf",
                                   "--ignore-eos",
                                   "--save-result",
                                   "--num-warmups",
                                   std::to_string(conc * warmups_per_conc),
                                   "--percentile-metrics",
                                   "ttft,tpot,itl,e2el",
                                   "--result-dir",
                                   result_dir,
                                   "--result-filename",
                                   result_filename + ".json"};
  if (!tokenizer.empty()) {
    argv.push_back("--tokenizer");
    argv.push_back(tokenizer);
  }
  return argv;
}

std::vector<std::string> EngineArgv(const std::string& infermark, const Json& row, const TargetSpec& target,
                                    const ModelSite* model, const std::string& tokenizer, int port, double time_scale) {
  const std::string precision =
      model != nullptr && !model->precision.empty() ? model->precision : Str(row, "precision");
  std::vector<std::string> argv = {infermark,
                                   "engine",
                                   "serve",
                                   "--model",
                                   model != nullptr ? model->builtin : Str(row, "model"),
                                   "--hardware",
                                   target.hardware,
                                   "--tp",
                                   Str(row, "tp"),
                                   "--ep",
                                   std::to_string(Int(row, "ep", 1)),
                                   "--precision",
                                   precision,
                                   "--kv-cache-dtype",
                                   model != nullptr ? model->kv_cache_dtype : "auto",
                                   "--framework",
                                   EngineFramework(Str(row, "framework")),
                                   "--port",
                                   std::to_string(port)};
  if (row.contains("dp-attn") && row["dp-attn"].is_boolean() && row["dp-attn"].get<bool>()) argv.push_back("--dp-attn");
  if (row.contains("max-model-len")) {
    argv.push_back("--max-model-len");
    argv.push_back(Str(row, "max-model-len"));
  }
  if (Str(row, "spec-decoding") == "mtp") {
    argv.push_back("--spec-decoding");
    argv.push_back("mtp");
  }
  // Clients name the model as the row does; the engine answers to that name.
  argv.push_back("--served-model-name");
  argv.push_back(Str(row, "model"));
  if (!tokenizer.empty()) {
    argv.push_back("--tokenizer");
    argv.push_back(tokenizer);
  }
  if (time_scale != 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", time_scale);
    argv.push_back("--time-scale");
    argv.push_back(buf);
  }
  argv.insert(argv.end(), target.engine_args.begin(), target.engine_args.end());
  return argv;
}

// Container names must be short and stable per row: the stem's hash.
std::string ContainerName(const std::string& stem) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "infermark-%016zx", std::hash<std::string>{}(stem));
  return buf;
}

}  // namespace

std::string SelfExecutable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("infermark") : self.string();
}

std::string FindLauncherScript(const std::string& dir, const Json& row) {
  std::string gpu = Str(row, "runner");
  if (gpu.rfind("cluster:", 0) == 0) gpu = gpu.substr(8);
  gpu = gpu.substr(0, gpu.find('-'));
  std::string exp = Str(row, "exp-name");
  exp = exp.substr(0, exp.find('_'));
  const bool agentic = Str(row, "scenario-type") == "agentic-coding";
  const std::string subdir = agentic ? "agentic/" : "fixed_seq_len/";
  const std::string mtp = Str(row, "spec-decoding") == "mtp" ? "_mtp" : "";
  const std::string base = exp + "_" + Str(row, "precision") + "_" + gpu;
  std::error_code ec;
  for (const std::string& name : {base + "_" + Str(row, "framework") + mtp + ".sh", base + mtp + ".sh"}) {
    for (const std::string& rel : {subdir + name, name}) {
      const fs::path p = fs::path(dir) / rel;
      if (fs::is_regular_file(p, ec)) return fs::absolute(p).lexically_normal().string();
    }
  }
  return {};
}

std::vector<std::string> ContainerArgv(const TargetSpec& target, const std::string& image, const std::string& name,
                                       const std::string& script_dir, const std::string& script_rel,
                                       const std::string& result_dir, const std::string& infermark,
                                       const EnvList& env) {
  const std::string in_script = "/infermark/scripts/" + script_rel;
  std::vector<std::string> mounts = {result_dir + ":/workspace", script_dir + ":/infermark/scripts:ro",
                                     infermark + ":/usr/local/bin/infermark:ro"};
  mounts.insert(mounts.end(), target.mounts.begin(), target.mounts.end());
  std::vector<std::string> argv;
  if (target.container_engine == "enroot") {
    // enroot runs the container's processes as ordinary children: the process group holds them.
    argv = {"enroot", "start", "--rw"};
    for (const auto& m : mounts) {
      argv.push_back("--mount");
      argv.push_back(m.substr(0, m.size() - (m.size() >= 3 && m.compare(m.size() - 3, 3, ":ro") == 0 ? 3 : 0)));
    }
    for (const auto& [k, v] : env) {
      argv.push_back("--env");
      argv.push_back(k + "=" + v);
    }
  } else {
    argv = {target.container_engine, "run",        "--rm",      "--init",    "--name", name,
            "--network=host",        "--ipc=host", "--workdir", "/workspace"};
    for (const auto& m : mounts) {
      argv.push_back("--volume");
      argv.push_back(m);
    }
    for (const auto& [k, v] : env) {
      argv.push_back("--env");
      argv.push_back(k + "=" + v);
    }
  }
  argv.insert(argv.end(), target.container_args.begin(), target.container_args.end());
  argv.push_back(image);
  argv.push_back("bash");
  argv.push_back(in_script);
  return argv;
}

RowPlan PlanRow(const Json& row, const SiteConfig& site, const PlanOptions& options) {
  RowPlan plan;
  plan.label = Str(row, "runner");
  const std::string runner_name = !options.runner_name.empty()         ? options.runner_name
                                  : !site.defaults.runner_name.empty() ? site.defaults.runner_name
                                                                       : matrix::DefaultRunnerName();
  try {
    plan.result_filename = matrix::ResultFilename(row, runner_name);
  } catch (const std::exception& e) {
    Fail("", "row", std::string("not a matrix row: ") + e.what());
  }
  const RunnerSite* runner = site.FindRunner(plan.label);
  if (runner == nullptr) {
    Fail(plan.result_filename, "runner",
         "runner label '" + plan.label + "' has no entry under runners: in the site file" +
             (site.file.empty() ? std::string() : " (" + site.file + ")"));
  }
  plan.kind = runner->target.kind;
  plan.executor = runner->executor;
  const std::string result_dir =
      site.Resolve(options.result_dir.empty() ? site.defaults.result_dir : options.result_dir);
  plan.result_dir = fs::absolute(result_dir).lexically_normal().string();
  plan.result_path = (fs::path(plan.result_dir) / (plan.result_filename + ".json")).string();
  plan.state_path = (fs::path(plan.result_dir) / (plan.result_filename + ".row.json")).string();
  plan.log_dir = (fs::path(plan.result_dir) / "logs" / plan.result_filename).string();
  plan.port = options.port.value_or(site.defaults.port);
  const std::string infermark = options.infermark.empty() ? SelfExecutable() : options.infermark;
  const int ppc = options.prompts_per_conc.value_or(site.defaults.num_prompts_per_conc);
  const int wpc = options.warmups_per_conc.value_or(site.defaults.warmups_per_conc);

  LaunchContext ctx;
  ctx.runner_name = runner_name;
  ctx.result_filename = plan.result_filename;
  ctx.result_dir = plan.result_dir;
  ctx.port = plan.port;
  ctx.infermark = infermark;
  ctx.prompts_per_conc = ppc;
  ctx.warmups_per_conc = wpc;
  plan.env = LaunchEnvironment(row, ctx);
  const ModelSite* model = site.FindModel(Str(row, "model"));
  // A tokenizer path in the site file is relative to it; an HF id stays as written.
  std::string tokenizer;
  if (model != nullptr && !model->tokenizer.empty()) {
    const std::string resolved = site.Resolve(model->tokenizer);
    std::error_code exists_ec;
    tokenizer = fs::exists(resolved, exists_ec) ? resolved : model->tokenizer;
  }
  const TargetSpec& target = runner->target;
  plan.server.log_path = (fs::path(plan.log_dir) / "server.log").string();
  plan.server_log = plan.server.log_path;
  plan.server.env = plan.env;
  plan.server.cwd = plan.result_dir;

  switch (target.kind) {
    case TargetKind::kEngine: {
      plan.time_scale = options.time_scale.value_or(site.defaults.time_scale);
      if (model == nullptr) {
        Fail(plan.result_filename, "model",
             "model '" + Str(row, "model") +
                 "' has no entry under models: in the site file (the built-in engine "
                 "needs its built-in model)");
      }
      plan.server.argv = EngineArgv(infermark, row, target, model, tokenizer, plan.port, plan.time_scale);
      break;
    }
    case TargetKind::kCommand:
      for (const auto& a : target.command) plan.server.argv.push_back(ExpandVariables(a, plan.env));
      break;
    case TargetKind::kScript:
    case TargetKind::kContainer: {
      const std::string dir = site.Resolve(target.script_dir);
      const std::string script = FindLauncherScript(dir, row);
      if (script.empty()) {
        Fail(plan.result_filename, "runner",
             "no launcher script for this row in '" + dir + "' (looked for " +
                 Str(row, "exp-name").substr(0, Str(row, "exp-name").find('_')) + "_" + Str(row, "precision") +
                 "_<gpu>[_" + Str(row, "framework") + "].sh)");
      }
      // The script's own output goes to launcher.log; its server writes RESULT_DIR/server.log,
      // which the runner moves into the row's log folder afterwards.
      plan.server.log_path = (fs::path(plan.log_dir) / "launcher.log").string();
      plan.server_log = (fs::path(plan.result_dir) / "server.log").string();
      if (target.kind == TargetKind::kScript) {
        plan.server.argv = {"bash", script};
      } else {
        const std::string image = target.image.empty() ? Str(row, "image") : target.image;
        const std::string name = ContainerName(plan.result_filename);
        EnvList inside = plan.env;
        for (auto& [k, v] : inside) {
          if (k == "RESULT_DIR") v = "/workspace";
          if (k == "INFERMARK") v = "/usr/local/bin/infermark";
        }
        const std::string rel = fs::relative(script, fs::absolute(dir)).string();
        plan.server.argv =
            ContainerArgv(target, image, name, fs::absolute(dir).string(), rel, plan.result_dir, infermark, inside);
        // docker/podman containers belong to a daemon, not to the process group.
        if (target.container_engine != "enroot") plan.cleanup = {target.container_engine, "rm", "-f", name};
      }
      break;
    }
  }
  if (target.kind == TargetKind::kEngine || target.kind == TargetKind::kCommand) {
    SpawnSpec client;
    client.argv = ClientArgv(infermark, row, plan.port, ppc, wpc, plan.result_dir, plan.result_filename, tokenizer);
    client.log_path = (fs::path(plan.log_dir) / "client.log").string();
    client.cwd = plan.result_dir;
    plan.client = std::move(client);
  }
  return plan;
}

}  // namespace infermark::runner

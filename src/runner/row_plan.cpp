// Row planning. Engine and command targets: the runner starts the server, waits for it and runs
// `infermark bench serve` with the reference client's flags. Script and container targets: the
// launcher does both, as in an InferenceX workflow, and the runner supervises it.
#include "runner/row_plan.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "core/diagnostic.hpp"
#include "gpu/nvml.hpp"
#include "matrix/result_filename.hpp"
#include "results/point_details.hpp"
#include "runner/cpu_split.hpp"
#include "runner/row_agentic_client.hpp"
#include "runner/row_client.hpp"
#include "runner/row_disagg.hpp"
#include "runner/row_engine.hpp"
#include "runner/worker_placement.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const std::string& result_filename, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, result_filename, field, rule});
}

// The result file name, the files and folders of a row under `result_dir`.
void SetPaths(RowPlan& plan, const matrix::MatrixRow& row, const std::string& runner_name,
              const std::string& result_dir) {
  try {
    plan.result_filename = matrix::ResultFilename(row.raw, runner_name);
  } catch (const std::exception& e) {
    Fail("", "row", std::string("not a matrix row: ") + e.what());
  }
  plan.result_dir = fs::absolute(result_dir).lexically_normal().string();
  plan.result_path = (fs::path(plan.result_dir) / (plan.result_filename + ".json")).string();
  plan.state_path = (fs::path(plan.result_dir) / (plan.result_filename + ".row.json")).string();
  plan.log_dir = (fs::path(plan.result_dir) / "logs" / plan.result_filename).string();
}

// The tokenizer the site names for a model: a path relative to the site file, or an HF id as written.
std::string SiteTokenizer(const SiteConfig& site, const ModelSite* model) {
  if (model == nullptr || model->tokenizer.empty()) return {};
  const std::string resolved = site.Resolve(model->tokenizer);
  std::error_code ec;
  return fs::exists(resolved, ec) ? resolved : model->tokenizer;
}

const ModelSite& EngineModel(const SiteConfig& site, const matrix::MatrixRow& row, const std::string& stem) {
  const ModelSite* model = site.FindModel(row.model);
  if (model == nullptr) {
    Fail(stem, "model",
         "model '" + row.model +
             "' has no entry under models: in the site file (the built-in engine needs its built-in model)");
  }
  return *model;
}

// Container names must be short and stable per row: the stem's hash.
std::string ContainerName(const std::string& stem) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "infermark-%016zx", std::hash<std::string>{}(stem));
  return buf;
}

// A multi-node row: its allocation, its points, and for the built-in engine each role's
// deployment. Launcher scripts get the allocation's layout on top of the multi-node contract.
void PlanMultiNode(RowPlan& plan, const matrix::MatrixRow& row, const SiteConfig& site, const RunnerSite& runner,
                   const PlanOptions& options, const std::string& tokenizer, int ppc, int wpc) {
  MultiNodePlan m;
  m.gpus_per_node = runner.slurm.gpus_per_node > 0 ? runner.slurm.gpus_per_node : 8;
  try {
    m.allocation.nodes = PlacementNodes(row, m.gpus_per_node);
  } catch (const std::invalid_argument& e) {
    Fail(plan.result_filename, "prefill", e.what());
  }
  m.allocation.job_name = "infermark_" + plan.label;
  m.allocation.partition = runner.slurm.partition;
  m.allocation.time_limit_min = runner.slurm.time_limit_min;
  m.allocation.extra_args = runner.slurm.sbatch_args;
  m.prefill_gpus = row.prefill->num_worker * row.prefill->tp;
  m.decode_gpus = row.decode->num_worker * row.decode->tp;
  const TargetSpec& target = runner.target;
  if (target.kind == TargetKind::kEngine) {
    const perfmodel::DisaggOptions d =
        RowDisaggDeployment(row, target.hardware, EngineModel(site, row, plan.result_filename));
    MultiNodeEngine e;
    e.prefill = d.prefill;
    e.decode = d.decode;
    e.served_name = row.model;
    e.tokenizer = tokenizer;
    e.kv_transfer = d.kv_transfer;
    e.router_policy = target.router_policy;
    e.time_scale = plan.time_scale;
    e.extra_args = target.engine_args;
    m.engine = std::move(e);
  } else if (target.kind != TargetKind::kScript) {
    Fail(plan.result_filename, "runner",
         "a multi-node row runs the built-in engine per role or a launcher script; label '" + plan.label +
             "' has a container or command target");
  }
  for (const int conc : row.conc) {
    MultiNodePoint p;
    p.conc = conc;
    p.result_filename = MultiNodePointStem(plan.result_filename, conc, m.prefill_gpus, m.decode_gpus);
    p.result_path = (fs::path(plan.result_dir) / (p.result_filename + ".json")).string();
    if (m.engine) {
      matrix::MatrixRow one = row;
      one.conc = {conc};
      p.client_config = RowClientConfig(one, "http://127.0.0.1:" + std::to_string(plan.port), ppc, wpc, plan.result_dir,
                                        p.result_filename, tokenizer);
      ApplyClientOptions(*p.client_config, options);
      p.client_config->timeline_path =
          (fs::path(plan.log_dir) / ("requests_conc" + std::to_string(conc) + ".timeline.jsonl")).string();
      SpawnSpec client;
      client.argv = BenchServeArgv(options.infermark.empty() ? SelfExecutable() : options.infermark, *p.client_config);
      client.log_path = (fs::path(plan.log_dir) / ("client_conc" + std::to_string(conc) + ".log")).string();
      client.cwd = plan.result_dir;
      p.client = std::move(client);
    }
    m.points.push_back(std::move(p));
  }
  plan.multinode = std::move(m);
}

// The launcher script for `row` in `dir` (FindLauncherScript); a row without one fails, naming
// the folder and the names looked for.
std::string LauncherScript(const std::string& dir, const matrix::MatrixRow& row, const std::string& result_filename) {
  const std::string script = FindLauncherScript(dir, row);
  if (script.empty()) {
    Fail(result_filename, "runner",
         "no launcher script for this row in '" + dir + "' (looked for " +
             row.exp_name.substr(0, row.exp_name.find('_')) + "_" + row.precision + "_<gpu>[_" + row.framework +
             "].sh)");
  }
  return script;
}

// A row's part in an eval batch of its configuration's rows (PlanRows).
struct RowEvalBatch {
  std::vector<int> concs;  // what the row evaluates: the batch's concurrencies, or none
  std::string dir;         // the batch's folder
  std::string run_by;      // the RESULT_FILENAME of the row that runs the batch when it is another
};

// The eval step of an eval row at its target: in process for command targets, by the launcher
// for scripts and containers, not run for the built-in engine.
EvalPlan PlanEval(const matrix::MatrixRow& row, const RowPlan& plan, const TargetSpec& target,
                  const PlanOptions& options, const RowEvalBatch* batch) {
  EvalPlan e;
  e.own_concs = EvalConcs(row);
  e.concs = batch != nullptr ? batch->concs : e.own_concs;
  e.dir = batch != nullptr ? batch->dir : (fs::path(plan.result_dir) / "evals" / plan.result_filename).string();
  if (batch != nullptr) e.batched_with = batch->run_by;
  e.only = IsEvalOnlyRow(row);
  e.max_model_len = EvalMaxModelLen(row);
  e.limit = options.eval_limit;
  e.model = row.model;
  e.model_prefix = row.model_prefix;
  e.thresholds = options.eval_thresholds;
  switch (target.kind) {
    case TargetKind::kEngine:
      e.not_run = kEngineNotRun;
      e.server = "built-in engine";
      break;
    case TargetKind::kCommand:
      e.in_process = true;
      e.server = "command " + (plan.server.argv.empty() ? std::string() : plan.server.argv.front());
      break;
    case TargetKind::kScript:
    case TargetKind::kContainer:
      e.server = std::string(target.kind == TargetKind::kScript ? "launcher script " : "container launcher script ") +
                 (plan.server.argv.empty() ? std::string() : plan.server.argv.back());
      break;
  }
  return e;
}

}  // namespace

std::string SelfExecutable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("infermark") : self.string();
}

std::string RunnerName(const SiteConfig& site, const PlanOptions& options) {
  if (!options.runner_name.empty()) return options.runner_name;
  if (!site.defaults.runner_name.empty()) return site.defaults.runner_name;
  return matrix::DefaultRunnerName();
}

std::string FindLauncherScript(const std::string& dir, const matrix::MatrixRow& row) {
  const std::string subdir = row.Agentic() ? "agentic/" : "fixed_seq_len/";
  const std::string mtp = row.spec_decoding == "mtp" ? "_mtp" : "";
  std::string base = LauncherRecipe(row);
  base.resize(base.size() - mtp.size());
  std::error_code ec;
  for (const std::string& name : {base + "_" + row.framework + mtp + ".sh", base + mtp + ".sh"}) {
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

namespace {

// How often the row's point is measured and how: the client's repeats back to back against one
// server (its `bench serve --repeats`, with the sweep's host retries for each repeat), or the row run
// again per repeat. Agentic rows (their own client) and multi-node rows measure once.
void PlanRepeats(RowPlan& plan, const SiteConfig& site, const PlanOptions& options) {
  const int repeats = options.repeats.value_or(site.defaults.repeats);
  if (repeats <= 1 || plan.agentic_config || plan.multinode) return;
  plan.repeats = repeats;
  plan.repeat_fresh_server = options.repeat_fresh_server.value_or(site.defaults.repeat_fresh_server) ||
                             plan.kind == TargetKind::kScript || plan.kind == TargetKind::kContainer;
  if (plan.repeat_fresh_server || !plan.client) return;
  plan.client->argv.insert(plan.client->argv.end(), {"--repeats", std::to_string(repeats)});
  if (options.host_retries > 0) {
    plan.client->argv.insert(plan.client->argv.end(), {"--host-retries", std::to_string(options.host_retries)});
  }
}

// PlanRow, for a row with its part in an eval batch (or none: null).
RowPlan PlanRowIn(const matrix::MatrixRow& row, const SiteConfig& site, const PlanOptions& options,
                  const RowEvalBatch* batch) {
  RowPlan plan;
  plan.label = row.runner;
  const std::string runner_name = RunnerName(site, options);
  SetPaths(plan, row, runner_name,
           site.Resolve(options.result_dir.empty() ? site.defaults.result_dir : options.result_dir));
  const RunnerSite* runner = site.FindRunner(plan.label);
  if (runner == nullptr) {
    Fail(plan.result_filename, "runner",
         "runner label '" + plan.label + "' has no entry under runners: in the site file" +
             (site.file.empty() ? std::string() : " (" + site.file + ")"));
  }
  plan.kind = runner->target.kind;
  plan.executor = runner->executor;
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
  ctx.min_prompts = options.min_prompts.value_or(0);
  ctx.eval_limit = options.eval_limit;
  if (batch != nullptr) {
    ctx.eval_batch_concs.assign(batch->concs.begin(), batch->concs.end());
    ctx.eval_batch_dir = batch->dir;
    ctx.eval_elsewhere = !batch->run_by.empty();
  }
  plan.env = LaunchEnvironment(row.raw, ctx);
  const std::string tokenizer = SiteTokenizer(site, site.FindModel(row.model));
  const TargetSpec& target = runner->target;
  plan.server.log_path = (fs::path(plan.log_dir) / "server.log").string();
  plan.server_log = plan.server.log_path;
  plan.server.env = plan.env;
  plan.server.cwd = plan.result_dir;

  // Power telemetry: the built-in engine uses no GPU, so it samples only when asked.
  if (options.gpu_telemetry.value_or(target.kind != TargetKind::kEngine && gpu::NvmlSeesGpu())) {
    RowTelemetry t;
    t.csv = (fs::path(plan.log_dir) / "gpu_metrics.runner.csv").string();
    t.launcher_csv = (fs::path(plan.log_dir) / "gpu_metrics.csv").string();
    t.interval_s = options.gpu_telemetry_interval_s;
    t.expected_num_gpus = static_cast<long long>(row.tp) * row.raw.value("pp", 1LL) * row.raw.value("pcp-size", 1LL);
    t.agentic = row.Agentic();
    t.require_power = options.require_power;
    plan.env.emplace_back("GPU_METRICS_CSV", t.launcher_csv);
    plan.server.env = plan.env;
    plan.telemetry = std::move(t);
  }

  if (IsMultiNodeRow(row)) {
    if (target.kind == TargetKind::kEngine) {
      plan.time_scale = options.time_scale.value_or(site.defaults.time_scale);
    } else if (target.kind == TargetKind::kScript) {
      const std::string dir = site.Resolve(target.script_dir);
      const std::string script = LauncherScript(dir, row, plan.result_filename);
      plan.server.argv = {"bash", script};
      plan.server.log_path = (fs::path(plan.log_dir) / "launcher.log").string();
    }
    PlanMultiNode(plan, row, site, *runner, options, tokenizer, ppc, wpc);
    if (IsEvalRow(row)) plan.eval = PlanEval(row, plan, target, options, batch);
    if (plan.multinode->engine) {
      // The deployment on the nodes an allocation would hold (what --dry-run shows); the run
      // places it again, the same way, on the nodes Slurm grants.
      const MultiNodePlan& m = *plan.multinode;
      plan.server.log_path = (fs::path(plan.log_dir) / "router.log").string();
      const WorkerPlacement placement = PlaceWorkers(row, m.gpus_per_node, PlannedNodeNames(m.allocation.nodes));
      plan.planned_launch = PlanMultiNodeLaunch(infermark, *m.engine, placement, plan.port, plan.log_dir,
                                                plan.server.log_path, [](const std::string& node) { return node; });
      plan.server.argv = plan.planned_launch->router.argv;
      plan.client = m.points.front().client;
      plan.client_config = m.points.front().client_config;
    }
    plan.server_log = plan.server.log_path;
    return plan;
  }

  // The built-in engine and its client each on their own CPUs; a command target is a real server
  // with its own threading, which the runner leaves where the OS puts it.
  const std::optional<CpuSplit> split =
      target.kind == TargetKind::kEngine ? SplitCpus(options.host_cpus) : std::nullopt;
  switch (target.kind) {
    case TargetKind::kEngine: {
      plan.time_scale = options.time_scale.value_or(site.defaults.time_scale);
      plan.deployment = RowDeployment(row, target.hardware, EngineModel(site, row, plan.result_filename));
      std::vector<std::string> extra = target.engine_args;
      if (split && std::find(extra.begin(), extra.end(), "--cpus") == extra.end()) {
        extra.push_back("--cpus");
        extra.push_back(CpuListText(split->engine));
      }
      plan.server.argv =
          EngineServeArgv(infermark, *plan.deployment, row.model, tokenizer, plan.port, plan.time_scale, extra);
      break;
    }
    case TargetKind::kCommand: {
      // An eval-only row's server starts with the eval's context (InferenceX's setup_eval_context),
      // which a command sees as MAX_MODEL_LEN; a script chooses for itself (EVAL_MAX_MODEL_LEN).
      EnvList env = plan.env;
      if (IsEvalOnlyRow(row)) env.emplace_back("MAX_MODEL_LEN", std::to_string(EvalMaxModelLen(row)));
      for (const auto& a : target.command) plan.server.argv.push_back(ExpandVariables(a, env));
      plan.server.env = std::move(env);
      break;
    }
    case TargetKind::kScript:
    case TargetKind::kContainer: {
      const std::string dir = site.Resolve(target.script_dir);
      const std::string script = LauncherScript(dir, row, plan.result_filename);
      // The script's own output goes to launcher.log; its server writes RESULT_DIR/server.log,
      // which the runner moves into the row's log folder afterwards.
      plan.server.log_path = (fs::path(plan.log_dir) / "launcher.log").string();
      plan.server_log = (fs::path(plan.result_dir) / "server.log").string();
      if (target.kind == TargetKind::kScript) {
        plan.server.argv = {"bash", script};
      } else {
        const std::string image = target.image.empty() ? row.image : target.image;
        const std::string name = ContainerName(plan.result_filename);
        EnvList inside = plan.env;
        for (auto& [k, v] : inside) {
          if (k == "RESULT_DIR") v = "/workspace";
          if (k == "GPU_METRICS_CSV") v = "/workspace/" + fs::relative(v, plan.result_dir).string();
          if (k == "INFERMARK") v = "/usr/local/bin/infermark";
          if (k == "EVAL_RESULT_DIR") v = "/workspace/" + fs::relative(v, plan.result_dir).string();
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
  if ((target.kind == TargetKind::kEngine || target.kind == TargetKind::kCommand) && row.Agentic()) {
    plan.agentic_config = RowAgenticConfig(
        row, "http://127.0.0.1:" + std::to_string(plan.port), tokenizer,
        site.defaults.agentic_traces.empty() ? std::string() : site.Resolve(site.defaults.agentic_traces),
        options.agentic_duration_s.value_or(site.defaults.agentic_duration_s));
    SpawnSpec client;
    client.argv = BenchAgenticArgv(infermark, *plan.agentic_config, plan.result_dir, plan.result_filename,
                                   (fs::path(plan.log_dir) / "aiperf_artifacts").string(),
                                   (fs::path(plan.log_dir) / results::kRequestTimelineFile).string());
    client.log_path = (fs::path(plan.log_dir) / "client.log").string();
    client.cwd = plan.result_dir;
    client.env = plan.env;  // the aggregate's identity (hw, conc, offload…) comes from the row's contract
    plan.client = std::move(client);
  } else if (target.kind == TargetKind::kEngine || target.kind == TargetKind::kCommand) {
    plan.client_config = RowClientConfig(row, "http://127.0.0.1:" + std::to_string(plan.port), ppc, wpc,
                                         plan.result_dir, plan.result_filename, tokenizer);
    ApplyClientOptions(*plan.client_config, options);
    if (split && target.kind == TargetKind::kEngine) plan.client_config->cpus = split->client;
    // The built-in engine has no weights: its prompts go as the token ids the client drew, since
    // tokenizing their text again is host work no modelled GPU waits for (and at 8k tokens or
    // dozens of prompts at once it outlasts a modelled prefill at a time scale of 10).
    if (target.kind == TargetKind::kEngine) plan.client_config->send_token_ids = true;
    plan.client_config->timeline_path = (fs::path(plan.log_dir) / results::kRequestTimelineFile).string();
    SpawnSpec client;
    client.argv = BenchServeArgv(infermark, *plan.client_config);
    client.log_path = (fs::path(plan.log_dir) / "client.log").string();
    client.cwd = plan.result_dir;
    plan.client = std::move(client);
  }
  if (IsEvalRow(row)) plan.eval = PlanEval(row, plan, target, options, batch);
  PlanRepeats(plan, site, options);
  return plan;
}

}  // namespace

RowPlan PlanRow(const matrix::MatrixRow& row, const SiteConfig& site, const PlanOptions& options) {
  return PlanRowIn(row, site, options, nullptr);
}

std::vector<RowPlan> PlanRows(const std::vector<matrix::MatrixRow>& rows, const SiteConfig& site,
                              const PlanOptions& options) {
  std::vector<RowPlan> plans;
  std::vector<Diagnostic> problems;
  for (const auto& row : rows) {
    try {
      plans.push_back(PlanRow(row, site, options));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  // The rows of an eval batch are planned again knowing their part: the batch's folder is named
  // as the row that runs it would be over the batch's concurrency list (`…_conc64x256_…`).
  const std::vector<EvalBatchRole> roles = EvalBatchRoles(rows);
  const std::string runner_name = RunnerName(site, options);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!roles[i].by) continue;
    const std::size_t by = *roles[i].by;
    Json batch_row = rows[by].raw;
    batch_row["conc"] = roles[by].concs;
    RowEvalBatch batch;
    batch.concs = roles[i].concs;
    batch.dir = (fs::path(plans[by].result_dir) / "evals" / matrix::ResultFilename(batch_row, runner_name)).string();
    if (by != i) batch.run_by = plans[by].result_filename;
    plans[i] = PlanRowIn(rows[i], site, options, &batch);
  }
  return plans;
}

RowPlan PlanPredictedRow(const matrix::MatrixRow& row, const SiteConfig& site, const PlanOptions& options,
                         const std::string& result_dir) {
  RowPlan plan;
  plan.label = row.runner;
  SetPaths(plan, row, RunnerName(site, options), result_dir);
  plan.kind = TargetKind::kEngine;
  plan.deployment = RowDeployment(row, LabelHardware(site, row.runner), EngineModel(site, row, plan.result_filename));
  const int ppc = options.prompts_per_conc.value_or(site.defaults.num_prompts_per_conc);
  const int wpc = options.warmups_per_conc.value_or(site.defaults.warmups_per_conc);
  const std::string tokenizer = SiteTokenizer(site, site.FindModel(row.model));
  if (row.Agentic()) {
    plan.agentic_config = RowAgenticConfig(
        row, "", tokenizer,
        site.defaults.agentic_traces.empty() ? std::string() : site.Resolve(site.defaults.agentic_traces),
        options.agentic_duration_s.value_or(site.defaults.agentic_duration_s));
  } else {
    plan.client_config = RowClientConfig(row, "", ppc, wpc, plan.result_dir, plan.result_filename, tokenizer);
    ApplyClientOptions(*plan.client_config, options);
  }
  const perfmodel::DeploymentOptions& d = *plan.deployment;
  plan.server.argv = {"predict", d.model, d.hardware, d.precision, "tp" + std::to_string(d.tp)};
  return plan;
}

}  // namespace infermark::runner

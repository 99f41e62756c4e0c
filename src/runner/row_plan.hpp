// What running one matrix row means at this site: the processes to start (a server and the
// load client, or a launcher script that runs both), their environment, ports, files and logs.
// Built from the row and the site file alone, so it can be printed (`run --dry-run`), tested and
// turned into a Slurm job script without starting anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agentic/agentic_bench.hpp"
#include "loadgen/bench_config.hpp"
#include "matrix/matrix_row.hpp"
#include "perfmodel/deployment.hpp"
#include "runner/launch_env.hpp"
#include "runner/multinode_launch.hpp"
#include "runner/multinode_plan.hpp"
#include "runner/process_group.hpp"
#include "runner/row_eval.hpp"
#include "runner/site_config.hpp"

namespace infermark::runner {

/// Per-run settings that override the site defaults.
struct PlanOptions {
  std::string result_dir;                    ///< Result folder (empty: the site's).
  std::string runner_name;                   ///< Concrete runner name (empty: the site's, else the host name).
  std::optional<int> port;                   ///< Port override.
  std::optional<double> time_scale;          ///< Built-in engine time scale override.
  std::optional<double> agentic_duration_s;  ///< Agentic rows: profiling seconds instead of the site's or row's.
  std::optional<int> prompts_per_conc;       ///< Prompts per concurrency override.
  std::optional<int> warmups_per_conc;       ///< Warm-ups per concurrency override.
  /// A point sends at least this many prompts (prompts-per-conc × conc otherwise): a median over
  /// two requests at concurrency 1 is one slow request away from any value.
  std::optional<int> min_prompts;
  /// The client's host-error tolerance, percent of each headline figure (bench serve's
  /// --max-host-error-percent; unset: its default, 1).
  std::optional<double> max_host_error_percent;
  std::string infermark;  ///< This binary (client and built-in engine); empty: found via /proc.
  /// GPU power telemetry: on or off for every row; unset: on for launcher scripts, containers and
  /// commands when NVML sees a GPU here, off for the built-in engine (it uses no GPU).
  std::optional<bool> gpu_telemetry;
  double gpu_telemetry_interval_s = 1;    ///< Seconds between the runner's power samples.
  bool require_power = false;             ///< A row whose power is invalid ends INVALID (InferenceX REQUIRE_POWER=1).
  std::optional<std::size_t> eval_limit;  ///< Eval rows: only the first N documents (EVAL_LIMIT).
  std::string eval_thresholds;            ///< Eval rows: thresholds file (empty: data/evals/thresholds.yaml).
  /// CPUs the built-in engine and its client are split over (runner/cpu_split.hpp); empty: no pinning.
  std::vector<int> host_cpus{};
  std::optional<int> repeats;               ///< Measurements of each point (`--repeats`); unset: the site's.
  std::optional<bool> repeat_fresh_server;  ///< A fresh server per repeat; unset: the site's.
  int host_retries = 0;                     ///< The sweep's --host-retries, applied to each repeat.
};

/// GPU power telemetry of a measured row: InferenceX's monitor lifecycle (sampling from before the
/// server starts to after the row ends), then its power aggregation on the row's result.
struct RowTelemetry {
  std::string csv;  ///< The runner's own samples (`<log_dir>/gpu_metrics.runner.csv`).
  std::string
      launcher_csv;       ///< GPU_METRICS_CSV given to the row (`<log_dir>/gpu_metrics.csv`); preferred when written.
  double interval_s = 1;  ///< Seconds between the runner's samples.
  long long expected_num_gpus = 1;  ///< The deployment's GPUs, TP·PP·PCP.
  bool aggregate = true;            ///< Apply the power aggregation to the result.
  /// The result is an agentic aggregate: measure over aiperf's profiling window with InferenceX's
  /// power adapter, in the folder of `launcher_csv` (where the client's aiperf_artifacts/ go).
  bool agentic = false;
  bool require_power = false;  ///< Invalid power makes the row INVALID.
};

/// Everything needed to run one row.
struct RowPlan {
  std::string label;                             ///< Runner label.
  TargetKind kind = TargetKind::kEngine;         ///< Target kind.
  ExecutorKind executor = ExecutorKind::kLocal;  ///< Executor.
  std::string result_filename;                   ///< RESULT_FILENAME stem.
  std::string result_dir;                        ///< Absolute result folder.
  std::string result_path;                       ///< `<result_dir>/<stem>.json`: the client's result file.
  std::string state_path;                        ///< `<result_dir>/<stem>.row.json`: the row's outcome.
  std::string log_dir;                           ///< `<result_dir>/logs/<stem>/`.
  int port = 8888;                               ///< Server port.
  EnvList env;                                   ///< The launcher environment contract.
  SpawnSpec server;                              ///< The server (engine, command) or the launcher (script, container).
  /// The load client when the runner drives it (engine and command targets); scripts run their own.
  std::optional<SpawnSpec> client;
  /// The client's settings (engine and command targets): `client` runs them as `bench serve`, a
  /// predicted row runs them in process.
  std::optional<loadgen::BenchConfig> client_config;
  /// Agentic rows: the replay's settings instead (`client` runs them as `bench agentic`).
  std::optional<agentic::AgenticBenchConfig> agentic_config;
  /// The built-in engine's deployment (engine targets, and every predicted row).
  std::optional<perfmodel::DeploymentOptions> deployment;
  std::optional<RowTelemetry> telemetry;  ///< GPU power telemetry, when the row samples power.
  std::string server_log;                 ///< Log holding the server's output (for markers and warnings).
  std::vector<std::string> cleanup;       ///< argv run after stopping (e.g. `docker rm -f NAME`); empty: none.
  double time_scale = 1;                  ///< Built-in engine time scale (1 for other targets).
  /// Multi-node rows: the allocation, the points and the roles (`server` is then the router, or
  /// the launcher, which runs on the head node).
  std::optional<MultiNodePlan> multinode;
  /// Multi-node rows of the built-in engine: every worker and the router on the nodes an
  /// allocation would hold (PlannedNodeNames), as `run --dry-run` shows them; the run places the
  /// same deployment on the nodes Slurm grants.
  std::optional<MultiNodeLaunch> planned_launch;
  /// Measurements of the point (`--repeats`): 1 for a row measured once, and for agentic and
  /// multi-node rows, whose clients measure once.
  int repeats = 1;
  /// The repeats each on a fresh server: the runner runs the row `repeats` times and combines the
  /// results (runner/row_repeats.hpp); false: the client runs them back to back against one server
  /// (`bench serve --repeats`). Launcher scripts run their own client, so their repeats always
  /// start the launcher again.
  bool repeat_fresh_server = false;
  /// Eval rows (`run-eval` or `eval-only`): the eval step. An eval-only row runs no throughput
  /// point: its client is planned (as `--dry-run` shows) but not started.
  std::optional<EvalPlan> eval;
};

/// Plans `row` at `site`. Throws InputError (naming the row) when its runner label has no entry
/// in the site file, its launcher script cannot be found, or a field it needs is missing.
RowPlan PlanRow(const matrix::MatrixRow& row, const SiteConfig& site, const PlanOptions& options);

/// Plans the rows of a sweep: each as PlanRow does, and the eval rows of one configuration as one
/// batch on one server (EvalBatchRoles): the last of them evaluates every concurrency of the batch
/// into one folder (EVAL_CONC and EVAL_RESULT_DIR say so to a launcher), the others evaluate
/// nothing (RUN_EVAL=false, their own contract otherwise; `eval->batched_with` names the row that
/// runs their eval). Throws
/// InputError listing every row that cannot be planned.
std::vector<RowPlan> PlanRows(const std::vector<matrix::MatrixRow>& rows, const SiteConfig& site,
                              const PlanOptions& options);

/// Plans `row` for the built-in engine's virtual clock: the paths (under `result_dir`), the
/// client settings and the deployment a measured engine row would have, whatever the label's
/// target (its GPU from LabelHardware). Throws InputError as PlanRow does.
RowPlan PlanPredictedRow(const matrix::MatrixRow& row, const SiteConfig& site, const PlanOptions& options,
                         const std::string& result_dir);

/// The concrete runner name in result file names: the options', else the site's, else the host's.
std::string RunnerName(const SiteConfig& site, const PlanOptions& options);

/// Path of the running infermark binary.
std::string SelfExecutable();

/// The launcher script for `row` in `dir`, resolved as InferenceX's launchers do:
/// `<dir>/<scenario subdir><exp prefix>_<precision>_<gpu>_<framework>[_mtp].sh`, else without the
/// framework; empty when neither exists. `<gpu>` is the label without `cluster:` and after-`-` parts.
std::string FindLauncherScript(const std::string& dir, const matrix::MatrixRow& row);

/// The argv that runs `script` inside `image` with `engine` (docker, podman or enroot), the
/// environment passed with -e, the result folder mounted at /workspace and the script folder and
/// infermark binary mounted read-only. `name` names the container (docker/podman).
std::vector<std::string> ContainerArgv(const TargetSpec& target, const std::string& image, const std::string& name,
                                       const std::string& script_dir, const std::string& script_rel,
                                       const std::string& result_dir, const std::string& infermark, const EnvList& env);

}  // namespace infermark::runner

// The site file (`infermark.yaml`): how this site executes matrix rows. Per runner label the
// executor (local or Slurm) and the target that serves the row (the built-in engine modelling a
// GPU, a folder of launcher scripts, a container image, or any command line); per model id the
// built-in model, precision and tokenizer; defaults for ports, timeouts and where results go.
// The InferenceX files stay pure: nothing here is read from or written into them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"

namespace infermark::runner {

/// Where a row's job runs.
enum class ExecutorKind {
  kLocal,  ///< On this machine, one row after another.
  kSlurm,  ///< Each row an sbatch job on a Slurm cluster.
};

/// What serves a row.
enum class TargetKind {
  kEngine,     ///< `infermark engine serve` modelling a GPU.
  kScript,     ///< An InferenceX-style launcher script from a folder, run with bash.
  kContainer,  ///< The launcher script inside a container image (docker, podman or enroot).
  kCommand,    ///< Any server command line (argv; `${VAR}` expands from the row's environment).
};

/// A runner label's target.
struct TargetSpec {
  TargetKind kind = TargetKind::kEngine;    ///< Which of the fields below apply.
  std::string hardware;                     ///< kEngine: GPU the engine models (hardware.yaml name or alias).
  std::vector<std::string> engine_args;     ///< kEngine: extra `engine serve` flags.
  std::string router_policy;                ///< kEngine, multi-node rows: the router's policy (empty: its default).
  std::string script_dir;                   ///< kScript, kContainer: folder holding the launcher scripts.
  std::string image;                        ///< kContainer: image (empty: the row's `image`).
  std::string container_engine;             ///< kContainer: docker, podman or enroot.
  std::vector<std::string> mounts;          ///< kContainer: `HOST:CONTAINER` bind mounts.
  std::vector<std::string> container_args;  ///< kContainer: extra arguments of the engine's run command.
  std::vector<std::string> command;         ///< kCommand: the server's argv.
};

/// Slurm settings of a runner label (`slurm:` in its entry).
struct SlurmSpec {
  std::string partition;                 ///< `--partition` (empty: the cluster's default).
  int time_limit_min = 60;               ///< `--time` of each job, minutes.
  int gpus_per_node = 0;                 ///< `--gres=gpu:N` per node (0: no GPU request).
  std::vector<std::string> sbatch_args;  ///< Extra sbatch arguments, verbatim.
};

/// One runner label's entry.
struct RunnerSite {
  std::string label;                             ///< Runner label (as in runners.yaml).
  ExecutorKind executor = ExecutorKind::kLocal;  ///< Local or Slurm.
  TargetSpec target;                             ///< What serves its rows.
  SlurmSpec slurm;                               ///< Used when executor is kSlurm.
  SourceMark mark;                               ///< Where the entry is written.
};

/// One model id's entry: what the built-in engine serves for it.
struct ModelSite {
  std::string id;                       ///< Model id as the matrix row names it (`amd/MiniMax-M3-MXFP4`).
  std::string builtin;                  ///< Built-in model (data/engine/models name or alias).
  std::string precision;                ///< Engine `--precision` (empty: the row's).
  std::string kv_cache_dtype = "auto";  ///< Engine `--kv-cache-dtype`.
  std::string tokenizer;                ///< Tokenizer for the client (name or tokenizer.json path); empty: none.
};

/// Site-wide defaults (`defaults:`).
struct SiteDefaults {
  int port = 8888;                                ///< Port the server of a row listens on.
  double startup_timeout_s = 900;                 ///< Longest wait for a server to become ready.
  double row_timeout_s = 7200;                    ///< Longest a whole row may take.
  double stop_grace_s = 10;                       ///< SIGTERM to SIGKILL grace when stopping a server.
  std::string result_dir = "results";             ///< Result files, logs and row states.
  std::string database = "results/infermark.db";  ///< Results store.
  double time_scale = 1;                          ///< Built-in engine: modelled hardware runs this many times faster.
  int num_prompts_per_conc = 10;                  ///< Prompts per point = this × concurrency (InferenceX: 10).
  int warmups_per_conc = 2;                       ///< Warm-up requests = this × concurrency (InferenceX: 2).
  std::string runner_name;                        ///< Concrete runner name in result file names (empty: host name).
  /// Agentic rows: the trace corpus (file, folder or HF dataset; empty: the one InferenceX picks).
  std::string agentic_traces;
  /// Agentic rows: seconds of each point's profiling phase instead of the row's DURATION (0: the
  /// row's); under 900 s the points are marked unsafe, as InferenceX marks short runs.
  double agentic_duration_s = 0;
  /// Built-in engine rows: pin the engine and its client to disjoint halves of this host's CPUs
  /// (`pin-cpus`; runner/cpu_split.hpp), so neither delays the other's timing.
  bool pin_cpus = true;
  /// Measurements of each point (`repeats`; `--repeats` wins): each repeat's result is kept and the
  /// point's figures are their medians with 95 % intervals.
  int repeats = 1;
  /// Each repeat on a fresh server (`repeat-fresh-server`; `--repeat-fresh-server` wins) rather
  /// than one server with the repeats back to back.
  bool repeat_fresh_server = false;
};

/// The whole site file.
struct SiteConfig {
  std::string file;                         ///< Path it was read from ("" for built-in defaults).
  std::string base_dir;                     ///< Folder relative paths are taken from.
  SiteDefaults defaults;                    ///< Defaults.
  std::vector<RunnerSite> runners;          ///< By label, in file order.
  std::map<std::string, ModelSite> models;  ///< By model id.

  /// The entry of `label`, or nullptr.
  [[nodiscard]] const RunnerSite* FindRunner(const std::string& label) const;
  /// The entry of `model_id`, or nullptr.
  [[nodiscard]] const ModelSite* FindModel(const std::string& model_id) const;
  /// `path` made absolute against the site file's folder (absolute paths unchanged).
  [[nodiscard]] std::string Resolve(const std::string& path) const;
};

/// Reads a site document strictly (unknown keys, wrong types and bad values are problems with
/// file:line:col and field path), appending every problem found.
SiteConfig ReadSiteConfig(const YamlDocument& doc, std::vector<Diagnostic>& problems);

/// Loads a site file; throws InputError listing every problem.
SiteConfig LoadSiteConfig(const std::string& path);

/// The site file to use when none is given: $INFERMARK_SITE, else `infermark.yaml` in the current
/// folder or the nearest folder above it; empty when there is none.
std::string FindSiteFile();

}  // namespace infermark::runner

// `infermark matrix full-sweep|test-config`: InferenceX's generate_sweep_configs.py, flag for flag,
// printing the identical JSON (or a table, a GitHub Actions matrix, or result file names).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <thread>

#include "catalog/catalog_loader.hpp"
#include "cli/argparse_compat.hpp"
#include "cli/commands.hpp"
#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "core/keep_until_exit.hpp"
#include "core/parallel_chunks.hpp"
#include "matrix/generator.hpp"
#include "matrix/matrix_output.hpp"
#include "matrix/result_filename.hpp"

namespace infermark::cli {
namespace {

struct OutputOptions {
  std::vector<std::string> config_files;
  std::string runner_config;
  std::string format;
  std::string shard;
  std::string runner_name;
};

// Flags every matrix subcommand takes (the reference's parent parser, plus output flags).
void AddCommonFlags(CLI::App* cmd, OutputOptions& out, matrix::CommonOptions& common) {
  cmd->add_option("--config-files", out.config_files,
                  "Master config files (YAML), merged in order; default: the project's recipes/configs/*-master.yaml");
  cmd->add_option("--runner-config", out.runner_config,
                  "runners.yaml (default: configs/runners.yaml, else runners.yaml beside the first config file)");
  auto* no_evals = cmd->add_flag("--no-evals", common.evals.no_evals, "Skip evals (throughput rows only)");
  auto* evals_only =
      cmd->add_flag("--evals-only", common.evals.evals_only, "Emit only the eval rows (marked eval-only)");
  no_evals->excludes(evals_only);
  evals_only->excludes(no_evals);
  cmd->add_flag("--all-evals", common.evals.all_evals,
                "Every 8k1k fixed-sequence row becomes an eval; alone, it also emits eval-only rows")
      ->excludes(no_evals);
  cmd->add_option("--runner-node-filter", common.runner_node_filter,
                  "Expand rows to the concrete runners whose name contains this substring");
  cmd->add_option("--scenario-type", common.scenario_types, "Scenario types to include (default: all)")
      ->check(CLI::IsMember({"fixed-seq-len", "agentic-coding"}));
  cmd->add_option("--format", out.format,
                  "table (default on a terminal), json (the exact InferenceX JSON; default otherwise), github "
                  "({\"include\": [...]}, at most 256 rows), github-outputs (single-node and multi-node matrices as "
                  "NAME=VALUE lines for $GITHUB_OUTPUT), names (one RESULT_FILENAME per row)")
      ->check(CLI::IsMember({"table", "json", "github", "github-outputs", "names"}));
  cmd->add_option("--shard", out.shard, "Emit only part K of N of the rows (K/N), e.g. to split a GitHub matrix");
  cmd->add_option("--runner-name", out.runner_name,
                  "Concrete runner name used in result file names (default: this host's name)");
}

std::string DefaultRunnerConfig(const std::vector<std::string>& config_files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists("configs/runners.yaml", ec)) return "configs/runners.yaml";
  if (!config_files.empty()) {
    const fs::path beside = fs::path(config_files.front()).parent_path() / "runners.yaml";
    if (fs::exists(beside, ec)) return beside.string();
  }
  return "configs/runners.yaml";
}

void Print(const std::vector<Json>& all_rows, const OutputOptions& out) {
  std::vector<Json> shard;
  if (!out.shard.empty()) shard = matrix::SelectShard(all_rows, matrix::ParseShard(out.shard));
  const std::vector<Json>& rows = out.shard.empty() ? all_rows : shard;
  std::string format = out.format;
  if (format.empty()) format = isatty(STDOUT_FILENO) ? "table" : "json";
  std::string text;
  if (format == "json") {
    text = matrix::FormatJson(rows);
  } else if (format == "github") {
    text = matrix::FormatGithub(rows);
  } else if (format == "github-outputs") {
    text = matrix::FormatGithubOutputs(rows);
  } else if (format == "names") {
    const std::string runner = out.runner_name.empty() ? matrix::DefaultRunnerName() : out.runner_name;
    for (const auto& row : rows) text += matrix::ResultFilename(row, runner) + '\n';
  } else {
    text = matrix::FormatTable(rows);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
}

// Config input below which matrix commands run on one thread (see Run).
constexpr std::uintmax_t kSplitInputBytes = std::uintmax_t{4} << 20;
// Cores below which a catalog under kSplitInputBytes is not split at all.
constexpr unsigned kMinSplitCores = 4;

std::uintmax_t InputBytes(const std::vector<std::string>& files) {
  std::uintmax_t total = 0;
  std::error_code ec;
  for (const auto& file : files) {
    const auto size = std::filesystem::file_size(file, ec);
    if (!ec) total += size;
  }
  return total;
}

template <typename Generate>
int Run(OutputOptions out, Generate generate) {
  if (out.config_files.empty()) out.config_files = ProjectMasterConfigs();
  if (out.runner_config.empty()) out.runner_config = DefaultRunnerConfig(out.config_files);
  TuneHeapForInputs(out.config_files);
  // The whole InferenceX catalog (~380 KB): on 2 cores one thread expands it in ~26 ms and two in
  // ~33 (the second thread's start, heap faults and the core it shares with everything else cost
  // more than it saves), while 4 to 16 cores cut it to 22-19 ms (docs/architecture.md, Speed). So
  // a machine of fewer than 4 cores keeps inputs of this size on one thread.
  if (std::thread::hardware_concurrency() < kMinSplitCores && InputBytes(out.config_files) < kSplitInputBytes)
    LimitThreadBudget(1);
  // runners.yaml loads beside the master configs; a master-config error still wins, as it would
  // loading one after the other.
  auto runners_loading = RunAsync(catalog::LoadRunnerConfig, out.runner_config);
  const auto& catalog = KeepUntilExit(catalog::LoadMasterConfigs(out.config_files));
  const auto& runners = KeepUntilExit(runners_loading.get());
  Print(KeepUntilExit(generate(catalog, runners)), out);
  return kExitOk;
}

}  // namespace

namespace {

void AddMatrixCommand(CLI::App& app, CommandResult& result) {
  auto* matrix = app.add_subcommand("matrix", "Expand master configs into benchmark job rows (InferenceX-identical)");
  matrix->require_subcommand(1);

  auto full_out = std::make_shared<OutputOptions>();
  auto full = std::make_shared<matrix::FullSweepOptions>();
  auto* fs = matrix->add_subcommand("full-sweep", "Every config passing the filters");
  AddCommonFlags(fs, *full_out, full->common);
  fs->add_option("--model-prefix", full->model_prefix, "Config key prefixes (matched against the KEY)");
  fs->add_option("--precision", full->precision, "Precisions, e.g. fp4 fp8");
  fs->add_option("--framework", full->framework, "Frameworks, exact: vllm is not vllm-disagg");
  fs->add_option("--runner-type", full->runner_type, "Runner labels (each must exist in runners.yaml)");
  fs->add_option("--seq-lens", full->seq_lens, "Sequence lengths")->check(CLI::IsMember({"1k1k", "8k1k"}));
  fs->add_option("--step-size", full->step_size, "Concurrency multiplier (default 2, > 1)")->transform(PythonInt());
  fs->add_option("--min-conc", full->min_conc, "Drop concurrencies below this")->transform(PythonInt());
  fs->add_option("--max-conc", full->max_conc, "Drop concurrencies above this (a range starting above it runs at it)")
      ->transform(PythonInt());
  fs->add_option("--max-tp", full->max_tp, "Skip single-node entries with a larger TP")->transform(PythonInt());
  fs->add_option("--max-ep", full->max_ep, "Clamp single-node EP to this")->transform(PythonInt());
  fs->add_flag("--single-node", full->single_node, "Only single-node configs (neither flag: both)");
  fs->add_flag("--multi-node", full->multi_node, "Only multi-node configs (neither flag: both)");
  fs->callback([full, full_out, &result] {
    result.exit_code = Run(*full_out, [&](const auto& catalog, const auto& runners) {
      return matrix::GenerateFullSweep(catalog, runners, *full);
    });
  });

  auto test_out = std::make_shared<OutputOptions>();
  auto test = std::make_shared<matrix::TestConfigOptions>();
  auto* tc = matrix->add_subcommand("test-config", "Named config keys (exact or fnmatch globs), concurrency doubling");
  AddCommonFlags(tc, *test_out, test->common);
  tc->add_option("--config-keys", test->config_keys, "Config keys or globs (*, ?, [..])")->required();
  tc->add_option("--conc", test->conc, "Keep only these concurrencies")->transform(PythonInt());
  tc->add_option("--seq-lens", test->seq_lens, "Sequence lengths")->check(CLI::IsMember({"1k1k", "8k1k"}));
  tc->callback([test, test_out, &result] {
    result.exit_code = Run(*test_out, [&](const auto& catalog, const auto& runners) {
      return matrix::GenerateTestConfig(catalog, runners, *test);
    });
  });
}

[[maybe_unused]] const bool kMatrixRegistered = RegisterCommand("matrix", &AddMatrixCommand);

}  // namespace

}  // namespace infermark::cli

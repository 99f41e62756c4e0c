// The Slurm executor: each row becomes one sbatch job that runs `infermark run` on that single
// row on the allocated node(s) (the rows of an eval batch one job, so that their evals share one
// server), writing its result and row state to the shared result folder.
// The submitting process waits for the jobs, collects their states, and reports jobs that
// failed, were cancelled or hit their time limit without a state of their own.
#pragma once

#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "runner/sweep.hpp"

namespace infermark::runner {

/// How the executor talks to Slurm.
struct SlurmSettings {
  double poll_interval_s = 5;         ///< Between job-state queries.
  std::string sbatch = "sbatch";      ///< Program names (PATH lookup), replaceable for tests.
  std::string scontrol = "scontrol";  ///< Job states (works without accounting).
  std::string scancel = "scancel";    ///< Cancels jobs on Ctrl-C.
  std::string run_key;                ///< Store run the jobs add their points to.
  std::string run_label;              ///< Its label.
  bool no_store = false;              ///< Jobs write result files only.
  std::string database;               ///< Results store the jobs write to (shared with the submitter).
};

/// Nodes a row needs: 1 for single-node rows; for multi-node rows the nodes its prefill and
/// decode workers take as PlaceWorkers packs them with the label's gpus-per-node (8 when unset).
int RowNodes(const matrix::MatrixRow& row, const RunnerSite& runner);

/// The sbatch script of one row (`plan`), or of the `rows` rows of an eval batch run by `plan`'s
/// row: resources as #SBATCH lines (job name, nodes, time — the label's limit per row —,
/// partition, GPUs, exclusive, output file), then `infermark run --matrix ROW_FILE` with this
/// sweep's settings and the local executor.
std::string SlurmJobScript(const RowPlan& plan, const RunnerSite& runner, int nodes, const std::string& row_file,
                           const std::string& site_file, const SweepSettings& settings, const SlurmSettings& slurm,
                           int rows = 1);

/// Submits every row that is not complete, one job per row except that the rows of an eval batch
/// (EvalBatchRoles) share one job, whose sweep runs their evals on one server; waits for the jobs
/// (progress lines to `settings.progress`) and returns what each row did.
SweepSummary RunSlurmSweep(const std::vector<matrix::MatrixRow>& rows, const SiteConfig& site,
                           const SweepSettings& settings, const SlurmSettings& slurm);

}  // namespace infermark::runner

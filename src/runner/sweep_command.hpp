// `infermark run` and `infermark sweep` as one function: rows from a matrix file or from config
// keys, the site file, the executor, the store and the report; what happened comes back as a
// summary that the command renders and maps to an exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "matrix/matrix_row.hpp"
#include "matrix/sweep_options.hpp"
#include "runner/result_sink.hpp"
#include "runner/sweep.hpp"

namespace infermark::runner {

/// Flags of `run` and `sweep`.
struct SweepCommandOptions {
  std::string matrix_file;                ///< `--matrix`: rows as JSON (a list, or {"include": [...]}).
  std::vector<std::string> config_keys;   ///< Config keys or globs (test-config selection).
  std::vector<std::string> config_files;  ///< Master configs (the caller fills the project's default).
  std::string runner_config;              ///< runners.yaml.
  std::vector<std::string> seq_lens;      ///< `1k1k`, `8k1k` filter.
  std::vector<std::int64_t> conc;         ///< Concurrency filter.
  std::vector<std::string> tp;            ///< TP filter (values as strings).
  /// Eval rows of config keys, as `matrix test-config` marks them (default: throughput rows plus
  /// the recipe's eval rows; --no-evals, --evals-only, --all-evals). The marking is the recipe's
  /// whole matrix's: the filters above then pick rows from it.
  matrix::EvalOptions evals;
  std::string site_file;         ///< `--site` (empty: FindSiteFile()).
  std::string executor;          ///< `--executor local|slurm` (empty: the site's per label).
  std::string database;          ///< `--database` (empty: the site's).
  double startup_timeout_s = 0;  ///< 0: the site's.
  double row_timeout_s = 0;      ///< 0: the site's.
  bool no_resume = false;        ///< Re-run rows that already have a result.
  int host_retries = 0;          ///< SweepSettings::host_retries.
  bool dry_run = false;          ///< Print the plan of each row and start nothing.
  bool no_store = false;         ///< Result files only: no database, no report.
  std::string report;            ///< Report path (empty: `<result dir>/report.html`).
  std::string run_key;           ///< Store run key (empty: derived from the selection and folder).
  std::string run_label;         ///< Store run label (empty: derived).
  PlanOptions plan;              ///< Result folder, runner name, port, time scale, prompts.
};

/// The rows a command selects (matrix file, or test-config over the catalog), each read once with
/// its fields checked. Throws InputError.
std::vector<matrix::MatrixRow> SelectRows(const SweepCommandOptions& options);

/// Loads the site file named by the options (or found), or the built-in defaults when none exists.
SiteConfig LoadSite(const SweepCommandOptions& options);

/// The report written at the end of a sweep.
struct ReportOutcome {
  std::string path;   ///< Where it was written (or would have been).
  int points = 0;     ///< Points drawn.
  std::string error;  ///< Why it was not written; empty when it was.
};

/// What the command did.
struct SweepCommandSummary {
  std::string result_dir;               ///< Absolute result folder.
  SweepRunInfo store;                   ///< The store run the points went to.
  bool stored = false;                  ///< Points were stored (not --no-store).
  std::vector<RowPlan> dry_run;         ///< --dry-run: every row's plan (nothing ran).
  SweepSummary sweep;                   ///< The rows (empty after a dry run).
  std::optional<ReportOutcome> report;  ///< The report, when one was due.
};

/// The folder results go to: the options', else the site's, absolute.
std::string ResultDir(const SweepCommandOptions& options, const SiteConfig& site);

/// Writes the report of `info`'s run to `path` (failures become the outcome's error).
ReportOutcome WriteReportOnce(const SweepRunInfo& info, const std::string& path);

/// Runs the command: every row stored in the results store as it finishes (one run per sweep),
/// the report written at the end; progress on stderr. Throws InputError for bad input.
SweepCommandSummary RunSweepCommand(const SweepCommandOptions& options);

}  // namespace infermark::runner

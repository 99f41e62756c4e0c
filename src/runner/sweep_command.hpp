// `infermark run` and `infermark sweep` as one function: rows from a matrix file or from config
// keys, the site file, the executor, the summary printed at the end and the exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
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
  std::string site_file;                  ///< `--site` (empty: FindSiteFile()).
  std::string executor;                   ///< `--executor local|slurm` (empty: the site's per label).
  std::string database;                   ///< `--database` (empty: the site's).
  double startup_timeout_s = 0;           ///< 0: the site's.
  double row_timeout_s = 0;               ///< 0: the site's.
  bool no_resume = false;                 ///< Re-run rows that already have a result.
  bool dry_run = false;                   ///< Print the plan of each row and start nothing.
  bool no_store = false;                  ///< Result files only: no database, no report.
  std::string report;                     ///< Report path (empty: `<result dir>/report.html`).
  std::string run_key;                    ///< Store run key (empty: derived from the selection and folder).
  std::string run_label;                  ///< Store run label (empty: derived).
  PlanOptions plan;                       ///< Result folder, runner name, port, time scale, prompts.
};

/// The rows a command selects (matrix file, or test-config over the catalog). Throws InputError.
std::vector<Json> SelectRows(const SweepCommandOptions& options);

/// Loads the site file named by the options (or found), or the built-in defaults when none exists.
SiteConfig LoadSite(const SweepCommandOptions& options);

/// Runs the command: every row stored in the results store as it finishes (one run per sweep),
/// the report written at the end; progress on stderr, the summary on stdout. Returns the exit
/// code (0 all rows complete, 1 a row failed, 128 + signal when stopped).
int RunSweepCommand(const SweepCommandOptions& options);

}  // namespace infermark::runner

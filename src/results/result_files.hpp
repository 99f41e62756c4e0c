// Reading result files into points: client results (the load generator's, InferenceX's client's,
// upstream vLLM's), processed agg records and collected arrays of them, with the provenance fields
// infermark writes into its own result files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "results/point.hpp"
#include "results/process_settings.hpp"

namespace infermark::results {

/// How to read result files.
struct ReadOptions {
  ProcessSettings flags;             ///< Deployment facts given as flags: they win over everything.
  ProcessSettings environment;       ///< Facts from the environment: used where neither flags nor the file say.
  std::optional<PointKind> kind;     ///< Force measured/predicted (default: what the file says, else measured).
  std::optional<double> time_scale;  ///< Force the time scale (default: what the file says, else 1).
  std::string config_key;            ///< Recipe key to record when the file names none.
  /// Thresholds for evaluations whose source names none (eval folders without eval_status.json,
  /// InferenceX-app rows); null: such evaluations get no threshold. Not owned.
  const EvalThresholds* eval_thresholds = nullptr;
};

/// infermark's own fields of a client result, read from an `"infermark": {...}` object or from
/// top-level keys (`metrics_version`, `verdict`, `time_scale`, `predicted`/`kind`, `config_key`,
/// `matrix_row`, `image`, `engine_flags`, `host`, `infermark_version`), plus the benchmark window.
Provenance ReadProvenance(const Json& result);

/// The point for one client result held in memory (the runner's path: no file to read). `raw_text`
/// is kept verbatim. Deployment facts come from, weakest first: `options.environment`, the sweep's
/// row record `<stem>.row.json` beside `path` (if any: its `row`, `time_scale`, `server_argv`), the
/// result's own `infermark.matrix_row`, `options.flags`. Zero TPOTs leave their interactivity out.
/// The row record is the one RowRecordPath finds, so a multi-node point file gets its row's.
Point PointFromClientResult(const std::string& raw_text, const Json& result, const ReadOptions& options,
                            const std::string& path);

/// The point for an agentic aggregate (InferenceX's or infermark's `<RESULT_FILENAME>.json`, or a
/// record `results process` made of one): its processed record (NormalizeAgenticAggregate with
/// aiperf's run `summary`, null when unknown), the verdict from its validity, provenance from the
/// aggregate and the sweep's row record beside `path`. `raw_text` is kept verbatim.
Point PointFromAgenticAggregate(const std::string& raw_text, const Json& aggregate, const Json& summary,
                                const ReadOptions& options, const std::string& path);

/// The repeats of the combined result `result` at `path` (metrics/repeat_result.hpp), read from
/// their files beside it with the combined result's deployment facts (its name, its row record),
/// each with its own verdict, window and processed record; a repeat whose file is gone is left out
/// (the combined record still holds its figures). Empty for a result measured once.
std::vector<PointRepeat> ReadRepeatFiles(const Json& result, const ReadOptions& options, const std::string& path);

/// The points of one file: a client result, an agg record, an agentic aggregate (with aiperf's run
/// summary beside it, ReadAgenticSummaryBeside), or a JSON array of agg records and agentic
/// aggregates. A client result with a sibling `agg_<name>.json` is read from that record (its key
/// and metrics) and keeps its own text as the raw result. Throws InputError naming the file and the
/// problem.
std::vector<Point> ReadResultFile(const std::string& path, const ReadOptions& options);

/// `paths` with folders expanded to the `*.json` files below them (sorted), leaving out power
/// validation sidecars, the sweep's `*.row.json` row records, agentic rows' aiperf artifacts (anything
/// under `aiperf_artifacts/`, `profile_export_aiperf.json`, `server_metrics_export.json`,
/// `inputs.json`, `agentic_power_window.json`), the files of eval folders (IsEvalFolder), and agg
/// records whose client result is in the same
/// folder (the client result is read with its record), and repeats' files (`<stem>.repeat-<k>.json`,
/// spoiled attempts `….attempt-<a>.json`) whose combined `<stem>.json` is in the same folder. Throws InputError for a
/// path that does not exist.
std::vector<std::string> ExpandResultPaths(const std::vector<std::string>& paths);

/// The sweep's row record of result file `path`: `<stem>.row.json` beside it, or for a multi-node
/// point file (`<RESULT_FILENAME>_conc<N>_gpus_…`) its row's `<RESULT_FILENAME>.row.json`; empty
/// when there is none.
std::string RowRecordPath(const std::string& path);

/// True when `doc` looks like a processed agg record (has `hw` and `tput_per_gpu`).
bool IsAggRecord(const Json& doc);

}  // namespace infermark::results

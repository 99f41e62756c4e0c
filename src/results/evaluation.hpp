// One stored accuracy evaluation: the configuration it ran on (keyed as a throughput point is, so
// that it links to the points of that configuration), the task and its scores with standard
// errors, the threshold it was gated by and the verdict, its status when it has no score (not run,
// INVALID, incomplete) with the reasons, and where it came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "results/point.hpp"

namespace infermark::results {

/// What became of an eval.
enum class EvalStatus {
  kScored,      ///< It ran to the end and has a score.
  kNotRun,      ///< It was not run (e.g. a server without weights); never a score.
  kInvalid,     ///< It ran, but too many requests failed: its score is not a figure.
  kIncomplete,  ///< It was stopped before every document was sent.
};

/// `scored`, `not_run`, `invalid` or `incomplete` (eval_status.json's spelling).
const char* EvalStatusName(EvalStatus status);
/// The status `text` names; nullopt for anything else.
std::optional<EvalStatus> ParseEvalStatus(const std::string& text);

/// How an evaluation entered the store.
inline constexpr const char* kEvalOriginInfermark = "infermark";           ///< Run by infermark (eval_status.json).
inline constexpr const char* kEvalOriginLmEval = "lm-eval";                ///< lm-eval's files alone.
inline constexpr const char* kEvalOriginInferenceXApp = "inferencex-app";  ///< An InferenceX-app API row.

/// One evaluation ready to store or stored.
struct Evaluation {
  /// The configuration, as a throughput point of it is keyed (fixed-seq-len; `conc` is the row's
  /// concurrency). isl and osl are 0 when the source does not say (InferenceX-app rows).
  PointKey key;
  std::string model_prefix;                   ///< InferenceX's model prefix (`minimaxm2.5`); the thresholds' key.
  bool is_multinode = false;                  ///< Prefill and decode worker pools on several nodes.
  std::string runner;                         ///< The runner (node) that ran it, when known.
  std::string task;                           ///< `gsm8k`.
  std::string metric;                         ///< The gated metric, `exact_match,strict-match`.
  std::optional<double> score;                ///< The gated metric's value (null unless scored).
  std::optional<double> score_stderr;         ///< Its standard error.
  std::optional<double> flexible_score;       ///< The flexible-extract value, when there is one.
  std::optional<double> flexible_stderr;      ///< Its standard error.
  std::optional<long long> n;                 ///< Documents scored (n-samples effective).
  std::optional<double> threshold;            ///< The threshold that applies (null: none).
  std::string threshold_source;               ///< `default` or the model prefix whose override applied.
  std::optional<bool> passed;                 ///< Score ≥ threshold (null when not scored or no threshold).
  EvalStatus status = EvalStatus::kScored;    ///< Scored, not run, INVALID or incomplete.
  std::vector<std::string> reasons;           ///< Why not run / INVALID / incomplete / failed.
  long long eval_concurrency = 0;             ///< The eval's own request concurrency (0: unknown).
  std::string date;                           ///< When it ran, ISO 8601 UTC (or the source's date).
  std::optional<double> duration_s;           ///< How long it ran.
  std::string origin = kEvalOriginInfermark;  ///< kEvalOrigin*.
  std::string source_path;                    ///< The folder or file it was read from.
  std::string results_file;                   ///< lm-eval's results file (name, in source_path).
  std::string result_filename;                ///< The row's RESULT_FILENAME.
  std::string server;                         ///< What answered (`built-in engine`, a launcher…).
  std::string run_url;                        ///< The workflow run (InferenceX-app rows).
  std::string raw_json;                       ///< What it was read from, verbatim (status + meta, or the app row).
  std::string raw_sha256;                     ///< SHA-256 of raw_json.
  std::int64_t id = 0;                        ///< Store row id (0 before storing).
  std::int64_t run_id = 0;                    ///< Store id of its run (filled when read back).
  std::string run_key;                        ///< Its run (filled when read back).
  std::string ingested_at;                    ///< When it was stored (filled when read back).

  /// Configuration, task and eval concurrency: the store's unique key within a run.
  [[nodiscard]] std::string EvalKey() const;
  /// True when it has a score that stands as a figure (status scored).
  [[nodiscard]] bool Scored() const { return status == EvalStatus::kScored && score.has_value(); }
  /// `PASS`, `FAIL`, `NO THRESHOLD`, `NOT RUN`, `INVALID` or `INCOMPLETE`: what lists show.
  [[nodiscard]] std::string Verdict() const;
};

/// True when `eval` ran on the configuration of point key `point`: every field equal, except that
/// an evaluation's unknown sequence lengths (0) match any.
bool SameConfiguration(const PointKey& eval, const PointKey& point);

/// `passed` and the reason a scored evaluation failed its threshold, e.g.
/// `gsm8k 0.62 < 0.92 (minimaxm3)` (or `gsm8k flexible-extract 0.64 < 0.90 (default)`: as
/// validate_scores.py, every exact_match score is checked, the flexible one too); sets nothing
/// when it is not scored or has no threshold.
void ApplyThreshold(Evaluation& eval);

/// For an evaluation whose source names no threshold: the one `thresholds` resolves for its task
/// and model prefix (the model's, the task's default, else the 0.85 fallback, as the accuracy gate
/// resolves it), then ApplyThreshold. Nothing is set without `thresholds` or a task; a threshold
/// the evaluation already has stands.
void ApplyDefaultThreshold(Evaluation& eval, const EvalThresholds* thresholds);

}  // namespace infermark::results

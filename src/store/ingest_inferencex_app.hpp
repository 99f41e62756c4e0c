// Reading InferenceX's published data: its dashboard's API rows (InferenceX-app `/api/v1/benchmarks`
// and `/api/v1/benchmarks/history` return a JSON array of benchmark rows: a serving configuration,
// the load, `metrics{}`, `date`, `run_url`) and its `agg_bmk.json` (a JSON array of agg records).
// An API row becomes an InferenceX agg record, so every point, local or public, is read by the same
// code. Rows are grouped into one run per workflow run (from `run_url`, else per date), and a row is
// stored verbatim, so ingesting the same rows again changes nothing.
//
// Mapping of an API row to our point (the agg record's fields):
//   hardware → hw (InferenceX-app's base GPU key, `h100`, `gb200`, `mi355x`; our runner names reduce
//   to the same key, see GpuPriceKey); model → model and infmax_model_prefix (the app's model key,
//   e.g. `dsr1`); framework, precision unchanged; spec_method → spec_decoding; disagg, is_multinode
//   unchanged. Single-node rows: decode_tp/ep/dp_attention → tp/ep/dp_attention (pp, dcp, pcp 1).
//   Multi-node rows: prefill_* and decode_* (tp, ep, dp_attention, num_workers) and
//   num_prefill_gpu/num_decode_gpu unchanged. benchmark_type `agentic_traces` → scenario_type
//   `agentic-coding` with kv_offloading `dram` when offload_mode is `on`, else `none`; other rows
//   keep isl/osl. Every metric is copied to the record's top level under its own name (latencies in
//   s, throughput per GPU). `image`, `date` and `run_url` are kept, with `source: inferencex-app`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "results/evaluation.hpp"
#include "results/point.hpp"
#include "results/result_files.hpp"
#include "store/result_store.hpp"

namespace infermark::results {

/// What `results ingest --format` reads.
enum class IngestFormat {
  kAuto,           ///< Decide per file from its content (DetectIngestFormat).
  kResult,         ///< Client results, agg records or arrays of them (ReadResultFile).
  kAgg,            ///< InferenceX agg records only: one record or a JSON array (agg_bmk.json).
  kInferenceXApp,  ///< InferenceX-app API rows: a JSON array of benchmark or evaluation rows.
  kLmEval,         ///< Eval folders only (lm-eval's files, meta_env.json, eval_status.json).
};

/// `auto`, `result`, `agg`, `inferencex-app` or `lm-eval`; throws InputError naming `--format` for anything else.
IngestFormat ParseIngestFormat(const std::string& text);

/// The format a parsed file holds: kInferenceXApp for an array whose first element has `hardware`
/// and a `metrics` object, kAgg for an agg record or an array of them, else kResult.
IngestFormat DetectIngestFormat(const Json& doc);

/// Points to store under one run.
struct IngestBatch {
  RunInfo run;                          ///< The run (key empty: derive it from the points, DerivedRunKey).
  std::vector<Point> points;            ///< Its points.
  std::vector<Evaluation> evaluations;  ///< Its accuracy evaluations.
  /// Per evaluation, its documents (lm-eval's samples file; empty when none or for API rows).
  std::vector<std::vector<StoredEvalSample>> eval_samples;
  /// Per point, what its row left beside its result file (a sweep folder's `logs/<stem>/`).
  std::vector<PointDetails> details;
};

/// The InferenceX agg record for API row `index` of `path` (mapping above). Throws InputError
/// (`path`, entry `record <index>`, field, rule) for a missing or mistyped field, a non-numeric
/// metric, a date that is not YYYY-MM-DD or an unknown benchmark type.
Json AggFromAppRow(const Json& row, const std::string& path, std::size_t index);

/// The point of API row `index`: its agg record, the row's JSON text verbatim as raw result,
/// provenance (measured, image, started_at = the row's date, source_path = `path`).
Point PointFromAppRow(const Json& row, const std::string& path, std::size_t index);

/// The run an API row belongs to: `inferencex-app-run-<id>-<attempt>` from a GitHub Actions
/// `run_url`, else `inferencex-app-<date>`; labelled `InferenceX <date> run <id>/<attempt>`.
RunInfo AppRunOf(const Json& row);

/// Stores what `batch` holds beside its points and evaluations, once those are stored: its points'
/// details and its evaluations' samples (a store older than their migration keeps none). Returns
/// the points and evaluations given details or samples.
std::pair<int, int> StoreBatchDetails(ResultStore& store, const IngestBatch& batch);

/// Every file of `paths` (folders expanded as ExpandResultPaths does) read in `format` into batches:
/// result and agg files all go into one batch under `base`; API rows (benchmark or evaluation
/// rows) go into one batch per workflow run (AppRunOf; under `base.run_key` instead when one is
/// given). In `auto` and `lm-eval` format the eval folders at or below `paths` (FindEvalFolders,
/// e.g. a result folder's `evals/*/`) become evaluations of the batch under `base`, with
/// `options.eval_thresholds`, with their samples, and each point of a result file gets the details
/// its row left (ReadPointDetails). Every file is read
/// before anything is returned; the InputError lists the problems of every unusable file. Two
/// different rows with the same natural key in one run are refused naming both record indexes;
/// identical duplicates are stored once.
std::vector<IngestBatch> ReadIngestBatches(const std::vector<std::string>& paths, IngestFormat format,
                                           const ReadOptions& options, const RunInfo& base);

}  // namespace infermark::results

// What both results stores share about `evaluations` rows (schema 8): the columns an evaluation
// is written with, the select list it is read back from, the WHERE clause of a query, and the
// order evaluations are returned in.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "results/evaluation.hpp"
#include "store/result_store.hpp"
#include "store/store_rows.hpp"

namespace infermark::results {

/// The first schema version with the evaluations table.
inline constexpr int kEvaluationsSchemaVersion = 8;

/// An evaluation as one `evaluations` row.
struct EvaluationRow {
  std::string key;     ///< Evaluation::EvalKey (`eval_key`).
  std::string sha256;  ///< SHA-256 of the raw text (given, or computed from raw_json).
  std::vector<std::pair<const char*, StoreValue>> columns;  ///< Every column but the timestamps.
};

/// The row of `evaluation` in run `run_id`. The caller adds `ingested_at` or `updated_at`.
EvaluationRow MakeEvaluationRow(const Evaluation& evaluation, std::int64_t run_id);

/// The select list an evaluation is read from (`e` is evaluations, `r` runs).
std::string EvaluationSelectList();

/// ` WHERE …` for `query` (empty when it selects everything), with placeholders from
/// `placeholder(n)` (1-based: `?n` for SQLite, `$n` for PostgreSQL) and their values in `params`.
std::string EvaluationWhere(const EvaluationQuery& query, const std::function<std::string(int)>& placeholder,
                            std::vector<StoreValue>& params);

/// The reasons column's JSON array as text, and back (text that is not an array gives none).
std::string ReasonsText(const std::vector<std::string>& reasons);
/// See ReasonsText.
std::vector<std::string> ReasonsFromText(const std::string& text);

/// Sorts evaluations by run id, then key (as points: model, lengths, hardware… concurrency), task
/// and eval concurrency.
void SortEvaluations(std::vector<Evaluation>& evaluations);

/// An evaluation from a row of an EvaluationSelectList query; `Row` has Text(i), Int(i),
/// Double(i) and IsNull(i).
template <typename Row>
Evaluation ReadEvaluationRow(const Row& q) {
  Evaluation e;
  int c = 0;
  const auto text = [&] { return q.Text(c++); };
  const auto integer = [&] { return q.Int(c++); };
  const auto opt_double = [&]() -> std::optional<double> {
    const int i = c++;
    if (q.IsNull(i)) return std::nullopt;
    return q.Double(i);
  };
  const auto opt_int = [&]() -> std::optional<long long> {
    const int i = c++;
    if (q.IsNull(i)) return std::nullopt;
    return q.Int(i);
  };
  e.id = integer();
  e.run_id = integer();
  e.run_key = text();
  e.key.model = text();
  e.model_prefix = text();
  e.key.hw = text();
  e.key.framework = text();
  e.key.precision = text();
  e.key.spec_decoding = text();
  e.key.disagg = integer() != 0;
  e.is_multinode = integer() != 0;
  e.key.topology = text();
  e.key.isl = integer();
  e.key.osl = integer();
  e.key.conc = integer();
  e.runner = text();
  e.task = text();
  e.metric = text();
  e.status = ParseEvalStatus(text()).value_or(EvalStatus::kScored);
  e.reasons = ReasonsFromText(text());
  e.score = opt_double();
  e.score_stderr = opt_double();
  e.flexible_score = opt_double();
  e.flexible_stderr = opt_double();
  e.n = opt_int();
  e.threshold = opt_double();
  e.threshold_source = text();
  if (const auto passed = opt_int()) e.passed = *passed != 0;
  e.eval_concurrency = integer();
  e.date = text();
  e.duration_s = opt_double();
  e.origin = text();
  e.source_path = text();
  e.results_file = text();
  e.result_filename = text();
  e.server = text();
  e.run_url = text();
  e.raw_sha256 = text();
  e.raw_json = text();
  e.ingested_at = text();
  return e;
}

}  // namespace infermark::results

// What both results stores (SQLite and PostgreSQL) share about rows: the columns a point is
// written with at each schema version, the columns a point is read back from, their order, and
// how a run reference names a run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "results/point.hpp"
#include "store/result_store.hpp"

namespace infermark::results {

/// A column's value as written; monostate is NULL.
using StoreValue = std::variant<std::monostate, std::int64_t, double, std::string>;

/// A figure that may be missing as a column value: the number, or NULL.
inline StoreValue OptionalValue(const std::optional<double>& v) {
  return v ? StoreValue(*v) : StoreValue();
}

/// A point as one `points` row.
struct PointRow {
  std::string key;     ///< The natural key (`point_key`).
  std::string sha256;  ///< SHA-256 of the raw result (given, or computed from raw_json).
  std::string agg;     ///< The processed record, compact JSON (`agg_json`).
  std::vector<std::pair<const char*, StoreValue>> columns;  ///< Every column but the timestamps, in order.
  const std::vector<PointRepeat>* repeats = nullptr;        ///< The point's repeats (point_repeats rows).
};

/// The row of `point` in run `run_id` for a store at `schema_version` (older stores lack newer
/// columns). The caller adds `ingested_at` or `updated_at`.
PointRow MakePointRow(const Point& point, std::int64_t run_id, int schema_version);

/// The select list a point is read from (`p` is points, `r` runs), newest columns included when
/// the store has them, then `p.run_id`, `p.host_error` and `p.receipt_id`; `raw` false selects '' for raw_json.
std::string PointSelectList(int schema_version, bool raw);

/// The columns of repeat `repeat` of point `point_id` as one point_repeats row.
std::vector<std::pair<const char*, StoreValue>> MakeRepeatColumns(const PointRepeat& repeat, std::int64_t point_id);

/// The select list a repeat is read from (point_repeats' columns, `point_id` first).
inline constexpr const char* kRepeatSelectList =
    "point_id, repeat_index, verdict, started_at, ended_at, source_path, raw_sha256, raw_json, agg_json";

/// A repeat from a row of a kRepeatSelectList query (its point id is the row's first column).
template <typename Row>
PointRepeat ReadRepeatRow(const Row& q) {
  PointRepeat r;
  r.index = static_cast<int>(q.Int(1));
  r.verdict = q.Text(2);
  r.started_at = q.Text(3);
  r.ended_at = q.Text(4);
  r.source_path = q.Text(5);
  r.raw_sha256 = q.Text(6);
  r.raw_json = q.Text(7);
  r.agg = Json::parse(q.Text(8), nullptr, false);
  return r;
}

/// Reasons as one stored text, `; `-separated (as the verdict line joins them).
std::string JoinReasons(const std::vector<std::string>& reasons);
/// The reasons JoinReasons stored; empty text gives none.
std::vector<std::string> SplitReasons(const std::string& text);

/// A point's records as stored text, to parse apart from reading its row.
struct PointRecordText {
  std::string agg;         ///< agg_json.
  std::string matrix_row;  ///< matrix_row ("" when none).
};

/// A point from a row of a PointSelectList query; `Row` has Text(i), Int(i) and Double(i). With
/// `deferred`, the records are left there as text for ParsePointRecords instead of parsed here.
template <typename Row>
Point ReadPointRow(const Row& q, int schema_version, PointRecordText* deferred = nullptr) {
  Point p;
  p.id = q.Int(0);
  p.run_key = q.Text(1);
  p.key.model = q.Text(2);
  p.key.hw = q.Text(3);
  p.key.framework = q.Text(4);
  p.key.precision = q.Text(5);
  p.key.spec_decoding = q.Text(6);
  p.key.disagg = q.Int(7) != 0;
  p.key.topology = q.Text(8);
  p.key.isl = q.Int(9);
  p.key.osl = q.Int(10);
  p.key.conc = q.Int(11);
  Provenance& v = p.provenance;
  v.kind = q.Text(12) == "predicted" ? PointKind::kPredicted : PointKind::kMeasured;
  v.time_scale = q.Double(13);
  v.config_key = q.Text(14);
  std::string row = q.Text(15);
  if (deferred != nullptr) {
    deferred->matrix_row = std::move(row);
  } else {
    v.matrix_row = row.empty() ? Json() : Json::parse(row, nullptr, false);
  }
  v.image = q.Text(16);
  v.engine_flags = q.Text(17);
  v.host = q.Text(18);
  v.infermark_version = q.Text(19);
  v.metrics_version = q.Text(20);
  v.verdict = q.Text(21);
  v.started_at = q.Text(22);
  v.ended_at = q.Text(23);
  v.source_path = q.Text(24);
  p.raw_sha256 = q.Text(25);
  p.raw_json = q.Text(26);
  if (deferred != nullptr) {
    deferred->agg = q.Text(27);
  } else {
    p.agg = Json::parse(q.Text(27), nullptr, false);
  }
  p.ingested_at = q.Text(28);
  v.git_commit = q.Text(29);
  if (schema_version >= 4) {
    p.key.scenario_type = q.Text(30);
    p.key.kv_offloading = q.Text(31);
    p.key.kv_offload_backend = q.Text(32);
  }
  v.power_invalid_reasons = SplitReasons(q.Text(33));
  p.run_id = q.Int(34);
  if (std::string host_error = q.Text(35); !host_error.empty()) {
    v.host_error = Json::parse(host_error, nullptr, false);
    if (!v.host_error.is_object()) v.host_error = Json();
  }
  p.receipt_id = q.Text(36);
  return p;
}

/// `SELECT <expected's columns> FROM points WHERE id = <id_param>`: a stored point read back column
/// by column, for DiffPointRow.
std::string PointColumnsQuery(const PointRow& expected, const std::string& id_param);

/// A stored value for messages: text cut to 60 characters, NULL as `NULL`.
std::string ShowStoreValue(const StoreValue& value);

/// One line per column of `expected` whose value in `stored` (a row of PointColumnsQuery, with
/// Text, Int, Double and IsNull) differs: `name: stored X, expected Y`. Numbers compare exactly: a
/// store keeps the double it was given.
template <typename Row>
std::vector<std::string> DiffPointRow(const Row& stored, const PointRow& expected) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < expected.columns.size(); ++i) {
    const int c = static_cast<int>(i);
    const StoreValue& want = expected.columns[i].second;
    StoreValue have;
    if (!stored.IsNull(c)) {
      if (std::holds_alternative<std::int64_t>(want)) {
        have = stored.Int(c);
      } else if (std::holds_alternative<double>(want)) {
        have = stored.Double(c);
      } else {
        have = stored.Text(c);
      }
    }
    if (have != want) {
      lines.push_back(std::string(expected.columns[i].first) + ": stored " + ShowStoreValue(have) + ", expected " +
                      ShowStoreValue(want));
    }
  }
  return lines;
}

/// Parses `texts[i]` into `points[i]`'s record and matrix row, on the threads of the budget
/// (parsing is most of reading many points); the texts are consumed.
void ParsePointRecords(std::vector<Point>& points, std::vector<PointRecordText>& texts);

/// Sorts points by run id, then in natural-key order: scenario type (fixed-length first), model,
/// ISL, OSL, hardware, framework, precision, spec decoding, topology, KV offloading and its backend,
/// concurrency; text byte-wise. Cheaper here than in the database for many points.
void SortPointsByRunAndKey(std::vector<Point>& points);

/// The run of `runs` (oldest first) that `ref` names, as ResultStore::FindRun documents; throws
/// InputError naming `store` and the reference when none or several match.
RunSummary FindRunIn(const std::vector<RunSummary>& runs, const std::string& ref, const std::string& store);

}  // namespace infermark::results

#include "store/store_rows.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <tuple>

#include "core/diagnostic.hpp"
#include "core/parallel_chunks.hpp"
#include "core/sha256.hpp"
#include "power/power_fields.hpp"
#include "results/agentic_record.hpp"
#include "results/multinode_fields.hpp"
#include "results/prediction_band_fields.hpp"
#include "results/repeat_record.hpp"
#include "store/store_schema.hpp"

// GCC 12 warns that a NULL (std::monostate) StoreValue moved inside the column vector "may be used
// uninitialized": a known false positive on std::variant.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace infermark::results {
namespace {

double Number(const Json& agg, const char* field) {
  const auto it = agg.find(field);
  return it != agg.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The schema version whose migration added the prediction-band columns, found in the migration
// list rather than written here (migrations of parallel work are ordered when merged).
int BandSchemaVersion() {
  static const int version = SchemaVersionOf("ADD COLUMN band_scope");
  return version;
}

// The prediction-band columns for `agg` (as measured, like the other hot columns): NULL and ''
// for a record without bands.
void AddBandColumns(const Json& agg, std::vector<std::pair<const char*, StoreValue>>& columns) {
  const BandFields f = BandFieldsOf(agg);
  columns.emplace_back("band_scope", f.scope);
  const auto band = [&](const char* low, const char* high, const std::optional<FigureBand>& b) {
    columns.emplace_back(low, b ? StoreValue(b->band_p10) : StoreValue());
    columns.emplace_back(high, b ? StoreValue(b->band_p90) : StoreValue());
  };
  band("tput_per_gpu_band_p10", "tput_per_gpu_band_p90", f.tput_per_gpu);
  band("median_intvty_band_p10", "median_intvty_band_p90", f.median_intvty);
  band("median_e2el_band_p10", "median_e2el_band_p90", f.median_e2el);
}

// Migration 6's columns for `agg`: NULL for a single-node record; for a multi-node one what the
// record holds (pipeline and context sizes it lacks were 1, dp_attention 1/0).
void AddMultiNodeColumns(const Json& agg, std::vector<std::pair<const char*, StoreValue>>& columns) {
  const auto multinode = agg.find("is_multinode");
  const bool is_multinode = multinode != agg.end() && multinode->is_boolean() && multinode->get<bool>();
  columns.emplace_back("is_multinode", std::int64_t{is_multinode ? 1 : 0});
  const auto count = [&](const char* column, std::optional<std::int64_t> fallback) {
    const auto it = agg.find(column);
    if (is_multinode && it != agg.end() && it->is_number()) {
      columns.emplace_back(column, StoreValue(static_cast<std::int64_t>(std::llround(it->get<double>()))));
    } else {
      columns.emplace_back(column, is_multinode && fallback ? StoreValue(*fallback) : StoreValue());
    }
  };
  const auto text = [&](const char* column) {
    const auto it = agg.find(column);
    columns.emplace_back(
        column, is_multinode && it != agg.end() && it->is_string() ? StoreValue(it->get<std::string>()) : StoreValue());
  };
  count("num_prefill_gpu", std::nullopt);
  count("num_decode_gpu", std::nullopt);
  const std::optional<MultiNodeFields> f = MultiNodeFieldsOf(agg);
  count("prefill_num_workers", std::nullopt);
  count("prefill_tp", std::nullopt);
  count("prefill_pp", 1);
  count("prefill_dcp_size", 1);
  count("prefill_pcp_size", 1);
  count("prefill_ep", std::nullopt);
  columns.emplace_back("prefill_dp_attention", StoreValue());
  if (f) columns.back().second = std::int64_t{f->prefill.dp_attention ? 1 : 0};
  count("decode_num_workers", std::nullopt);
  count("decode_tp", std::nullopt);
  count("decode_pp", 1);
  count("decode_dcp_size", 1);
  count("decode_pcp_size", 1);
  count("decode_ep", std::nullopt);
  columns.emplace_back("decode_dp_attention", StoreValue());
  if (f) columns.back().second = std::int64_t{f->decode.dp_attention ? 1 : 0};
  text("prefill_hw");
  text("decode_hw");
}

constexpr const char* kPointColumns =
    "p.id, r.run_key, p.model, p.hw, p.framework, p.precision, p.spec_decoding, p.disagg, p.topology, p.isl, "
    "p.osl, p.conc, p.kind, p.time_scale, p.config_key, p.matrix_row, p.image, p.engine_flags, p.host, "
    "p.infermark_version, p.metrics_version, p.verdict, p.started_at, p.ended_at, p.source_path, p.raw_sha256, "
    "p.raw_json, p.agg_json, p.ingested_at";

// A simdjson value as Json, numbers typed as nlohmann's parser types them (non-negative integers
// unsigned), so that a record reads back the same through either parser.
Json ToJson(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      Json object = Json::object();
      for (const auto [key, value] : simdjson::dom::object(e)) object.emplace(std::string(key), ToJson(value));
      return object;
    }
    case simdjson::dom::element_type::ARRAY: {
      Json array = Json::array();
      for (const simdjson::dom::element value : simdjson::dom::array(e)) array.push_back(ToJson(value));
      return array;
    }
    case simdjson::dom::element_type::STRING:
      return std::string(std::string_view(e));
    case simdjson::dom::element_type::INT64: {
      const std::int64_t v = std::int64_t(e);
      return v >= 0 ? Json(static_cast<std::uint64_t>(v)) : Json(v);
    }
    case simdjson::dom::element_type::UINT64:
      return std::uint64_t(e);
    case simdjson::dom::element_type::DOUBLE:
      return double(e);
    case simdjson::dom::element_type::BOOL:
      return bool(e);
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return nullptr;
}

// A stored record (JSON text this store wrote) as Json: simdjson reads it and the tree is built
// from its document, three times faster than nlohmann's parser, which matters when a dashboard
// loads every point. Text simdjson refuses goes to nlohmann's parser (a discarded value if invalid).
Json ParseStored(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element root;
  if (parser.parse(text).get(root) != simdjson::SUCCESS) return Json::parse(text, nullptr, false);
  return ToJson(root);
}

}  // namespace

PointRow MakePointRow(const Point& point, std::int64_t run_id, int schema_version) {
  PointRow row;
  row.key = point.key.Canonical();
  row.agg = DumpJson(point.agg, kCompactJson);
  row.sha256 = point.raw_sha256.empty() ? Sha256Hex(point.raw_json) : point.raw_sha256;
  const std::string matrix_row =
      point.provenance.matrix_row.is_null() ? "" : DumpJson(point.provenance.matrix_row, kCompactJson);
  const Provenance& v = point.provenance;
  // A store kept at an older schema (migration tests) lacks the newer columns.
  const bool agentic_columns = schema_version >= 4;
  const bool agentic = point.key.Agentic() && agentic_columns;
  std::vector<std::pair<const char*, StoreValue>> columns = {
      {"run_id", run_id},
      {"point_key", row.key},
      {"model", point.key.model},
      {"hw", point.key.hw},
      {"framework", point.key.framework},
      {"precision", point.key.precision},
      {"spec_decoding", point.key.spec_decoding},
      {"disagg", std::int64_t{point.key.disagg ? 1 : 0}},
      {"topology", point.key.topology},
      {"isl", agentic ? StoreValue() : StoreValue(std::int64_t{point.key.isl})},
      {"osl", agentic ? StoreValue() : StoreValue(std::int64_t{point.key.osl})},
      {"conc", std::int64_t{point.key.conc}},
      {"kind", std::string(PointKindName(v.kind))},
      {"time_scale", v.time_scale},
      {"tput_per_gpu", Number(point.agg, "tput_per_gpu")},
      {"median_intvty", Number(point.agg, "median_intvty")},
      {"median_e2el", Number(point.agg, "median_e2el")},
      {"config_key", v.config_key},
      {"matrix_row", matrix_row},
      {"image", v.image},
      {"engine_flags", v.engine_flags},
      {"host", v.host},
      {"infermark_version", v.infermark_version},
      {"metrics_version", v.metrics_version},
      {"verdict", v.verdict},
      {"started_at", v.started_at},
      {"ended_at", v.ended_at},
      {"source_path", v.source_path},
      {"raw_sha256", row.sha256},
      {"raw_json", point.raw_json},
      {"agg_json", row.agg},
  };
  if (schema_version >= 3) columns.emplace_back("git_commit", v.git_commit);
  if (agentic_columns) {
    columns.emplace_back("scenario_type", point.key.scenario_type);
    columns.emplace_back("kv_offloading", point.key.kv_offloading);
    columns.emplace_back("kv_offload_backend", point.key.kv_offload_backend);
    const AgenticFields f = AgenticFieldsOf(point.agg);
    const auto optional = [&](const char* column, const auto& value) {
      columns.emplace_back(column, agentic && value ? StoreValue(*value) : StoreValue());
    };
    const auto metric = [&](const char* column, const char* field) {
      columns.emplace_back(column,
                           agentic && point.agg.contains(field) ? StoreValue(Number(point.agg, field)) : StoreValue());
    };
    columns.emplace_back("users", agentic ? StoreValue(std::int64_t{f.users}) : StoreValue());
    optional("allocated_cpu_dram_gb", f.allocated_cpu_dram_gb);
    optional("duration_s", f.duration_s);
    metric("median_e2e_norm_intvty", "median_e2e_norm_intvty");
    metric("p90_e2e_norm_intvty", "p90_e2e_norm_intvty");
    metric("median_full_response_intvty", "median_full_response_intvty");
    metric("p90_full_response_intvty", "p90_full_response_intvty");
    optional("theoretical_cache_hit_rate", f.theoretical_cache_hit_rate);
    optional("server_cache_hit_rate", f.server_cache_hit_rate);
    optional("server_gpu_cache_hit_rate", f.server_gpu_cache_hit_rate);
    optional("server_cpu_cache_hit_rate", f.server_cpu_cache_hit_rate);
    optional("kv_cache_pool_tokens", f.kv_cache_pool_tokens);
    optional("requests_total", f.requests_total);
    optional("requests_successful", f.requests_successful);
    optional("requests_error", f.requests_error);
  }
  if (schema_version >= 5) {
    const PowerFields f = PowerFieldsOf(point.agg);
    const auto optional = [&](const char* column, const auto& value) {
      columns.emplace_back(column, value ? StoreValue(*value) : StoreValue());
    };
    optional("avg_power_w", f.avg_power_w);
    optional("joules_per_output_token", f.joules_per_output_token);
    optional("joules_per_input_token", f.joules_per_input_token);
    optional("joules_per_total_token", f.joules_per_total_token);
    optional("total_gpu_energy_j", f.total_gpu_energy_j);
    columns.emplace_back("power_valid", StoreValue());
    if (f.Valid() || f.Invalid()) columns.back().second = std::int64_t{f.Valid() ? 1 : 0};
    optional("power_metric_schema_version", f.power_metric_schema_version);
  }
  if (schema_version >= 6) AddMultiNodeColumns(point.agg, columns);
  if (schema_version >= 7) columns.emplace_back("power_invalid_reasons", JoinReasons(v.power_invalid_reasons));
  if (schema_version >= 9)
    columns.emplace_back("host_error", v.host_error.is_object() ? v.host_error.dump() : std::string());
  if (schema_version >= RepeatsSchemaVersion()) {
    columns.emplace_back("repeats", std::int64_t{RepeatCount(point.agg)});
    const auto block = point.agg.find("repeats");
    columns.emplace_back("repeat_server", block != point.agg.end() && block->is_object()
                                              ? block->value("server", std::string())
                                              : std::string());
  }
  if (schema_version >= BandSchemaVersion()) AddBandColumns(point.agg, columns);
  if (schema_version >= ReceiptsSchemaVersion()) columns.emplace_back("receipt_id", point.receipt_id);
  row.columns = std::move(columns);
  row.repeats = &point.repeats;
  return row;
}

std::string PointSelectList(int schema_version, bool raw) {
  std::string columns = kPointColumns;
  if (!raw) columns.replace(columns.find("p.raw_json"), std::string("p.raw_json").size(), "''");
  return columns + (schema_version >= 3 ? ", p.git_commit" : ", ''") +
         (schema_version >= 4 ? ", p.scenario_type, p.kv_offloading, p.kv_offload_backend" : ", '', '', ''") +
         (schema_version >= 7 ? ", p.power_invalid_reasons" : ", ''") + ", p.run_id" +
         (schema_version >= 9 ? ", p.host_error" : ", ''") +
         (schema_version >= ReceiptsSchemaVersion() ? ", p.receipt_id" : ", ''");
}

std::vector<std::pair<const char*, StoreValue>> MakeRepeatColumns(const PointRepeat& repeat, std::int64_t point_id) {
  return {{"point_id", point_id},
          {"repeat_index", std::int64_t{repeat.index}},
          {"verdict", repeat.verdict},
          {"started_at", repeat.started_at},
          {"ended_at", repeat.ended_at},
          {"source_path", repeat.source_path},
          {"raw_sha256", repeat.raw_sha256.empty() ? Sha256Hex(repeat.raw_json) : repeat.raw_sha256},
          {"raw_json", repeat.raw_json},
          {"agg_json", DumpJson(repeat.agg, kCompactJson)}};
}

std::string PointColumnsQuery(const PointRow& expected, const std::string& id_param) {
  std::string names;
  for (const auto& [name, value] : expected.columns) names += (names.empty() ? "" : ", ") + std::string(name);
  return "SELECT " + names + " FROM points WHERE id = " + id_param;
}

std::string ShowStoreValue(const StoreValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, *d).ptr;
    return std::string(text, end);
  }
  if (const auto* t = std::get_if<std::string>(&value)) {
    return "'" + (t->size() > 60 ? t->substr(0, 57) + "..." : *t) + "'";
  }
  return "NULL";
}

std::string JoinReasons(const std::vector<std::string>& reasons) {
  std::string text;
  for (const std::string& r : reasons) text += (text.empty() ? "" : "; ") + r;
  return text;
}

std::vector<std::string> SplitReasons(const std::string& text) {
  std::vector<std::string> reasons;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find("; ", begin);
    reasons.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) break;
    begin = end + 2;
  }
  return reasons;
}

void ParsePointRecords(std::vector<Point>& points, std::vector<PointRecordText>& texts) {
  const std::size_t n = std::min(points.size(), texts.size());
  MapChunks(n, ChunkCount(n, 2000), [&](std::size_t begin, std::size_t end) {
    simdjson::dom::parser parser;
    for (std::size_t i = begin; i < end; ++i) {
      PointRecordText& text = texts[i];
      points[i].agg = ParseStored(parser, text.agg);
      if (!text.matrix_row.empty()) points[i].provenance.matrix_row = ParseStored(parser, text.matrix_row);
      text = {};
    }
    return 0;
  });
}

void SortPointsByRunAndKey(std::vector<Point>& points) {
  const auto order = [](const Point& p) {
    const PointKey& k = p.key;
    // scenario_type descending: fixed-seq-len before agentic-coding.
    return std::tie(p.run_id, k.model, k.isl, k.osl, k.hw, k.framework, k.precision, k.spec_decoding, k.topology,
                    k.kv_offloading, k.kv_offload_backend, k.conc);
  };
  std::vector<std::size_t> index(points.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
    const Point& x = points[a];
    const Point& y = points[b];
    if (x.run_id != y.run_id) return x.run_id < y.run_id;
    if (x.key.scenario_type != y.key.scenario_type) return x.key.scenario_type > y.key.scenario_type;
    return order(x) < order(y);
  });
  std::vector<Point> sorted;
  sorted.reserve(points.size());
  for (const std::size_t i : index) sorted.push_back(std::move(points[i]));
  points = std::move(sorted);
}

RunSummary FindRunIn(const std::vector<RunSummary>& runs, const std::string& ref, const std::string& store) {
  const auto fail = [&](const std::string& rule) -> RunSummary {
    throw InputError(Diagnostic{{store, 0, 0}, "", "run '" + ref + "'", rule});
  };
  if (runs.empty()) return fail("the store holds no runs");
  if (ref == "latest") return runs.back();
  if (!ref.empty() && std::all_of(ref.begin(), ref.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    for (const auto& r : runs) {
      if (std::to_string(r.id) == ref) return r;
    }
  }
  for (const auto& r : runs) {
    if (r.info.run_key == ref) return r;
  }
  std::vector<const RunSummary*> matches;
  for (const auto& r : runs) {
    if (r.info.label == ref || r.info.run_key.rfind(ref, 0) == 0) matches.push_back(&r);
  }
  if (matches.size() == 1) return *matches.front();
  if (matches.empty()) return fail("no run has this id, key, key prefix or label (see `infermark results list`)");
  std::string names;
  for (const auto* r : matches) names += (names.empty() ? "" : ", ") + std::to_string(r->id) + " " + r->info.run_key;
  return fail("matches several runs: " + names);
}

}  // namespace infermark::results

#include "store/evaluation_rows.hpp"

#include <algorithm>
#include <tuple>

#include "core/json_text.hpp"
#include "core/sha256.hpp"

namespace infermark::results {

std::string ReasonsText(const std::vector<std::string>& reasons) {
  Json list = Json::array();
  for (const std::string& r : reasons) list.push_back(r);
  return DumpJson(list, kCompactJson);
}

std::vector<std::string> ReasonsFromText(const std::string& text) {
  const Json list = Json::parse(text, nullptr, false);
  std::vector<std::string> reasons;
  if (!list.is_array()) return reasons;
  for (const Json& r : list) {
    if (r.is_string()) reasons.push_back(r.get<std::string>());
  }
  return reasons;
}

EvaluationRow MakeEvaluationRow(const Evaluation& e, std::int64_t run_id) {
  EvaluationRow row;
  row.key = e.EvalKey();
  row.sha256 = e.raw_sha256.empty() ? Sha256Hex(e.raw_json) : e.raw_sha256;
  auto& c = row.columns;
  c.emplace_back("run_id", run_id);
  c.emplace_back("eval_key", row.key);
  c.emplace_back("model", e.key.model);
  c.emplace_back("model_prefix", e.model_prefix);
  c.emplace_back("hw", e.key.hw);
  c.emplace_back("framework", e.key.framework);
  c.emplace_back("precision", e.key.precision);
  c.emplace_back("spec_decoding", e.key.spec_decoding);
  c.emplace_back("disagg", std::int64_t{e.key.disagg ? 1 : 0});
  c.emplace_back("is_multinode", std::int64_t{e.is_multinode ? 1 : 0});
  c.emplace_back("topology", e.key.topology);
  c.emplace_back("isl", std::int64_t{e.key.isl});
  c.emplace_back("osl", std::int64_t{e.key.osl});
  c.emplace_back("conc", std::int64_t{e.key.conc});
  c.emplace_back("runner", e.runner);
  c.emplace_back("task", e.task);
  c.emplace_back("metric", e.metric);
  c.emplace_back("status", std::string(EvalStatusName(e.status)));
  c.emplace_back("reasons", ReasonsText(e.reasons));
  // Figures only for a scored evaluation: a partial score of an INVALID or unfinished one is none.
  const bool scored = e.status == EvalStatus::kScored;
  c.emplace_back("score", scored ? OptionalValue(e.score) : StoreValue());
  c.emplace_back("score_stderr", scored ? OptionalValue(e.score_stderr) : StoreValue());
  c.emplace_back("flexible_score", scored ? OptionalValue(e.flexible_score) : StoreValue());
  c.emplace_back("flexible_stderr", scored ? OptionalValue(e.flexible_stderr) : StoreValue());
  c.emplace_back("n", e.n ? StoreValue(std::int64_t{*e.n}) : StoreValue());
  c.emplace_back("threshold", OptionalValue(e.threshold));
  c.emplace_back("threshold_source", e.threshold_source);
  // A verdict only for a scored evaluation (the table's CHECK).
  c.emplace_back("passed", e.passed && e.status == EvalStatus::kScored ? StoreValue(std::int64_t{*e.passed ? 1 : 0})
                                                                       : StoreValue());
  c.emplace_back("eval_concurrency", std::int64_t{e.eval_concurrency});
  c.emplace_back("eval_date", e.date);
  c.emplace_back("duration_s", OptionalValue(e.duration_s));
  c.emplace_back("origin", e.origin);
  c.emplace_back("source_path", e.source_path);
  c.emplace_back("results_file", e.results_file);
  c.emplace_back("result_filename", e.result_filename);
  c.emplace_back("server", e.server);
  c.emplace_back("run_url", e.run_url);
  c.emplace_back("raw_sha256", row.sha256);
  c.emplace_back("raw_json", e.raw_json);
  return row;
}

std::string EvaluationSelectList() {
  return "e.id, e.run_id, r.run_key, e.model, e.model_prefix, e.hw, e.framework, e.precision, e.spec_decoding, "
         "e.disagg, e.is_multinode, e.topology, e.isl, e.osl, e.conc, e.runner, e.task, e.metric, e.status, "
         "e.reasons, e.score, e.score_stderr, e.flexible_score, e.flexible_stderr, e.n, e.threshold, "
         "e.threshold_source, e.passed, e.eval_concurrency, e.eval_date, e.duration_s, e.origin, e.source_path, "
         "e.results_file, e.result_filename, e.server, e.run_url, e.raw_sha256, e.raw_json, e.ingested_at";
}

std::string EvaluationWhere(const EvaluationQuery& query, const std::function<std::string(int)>& placeholder,
                            std::vector<StoreValue>& params) {
  std::string where;
  const auto add = [&](const char* column, StoreValue value) {
    params.push_back(std::move(value));
    where += (where.empty() ? " WHERE " : " AND ") + std::string(column) + " = " +
             placeholder(static_cast<int>(params.size()));
  };
  if (query.run_id) add("e.run_id", std::int64_t{*query.run_id});
  const std::pair<const char*, const std::string*> texts[] = {
      {"e.model", &query.model},         {"e.model_prefix", &query.model_prefix}, {"e.hw", &query.hw},
      {"e.framework", &query.framework}, {"e.precision", &query.precision},       {"e.task", &query.task},
      {"e.status", &query.status}};
  for (const auto& [column, value] : texts) {
    if (!value->empty()) add(column, *value);
  }
  return where;
}

void SortEvaluations(std::vector<Evaluation>& evaluations) {
  const auto order = [](const Evaluation& e) {
    return std::tie(e.run_id, e.key.model, e.key.isl, e.key.osl, e.key.hw, e.key.framework, e.key.precision,
                    e.key.spec_decoding, e.key.topology, e.key.conc, e.task, e.eval_concurrency);
  };
  std::stable_sort(evaluations.begin(), evaluations.end(),
                   [&](const Evaluation& a, const Evaluation& b) { return order(a) < order(b); });
}

}  // namespace infermark::results

// GET /api/v1/evaluations/ID/samples: an evaluation's documents a page at a time (question, the
// model's response, the answer each filter extracted, the target, whether it was correct), all of
// them or the wrong ones only, optionally those containing a text.
#include <algorithm>

#include "dashboard/api_detail_routes.hpp"
#include "dashboard/api_routes.hpp"

namespace infermark::dashboard::routes {

ApiReply EvaluationSamples(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query) {
  query.RequireKnown({"token", "filter", "q", "offset", "limit"});
  const auto found = std::find_if(snapshot.evaluations.begin(), snapshot.evaluations.end(),
                                  [&](const DashboardEvaluation& e) { return e.evaluation.id == id; });
  if (found == snapshot.evaluations.end() || !sources.with_store) {
    return ErrorReply(404, "", "no evaluation " + std::to_string(id));
  }
  results::EvalSampleQuery q;
  q.evaluation_id = id;
  const std::string filter = query.Single("filter").value_or("all");
  if (filter != "all" && filter != "wrong") throw QueryError("filter", "must be all or wrong");
  q.wrong_only = filter == "wrong";
  q.text = query.Single("q").value_or("");
  if (const auto offset = query.Single("offset")) q.offset = ParseCount("offset", *offset);
  if (const auto limit = query.Single("limit")) {
    q.limit = ParseCount("limit", *limit);
    if (q.limit < 1 || q.limit > 500) throw QueryError("limit", "must be between 1 and 500");
  }
  results::EvalSamplePage page;
  sources.with_store([&](results::ResultStore& store) { page = store.EvalSamples(q); });
  const auto flag = [](const std::optional<bool>& v) { return v ? Json(*v) : Json(nullptr); };
  Json samples = Json::array();
  for (const results::StoredEvalSample& s : page.samples) {
    samples.push_back({{"doc_id", s.doc_id},
                       {"question", s.question},
                       {"response", s.response},
                       {"strict_answer", s.strict_answer},
                       {"flexible_answer", s.flexible_answer},
                       {"target", s.target},
                       {"correct", flag(s.correct)},
                       {"flexible_correct", flag(s.flexible_correct)},
                       {"error", s.error.empty() ? Json(nullptr) : Json(s.error)}});
  }
  const results::Evaluation& e = found->evaluation;
  Json body = Json::object();
  body["evaluation"] = {{"id", e.id}, {"task", e.task}, {"metric", e.metric}, {"verdict", e.Verdict()}};
  body["total"] = page.total;
  body["wrong"] = page.wrong;
  body["matched"] = page.matched;
  body["offset"] = q.offset;
  body["limit"] = q.limit;
  body["samples"] = std::move(samples);
  return JsonReply(body);
}

}  // namespace infermark::dashboard::routes

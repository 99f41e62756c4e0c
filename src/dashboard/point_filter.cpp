#include "dashboard/point_filter.hpp"

#include <algorithm>

namespace infermark::dashboard {
namespace {

template <typename T>
bool Among(const std::vector<T>& wanted, const T& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

}  // namespace

const std::set<std::string, std::less<>>& FilterParameters() {
  static const std::set<std::string, std::less<>> names = {"model", "hardware", "framework", "precision", "sequence",
                                                           "isl",   "osl",      "disagg",    "spec",      "kind",
                                                           "valid", "run",      "from",      "to",        "token"};
  return names;
}

PointFilter PointFilter::Parse(const Query& query, const Snapshot& snapshot) {
  PointFilter f;
  f.model = query.List("model");
  f.hardware = query.List("hardware");
  f.framework = query.List("framework");
  f.precision = query.List("precision");
  f.sequence = query.List("sequence");
  for (const std::string& v : query.List("isl")) f.isl.push_back(ParseCount("isl", v));
  for (const std::string& v : query.List("osl")) f.osl.push_back(ParseCount("osl", v));
  const std::vector<std::string> disagg = query.List("disagg");
  if (disagg.size() > 1) throw QueryError("disagg", "give true or false once");
  if (!disagg.empty()) f.disagg = ParseBool("disagg", disagg.front());
  const std::vector<std::string> valid = query.List("valid");
  if (valid.size() > 1) throw QueryError("valid", "give true or false once");
  if (!valid.empty()) f.valid = ParseBool("valid", valid.front());
  bool with_spec = false;
  bool without_spec = false;
  for (const std::string& v : query.List("spec")) {
    if (v == "true") {
      with_spec = true;
    } else if (v == "false") {
      without_spec = true;
    } else {
      f.spec_method.push_back(v);
    }
  }
  if (with_spec && without_spec) {
    f.spec_method.clear();  // with OR without: every point
  } else if (with_spec || without_spec) {
    f.spec = with_spec;
  }
  bool measured = false;
  bool predicted = false;
  for (const std::string& v : query.List("kind")) {
    if (v == "measured") {
      measured = true;
    } else if (v == "predicted") {
      predicted = true;
    } else {
      throw QueryError("kind", "'" + v + "' is not measured or predicted");
    }
  }
  if (measured != predicted) f.predicted = predicted;
  for (const std::string& v : query.List("run")) {
    const RunRow* run = snapshot.FindRun(v);
    if (!run) throw QueryError("run", "no run has id or key '" + v + "'");
    f.run.push_back(run->id);
  }
  if (const auto from = query.Single("from")) f.from = ParseDate("from", *from);
  if (const auto to = query.Single("to")) f.to = ParseDate("to", *to);
  return f;
}

bool PointFilter::Matches(const DashboardPoint& p) const {
  if (!Among(model, p.model) || !Among(hardware, p.hardware) || !Among(framework, p.framework) ||
      !Among(precision, p.precision) || !Among(sequence, p.sequence) || !Among(run, p.run_id)) {
    return false;
  }
  if (!isl.empty() && (!p.isl || !Among(isl, *p.isl))) return false;
  if (!osl.empty() && (!p.osl || !Among(osl, *p.osl))) return false;
  if (disagg && *disagg != p.disagg) return false;
  if (predicted && *predicted != p.predicted) return false;
  if (valid && *valid != p.valid) return false;
  if (!from.empty() && p.date < from) return false;
  if (!to.empty() && p.date > to) return false;
  if (spec || !spec_method.empty()) {
    const bool with = p.spec_decoding != "none";
    const bool by_flag = spec && *spec == with;
    const bool by_method = Among(spec_method, p.spec_decoding) && !spec_method.empty();
    if (!by_flag && !by_method) return false;
  }
  return true;
}

}  // namespace infermark::dashboard

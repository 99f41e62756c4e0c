#include "results/eval_coverage.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/file_io.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

Diagnostic CoverageProblem(const std::string& dir, const std::string& rule) {
  return Diagnostic{{dir, 0, 0}, "", "", "incomplete eval coverage: " + rule};
}

// The samples file lm-eval writes beside `results_file` (`results_<stamp>.json`, or an
// `invalid_`/`incomplete_` variant): `samples_<task>_<stamp>.jsonl` with the same prefix.
std::string SamplesFileOf(const std::string& results_file, const std::string& task) {
  const std::size_t at = results_file.find("results_");
  if (at == std::string::npos || results_file.size() < at + 8 + 5 ||
      results_file.compare(results_file.size() - 5, 5, ".json") != 0) {
    return {};
  }
  const std::string stamp = results_file.substr(at + 8, results_file.size() - 5 - (at + 8));
  return results_file.substr(0, at) + "samples_" + task + "_" + stamp + ".jsonl";
}

long long IntegerOr(const Json& doc, const char* field, long long fallback) {
  const auto it = doc.find(field);
  return it != doc.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

}  // namespace

Json EvalCoverage::ToJson() const {
  Json doc = Json::object();
  doc["folder"] = folder;
  doc["key"] = key;
  doc["task"] = task;
  doc["status"] = status;
  doc["eval_concurrency"] = eval_concurrency;
  doc["result_filename"] = result_filename;
  doc["documents"] = documents;
  doc["filters"] = Json::array();
  for (const auto& [name, samples] : filters) doc["filters"].push_back(Json{{"filter", name}, {"samples", samples}});
  return doc;
}

EvalCoverage MeasureEvalCoverage(const std::string& dir, const std::string& folder, const Evaluation& eval,
                                 std::vector<Diagnostic>& problems) {
  EvalCoverage c;
  c.folder = folder;
  c.key = eval.EvalKey();
  c.task = eval.task;
  c.status = EvalStatusName(eval.status);
  c.eval_concurrency = eval.eval_concurrency;
  c.result_filename = eval.result_filename;
  if (eval.status == EvalStatus::kIncomplete) {
    std::string why;
    for (const std::string& r : eval.reasons) why += (why.empty() ? ": " : "; ") + r;
    problems.push_back(CoverageProblem(dir, "the eval was stopped before its end" + why));
  }
  if (eval.status == EvalStatus::kNotRun && eval.reasons.empty()) {
    problems.push_back(CoverageProblem(dir, "an eval recorded as not run must say why"));
  }
  if (eval.results_file.empty()) {
    if (eval.status == EvalStatus::kScored)
      problems.push_back(CoverageProblem(dir, "a scored eval without its results file"));
    return c;
  }
  const fs::path results_path = fs::path(dir) / eval.results_file;
  const Json results = Json::parse(ReadFile(results_path.string()), nullptr, false);
  if (!results.is_object()) {
    problems.push_back(CoverageProblem(results_path.string(), "the results file is not a JSON object"));
    return c;
  }
  // What was asked: the limit when one was set (never more than the split), else the split.
  long long original = 0;
  long long effective = 0;
  if (const auto n = results.find("n-samples"); n != results.end() && n->is_object() && n->contains(eval.task)) {
    original = IntegerOr((*n)[eval.task], "original", 0);
    effective = IntegerOr((*n)[eval.task], "effective", 0);
  }
  long long limit = -1;
  if (const auto config = results.find("config"); config != results.end() && config->is_object()) {
    limit = IntegerOr(*config, "limit", -1);
  }
  c.documents = limit > 0 && limit < original ? limit : original;
  // The filters the results file scored, in its order (`exact_match,<filter>`, stderr entries aside).
  std::vector<std::string> names;
  if (const auto r = results.find("results"); r != results.end() && r->is_object() && r->contains(eval.task)) {
    for (const auto& [metric, value] : (*r)[eval.task].items()) {
      const std::size_t comma = metric.find(',');
      if (comma == std::string::npos || metric.find("stderr") != std::string::npos || !value.is_number()) continue;
      const std::string filter = metric.substr(comma + 1);
      if (std::find(names.begin(), names.end(), filter) == names.end()) names.push_back(filter);
    }
  }
  // Distinct documents per filter in the samples file.
  std::vector<std::set<long long>> seen(names.size());
  const std::string samples_name = SamplesFileOf(eval.results_file, eval.task);
  const fs::path samples_path = fs::path(dir) / samples_name;
  std::error_code ec;
  const bool have_samples = !samples_name.empty() && fs::is_regular_file(samples_path, ec);
  if (have_samples) {
    std::istringstream lines(ReadFile(samples_path.string()));
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.empty()) continue;
      const Json sample = Json::parse(line, nullptr, false);
      if (!sample.is_object() || !sample.contains("filter") || !sample["filter"].is_string() ||
          !sample.contains("doc_id") || !sample["doc_id"].is_number_integer()) {
        problems.push_back(
            Diagnostic{{samples_path.string(), number, 0}, "", "", "a sample line without its filter and doc_id"});
        continue;
      }
      const auto it = std::find(names.begin(), names.end(), sample["filter"].get<std::string>());
      if (it != names.end())
        seen[static_cast<std::size_t>(it - names.begin())].insert(sample["doc_id"].get<long long>());
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    c.filters.emplace_back(names[i], static_cast<long long>(seen[i].size()));
  if (eval.status != EvalStatus::kScored) return c;
  if (names.empty()) problems.push_back(CoverageProblem(results_path.string(), "the results file scores no filter"));
  if (effective != c.documents) {
    problems.push_back(CoverageProblem(results_path.string(), "scored " + std::to_string(effective) + " of the " +
                                                                  std::to_string(c.documents) +
                                                                  " documents it was asked for"));
  }
  if (!have_samples) {
    problems.push_back(CoverageProblem(dir, "no samples file " + samples_name + " beside " + eval.results_file));
    return c;
  }
  for (const auto& [name, samples] : c.filters) {
    if (samples != effective) {
      problems.push_back(CoverageProblem(samples_path.string(), "filter " + name + " has samples for " +
                                                                    std::to_string(samples) + " of " +
                                                                    std::to_string(effective) + " documents"));
    }
  }
  return c;
}

}  // namespace infermark::results

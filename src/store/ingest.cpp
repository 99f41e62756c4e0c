#include "store/ingest.hpp"

#include <algorithm>

#include "core/diagnostic.hpp"
#include "core/sha256.hpp"
#include "results/eval_folder.hpp"
#include "results/eval_samples.hpp"

namespace infermark::results {

std::string DerivedRunKey(const std::vector<Point>& points, const std::vector<Evaluation>& evaluations) {
  std::vector<std::string> parts;
  parts.reserve(points.size() + evaluations.size());
  for (const auto& p : points)
    parts.push_back((p.raw_sha256.empty() ? Sha256Hex(p.raw_json) : p.raw_sha256) + " " + p.key.Canonical());
  for (const auto& e : evaluations)
    parts.push_back((e.raw_sha256.empty() ? Sha256Hex(e.raw_json) : e.raw_sha256) + " eval " + e.EvalKey());
  std::sort(parts.begin(), parts.end());
  std::string all;
  for (const auto& part : parts) all += part + "\n";
  return "ingest-" + Sha256Hex(all).substr(0, 12);
}

std::vector<Point> ReadResultFiles(const std::vector<std::string>& paths, const ReadOptions& options) {
  std::vector<Point> points;
  std::vector<Diagnostic> problems;
  for (const std::string& file : ExpandResultPaths(paths)) {
    try {
      for (auto& p : ReadResultFile(file, options)) points.push_back(std::move(p));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  if (points.empty()) throw InputError(Diagnostic{{}, "", "", "no result files found under the given paths"});
  return points;
}

IngestOutcome IngestResultFiles(ResultStore& store, RunInfo run, const std::vector<std::string>& paths,
                                const ReadOptions& options) {
  const std::vector<Point> points = ReadResultFiles(paths, options);
  if (run.run_key.empty()) run.run_key = DerivedRunKey(points);
  return store.Ingest(run, points);
}

IngestOutcome IngestEvalFolders(ResultStore& store, RunInfo run, const std::vector<std::string>& paths,
                                const EvalThresholds* thresholds) {
  std::vector<Evaluation> evaluations;
  std::vector<std::vector<StoredEvalSample>> samples;  // each evaluation's documents
  std::vector<Diagnostic> problems;
  for (const std::string& folder : FindEvalFolders(paths)) {
    try {
      std::vector<Evaluation> found = ReadEvalFolder(folder, thresholds);
      for (Evaluation& e : found) {
        samples.push_back(ReadEvalSamples(folder, e.metric, e.results_file, found.size() > 1));
        evaluations.push_back(std::move(e));
      }
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  if (run.run_key.empty()) run.run_key = DerivedRunKey({}, evaluations);
  const IngestOutcome outcome = store.IngestEvaluations(run, evaluations);
  if (store.SchemaVersion() >= DetailsSchemaVersion()) {
    for (std::size_t i = 0; i < evaluations.size(); ++i) {
      if (!samples[i].empty()) store.StoreEvalSamples(run, evaluations[i].EvalKey(), samples[i]);
    }
  }
  return outcome;
}

}  // namespace infermark::results

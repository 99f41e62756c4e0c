#include "store/receipt_verify.hpp"

#include <filesystem>
#include <map>
#include <optional>

#include "core/diagnostic.hpp"
#include "store/bundle_ingest.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

// A point's place in its bundle: its kind and natural key (a run's folder may hold the prediction
// of the very points it measured).
std::string BundleIndex(const Point& p) {
  return std::string(p.provenance.kind == PointKind::kPredicted ? "predicted " : "measured ") + p.key.Canonical();
}

// A receipt's bundle, read again: its points by kind and key, or why it cannot be used.
struct ArchivedBundle {
  std::map<std::string, Point> points;
  std::vector<std::string> problems;
};

ArchivedBundle LoadArchived(const std::string& archive, const std::string& receipt_id, const BundleCheck& check) {
  ArchivedBundle loaded;
  const std::string dir = ArchivedBundlePath(archive, receipt_id);
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    loaded.problems.push_back("its bundle " + receipt_id + " is not in the archive " + archive);
    return loaded;
  }
  try {
    VerifiedBundle bundle = ReadBundle(dir, check);
    if (bundle.receipt_id != receipt_id) {
      loaded.problems.push_back("the archive's " + dir + " holds receipt " + bundle.receipt_id + ", not " + receipt_id);
      return loaded;
    }
    for (Point& p : bundle.points) loaded.points.emplace(BundleIndex(p), std::move(p));
  } catch (const InputError& e) {
    for (const Diagnostic& d : e.diagnostics())
      loaded.problems.push_back("its bundle fails verification: " + d.ToString());
  }
  return loaded;
}

}  // namespace

VerifyReport VerifyStore(ResultStore& store, const VerifyOptions& options) {
  std::vector<RunSummary> runs;
  if (options.runs.empty()) {
    runs = store.ListRuns();
  } else {
    for (const std::string& ref : options.runs) runs.push_back(store.FindRun(ref));
  }
  VerifyReport report;
  std::map<std::string, ArchivedBundle> bundles;
  for (const RunSummary& run : runs) {
    for (const Point& stored : store.Points(run.id)) {
      ++report.points;
      if (stored.receipt_id.empty()) {
        report.unreceipted.push_back(run.info.run_key + ": " + stored.key.Canonical());
        continue;
      }
      ++report.receipted;
      auto it = bundles.find(stored.receipt_id);
      if (it == bundles.end()) {
        it = bundles.emplace(stored.receipt_id, LoadArchived(options.archive, stored.receipt_id, options.check)).first;
      }
      PointMismatch mismatch{stored.id, run.info.run_key, stored.key.Canonical(), stored.receipt_id,
                             it->second.problems};
      if (mismatch.reasons.empty()) {
        const auto found = it->second.points.find(BundleIndex(stored));
        if (found == it->second.points.end()) {
          mismatch.reasons.push_back("its bundle holds no point with this key");
        } else {
          Point expected = found->second;
          expected.run_id = stored.run_id;
          mismatch.reasons = store.DiffStoredPoint(stored.id, expected);
        }
      }
      if (!mismatch.reasons.empty()) report.mismatches.push_back(std::move(mismatch));
    }
  }
  report.receipts = static_cast<int>(bundles.size());
  return report;
}

}  // namespace infermark::results

#include "store/bundle_ingest.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/diagnostic.hpp"
#include "store/ingest.hpp"
#include "store/store_url.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

// The run a bundle's points belong to: its issuing workflow run, or the bundle alone.
RunInfo RunOfBundle(const VerifiedBundle& bundle, const RunInfo& base) {
  RunInfo run = base;
  if (run.source.empty()) run.source = "receipt";
  if (run.host.empty()) run.host = bundle.issuer.host;
  if (run.infermark_version.empty()) run.infermark_version = bundle.issuer.infermark_version;
  if (!run.run_key.empty()) return run;
  const Issuer& i = bundle.issuer;
  if (!i.repository.empty() && !i.run_id.empty()) {
    const std::string attempt = i.run_attempt.empty() ? "1" : i.run_attempt;
    run.run_key = "gha:" + i.repository + "#" + i.run_id + "." + attempt;
    if (run.label.empty()) run.label = i.repository + " run " + i.run_id + "/" + attempt;
  } else {
    run.run_key = DerivedRunKey(bundle.points, bundle.evaluations);
  }
  return run;
}

}  // namespace

std::string DefaultBundleArchive(const std::string& store_url) {
  const StoreUrl url = ParseStoreUrl(store_url);
  if (url.kind != StoreKind::kSqlite) return {};
  const fs::path parent = fs::path(url.location).parent_path();
  return (parent.empty() ? fs::path("bundles") : parent / "bundles").string();
}

std::string ArchivedBundlePath(const std::string& archive, const std::string& receipt_id) {
  return (fs::path(archive) / receipt_id).string();
}

std::string ArchiveBundle(const VerifiedBundle& bundle, const std::string& archive) {
  const fs::path target = ArchivedBundlePath(archive, bundle.receipt_id);
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target / kReceiptFile, ec))) return target.string();
  const fs::path tmp = fs::path(archive) / ("." + bundle.receipt_id + ".tmp");
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp.parent_path(), ec);
  // Verified bundles hold regular files and folders only, so a recursive copy is exact.
  if (!ec) fs::copy(bundle.dir, tmp, fs::copy_options::recursive, ec);
  if (!ec) fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw InputError(Diagnostic{{archive, 0, 0}, "", "--bundles", "cannot keep the bundle here: " + ec.message()});
  }
  return target.string();
}

BundleBatches ReadBundleBatches(const std::vector<std::string>& bundle_dirs, const BundleCheck& check,
                                const RunInfo& base) {
  BundleBatches out;
  std::vector<Diagnostic> problems;
  for (const std::string& dir : bundle_dirs) {
    try {
      out.bundles.push_back(ReadBundle(dir, check));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  std::map<std::string, std::size_t> index;
  const auto batch_of = [&](const RunInfo& run) -> IngestBatch& {
    const auto [it, added] = index.emplace(run.run_key, out.batches.size());
    if (added) out.batches.push_back(IngestBatch{run, {}, {}, {}, {}});
    return out.batches[it->second];
  };
  for (const VerifiedBundle& bundle : out.bundles) {
    const RunInfo run = RunOfBundle(bundle, base);
    // A run's folder may hold its prediction beside its measurement (`predict` then `sweep`, as the
    // demo runs them): the predicted points share the measured ones' natural keys, so they go to a
    // run of their own, as `predict` and `sweep` store them. A bundle of one kind stays in one run.
    const auto is_predicted = [](const Point& p) { return p.provenance.kind == PointKind::kPredicted; };
    const bool both = std::any_of(bundle.points.begin(), bundle.points.end(), is_predicted) &&
                      !std::all_of(bundle.points.begin(), bundle.points.end(), is_predicted);
    RunInfo predicted = run;
    predicted.run_key += ":predicted";
    predicted.label = (run.label.empty() ? run.run_key : run.label) + " (predicted)";
    for (const Point& p : bundle.points) batch_of(both && is_predicted(p) ? predicted : run).points.push_back(p);
    IngestBatch& measured = batch_of(run);
    measured.evaluations.insert(measured.evaluations.end(), bundle.evaluations.begin(), bundle.evaluations.end());
  }
  return out;
}

}  // namespace infermark::results

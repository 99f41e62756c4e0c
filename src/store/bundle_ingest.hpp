// Storing measurement bundles (docs/results.md, "Measurement receipts"): every bundle is read and
// verified before anything is written, each verified bundle is kept in the store's bundle archive
// under its receipt id (where `results verify` finds it again), and its points go to the store
// with their receipt id, one run per issuing workflow run.
#pragma once

#include <string>
#include <vector>

#include "results/bundle.hpp"
#include "store/ingest_inferencex_app.hpp"

namespace infermark::results {

/// The bundle archive a store keeps by default: `bundles/` beside a SQLite store's file; empty for
/// a PostgreSQL store (it keeps no files: the caller names a folder).
std::string DefaultBundleArchive(const std::string& store_url);

/// Where bundle `receipt_id` is kept in `archive`: `<archive>/<receipt_id>`.
std::string ArchivedBundlePath(const std::string& archive, const std::string& receipt_id);

/// Copies `bundle` into `archive` as ArchivedBundlePath (through a temporary folder and a rename)
/// unless a bundle is already kept under that receipt id; returns its path there. Throws
/// InputError when the archive cannot be written.
std::string ArchiveBundle(const VerifiedBundle& bundle, const std::string& archive);

/// Verified bundles grouped into the runs their points are stored under.
struct BundleBatches {
  std::vector<IngestBatch> batches;     ///< One per run.
  std::vector<VerifiedBundle> bundles;  ///< Every bundle read, to archive before storing.
};

/// Reads and verifies every bundle of `bundle_dirs` (ReadBundle under `check`) and groups their
/// points and evaluations into runs: one per issuing workflow run (`gha:<owner>/<name>#<run
/// id>.<attempt>`, labelled `<owner>/<name> run <id>/<attempt>`), a bundle made outside a
/// workflow under its own derived key; everything under `base.run_key` when one is given. Runs
/// take `base`'s label, recipe and source (`receipt` unless given). Throws one InputError listing
/// every problem of every bundle: nothing may be stored when one fails.
BundleBatches ReadBundleBatches(const std::vector<std::string>& bundle_dirs, const BundleCheck& check,
                                const RunInfo& base);

}  // namespace infermark::results

// `results verify`: a store re-checked against the bundles its points were ingested from. Each
// point that carries a receipt id is compared, column by column, with the point its archived
// bundle gives today, after the bundle itself is verified again (docs/results.md, "Measurement
// receipts").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/bundle.hpp"
#include "store/result_store.hpp"

namespace infermark::results {

/// What to verify, and where the bundles are kept.
struct VerifyOptions {
  std::string archive;            ///< The bundle archive (`<archive>/<receipt id>/`).
  std::vector<std::string> runs;  ///< Runs to check (FindRun references); empty: every run.
  BundleCheck check;              ///< The checks each bundle passes again (issuers allowed, thresholds).
};

/// A stored point that no longer matches its bundle, and why.
struct PointMismatch {
  std::int64_t point_id = 0;         ///< Store id.
  std::string run_key;               ///< Its run.
  std::string key;                   ///< Its natural key.
  std::string receipt_id;            ///< The receipt it names.
  std::vector<std::string> reasons;  ///< One line each: a column that differs, a bundle missing or failing.
};

/// What `VerifyStore` found.
struct VerifyReport {
  int points = 0;                         ///< Points read.
  int receipted = 0;                      ///< Of which carry a receipt id.
  int receipts = 0;                       ///< Distinct receipts (bundles) checked.
  std::vector<PointMismatch> mismatches;  ///< Receipted points that do not match, in store order.
  std::vector<std::string> unreceipted;   ///< `run key: point key` of each point without a receipt.
};

/// Checks every receipted point of the runs `options` names against its archived bundle: the
/// bundle is found (`<archive>/<receipt id>/`), passes ReadBundle again under `options.check`,
/// holds a point of the same key, and that point as the store would write it now equals the
/// stored row in every column (ResultStore::DiffStoredPoint). Throws InputError for an unknown run.
VerifyReport VerifyStore(ResultStore& store, const VerifyOptions& options);

}  // namespace infermark::results

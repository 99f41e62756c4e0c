// Measurement bundles (docs/results.md, "Measurement receipts"): a run's artifacts copied into one
// folder with a manifest (every member's path, size and SHA-256) and a receipt (the manifest's
// digest, the issuer, the points with their configuration identity and topology, the eval
// coverage, the rows' outcomes, and a receipt id that hashes the rest). Reading a bundle verifies
// it first, so that nothing it holds is stored unless every check passed:
//
//   BUNDLE/receipt.json     the receipt
//   BUNDLE/manifest.json    the members (canonical JSON; the receipt holds its SHA-256)
//   BUNDLE/artifacts/…      the members: result files, row records, agg records, power sidecars,
//                           logs/, evals/, telemetry — the run's folder as it was
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "results/evaluation.hpp"
#include "results/point.hpp"
#include "results/receipt.hpp"

namespace infermark::results {

/// The receipt's file name in a bundle.
inline constexpr const char* kReceiptFile = "receipt.json";
/// The manifest's file name in a bundle.
inline constexpr const char* kManifestFile = "manifest.json";
/// The folder of a bundle that holds its members.
inline constexpr const char* kArtifactsFolder = "artifacts";

/// What WriteBundle wrote.
struct BundleSummary {
  std::string dir;              ///< The bundle's folder.
  std::string receipt_id;       ///< Its receipt id.
  std::size_t members = 0;      ///< Files in the manifest.
  std::uintmax_t bytes = 0;     ///< Their bytes.
  std::size_t points = 0;       ///< Points the receipt lists.
  std::size_t evaluations = 0;  ///< Eval folders the receipt lists.
  std::size_t rows = 0;         ///< Row records the receipt lists.
};

/// Copies the run folder `source` (a sweep's result folder) into a new bundle at `out`, leaving out
/// SQLite stores (`*.db` and their `-wal`, `-shm`, `-journal` files: derived and still changing),
/// then writes its manifest and receipt under `issuer`. The bundle is made in a temporary folder
/// beside `out` and renamed into place, so `out` is either whole or absent. Throws InputError when
/// `out` exists, `source` holds a symbolic link or special file, a result file or eval folder is
/// unreadable, or the bundle would fail ReadBundle's checks (non-finite figures, a point whose
/// configuration or topology disagrees with its matrix row, incomplete eval coverage): a receipt is
/// issued only for what ingest would accept.
BundleSummary WriteBundle(const std::string& source, const std::string& out, const Issuer& issuer);

/// True when `dir` is a bundle's folder (it holds receipt.json).
bool IsBundle(const std::string& dir);

/// The bundles at or below `paths` (a bundle's own folders are not searched further), sorted.
std::vector<std::string> FindBundles(const std::vector<std::string>& paths);

/// What a bundle must pass besides its own consistency.
struct BundleCheck {
  std::vector<IssuerRule> allowed_issuers;     ///< Empty: any issuer.
  const EvalThresholds* thresholds = nullptr;  ///< For eval folders that name no threshold. Not owned.
};

/// A bundle whose every check passed.
struct VerifiedBundle {
  std::string dir;                      ///< Its folder.
  std::string receipt_id;               ///< The receipt id (recomputed and equal to the one it states).
  std::string created_at;               ///< When it was issued (ISO 8601 UTC).
  Issuer issuer;                        ///< Who issued it.
  std::vector<Point> points;            ///< Its points: receipt_id set, source_path `receipt:<id>/<member>`.
  std::vector<Evaluation> evaluations;  ///< Its evaluations, source_path as for points.
};

/// Reads and verifies the bundle at `dir`. Checks, each failure one message naming the file and
/// the rule: receipt.json, manifest.json and artifacts/ present and nothing else at the top; the
/// receipt's id equals the SHA-256 of the rest of it in canonical JSON; the manifest's SHA-256 is
/// the receipt's; every member re-hashed (a changed, missing or extra file, a symbolic link or a
/// special file is refused); every figure finite; every point's configuration and topology equal to
/// its matrix row's and to what the receipt states; the eval coverage complete (MeasureEvalCoverage,
/// and every eval row that ran has its evals) and equal to the receipt's; the issuer allowed. Throws
/// one InputError listing every problem.
VerifiedBundle ReadBundle(const std::string& dir, const BundleCheck& check);

/// `receipt:<receipt id>/<member path>`: where a bundled point or evaluation came from, the same
/// wherever the bundle is kept.
std::string ReceiptSourcePath(const std::string& receipt_id, const std::string& member);

}  // namespace infermark::results

// A measurement receipt: who measured (the issuer: repository, workflow run and attempt, commit,
// infermark's version and binary digest), the digest of the bundle's manifest, what was measured
// (each point's configuration identity and topology, each eval's coverage, each row's outcome) and
// a receipt id that is the SHA-256 of the rest of the receipt in canonical JSON
// (docs/results.md, "Measurement receipts").
#pragma once

#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"

namespace infermark::results {

/// receipt.json's schema name.
inline constexpr const char* kReceiptSchema = "infermark.receipt/1";

/// Who issued a receipt. Every field is text (GitHub's run ids exceed what some JSON readers keep
/// exact as numbers); empty when unknown.
struct Issuer {
  std::string repository;         ///< `owner/name` (GITHUB_REPOSITORY).
  std::string server_url;         ///< `https://github.com` (GITHUB_SERVER_URL).
  std::string run_id;             ///< The workflow run (GITHUB_RUN_ID).
  std::string run_attempt;        ///< Its attempt (GITHUB_RUN_ATTEMPT).
  std::string workflow_ref;       ///< The workflow file and ref (GITHUB_WORKFLOW_REF).
  std::string workflow_sha;       ///< The commit the workflow file came from (GITHUB_WORKFLOW_SHA).
  std::string commit;             ///< The commit the run checked out (GITHUB_SHA).
  std::string job;                ///< The job (GITHUB_JOB).
  std::string host;               ///< The machine that measured (the runner's host name).
  std::string infermark_version;  ///< infermark's version.
  std::string infermark_commit;   ///< The commit infermark was built from.
  std::string infermark_sha256;   ///< SHA-256 of the infermark binary that wrote the bundle.

  /// The issuer as a JSON object (every field, empty ones included).
  [[nodiscard]] Json ToJson() const;
  /// `owner/name run 123/1 at <commit>`, or the host for a bundle made outside a workflow.
  [[nodiscard]] std::string Describe() const;
};

/// The issuer for this process: GitHub Actions' variables (GITHUB_REPOSITORY, GITHUB_SERVER_URL,
/// GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_WORKFLOW_REF, GITHUB_WORKFLOW_SHA, GITHUB_SHA,
/// GITHUB_JOB), the host name, and this binary's version, commit and SHA-256 (/proc/self/exe).
Issuer IssuerFromEnvironment();

/// The issuer object of a receipt; fields it lacks stay empty. Appends a problem naming `path`
/// for a field that is not text.
Issuer IssuerFromJson(const Json& issuer, const std::string& path, std::vector<Diagnostic>& problems);

/// The receipt id of `receipt`: SHA-256 of the receipt without its `receipt_id` member, written as
/// `json.dumps(receipt, sort_keys=True, separators=(",", ":"), ensure_ascii=True)` writes it.
std::string ReceiptId(const Json& receipt);

/// One allowed issuer: `owner/name` (any run of that repository) or `owner/name@SHA` (runs of its
/// workflow at that commit; SHA may be a prefix of at least 7 hex digits).
struct IssuerRule {
  std::string repository;    ///< `owner/name`.
  std::string workflow_sha;  ///< Empty: any commit.
};

/// Parses `--allow-issuer` values; throws InputError naming the flag and the value for anything else.
std::vector<IssuerRule> ParseIssuerRules(const std::vector<std::string>& specs);

/// True when `rules` is empty or one of them admits `issuer`.
bool IssuerAllowed(const Issuer& issuer, const std::vector<IssuerRule>& rules);

}  // namespace infermark::results

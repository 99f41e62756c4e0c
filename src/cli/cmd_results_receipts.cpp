// `infermark results bundle DIR` and `infermark results verify`: measurement receipts. A run's
// artifacts become a bundle with a manifest and a receipt on the machine that measured them;
// `results ingest` verifies a bundle before it stores anything; `verify` re-checks a store against
// the bundles it archived (docs/results.md, "Measurement receipts"). The work lives in
// src/results/bundle.hpp and src/store/receipt_verify.hpp.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "results/bundle.hpp"
#include "results/receipt.hpp"
#include "store/bundle_ingest.hpp"
#include "store/receipt_verify.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

struct BundleCommand {
  std::string dir;
  std::string out;
  results::Issuer issuer;  // flags; empty fields come from the environment
};

int RunBundle(BundleCommand& cmd) {
  results::Issuer issuer = results::IssuerFromEnvironment();
  const auto over = [](std::string& field, const std::string& flag) {
    if (!flag.empty()) field = flag;
  };
  over(issuer.repository, cmd.issuer.repository);
  over(issuer.server_url, cmd.issuer.server_url);
  over(issuer.run_id, cmd.issuer.run_id);
  over(issuer.run_attempt, cmd.issuer.run_attempt);
  over(issuer.workflow_ref, cmd.issuer.workflow_ref);
  over(issuer.workflow_sha, cmd.issuer.workflow_sha);
  over(issuer.commit, cmd.issuer.commit);
  over(issuer.job, cmd.issuer.job);
  std::string out = cmd.out;
  if (out.empty()) {
    std::string base = cmd.dir;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    out = base + "-bundle";
  }
  const results::BundleSummary s = results::WriteBundle(cmd.dir, out, issuer);
  std::cout << "bundle " << s.dir << "\n"
            << "  receipt " << s.receipt_id << "\n"
            << "  " << s.members << " member(s), " << s.bytes << " bytes; " << s.points << " point(s), "
            << s.evaluations << " eval folder(s), " << s.rows << " row record(s)\n"
            << "  issuer " << issuer.Describe() << "\n";
  return kExitOk;
}

struct VerifyCommand {
  std::string db = results::DefaultStorePath();
  std::string bundles;
  std::vector<std::string> runs;
  std::vector<std::string> allow_issuers;
  bool require_receipts = false;
};

int RunVerify(VerifyCommand& cmd) {
  results::VerifyOptions options;
  options.archive = cmd.bundles.empty() ? results::DefaultBundleArchive(cmd.db) : cmd.bundles;
  if (options.archive.empty()) {
    throw InputError(Diagnostic{{results::DisplayStoreUrl(cmd.db), 0, 0},
                                "",
                                "--bundles",
                                "a PostgreSQL store keeps no files: name the bundle archive its ingests used"});
  }
  options.runs = cmd.runs;
  options.check.allowed_issuers = results::ParseIssuerRules(cmd.allow_issuers);
  auto store = results::OpenExistingStoreUrl(cmd.db);
  const results::VerifyReport report = results::VerifyStore(*store, options);
  for (const auto& m : report.mismatches) {
    std::cout << "MISMATCH point " << m.point_id << " (run " << m.run_key << ") " << m.key << "\n";
    for (const std::string& why : m.reasons) std::cout << "  " << why << "\n";
  }
  if (cmd.require_receipts) {
    for (const std::string& p : report.unreceipted) std::cout << "NO RECEIPT " << p << "\n";
  }
  const std::size_t matching = static_cast<std::size_t>(report.receipted) - report.mismatches.size();
  std::cout << report.points << " point(s): " << report.receipted << " with a receipt (" << report.receipts
            << " bundle(s) in " << options.archive << "), " << matching << " matching, " << report.mismatches.size()
            << " not matching; " << report.unreceipted.size() << " without a receipt\n";
  const bool failed = !report.mismatches.empty() || (cmd.require_receipts && !report.unreceipted.empty());
  std::cout << (failed ? "VERIFY FAILED\n" : "verified\n");
  return failed ? kExitRunFailed : kExitOk;
}

void AddReceiptCommands(CLI::App& app, CommandResult& result) {
  CLI::App* group = CommandGroup(app, "results", "Process, store, list, export and compare benchmark results");

  auto bundle = std::make_shared<BundleCommand>();
  auto* b = group->add_subcommand(
      "bundle",
      "Copy a run's folder into a measurement bundle: every file with its size and SHA-256 in a manifest, and a "
      "receipt naming the issuer (GitHub Actions' GITHUB_* variables, or flags), the points with their configuration "
      "and topology, the eval coverage and the rows; refused when ingest would refuse it");
  b->add_option("dir", bundle->dir, "The run's result folder (a sweep's --result-dir)")->required();
  b->add_option("-o,--out", bundle->out, "The bundle folder to create (default: DIR-bundle beside DIR)");
  b->add_option("--repository", bundle->issuer.repository, "Issuer: OWNER/NAME (default: $GITHUB_REPOSITORY)");
  b->add_option("--server-url", bundle->issuer.server_url, "Issuer: the GitHub server (default: $GITHUB_SERVER_URL)");
  b->add_option("--run-id", bundle->issuer.run_id, "Issuer: the workflow run (default: $GITHUB_RUN_ID)");
  b->add_option("--run-attempt", bundle->issuer.run_attempt, "Issuer: its attempt (default: $GITHUB_RUN_ATTEMPT)");
  b->add_option("--workflow-ref", bundle->issuer.workflow_ref, "Issuer: the workflow (default: $GITHUB_WORKFLOW_REF)");
  b->add_option("--workflow-sha", bundle->issuer.workflow_sha,
                "Issuer: the workflow's commit (default: $GITHUB_WORKFLOW_SHA)");
  b->add_option("--commit", bundle->issuer.commit, "Issuer: the commit measured (default: $GITHUB_SHA)");
  b->add_option("--job", bundle->issuer.job, "Issuer: the job (default: $GITHUB_JOB)");
  b->callback([bundle, &result] { result.exit_code = RunBundle(*bundle); });

  auto verify = std::make_shared<VerifyCommand>();
  auto* v = group->add_subcommand(
      "verify",
      "Re-check a store against its receipts: each point ingested from a bundle is compared, column by column, with "
      "what its archived bundle gives after the bundle is verified again; exit 1 when any differs");
  v->add_option("--db", verify->db, "Results store: sqlite:PATH, a path, or postgresql://…")->capture_default_str();
  v->add_option("--bundles", verify->bundles,
                "The bundle archive (default: bundles/ beside a SQLite store; required for PostgreSQL)");
  v->add_option("--run", verify->runs, "Runs to verify, e.g. --run 1 3 (default: all)");
  v->add_option("--allow-issuer", verify->allow_issuers,
                "Bundles must come from these issuers: OWNER/NAME or OWNER/NAME@WORKFLOW_SHA");
  v->add_flag("--require-receipts", verify->require_receipts, "Points without a receipt fail the verification too");
  v->callback([verify, &result] { result.exit_code = RunVerify(*verify); });
}

[[maybe_unused]] const bool kReceiptCommandsRegistered = RegisterCommand("results", &AddReceiptCommands);

}  // namespace
}  // namespace infermark::cli

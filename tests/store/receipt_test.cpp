// Measurement receipts end to end through the binary: a run folder bundled with its manifest and
// receipt, ingested only after every check passed, re-checked by `results verify`; and every kind
// of tampering refused with one clear message while the store stays as it was.
#include "results/receipt.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/sha256.hpp"
#include "postgres_test_server.hpp"
#include "results/bundle.hpp"
#include "results/bundle_manifest.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "store/postgres_db.hpp"
#include "store/result_store.hpp"
#include "store/sqlite_db.hpp"
#include "store/store_schema.hpp"
#include "store_inspection.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;
using test::RunInfermark;

constexpr const char* kSha = "0123456789abcdef0123456789abcdef01234567";

std::string Slurp(const fs::path& file) {
  return ReadFile(file.string());
}

void Spill(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

// Every output of a command, for failure messages.
std::string Said(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

class Receipts : public ::testing::Test {
 protected:
  // A run folder of real result files, written once for the suite: the founding recipe's 1k/1k
  // TP8 rows at concurrency 1 and 4 through the same client and result writer a measured row
  // uses, on the virtual clock (a fraction of a second), plus two eval folders.
  static void SetUpTestSuite() {
    suite_ = fs::temp_directory_path() / ("infermark-receipts-" + std::to_string(::getpid()));
    fs::remove_all(suite_);
    fs::create_directories(suite_);
    const ProcessResult predicted =
        RunInfermark({"predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--seq-lens", "1k1k", "--tp-filter", "8",
                      "--conc", "1,4", "--result-dir", (suite_ / "sweep").string(), "--no-store", "--prompts-per-conc",
                      "2", "--warmups-per-conc", "1", "--format", "json"});
    ASSERT_EQ(predicted.exit_code, 0) << Said(predicted);
    run_ = suite_ / "sweep" / "predicted";
    for (const char* kind : {"scored-pass", "not-run"}) {
      fs::create_directories(run_ / "evals");
      fs::copy(test::Fixture(std::string("evals/") + kind), run_ / "evals" / kind, fs::copy_options::recursive);
    }
    pristine_ = suite_ / "pristine";
    const ProcessResult bundled = Bundle(run_, pristine_);
    ASSERT_EQ(bundled.exit_code, 0) << Said(bundled);
  }

  static void TearDownTestSuite() { fs::remove_all(suite_); }

  void SetUp() override {
    dir_ = suite_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  static ProcessResult Bundle(const fs::path& run, const fs::path& out) {
    return RunInfermark({"results", "bundle", run.string(), "-o", out.string(), "--repository", "acme/catalog",
                         "--run-id", "4242", "--run-attempt", "1", "--workflow-sha", kSha, "--commit", kSha});
  }

  // A fresh copy of the pristine bundle (or of the run folder) to tamper with.
  fs::path CopyOf(const fs::path& what, const std::string& name) const {
    const fs::path copy = dir_ / name;
    fs::copy(what, copy, fs::copy_options::recursive);
    return copy;
  }

  ProcessResult Ingest(const fs::path& bundle, const fs::path& db, std::vector<std::string> extra = {}) const {
    std::vector<std::string> argv = {"results", "ingest", bundle.string(), "--db", db.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunInfermark(argv);
  }

  // What a store holds, row by row (ids and timestamps included): equal before and after means
  // nothing was written.
  static std::string StoreState(const fs::path& db) {
    if (!fs::exists(db)) return "(no store)";
    std::string state;
    for (const char* table : {"runs", "points", "evaluations"}) {
      for (const auto& row :
           results::inspect::Query(db.string(), std::string("SELECT * FROM ") + table + " ORDER BY id")) {
        for (const auto& cell : row) state += cell + "|";
        state += "\n";
      }
    }
    return state;
  }

  // A store already holding the pristine bundle, for tamper tests to write into.
  fs::path StoreWithPristine() const {
    const fs::path db = dir_ / "store" / "infermark.db";
    const ProcessResult r = Ingest(pristine_, db);
    EXPECT_EQ(r.exit_code, 0) << Said(r);
    return db;
  }

  // Ingests a tampered bundle into a store with content and into no store: both refused with exit
  // 2 and a message matching `why`, neither store touched.
  void ExpectRefused(const fs::path& bundle, const std::string& why, std::vector<std::string> extra = {}) const {
    const fs::path db = StoreWithPristine();
    const std::string before = StoreState(db);
    const ProcessResult r = Ingest(bundle, db, extra);
    EXPECT_EQ(r.exit_code, 2) << Said(r);
    EXPECT_TRUE(std::regex_search(r.err, std::regex(why))) << "wanted /" << why << "/\n" << Said(r);
    EXPECT_EQ(StoreState(db), before) << "the store changed";
    const fs::path none = dir_ / "none" / "infermark.db";
    const ProcessResult fresh = Ingest(bundle, none, extra);
    EXPECT_EQ(fresh.exit_code, 2) << Said(fresh);
    EXPECT_FALSE(fs::exists(none)) << "a refused bundle created a store";
  }

  // Rewrites a bundle's manifest and receipt id after its artifacts were edited, as a producer
  // that hashes whatever it is given would: only the checks on the content can catch the edit.
  static void Reissue(const fs::path& bundle, const std::function<void(Json&)>& edit = {}) {
    std::vector<Diagnostic> problems;
    const auto members = results::ScanMembers((bundle / "artifacts").string(), problems);
    ASSERT_TRUE(problems.empty());
    const std::string manifest = results::ManifestText(members);
    Spill(bundle / "manifest.json", manifest);
    Json receipt = Json::parse(Slurp(bundle / "receipt.json"));
    std::uintmax_t bytes = 0;
    for (const auto& m : members) bytes += m.size;
    receipt["manifest"]["sha256"] = Sha256Hex(manifest);
    receipt["manifest"]["members"] = members.size();
    receipt["manifest"]["bytes"] = bytes;
    if (edit) edit(receipt);
    receipt["receipt_id"] = results::ReceiptId(receipt);
    Spill(bundle / "receipt.json", receipt.dump(2));
  }

  // The first result file of a run folder or bundle's artifacts (a client result, not a row record).
  static fs::path FirstResult(const fs::path& dir) {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && e.path().extension() == ".json" && name.find(".row.") == std::string::npos &&
          e.path().string().find("/evals/") == std::string::npos &&
          e.path().string().find("/logs/") == std::string::npos)
        found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());
    EXPECT_GE(found.size(), 2u);
    return found.empty() ? fs::path() : found.front();
  }

  static inline fs::path suite_;
  static inline fs::path run_;
  static inline fs::path pristine_;
  fs::path dir_;
};

TEST_F(Receipts, TheManifestListsEveryMemberAndTheReceiptIdHashesTheRest) {
  std::vector<Diagnostic> problems;
  const auto on_disk = results::ScanMembers((pristine_ / "artifacts").string(), problems);
  ASSERT_TRUE(problems.empty());
  const auto listed = results::ParseManifest(Slurp(pristine_ / "manifest.json"), "manifest.json", problems);
  ASSERT_TRUE(problems.empty());
  ASSERT_EQ(listed.size(), on_disk.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i].path, on_disk[i].path);
    EXPECT_EQ(listed[i].size, fs::file_size(pristine_ / "artifacts" / listed[i].path));
    EXPECT_EQ(listed[i].sha256, Sha256FileHex((pristine_ / "artifacts" / listed[i].path).string()));
  }
  const Json receipt = Json::parse(Slurp(pristine_ / "receipt.json"));
  EXPECT_EQ(receipt["manifest"]["sha256"], Sha256Hex(Slurp(pristine_ / "manifest.json")));
  EXPECT_EQ(receipt["issuer"]["repository"], "acme/catalog");
  EXPECT_EQ(receipt["issuer"]["run_id"], "4242");
  EXPECT_EQ(receipt["issuer"]["workflow_sha"], kSha);
  EXPECT_EQ(receipt["issuer"]["infermark_sha256"], Sha256FileHex(test::Binary()));
  ASSERT_EQ(receipt["points"].size(), 2u);
  for (const Json& p : receipt["points"]) {
    EXPECT_EQ(p["topology"]["tp"], 8);
    EXPECT_EQ(p["topology"]["ep"], 1);
    EXPECT_EQ(p["topology"]["gpus"], 8);
    EXPECT_EQ(p["configuration"]["hw"], "mi355x");
    EXPECT_EQ(p["config_key"], "minimaxm3_1k1k");  // the row's exp-name: matrix rows name no config key
  }
  ASSERT_EQ(receipt["evals"].size(), 2u);
  for (const Json& e : receipt["evals"]) {
    if (e["status"] == "scored") {
      EXPECT_EQ(e["documents"], 20);
      EXPECT_EQ(e["filters"].size(), 2u);
      for (const Json& f : e["filters"]) EXPECT_EQ(f["samples"], 20);
    }
  }
  EXPECT_EQ(receipt["rows"].size(), 2u);
  // The documented canonical form, reproduced with Python's json module.
  EXPECT_EQ(receipt["receipt_id"], results::ReceiptId(receipt));
  const ProcessResult python =
      RunCapture({"python3", "-c",
                  "import hashlib,json,sys; r=json.load(open(sys.argv[1])); r.pop('receipt_id'); "
                  "print(hashlib.sha256(json.dumps(r, sort_keys=True, separators=(',', ':'), "
                  "ensure_ascii=True).encode()).hexdigest())",
                  (pristine_ / "receipt.json").string()});
  ASSERT_EQ(python.exit_code, 0) << python.err;
  EXPECT_EQ(python.out, receipt["receipt_id"].get<std::string>() + "\n");
}

TEST_F(Receipts, ABundleIngestsIntoAnEmptyStoreAndVerifies) {
  const fs::path db = dir_ / "store" / "infermark.db";
  const ProcessResult r = Ingest(pristine_, db);
  ASSERT_EQ(r.exit_code, 0) << Said(r);
  const std::string id = Json::parse(Slurp(pristine_ / "receipt.json"))["receipt_id"];
  EXPECT_NE(r.out.find("receipt " + id + " verified"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 added"), std::string::npos) << r.out;
  const auto points = results::inspect::Query(db.string(), "SELECT receipt_id, source_path FROM points ORDER BY id");
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) {
    EXPECT_EQ(p[0], id);
    EXPECT_EQ(p[1].rfind("receipt:" + id + "/", 0), 0u) << p[1];
  }
  const auto runs = results::inspect::Query(db.string(), "SELECT run_key, source FROM runs");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0][0], "gha:acme/catalog#4242.1");
  EXPECT_EQ(runs[0][1], "receipt");
  EXPECT_EQ(results::inspect::Query(db.string(), "SELECT COUNT(*) FROM evaluations")[0][0], "2");
  EXPECT_TRUE(fs::exists(dir_ / "store" / "bundles" / id / "receipt.json")) << "the bundle is kept for verify";

  const ProcessResult verified = RunInfermark({"results", "verify", "--db", db.string()});
  EXPECT_EQ(verified.exit_code, 0) << Said(verified);
  EXPECT_NE(verified.out.find("2 with a receipt (1 bundle(s)"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("2 matching, 0 not matching"), std::string::npos) << verified.out;

  const ProcessResult again = Ingest(pristine_, db);
  EXPECT_EQ(again.exit_code, 0) << Said(again);
  EXPECT_NE(again.out.find("0 added, 0 updated, 2 unchanged"), std::string::npos) << again.out;

  const ProcessResult shown = RunInfermark({"results", "show", "latest", "--db", db.string(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << Said(shown);
  EXPECT_EQ(Json::parse(shown.out)["points"][0]["receipt_id"], id);
}

TEST_F(Receipts, OneChangedByteInAMemberIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  const fs::path result = FirstResult(bundle / "artifacts");
  std::string text = Slurp(result);
  const std::size_t at = text.find("\"completed\": ");
  ASSERT_NE(at, std::string::npos);
  text[at + 13] = text[at + 13] == '9' ? '8' : static_cast<char>(text[at + 13] + 1);
  Spill(result, text);
  ExpectRefused(bundle, "member changed: SHA-256");
}

TEST_F(Receipts, SwappedMembersAreRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  std::vector<fs::path> results;
  for (const auto& e : fs::directory_iterator(bundle / "artifacts")) {
    if (e.path().extension() == ".json" && e.path().string().find(".row.") == std::string::npos) {
      results.push_back(e.path());
    }
  }
  ASSERT_EQ(results.size(), 2u);
  const std::string a = Slurp(results[0]);
  Spill(results[0], Slurp(results[1]));
  Spill(results[1], a);
  ExpectRefused(bundle, "member changed");
}

TEST_F(Receipts, AnAddedFileIsRefused) {
  const fs::path inside = CopyOf(pristine_, "inside");
  Spill(inside / "artifacts" / "extra.json", "{}");
  ExpectRefused(inside, "extra member: the manifest does not list this file");
  const fs::path top = CopyOf(pristine_, "top");
  Spill(top / "notes.txt", "hello");
  ExpectRefused(top, "extra member: not part of a bundle");
}

TEST_F(Receipts, AMissingMemberIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  fs::remove(FirstResult(bundle / "artifacts"));
  ExpectRefused(bundle, "missing member");
}

TEST_F(Receipts, ASymlinkIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  const fs::path result = FirstResult(bundle / "artifacts");
  const fs::path elsewhere = dir_ / "elsewhere.json";
  fs::copy_file(result, elsewhere);
  fs::remove(result);
  fs::create_symlink(elsewhere, result);  // same bytes, but not a member the bundle holds
  ExpectRefused(bundle, "a symbolic link");
  // A run folder holding a link is not bundled either.
  const fs::path run = CopyOf(run_, "run");
  fs::create_symlink(elsewhere, run / "linked.json");
  const ProcessResult r = Bundle(run, dir_ / "out");
  EXPECT_EQ(r.exit_code, 2) << Said(r);
  EXPECT_NE(r.err.find("a symbolic link"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Receipts, AReceiptWhoseIdDoesNotMatchIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  Json receipt = Json::parse(Slurp(bundle / "receipt.json"));
  receipt["issuer"]["run_id"] = "9999";  // a receipt moved to another run
  Spill(bundle / "receipt.json", receipt.dump(2));
  ExpectRefused(bundle, "does not match the receipt's content .*: the receipt was changed after it was issued");
}

TEST_F(Receipts, AnEditedManifestIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  std::string manifest = Slurp(bundle / "manifest.json");
  manifest.insert(manifest.size() - 1, " ");
  Spill(bundle / "manifest.json", manifest);
  ExpectRefused(bundle, "the manifest was changed");
}

TEST_F(Receipts, AReissuedReceiptThatMisstatesWhatWasMeasuredIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  Reissue(bundle, [](Json& receipt) { receipt["points"][0]["topology"]["tp"] = 4; });
  ExpectRefused(bundle, "\\.topology\\.tp': the receipt says 4, the artifacts give 8");
}

TEST_F(Receipts, NonFiniteFiguresAreRefused) {
  const fs::path run = CopyOf(run_, "run");
  const fs::path result = FirstResult(run);
  std::string text = Slurp(result);
  const std::regex ttft("\"mean_ttft_ms\": [0-9.e+-]+");
  text = std::regex_replace(text, ttft, "\"mean_ttft_ms\": 1e999", std::regex_constants::format_first_only);
  Spill(result, text);
  const ProcessResult bundled = Bundle(run, dir_ / "out");
  EXPECT_EQ(bundled.exit_code, 2) << Said(bundled);
  EXPECT_NE(bundled.err.find("a non-finite figure"), std::string::npos) << bundled.err;
  // Python's json.dump writes NaN, which JSON cannot hold.
  const fs::path nan_run = CopyOf(run_, "nan-run");
  const fs::path nan_result = FirstResult(nan_run);
  Spill(nan_result, std::regex_replace(Slurp(nan_result), std::regex("\"std_ttft_ms\": [0-9.e+-]+"),
                                       "\"std_ttft_ms\": NaN", std::regex_constants::format_first_only));
  const ProcessResult nan_bundled = Bundle(nan_run, dir_ / "nan-out");
  EXPECT_EQ(nan_bundled.exit_code, 2) << Said(nan_bundled);
  EXPECT_NE(nan_bundled.err.find("a non-finite figure (NaN or Infinity)"), std::string::npos) << nan_bundled.err;
  // The same file in a bundle whose producer hashed it anyway.
  const fs::path bundle = CopyOf(pristine_, "b");
  fs::copy_file(result, bundle / "artifacts" / result.filename(), fs::copy_options::overwrite_existing);
  Reissue(bundle);
  ExpectRefused(bundle, "a non-finite figure: every metric must be a finite number");
}

TEST_F(Receipts, AConfigurationThatDisagreesWithItsRowIsRefused) {
  const fs::path run = CopyOf(run_, "run");
  const fs::path result = FirstResult(run);
  Json doc = Json::parse(Slurp(result));
  const long long conc = doc["max_concurrency"].get<long long>();
  doc["max_concurrency"] = conc + 1;  // the client ran another load than the row's
  Spill(result, doc.dump(2));
  const ProcessResult bundled = Bundle(run, dir_ / "out");
  EXPECT_EQ(bundled.exit_code, 2) << Said(bundled);
  EXPECT_NE(bundled.err.find("its configuration or topology is not the row's"), std::string::npos) << bundled.err;
  const fs::path bundle = CopyOf(pristine_, "b");
  fs::copy_file(result, bundle / "artifacts" / result.filename(), fs::copy_options::overwrite_existing);
  Reissue(bundle);
  ExpectRefused(bundle, "field 'conc': the point says '" + std::to_string(conc + 1) + "'");
}

TEST_F(Receipts, ATopologyThatDisagreesWithItsRowIsRefused) {
  const fs::path bundle = CopyOf(pristine_, "b");
  const fs::path result = FirstResult(bundle / "artifacts");
  const fs::path row = result.parent_path() / (result.stem().string() + ".row.json");
  ASSERT_TRUE(fs::exists(row));
  Json state = Json::parse(Slurp(row));
  state["row"]["tp"] = 4;  // the row asked for TP4; the result was measured as TP8
  Spill(row, state.dump(2));
  Reissue(bundle);
  ExpectRefused(bundle, "field 'tp': the point says '8', its matrix row .* says '4'");
}

TEST_F(Receipts, IncompleteEvalCoverageIsRefused) {
  // Samples of fewer documents than the eval scored.
  const fs::path run = CopyOf(run_, "run");
  for (const auto& e : fs::directory_iterator(run / "evals" / "scored-pass")) {
    if (e.path().filename().string().rfind("samples_", 0) != 0) continue;
    const std::string text = Slurp(e.path());
    Spill(e.path(), text.substr(0, text.rfind('\n', text.size() - 2) + 1));
  }
  const ProcessResult bundled = Bundle(run, dir_ / "out");
  EXPECT_EQ(bundled.exit_code, 2) << Said(bundled);
  EXPECT_NE(bundled.err.find("incomplete eval coverage: filter"), std::string::npos) << bundled.err;
  // An eval row that ran records an eval whose folder is not there.
  const fs::path bundle = CopyOf(pristine_, "b");
  const fs::path result = FirstResult(bundle / "artifacts");
  const fs::path row = result.parent_path() / (result.stem().string() + ".row.json");
  Json state = Json::parse(Slurp(row));
  state["row"]["run-eval"] = true;
  state["evals"] = Json::array({Json{{"task", "gsm8k"}, {"status", "not_run"}, {"concurrency", 64}}});
  Spill(row, state.dump(2));
  Reissue(bundle, [&](Json& receipt) {
    for (Json& r : receipt["rows"]) {
      if (r["row"] == result.stem().string() + ".row.json")
        r["evals"] = Json::array({Json{{"task", "gsm8k"}, {"status", "not_run"}, {"concurrency", 64}}});
    }
  });
  ExpectRefused(bundle, "incomplete eval coverage: the row's gsm8k eval at concurrency 64 has no eval folder");
}

TEST_F(Receipts, OnlyAllowedIssuersAreStored) {
  ExpectRefused(pristine_, "acme/catalog run 4242/1 .* is not an allowed issuer", {"--allow-issuer", "other/repo"});
  ExpectRefused(pristine_, "not an allowed issuer", {"--allow-issuer", "acme/catalog@fedcba9"});
  const fs::path db = dir_ / "allowed.db";
  const ProcessResult ok = Ingest(pristine_, db, {"--allow-issuer", "ACME/catalog@0123456"});
  EXPECT_EQ(ok.exit_code, 0) << Said(ok);
  const ProcessResult bad = Ingest(pristine_, db, {"--allow-issuer", "acme"});
  EXPECT_EQ(bad.exit_code, 2) << Said(bad);
  EXPECT_NE(bad.err.find("must be OWNER/NAME or OWNER/NAME@SHA"), std::string::npos) << bad.err;
}

TEST_F(Receipts, LooseFilesAndDeploymentFlagsDoNotMixWithBundles) {
  const fs::path mixed = dir_ / "mixed";
  fs::create_directories(mixed);
  fs::copy(pristine_, mixed / "bundle", fs::copy_options::recursive);
  fs::copy_file(FirstResult(run_), mixed / "loose.json");
  ExpectRefused(mixed, "loose.json: not in a bundle");
  ExpectRefused(pristine_, "'--tp': does not apply to a bundle", {"--tp", "4"});
  const ProcessResult none = Ingest(run_, dir_ / "x.db", {"--require-receipt"});
  EXPECT_EQ(none.exit_code, 2) << Said(none);
  EXPECT_NE(none.err.find("no bundle"), std::string::npos) << none.err;
}

TEST_F(Receipts, VerifyReportsEveryPointWhoseStoredFiguresChanged) {
  const fs::path db = StoreWithPristine();
  const auto ids = results::inspect::Query(db.string(), "SELECT id FROM points ORDER BY id");
  ASSERT_EQ(ids.size(), 2u);
  {
    results::SqliteDb edit(db.string());
    edit.Exec("UPDATE points SET tput_per_gpu = tput_per_gpu * 1.25 WHERE id = " + ids[0][0]);
    edit.Exec(
        "UPDATE points SET agg_json = replace(agg_json, '\"median_ttft\":', '\"median_ttft\":1.0,\"x\":') WHERE id = " +
        ids[1][0]);
  }
  const ProcessResult r = RunInfermark({"results", "verify", "--db", db.string()});
  EXPECT_EQ(r.exit_code, 1) << Said(r);
  EXPECT_NE(r.out.find("MISMATCH point " + ids[0][0]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tput_per_gpu: stored"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MISMATCH point " + ids[1][0]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agg_json: stored"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 matching, 2 not matching"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("VERIFY FAILED"), std::string::npos) << r.out;
}

TEST_F(Receipts, VerifyReportsABundleGoneOrChangedInTheArchive) {
  const fs::path db = StoreWithPristine();
  const std::string id = Json::parse(Slurp(pristine_ / "receipt.json"))["receipt_id"];
  const fs::path kept = dir_ / "store" / "bundles" / id;
  const fs::path result = FirstResult(kept / "artifacts");
  Spill(result, Slurp(result) + " ");
  ProcessResult r = RunInfermark({"results", "verify", "--db", db.string()});
  EXPECT_EQ(r.exit_code, 1) << Said(r);
  EXPECT_NE(r.out.find("its bundle fails verification"), std::string::npos) << r.out;
  fs::remove_all(kept);
  r = RunInfermark({"results", "verify", "--db", db.string()});
  EXPECT_EQ(r.exit_code, 1) << Said(r);
  EXPECT_NE(r.out.find("is not in the archive"), std::string::npos) << r.out;
}

TEST_F(Receipts, TheEvalGateJudgesTheStoredEvaluations) {
  const fs::path db = StoreWithPristine();
  ProcessResult r = RunInfermark({"results", "gate", "--db", db.string(), "--run", "latest"});
  EXPECT_EQ(r.exit_code, 0) << Said(r);
  EXPECT_NE(r.out.find("PASS  gsm8k"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NOT RUN  gsm8k"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("eval gate: PASSED"), std::string::npos) << r.out;
  // A matrix eval row that has no evaluation fails the gate.
  Json row = Json::parse(Slurp(FirstResult(run_).replace_extension("").string() + ".row.json"))["row"];
  row["eval-only"] = true;
  row["run-eval"] = true;
  row["conc"] = 256;
  Spill(dir_ / "matrix.json", Json{{"include", Json::array({row})}}.dump());
  r = RunInfermark({"results", "gate", "--db", db.string(), "--run", "latest", "--matrix",
                    (dir_ / "matrix.json").string(), "--format", "markdown"});
  EXPECT_EQ(r.exit_code, 1) << Said(r);
  EXPECT_NE(r.out.find("| **MISSING** |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("_conc256_<runner>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Eval gate: **failed** (1 evaluation(s))"), std::string::npos) << r.out;
}

TEST_F(Receipts, PostgresStoresKeepBundlesWhereTheyAreToldAndVerify) {
  auto database = test::FreshPostgresDatabase("receipts_verify");
  if (!database) GTEST_SKIP() << test::PostgresSkipReason();
  const fs::path archive = dir_ / "archive";
  ProcessResult r = Ingest(pristine_, database->url);
  EXPECT_EQ(r.exit_code, 2) << Said(r);
  EXPECT_NE(r.err.find("a PostgreSQL store keeps no files"), std::string::npos) << r.err;
  r = Ingest(pristine_, database->url, {"--bundles", archive.string()});
  ASSERT_EQ(r.exit_code, 0) << Said(r);
  r = RunInfermark({"results", "verify", "--db", database->url, "--bundles", archive.string()});
  EXPECT_EQ(r.exit_code, 0) << Said(r);
  results::PgConnection(database->url).Exec("UPDATE points SET median_e2el = median_e2el + 1");
  r = RunInfermark({"results", "verify", "--db", database->url, "--bundles", archive.string()});
  EXPECT_EQ(r.exit_code, 1) << Said(r);
  EXPECT_NE(r.out.find("median_e2el: stored"), std::string::npos) << r.out;
}

// --- the library's rules ---------------------------------------------------------------------

TEST(ReceiptMigration, PointsStoredBeforeReceiptsReadAsHavingNone) {
  const fs::path dir = fs::temp_directory_path() / ("infermark-receipt-migration-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string db = (dir / "store.db").string();
  {
    results::StoreOptions older;
    older.target_schema_version = results::ReceiptsSchemaVersion() - 1;
    auto store = results::OpenStore(db, older);
    ASSERT_EQ(store->SchemaVersion(), results::ReceiptsSchemaVersion() - 1);
    store->Ingest({"before", "", "", "", "", "ingest"}, results::sample::SampleCurve({}, {4}));
  }
  auto store = results::OpenStore(db);  // migrated forward on open
  EXPECT_GE(store->SchemaVersion(), results::ReceiptsSchemaVersion());
  const auto points = store->Points(store->FindRun("before").id);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].receipt_id, "");
  // A receipt recorded later is a change of the point, not a no-op.
  results::Point again = results::sample::SampleCurve({}, {4})[0];
  again.receipt_id = std::string(64, 'a');
  const results::IngestOutcome outcome = store->Ingest({"before", "", "", "", "", "ingest"}, {again});
  EXPECT_EQ(outcome.updated, 1);
  EXPECT_EQ(store->Points(outcome.run_id)[0].receipt_id, again.receipt_id);
  fs::remove_all(dir);
}

TEST(BundleManifest, MemberPathsStayInsideTheBundle) {
  for (const char* ok : {"a.json", "logs/x/server.log", "evals/r/samples_gsm8k_1.jsonl"}) {
    EXPECT_TRUE(results::SafeMemberPath(ok)) << ok;
  }
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/.", "a\\b"}) {
    EXPECT_FALSE(results::SafeMemberPath(bad)) << bad;
  }
  std::vector<Diagnostic> problems;
  const std::string unordered = R"({"members":[{"path":"b","sha256":")" + std::string(64, 'a') +
                                R"(","size":1},{"path":"a","sha256":")" + std::string(64, 'a') +
                                R"(","size":1}],"schema":"infermark.bundle-manifest/1"})";
  EXPECT_EQ(results::ParseManifest(unordered, "m", problems).size(), 1u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].rule.find("out of order or listed twice"), std::string::npos);
}

TEST(ReceiptIssuers, RulesNameARepositoryAndOptionallyTheWorkflowCommit) {
  results::Issuer issuer;
  issuer.repository = "Acme/Catalog";
  issuer.workflow_sha = kSha;
  EXPECT_TRUE(results::IssuerAllowed(issuer, {}));
  EXPECT_TRUE(results::IssuerAllowed(issuer, results::ParseIssuerRules({"acme/catalog"})));
  EXPECT_TRUE(results::IssuerAllowed(issuer, results::ParseIssuerRules({"x/y", "acme/catalog@0123456789"})));
  EXPECT_FALSE(results::IssuerAllowed(issuer, results::ParseIssuerRules({"acme/catalog@1123456"})));
  EXPECT_FALSE(results::IssuerAllowed(issuer, results::ParseIssuerRules({"acme/catalog-fork"})));
  for (const char* bad : {"acme", "a/b/c", "acme/catalog@123", "acme/catalog@xyz1234", "/x"}) {
    EXPECT_THROW(results::ParseIssuerRules({bad}), InputError) << bad;
  }
}

}  // namespace
}  // namespace infermark

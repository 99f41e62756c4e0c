// Differential test against InferenceX's generate_sweep_configs.py: every case in
// tests/fixtures/matrix-parity/cases.jsonl (written by tests/parity/make_cases.py, which records
// what the reference printed for each argument list) runs as `infermark matrix <args> --format json`
// from tests/fixtures/inferencex, and must fail exactly when the reference failed and otherwise
// print the same rows, byte for byte (compared through the SHA-256 of the trimmed output).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/json_text.hpp"
#include "core/sha256.hpp"
#include "core/subprocess.hpp"
#include "test_paths.hpp"

namespace infermark::matrix {
namespace {

struct ParityCase {
  std::vector<std::string> args;
  bool rc_ok = true;
  std::size_t rows = 0;
  std::string sha256;
  std::string category;
};

std::vector<ParityCase> LoadCases() {
  std::ifstream in(test::Fixture("matrix-parity/cases.jsonl"));
  std::vector<ParityCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const Json record = Json::parse(line);
    ParityCase c;
    c.args = record.at("args").get<std::vector<std::string>>();
    c.rc_ok = record.at("rc_ok").get<bool>();
    c.rows = record.at("rows").get<std::size_t>();
    c.sha256 = record.at("sha256").get<std::string>();
    if (record.contains("category")) c.category = record.at("category").get<std::string>();
    cases.push_back(std::move(c));
  }
  return cases;
}

// The arguments as a shell would need them, for a failure message that can be pasted.
std::string Quoted(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& arg : args) {
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
             std::string_view("-_./:=+,").find(ch) != std::string_view::npos;
    });
    std::string word = plain ? arg : "'";
    if (!plain) {
      for (char ch : arg) word += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      word += '\'';
    }
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

// Python's str.rstrip(): trailing spaces, tabs, newlines, vertical tabs, form feeds, returns.
std::string_view TrimRight(std::string_view text) {
  const auto end = text.find_last_not_of(" \t\n\r\v\f");
  return end == std::string_view::npos ? std::string_view() : text.substr(0, end + 1);
}

// Runs one case; empty when it matches the reference, else what differs.
std::string Check(const ParityCase& c) {
  std::vector<std::string> argv = {test::Binary(), "matrix"};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  argv.insert(argv.end(), {"--format", "json"});
  const ProcessResult result = RunCapture(argv, test::Fixture("inferencex"));
  const bool ok = result.exit_code == 0;
  const std::string where = "[" + c.category + "] infermark matrix " + Quoted(c.args) + " --format json\n  ";
  if (ok != c.rc_ok) {
    std::string err(TrimRight(result.err));
    if (err.size() > 400) err = "..." + err.substr(err.size() - 400);
    return where +
           (c.rc_ok ? "reference succeeded, infermark failed (exit " + std::to_string(result.exit_code) + "): " + err
                    : "reference failed, infermark succeeded");
  }
  if (!ok) return {};
  const std::string_view out = TrimRight(result.out);
  std::size_t rows = 0;
  try {
    rows = Json::parse(out).size();
  } catch (const std::exception& e) {
    return where + "output is not JSON: " + e.what();
  }
  if (rows != c.rows) {
    return where + "rows: infermark " + std::to_string(rows) + ", reference " + std::to_string(c.rows);
  }
  const std::string digest = Sha256Hex(out);
  if (digest != c.sha256) return where + "same row count, different bytes: sha256 " + digest + " != " + c.sha256;
  return {};
}

TEST(MatrixParity, CaseFileCoversEveryFlag) {
  const auto cases = LoadCases();
  ASSERT_GE(cases.size(), 300u) << "tests/fixtures/matrix-parity/cases.jsonl is missing or short; "
                                   "regenerate it with tests/parity/make_cases.py";
  std::set<std::string> seen;
  std::size_t failing = 0;
  for (const auto& c : cases) {
    seen.insert(c.args.front());
    for (const auto& arg : c.args) {
      if (arg.rfind("--", 0) == 0) seen.insert(arg.substr(0, arg.find('=')));
    }
    if (!c.rc_ok) ++failing;
  }
  for (const char* flag :
       {"full-sweep",    "test-config",          "--config-files",  "--runner-config", "--no-evals",  "--evals-only",
        "--all-evals",   "--runner-node-filter", "--scenario-type", "--model-prefix",  "--precision", "--framework",
        "--runner-type", "--seq-lens",           "--step-size",     "--min-conc",      "--max-conc",  "--max-tp",
        "--max-ep",      "--single-node",        "--multi-node",    "--config-keys",   "--conc"}) {
    EXPECT_TRUE(seen.count(flag)) << "no case uses " << flag;
  }
  EXPECT_GT(failing, 0u) << "no error cases";
  EXPECT_LT(failing, cases.size() / 4) << "mostly error cases";
}

TEST(MatrixParity, EveryCaseMatchesTheReference) {
  const auto cases = LoadCases();
  ASSERT_FALSE(cases.empty());
  std::vector<std::string> problems(cases.size());
  std::atomic<std::size_t> next{0};
  const unsigned workers = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < cases.size(); i = next++) {
        try {
          problems[i] = Check(cases[i]);
        } catch (const std::exception& e) {
          problems[i] = "[" + cases[i].category + "] " + Quoted(cases[i].args) + "\n  " + e.what();
        }
      }
    });
  }
  for (auto& thread : pool) thread.join();
  std::size_t mismatches = 0;
  for (const auto& problem : problems) {
    if (problem.empty()) continue;
    ++mismatches;
    ADD_FAILURE() << problem;
  }
  EXPECT_EQ(mismatches, 0u) << "of " << cases.size() << " cases";
}

}  // namespace
}  // namespace infermark::matrix

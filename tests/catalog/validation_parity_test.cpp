// Differential test against InferenceX's validator: every case under
// tests/fixtures/validation-parity/ (written by tests/parity/mutate_configs.py, which records the
// reference verdict of validation.py for each mutated master config or runners.yaml) must get the
// same verdict from infermark's catalog readers, and every problem must say where and why.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/catalog_loader.hpp"
#include "core/json_text.hpp"
#include "test_paths.hpp"

namespace infermark::catalog {
namespace {

struct ParityCase {
  std::string file;      // Case file name under validation-parity/.
  std::string kind;      // "master" or "runners".
  bool expected = true;  // Verdict infermark must reach (the reference's unless deliberate).
  std::string rule;      // What the mutation does.
  std::string reference_error;
};

std::vector<ParityCase> LoadCases() {
  std::ifstream in(test::Fixture("validation-parity/verdicts.jsonl"));
  std::vector<ParityCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const Json record = Json::parse(line);
    ParityCase c;
    c.file = record.at("file").get<std::string>();
    c.kind = record.at("kind").get<std::string>();
    c.expected = record.contains("ours") ? record.at("ours").get<bool>() : record.at("valid").get<bool>();
    c.rule = record.at("rule").get<std::string>();
    if (record.contains("reference_error")) c.reference_error = record.at("reference_error").get<std::string>();
    cases.push_back(std::move(c));
  }
  return cases;
}

// Reads one case the way `infermark validate` does and returns every problem found.
std::vector<Diagnostic> Validate(const ParityCase& c) {
  std::vector<Diagnostic> problems;
  try {
    const YamlDocument doc = LoadYamlFile(test::Fixture("validation-parity/" + c.file));
    if (c.kind == "runners") {
      ReadRunnerConfig(doc, problems);
    } else {
      ReadMasterConfig(doc, problems);
    }
  } catch (const InputError& e) {
    problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
  }
  return problems;
}

std::string Describe(const ParityCase& c, const std::vector<Diagnostic>& problems) {
  std::ostringstream out;
  out << c.file << " (" << c.rule << "): reference says " << (c.expected ? "valid" : "invalid");
  if (!c.reference_error.empty()) out << " [" << c.reference_error << "]";
  out << ", infermark found " << problems.size() << " problem(s)";
  for (const auto& p : problems) out << "\n    " << p.ToString();
  return out.str();
}

TEST(ValidationParity, CasesArePresent) {
  const auto cases = LoadCases();
  ASSERT_GE(cases.size(), 300U) << "regenerate with tests/parity/mutate_configs.py";
  std::map<std::string, int> kinds;
  for (const auto& c : cases) ++kinds[c.kind];
  EXPECT_GT(kinds["master"], 0);
  EXPECT_GT(kinds["runners"], 0);
}

TEST(ValidationParity, VerdictsMatchReference) {
  std::size_t mismatches = 0;
  for (const auto& c : LoadCases()) {
    const auto problems = Validate(c);
    if (problems.empty() != c.expected) {
      ++mismatches;
      ADD_FAILURE() << Describe(c, problems);
    }
  }
  EXPECT_EQ(mismatches, 0U);
}

TEST(ValidationParity, ProblemsSayWhereAndWhy) {
  for (const auto& c : LoadCases()) {
    for (const auto& p : Validate(c)) {
      EXPECT_GT(p.mark.line, 0) << c.file << ": " << p.ToString();
      EXPECT_FALSE(p.rule.empty()) << c.file << ": " << p.ToString();
      EXPECT_FALSE(p.mark.file.empty()) << c.file << ": " << p.ToString();
    }
  }
}

}  // namespace
}  // namespace infermark::catalog

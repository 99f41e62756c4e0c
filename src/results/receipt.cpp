#include "results/receipt.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "core/host.hpp"
#include "core/sha256.hpp"
#include "core/version.hpp"

namespace infermark::results {
namespace {

std::string EnvironmentText(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// The issuer's fields in the receipt's order, for writing and reading alike.
template <typename IssuerRef, typename Visit>
void VisitIssuerFields(IssuerRef& issuer, Visit visit) {
  visit("repository", issuer.repository);
  visit("server_url", issuer.server_url);
  visit("run_id", issuer.run_id);
  visit("run_attempt", issuer.run_attempt);
  visit("workflow_ref", issuer.workflow_ref);
  visit("workflow_sha", issuer.workflow_sha);
  visit("commit", issuer.commit);
  visit("job", issuer.job);
  visit("host", issuer.host);
  visit("infermark_version", issuer.infermark_version);
  visit("infermark_commit", issuer.infermark_commit);
  visit("infermark_sha256", issuer.infermark_sha256);
}

bool IsHexText(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

bool StartsWithIgnoringCase(const std::string& text, const std::string& prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(text[i]) != lower(prefix[i])) return false;
  }
  return true;
}

}  // namespace

Json Issuer::ToJson() const {
  Json doc = Json::object();
  VisitIssuerFields(*this, [&](const char* name, const std::string& value) { doc[name] = value; });
  return doc;
}

std::string Issuer::Describe() const {
  if (repository.empty()) return "local bundle from " + (host.empty() ? std::string("an unknown host") : host);
  std::string text = repository;
  if (!run_id.empty()) text += " run " + run_id + (run_attempt.empty() ? "" : "/" + run_attempt);
  if (!workflow_sha.empty()) text += " (workflow at " + workflow_sha.substr(0, 12) + ")";
  return text;
}

Issuer IssuerFromEnvironment() {
  Issuer issuer;
  issuer.repository = EnvironmentText("GITHUB_REPOSITORY");
  issuer.server_url = EnvironmentText("GITHUB_SERVER_URL");
  issuer.run_id = EnvironmentText("GITHUB_RUN_ID");
  issuer.run_attempt = EnvironmentText("GITHUB_RUN_ATTEMPT");
  issuer.workflow_ref = EnvironmentText("GITHUB_WORKFLOW_REF");
  issuer.workflow_sha = EnvironmentText("GITHUB_WORKFLOW_SHA");
  issuer.commit = EnvironmentText("GITHUB_SHA");
  issuer.job = EnvironmentText("GITHUB_JOB");
  issuer.host = HostName();
  issuer.infermark_version = kVersion;
  issuer.infermark_commit = GitCommit();
  issuer.infermark_sha256 = Sha256FileHex("/proc/self/exe");
  return issuer;
}

Issuer IssuerFromJson(const Json& doc, const std::string& path, std::vector<Diagnostic>& problems) {
  Issuer issuer;
  if (!doc.is_object()) {
    problems.push_back(Diagnostic{{path, 0, 0}, "", "issuer", "must be an object"});
    return issuer;
  }
  VisitIssuerFields(issuer, [&](const char* name, std::string& value) {
    const auto it = doc.find(name);
    if (it == doc.end()) return;
    if (!it->is_string()) {
      problems.push_back(Diagnostic{{path, 0, 0}, "", std::string("issuer.") + name, "must be text"});
      return;
    }
    value = it->get<std::string>();
  });
  return issuer;
}

std::string ReceiptId(const Json& receipt) {
  Json rest = receipt;
  if (rest.is_object()) rest.erase("receipt_id");
  return Sha256Hex(DumpJson(rest, kCanonicalJson));
}

std::vector<IssuerRule> ParseIssuerRules(const std::vector<std::string>& specs) {
  std::vector<IssuerRule> rules;
  for (const std::string& spec : specs) {
    IssuerRule rule;
    const std::size_t at = spec.find('@');
    rule.repository = spec.substr(0, at);
    if (at != std::string::npos) rule.workflow_sha = spec.substr(at + 1);
    const std::size_t slash = rule.repository.find('/');
    const bool repository_ok = slash != std::string::npos && slash > 0 && slash + 1 < rule.repository.size() &&
                               rule.repository.find('/', slash + 1) == std::string::npos;
    const bool sha_ok = at == std::string::npos || (rule.workflow_sha.size() >= 7 && rule.workflow_sha.size() <= 64 &&
                                                    IsHexText(rule.workflow_sha));
    if (!repository_ok || !sha_ok) {
      throw InputError(Diagnostic{{},
                                  "",
                                  "--allow-issuer",
                                  "'" + spec +
                                      "' must be OWNER/NAME or OWNER/NAME@SHA (the workflow's commit, at least "
                                      "7 hex digits)"});
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

bool IssuerAllowed(const Issuer& issuer, const std::vector<IssuerRule>& rules) {
  if (rules.empty()) return true;
  return std::any_of(rules.begin(), rules.end(), [&](const IssuerRule& rule) {
    // GitHub's owner and repository names are case-insensitive; commits are hex either way.
    return rule.repository.size() == issuer.repository.size() &&
           StartsWithIgnoringCase(issuer.repository, rule.repository) &&
           (rule.workflow_sha.empty() || StartsWithIgnoringCase(issuer.workflow_sha, rule.workflow_sha));
  });
}

}  // namespace infermark::results

#include "results/bundle_manifest.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/json_text.hpp"
#include "core/sha256.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

Diagnostic MemberProblem(const std::string& path, const std::string& rule) {
  return Diagnostic{{path, 0, 0}, "", "", rule};
}

bool IsLowerHexDigest(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

bool SafeMemberPath(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string::npos ||
      path.find('\0') != std::string::npos) {
    return false;
  }
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t end = std::min(path.find('/', begin), path.size());
    const std::string part = path.substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..") return false;
    begin = end + 1;
  }
  return true;
}

std::vector<BundleMember> ScanMembers(const std::string& root, std::vector<Diagnostic>& problems) {
  std::vector<BundleMember> members;
  std::error_code ec;
  const fs::path base(root);
  for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    const std::string shown = it->path().string();
    if (fs::is_symlink(status)) {
      problems.push_back(MemberProblem(shown, "a symbolic link: a bundle holds regular files only"));
      continue;
    }
    if (fs::is_directory(status)) continue;
    if (!fs::is_regular_file(status)) {
      problems.push_back(MemberProblem(shown, "not a regular file (socket, pipe or device)"));
      continue;
    }
    BundleMember member;
    member.path = it->path().lexically_relative(base).generic_string();
    try {
      member.sha256 = Sha256FileHex(shown, &member.size);
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
      continue;
    }
    members.push_back(std::move(member));
  }
  if (ec) problems.push_back(MemberProblem(root, "cannot list the folder: " + ec.message()));
  std::sort(members.begin(), members.end(),
            [](const BundleMember& a, const BundleMember& b) { return a.path < b.path; });
  return members;
}

std::string ManifestText(const std::vector<BundleMember>& members) {
  Json doc = Json::object();
  doc["schema"] = kManifestSchema;
  doc["members"] = Json::array();
  for (const BundleMember& m : members) {
    doc["members"].push_back(Json{{"path", m.path}, {"size", m.size}, {"sha256", m.sha256}});
  }
  return DumpJson(doc, kCanonicalJson) + "\n";
}

std::vector<BundleMember> ParseManifest(const std::string& text, const std::string& path,
                                        std::vector<Diagnostic>& problems) {
  const Json doc = Json::parse(text, nullptr, false);
  const auto fail = [&](const std::string& field, const std::string& rule) {
    problems.push_back(Diagnostic{{path, 0, 0}, "", field, rule});
  };
  if (!doc.is_object()) {
    fail("", "not a bundle manifest (not a JSON object)");
    return {};
  }
  if (!doc.contains("schema") || doc["schema"] != kManifestSchema) {
    fail("schema", std::string("must be '") + kManifestSchema + "'");
    return {};
  }
  if (!doc.contains("members") || !doc["members"].is_array()) {
    fail("members", "must be an array");
    return {};
  }
  std::vector<BundleMember> members;
  for (std::size_t i = 0; i < doc["members"].size(); ++i) {
    const Json& m = doc["members"][i];
    const std::string field = "members[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("path") || !m["path"].is_string() || !m.contains("size") ||
        !m["size"].is_number_unsigned() || !m.contains("sha256") || !m["sha256"].is_string()) {
      fail(field, "must hold path (text), size (a byte count) and sha256 (text)");
      continue;
    }
    BundleMember member{m["path"].get<std::string>(), m["size"].get<std::uintmax_t>(), m["sha256"].get<std::string>()};
    if (!SafeMemberPath(member.path)) {
      fail(field + ".path", "'" + member.path + "' is not a relative path inside the bundle");
      continue;
    }
    if (!IsLowerHexDigest(member.sha256)) {
      fail(field + ".sha256", "must be 64 lower-case hex digits");
      continue;
    }
    if (!members.empty() && !(members.back().path < member.path)) {
      fail(field + ".path", "'" + member.path + "' is out of order or listed twice");
      continue;
    }
    members.push_back(std::move(member));
  }
  return members;
}

void CheckMembers(const std::string& root, const std::vector<BundleMember>& manifest,
                  std::vector<Diagnostic>& problems) {
  std::vector<BundleMember> found = ScanMembers(root, problems);
  std::map<std::string, const BundleMember*> listed;
  for (const BundleMember& m : manifest) listed[m.path] = &m;
  const fs::path base(root);
  for (const BundleMember& m : found) {
    const std::string shown = (base / m.path).string();
    const auto it = listed.find(m.path);
    if (it == listed.end()) {
      problems.push_back(MemberProblem(shown, "extra member: the manifest does not list this file"));
      continue;
    }
    if (it->second->size != m.size) {
      problems.push_back(MemberProblem(shown, "member changed: " + std::to_string(m.size) +
                                                  " bytes, the manifest says " + std::to_string(it->second->size)));
    } else if (it->second->sha256 != m.sha256) {
      problems.push_back(
          MemberProblem(shown, "member changed: SHA-256 " + m.sha256 + ", the manifest says " + it->second->sha256));
    }
    listed.erase(it);
  }
  for (const auto& [name, member] : listed) {
    std::error_code ec;
    const fs::path file = base / name;
    // A listed file replaced by a link was reported by the scan; the rest are gone.
    if (fs::is_symlink(fs::symlink_status(file, ec))) continue;
    problems.push_back(MemberProblem(file.string(), "missing member: the manifest lists it, the bundle lacks it"));
  }
}

}  // namespace infermark::results

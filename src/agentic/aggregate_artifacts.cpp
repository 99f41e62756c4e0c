#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "agentic/aggregate.hpp"
#include "agentic/detail/aggregate_common.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;
using detail::StartsWith;

std::string ReadHead(const fs::path& path) {
  constexpr std::size_t kMax = 64u * 1024u * 1024u;
  std::ifstream in(path, std::ios::binary);
  std::string data(kMax, '\0');
  in.read(data.data(), static_cast<std::streamsize>(kMax));
  data.resize(static_cast<std::size_t>(in.gcount()));
  data.erase(std::remove(data.begin(), data.end(), '\0'), data.end());
  return data;
}

std::vector<fs::path> ServerLogPaths(const fs::path& result_dir) {
  std::vector<fs::path> paths;
  std::error_code ec;
  if (fs::is_regular_file(result_dir / "server.log", ec)) paths.push_back(result_dir / "server.log");
  std::vector<fs::path> roots{result_dir};
  fs::path p = result_dir;
  for (int i = 0; i < 3; ++i) {
    fs::path parent = p.parent_path();
    if (parent.empty()) parent = ".";
    if (parent == p) break;
    roots.push_back(parent);
    p = parent;
    if (parent == ".") break;
  }
  for (const fs::path& root : roots) {
    if (!fs::is_directory(root, ec)) continue;
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (StartsWith(name, "watchtower-") && name.size() >= 15 && name.substr(name.size() - 4) == ".out") {
        found.push_back(entry.path());
      }
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  std::vector<fs::path> unique;
  std::set<fs::path> seen;
  for (const fs::path& path : paths) {
    if (seen.insert(fs::weakly_canonical(path, ec)).second) unique.push_back(path);
  }
  return unique;
}

}  // namespace

AgenticArtifacts ReadAgenticArtifacts(const std::string& result_dir) {
  const fs::path base = fs::path(result_dir) / "aiperf_artifacts";
  fs::path dir = base;
  std::error_code ec;
  if (!fs::is_regular_file(base / "profile_export.jsonl", ec) && fs::is_directory(base, ec)) {
    std::vector<fs::path> children;
    for (const auto& entry : fs::directory_iterator(base, ec)) children.push_back(entry.path());
    std::sort(children.begin(), children.end());
    for (const fs::path& child : children) {
      if (fs::is_directory(child, ec) && fs::is_regular_file(child / "profile_export.jsonl", ec)) {
        dir = child;
        break;
      }
    }
  }
  const fs::path jsonl = dir / "profile_export.jsonl";
  if (!fs::exists(jsonl, ec)) throw InputError(Diagnostic{SourceMark{jsonl.string(), 0, 0}, "", "", "not found"});
  AgenticArtifacts a;
  a.records = ReadProfileExport(jsonl.string());
  if (fs::exists(dir / "profile_export_aiperf.json", ec)) {
    a.summary = ReadProfileSummary((dir / "profile_export_aiperf.json").string());
  }
  const fs::path server = dir / "server_metrics_export.json";
  if (fs::exists(server, ec)) {
    a.server_metrics = Json::parse(ReadFile(server.string()), nullptr, false);
    if (a.server_metrics.is_discarded()) {
      throw InputError(Diagnostic{SourceMark{server.string(), 0, 0}, "", "", "not valid JSON"});
    }
  }
  for (const fs::path& log : ServerLogPaths(fs::path(result_dir))) a.server_logs.push_back(ReadHead(log));
  return a;
}

}  // namespace infermark::agentic

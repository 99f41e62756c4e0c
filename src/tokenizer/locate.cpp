#include "tokenizer/locate.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace infermark::tokenizer {
namespace {

namespace fs = std::filesystem;

bool HasTokenizer(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / "tokenizer.json", ec);
}

}  // namespace

std::optional<std::string> Locate(const std::string& spec) {
  std::error_code ec;
  if (fs::is_regular_file(spec, ec)) return spec;
  if (fs::is_directory(spec, ec)) return HasTokenizer(spec) ? std::optional<std::string>(spec) : std::nullopt;
  std::string folder_name = "models--";
  for (const char c : spec) folder_name += c == '/' ? std::string("--") : std::string(1, c);
  for (const std::string& root : HubCacheRoots()) {
    const fs::path model = fs::path(root) / folder_name;
    if (!fs::is_directory(model, ec)) continue;
    std::ifstream ref(model / "refs" / "main");
    std::string commit;
    if (ref && std::getline(ref, commit) && HasTokenizer(model / "snapshots" / commit)) {
      return (model / "snapshots" / commit).string();
    }
    for (const auto& entry : fs::directory_iterator(model / "snapshots", ec)) {
      if (HasTokenizer(entry.path())) return entry.path().string();
    }
  }
  return std::nullopt;
}

std::vector<std::string> HubCacheRoots() {
  std::vector<std::string> roots;
  if (const char* v = std::getenv("HF_HUB_CACHE"); v != nullptr && *v != '\0') roots.emplace_back(v);
  if (const char* v = std::getenv("HF_HOME"); v != nullptr && *v != '\0')
    roots.push_back((fs::path(v) / "hub").string());
  if (const char* v = std::getenv("HOME"); v != nullptr && *v != '\0') {
    roots.push_back((fs::path(v) / ".cache" / "huggingface" / "hub").string());
  }
  return roots;
}

}  // namespace infermark::tokenizer

#include "cli/project_paths.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/fast_heap.hpp"

namespace infermark::cli {
namespace fs = std::filesystem;

namespace {
bool IsRecipes(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "configs", ec);
}

fs::path ExecutableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}
}  // namespace

std::string RecipesDir() {
  if (const char* env = std::getenv("INFERMARK_RECIPES"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
    if (IsRecipes(dir / "recipes")) return (dir / "recipes").string();
    if (dir == dir.root_path()) break;
  }
  for (fs::path dir = ExecutableDir(); !dir.empty(); dir = dir.parent_path()) {
    if (IsRecipes(dir / "recipes")) return (dir / "recipes").string();
    if (IsRecipes(dir / "share/infermark/recipes")) return (dir / "share/infermark/recipes").string();
    if (dir == dir.root_path()) break;
  }
  throw InputError(Diagnostic{SourceMark{}, "", "",
                              "cannot find the project's recipes/ folder: give files, or set INFERMARK_RECIPES"});
}

void TuneHeapForInputs(const std::vector<std::string>& files) {
  constexpr std::uintmax_t kLargeInput = 128 * 1024;
  std::uintmax_t total = 0;
  std::error_code ec;
  for (const auto& file : files) {
    const auto size = fs::file_size(file, ec);
    if (!ec) total += size;
  }
  if (total >= kLargeInput) TuneHeapForShortRuns();
}

std::vector<std::string> ProjectMasterConfigs() {
  const fs::path configs = fs::path(RecipesDir()) / "configs";
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(configs, ec)) {
    const std::string name = item.path().filename().string();
    if (name.size() > 12 && name.compare(name.size() - 12, 12, "-master.yaml") == 0)
      files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> ProjectCatalogFiles() {
  std::vector<std::string> files = ProjectMasterConfigs();
  const fs::path recipes(RecipesDir());
  files.push_back((recipes / "configs" / "runners.yaml").string());
  files.push_back((recipes / "perf-changelog.yaml").string());
  return files;
}

}  // namespace infermark::cli

// A fresh folder for one test, under the system temp folder and removed at the end, for every
// suite: tests that write files (results, eval folders, stores) get their own.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace infermark::test {

/// A fresh folder under the system temp folder (`<prefix>-XXXXXX`), removed at destruction.
struct ScratchDir {
  std::filesystem::path path;  ///< The folder.

  explicit ScratchDir(const std::string& prefix = "infermark-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path = mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// The path of `name` in the folder.
  [[nodiscard]] std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace infermark::test

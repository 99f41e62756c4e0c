// --tokenizer: a file, a folder, or a model id looked up in the local Hugging Face cache.
#include "tokenizer/locate.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace infermark::tokenizer {
namespace {

namespace fs = std::filesystem;

TEST(TokenizerSource, FilesFoldersAndTheHuggingFaceCache) {
  const fs::path root = fs::temp_directory_path() / ("hf_cache_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path model = root / "models--acme--tiny-7B";
  fs::create_directories(model / "refs");
  fs::create_directories(model / "snapshots" / "old");
  fs::create_directories(model / "snapshots" / "abc123");
  std::ofstream(model / "refs" / "main") << "abc123\n";
  std::ofstream(model / "snapshots" / "old" / "tokenizer.json") << "{}";
  std::ofstream(model / "snapshots" / "abc123" / "tokenizer.json") << "{}";
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);

  // The snapshot refs/main names wins over any other.
  EXPECT_EQ(Locate("acme/tiny-7B"), (model / "snapshots" / "abc123").string());
  const std::string file = (model / "snapshots" / "old" / "tokenizer.json").string();
  EXPECT_EQ(Locate(file), file);
  EXPECT_EQ(Locate((model / "snapshots" / "old").string()), (model / "snapshots" / "old").string());
  EXPECT_FALSE(Locate("acme/absent").has_value());
  EXPECT_FALSE(Locate(root.string()).has_value());  // a folder without tokenizer.json
  ::unsetenv("HF_HUB_CACHE");
  fs::remove_all(root);
}

}  // namespace
}  // namespace infermark::tokenizer

#include "cli/list_flags.hpp"

#include <charconv>
#include <sstream>

#include "core/diagnostic.hpp"

namespace infermark::cli {
namespace {

std::vector<int> ParseInts(const std::string& flag, const std::string& text, int minimum, const std::string& what) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || error != std::errc() || end != item.data() + item.size() || v < minimum) {
      throw InputError(
          Diagnostic{SourceMark{}, "", flag, "expected " + what + " separated by commas, got '" + item + "'"});
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

std::vector<int> ParsePositiveInts(const std::string& flag, const std::string& text) {
  std::vector<int> out = ParseInts(flag, text, 1, "positive integers");
  if (out.empty()) throw InputError(Diagnostic{SourceMark{}, "", flag, "needs at least one value"});
  return out;
}

std::vector<int> ParseCpuList(const std::string& flag, const std::string& text) {
  if (text.empty()) return {};
  return ParseInts(flag, text, 0, "CPU numbers");
}

std::vector<int> ParseGpuList(const std::string& flag, const std::string& text) {
  if (text.empty()) return {};
  return ParseInts(flag, text, 0, "GPU indices");
}

}  // namespace infermark::cli

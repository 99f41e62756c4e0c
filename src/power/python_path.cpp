#include "power/python_path.hpp"

#include <vector>

namespace infermark::results {
namespace {

struct Parts {
  std::string root;  // "", "/" or "//"
  std::vector<std::string> names;
};

Parts Split(std::string_view path) {
  Parts out;
  std::size_t slashes = 0;
  while (slashes < path.size() && path[slashes] == '/') ++slashes;
  if (slashes == 2) {
    out.root = "//";
  } else if (slashes > 0) {
    out.root = "/";
  }
  std::size_t at = slashes;
  while (at <= path.size()) {
    std::size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(at, end - at);
    if (!part.empty() && part != ".") out.names.emplace_back(part);
    at = end + 1;
  }
  return out;
}

std::string Join(const Parts& parts) {
  std::string out = parts.root;
  for (std::size_t i = 0; i < parts.names.size(); ++i) {
    if (i > 0) out += '/';
    out += parts.names[i];
  }
  return out.empty() ? "." : out;
}

}  // namespace

std::string PythonPathText(std::string_view path) {
  return Join(Split(path));
}

std::string PythonPathName(std::string_view path) {
  const Parts parts = Split(path);
  return parts.names.empty() ? std::string() : parts.names.back();
}

std::string PythonPathStem(std::string_view path) {
  const std::string name = PythonPathName(path);
  const std::size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0 && dot + 1 < name.size()) return name.substr(0, dot);
  return name;
}

std::optional<std::string> PythonPathWithName(std::string_view path, std::string_view name) {
  Parts parts = Split(path);
  if (parts.names.empty() || name.empty() || name.find('/') != std::string_view::npos || name == ".") {
    return std::nullopt;
  }
  parts.names.back() = std::string(name);
  return Join(parts);
}

}  // namespace infermark::results

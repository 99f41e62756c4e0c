#include "core/yaml_split.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/parallel_chunks.hpp"

namespace infermark {
namespace {

// Below this a document is parsed whole: threads would cost more than they save.
constexpr std::size_t kMinSplitBytes = 64 * 1024;
constexpr std::size_t kMinRangeBytes = 24 * 1024;

// Whether the text holds something a cut could change the meaning or marks of.
bool CutIsUnsafe(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return true;
  if (text.find("<<") != std::string_view::npos) return true;  // a merge key could span ranges
  // YAML 1.1 line breaks besides LF and CRLF (CR alone, NEL, LS, PS) would shift line numbers.
  for (std::size_t r = text.find('\r'); r != std::string_view::npos; r = text.find('\r', r + 1)) {
    if (r + 1 == text.size() || text[r + 1] != '\n') return true;
  }
  for (std::string_view brk : {"\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9"}) {
    if (text.find(brk) != std::string_view::npos) return true;
  }
  // Document markers and directives start at column 0.
  for (std::size_t at = 0; at < text.size();) {
    const std::string_view line = text.substr(at, 3);
    if (line == "---" || line == "..." || (!line.empty() && line[0] == '%')) return true;
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return false;
}

bool StartsKey(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Offsets where ranges start: 0, then the first column-0 key line at or after each even share.
std::vector<std::size_t> Cuts(std::string_view text, std::size_t ranges) {
  std::vector<std::size_t> cuts = {0};
  for (std::size_t r = 1; r < ranges; ++r) {
    std::size_t at = std::max(text.size() * r / ranges, cuts.back() + 1);
    for (;;) {
      const std::size_t nl = text.find('\n', at - 1);
      if (nl == std::string_view::npos || nl + 1 >= text.size()) return cuts;
      if (StartsKey(text[nl + 1])) {
        cuts.push_back(nl + 1);
        break;
      }
      at = nl + 2;
    }
  }
  return cuts;
}

// Whether a range's root is a block mapping with its keys at column 0: an indented mapping, or a
// flow one, may not be followed by more keys at column 0 in the whole text.
bool IsColumnZeroBlockMapping(const YamlNode& root) {
  return root.kind == YamlKind::kMapping && root.column == 1 && !root.entries.empty() &&
         root.entries.front().first.line == root.line && root.entries.front().first.column == 1;
}

// Adds `lines` to every mark under `node` and returns how many nodes it holds.
std::size_t Renumber(YamlNode& node, int lines) {
  node.line += lines;
  std::size_t n = 1;
  for (auto& item : node.items) n += Renumber(item, lines);
  for (auto& [key, value] : node.entries) n += Renumber(key, lines) + Renumber(value, lines);
  return n;
}

// The ranges' root mappings joined into one, or nothing when the split cannot stand in for a
// whole parse.
std::optional<YamlNode> ParseRanges(std::string_view text, const std::string& name, const YamlLimits& limits,
                                    const std::vector<std::size_t>& cuts) {
  struct Range {
    std::optional<YamlNode> root;
    std::size_t nodes = 0;
  };
  auto ranges = MapChunks(cuts.size(), cuts.size(), [&](std::size_t begin, std::size_t end) {
    std::vector<Range> out;
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t from = cuts[i];
      const std::size_t to = i + 1 < cuts.size() ? cuts[i + 1] : text.size();
      Range range;
      try {
        YamlDocument doc = ParseYaml(text.substr(from, to - from), name, limits);
        if (IsColumnZeroBlockMapping(doc.root)) {
          const auto lines =
              static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(from), '\n'));
          range.nodes = Renumber(doc.root, lines);
          range.root = std::move(doc.root);
        }
      } catch (const InputError&) {
        // The whole parse reports it, with the marks of the whole text.
      }
      out.push_back(std::move(range));
    }
    return out;
  });
  std::vector<YamlNode*> roots;
  std::size_t nodes = 1;
  std::size_t entries = 0;
  for (auto& part : ranges) {
    for (Range& r : part) {
      if (!r.root) return std::nullopt;
      roots.push_back(&*r.root);
      nodes += r.nodes - 1;
      entries += r.root->entries.size();
    }
  }
  if (nodes > limits.max_nodes) return std::nullopt;
  YamlNode root = std::move(*roots.front());
  root.entries.reserve(entries);
  for (std::size_t i = 1; i < roots.size(); ++i) {
    auto& more = roots[i]->entries;
    root.entries.insert(root.entries.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  std::unordered_set<std::string> keys;
  keys.reserve(entries);
  for (const auto& [key, value] : root.entries) {
    // A key repeated across ranges: the whole parse names both places.
    if (!keys.insert(std::to_string(static_cast<int>(key.kind)) + ':' + key.text).second) return std::nullopt;
  }
  return root;
}

}  // namespace

YamlDocument ParseYamlInRanges(std::string_view text, const std::string& name, std::size_t ranges,
                               const YamlLimits& limits, bool* split) {
  if (split != nullptr) *split = false;
  if (ranges > 1 && !CutIsUnsafe(text)) {
    const auto cuts = Cuts(text, ranges);
    if (cuts.size() > 1) {
      if (auto root = ParseRanges(text, name, limits, cuts)) {
        if (split != nullptr) *split = true;
        return YamlDocument{name, std::move(*root)};
      }
    }
  }
  return ParseYaml(text, name, limits);
}

YamlDocument ParseYamlSplit(std::string_view text, const std::string& name, const YamlLimits& limits) {
  const std::size_t ranges = text.size() < kMinSplitBytes ? 1 : ChunkCount(text.size(), kMinRangeBytes);
  return ParseYamlInRanges(text, name, ranges, limits);
}

YamlDocument LoadYamlFileSplit(const std::string& path, const YamlLimits& limits) {
  return ParseYamlSplit(ReadFile(path), path, limits);
}

}  // namespace infermark

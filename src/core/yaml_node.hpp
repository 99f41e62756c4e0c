// A YAML document as a tree of typed nodes with source marks, resolved the way PyYAML's safe
// loader resolves YAML 1.1 plain scalars, so infermark reads configs exactly as InferenceX does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace infermark {

/// Resolved type of a YAML node.
enum class YamlKind { kNull, kBool, kInt, kFloat, kString, kTimestamp, kSequence, kMapping };

struct YamlEntry;

/// One node of a loaded YAML document.
struct YamlNode {
  YamlKind kind = YamlKind::kNull;  ///< Resolved type.
  int line = 0;                     ///< 1-based line where the node starts.
  int column = 0;                   ///< 1-based column where the node starts.
  std::string text;                 ///< Scalar text as written (strings: the value).
  bool bool_value = false;          ///< Value of a kBool node.
  std::int64_t int_value = 0;       ///< Value of a kInt node that fits 64 bits.
  bool int_overflow = false;        ///< kInt whose value does not fit 64 bits.
  double float_value = 0.0;         ///< Value of a kFloat node.
  std::vector<YamlNode> items;      ///< Children of a kSequence.
  std::vector<YamlEntry> entries;   ///< Key/value pairs of a kMapping, in order.

  [[nodiscard]] bool IsScalar() const { return kind != YamlKind::kSequence && kind != YamlKind::kMapping; }
  /// The value for `key` in a mapping whose key is a string equal to `key`, or nullptr.
  [[nodiscard]] const YamlNode* Find(std::string_view key) const;
  /// Python-flavoured type name for messages: "a string", "an integer", "a mapping"…
  [[nodiscard]] std::string_view TypeName() const;
};

/// One key/value pair of a mapping (a plain struct, so `auto& [key, value]` binds it).
struct YamlEntry {
  YamlNode first;   ///< The key.
  YamlNode second;  ///< The value.
};

/// A parsed YAML file: the single document it holds.
struct YamlDocument {
  std::string file;  ///< Path or name used in diagnostics.
  YamlNode root;     ///< The document's root node (kNull for an empty file).
};

/// Limits that keep hostile input from exhausting the machine.
struct YamlLimits {
  int max_depth = 256;                ///< Deepest nesting of collections.
  std::size_t max_nodes = 1'000'000;  ///< Nodes in the tree after alias expansion.
};

/// Parses `text` (named `name` in diagnostics). Throws InputError with file:line:column on any
/// syntax error, unsupported tag, duplicate mapping key, invalid UTF-8 or a limit exceeded.
YamlDocument ParseYaml(std::string_view text, const std::string& name, const YamlLimits& limits = {});

/// Reads and parses a file; a missing or unreadable file is an InputError too.
YamlDocument LoadYamlFile(const std::string& path, const YamlLimits& limits = {});

}  // namespace infermark

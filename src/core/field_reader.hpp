// Typed, strict reading of one YAML mapping against a schema: each read names the field, checks
// its type and records a Diagnostic (file:line:column, entry, field path, rule) instead of throwing,
// so one pass over a file reports every problem. Unknown keys are errors (`extra='forbid'`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"
#include "core/yaml_node.hpp"

namespace infermark {

/// Where diagnostics go and how to name the place being read.
struct ReadContext {
  const std::string* file = nullptr;            ///< File name for marks.
  std::string entry;                            ///< Entry being read (config key, changelog index).
  std::vector<Diagnostic>* problems = nullptr;  ///< Sink for every problem found.

  /// Records a problem at `node` (or at the file when node is null) for `field`.
  void Report(const YamlNode* node, const std::string& field, std::string rule) const;
};

/// Joins a field path: `Path("a", "b")` is `a.b`; an empty parent yields the child, an empty child the parent.
std::string JoinPath(const std::string& parent, std::string_view child);

/// Whether a field must be written. `kOptional` fields also accept an explicit null (pydantic's
/// `Optional[...] = None`); `kDefaulted` fields may be left out but not written as null.
enum class Need { kRequired, kOptional, kDefaulted };

/// Reads the fields of one mapping node.
class FieldReader {
 public:
  /// `node` must outlive the reader; `path` is the mapping's own field path ("" at entry level).
  FieldReader(const ReadContext& context, const YamlNode& node, std::string path);

  /// False (and a problem recorded) when the node is not a mapping; reads then find nothing.
  [[nodiscard]] bool ok() const { return ok_; }
  /// The raw node for `key`, marking it known; nullptr when absent.
  const YamlNode* Get(std::string_view key);

  /// A string; `min_length` 1 rejects "". A missing required field records "field required".
  std::optional<std::string> String(std::string_view key, Need need, std::size_t min_length = 0);
  /// An integer (booleans and strings rejected); `minimum` requires >= minimum.
  std::optional<std::int64_t> Int(std::string_view key, Need need, std::optional<std::int64_t> minimum = {});
  /// A number (integer or float), as pydantic's float accepts.
  std::optional<double> Float(std::string_view key, Need need);
  /// A boolean.
  std::optional<bool> Bool(std::string_view key, Need need);
  /// One of `choices` (strings).
  std::optional<std::string> Choice(std::string_view key, Need need, const std::vector<std::string>& choices);
  /// A list of integers.
  std::optional<std::vector<std::int64_t>> IntList(std::string_view key, Need need);
  /// A list of strings; `min_items` 1 rejects [].
  std::optional<std::vector<std::string>> StringList(std::string_view key, Need need, std::size_t min_items = 0);
  /// A nested mapping node (type checked), or nullptr.
  const YamlNode* Mapping(std::string_view key, Need need);
  /// A list node (type checked), or nullptr.
  const YamlNode* List(std::string_view key, Need need);

  /// Records "unknown field" for every key that no read asked for. Call once, after all reads.
  void RejectUnknown();

  /// Field path of `key` inside this mapping.
  [[nodiscard]] std::string PathOf(std::string_view key) const { return JoinPath(path_, key); }
  /// The mapping node.
  [[nodiscard]] const YamlNode& node() const { return node_; }
  /// The context.
  [[nodiscard]] const ReadContext& context() const { return context_; }

 private:
  void Missing(std::string_view key);
  // The value of `key` unless absent (or null where `need` allows it); records a missing field.
  const YamlNode* Present(std::string_view key, Need need);
  void WrongType(const YamlNode& value, std::string_view key, std::string_view expected);

  const ReadContext& context_;
  const YamlNode& node_;
  std::string path_;
  bool ok_ = true;
  // Keys asked for; callers pass literals or strings that outlive the reader. A small vector beats
  // a tree here: a mapping has a dozen keys at most.
  std::vector<std::string_view> known_;
};

/// Where a problem with a whole document goes: its root node, or line 1 of an empty file.
SourceMark DocumentMark(const YamlDocument& doc);

/// Converts a YAML value to JSON as PyYAML + json.dumps would (timestamps become strings).
Json ToJson(const YamlNode& node);

}  // namespace infermark

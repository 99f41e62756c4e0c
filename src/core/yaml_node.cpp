#include "core/yaml_node.hpp"

#include <yaml.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark {

const YamlNode* YamlNode::Find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.kind == YamlKind::kString && k.text == key) return &v;
  }
  return nullptr;
}

std::string_view YamlNode::TypeName() const {
  switch (kind) {
    case YamlKind::kNull:
      return "null";
    case YamlKind::kBool:
      return "a boolean";
    case YamlKind::kInt:
      return "an integer";
    case YamlKind::kFloat:
      return "a number";
    case YamlKind::kString:
      return "a string";
    case YamlKind::kTimestamp:
      return "a date";
    case YamlKind::kSequence:
      return "a list";
    case YamlKind::kMapping:
      return "a mapping";
  }
  return "a value";
}

namespace {

// ---- YAML 1.1 plain-scalar resolution, as PyYAML's SafeLoader does it. ----

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsOctal(char c) {
  return c >= '0' && c <= '7';
}
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsBool(std::string_view s, bool& value) {
  static constexpr std::string_view kTrue[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::string_view kFalse[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto t : kTrue) {
    if (s.size() == t.size() && s[0] == t[0] && s == t) return value = true, true;
  }
  for (auto f : kFalse) {
    if (s.size() == f.size() && s[0] == f[0] && s == f) return value = false, true;
  }
  return false;
}

bool IsNull(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// True when every char of s[from..] satisfies pred and at least one exists.
template <typename Pred>
bool AllOf(std::string_view s, std::size_t from, Pred pred) {
  if (from >= s.size()) return false;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (!pred(s[i])) return false;
  }
  return true;
}

// `(?::[0-5]?[0-9])+` starting at position i, running to the end of s.
bool SexagesimalTail(std::string_view s, std::size_t i) {
  if (i >= s.size()) return false;
  while (i < s.size()) {
    if (s[i] != ':') return false;
    ++i;
    std::size_t digits = 0;
    while (i < s.size() && IsDigit(s[i]) && digits < 2) ++i, ++digits;
    if (digits == 0) return false;
    if (digits == 2 && s[i - 2] > '5') return false;
  }
  return true;
}

bool MatchesInt(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  std::string_view b = s.substr(i);
  if (b.empty()) return false;
  auto under_or = [](auto pred) { return [pred](char c) { return c == '_' || pred(c); }; };
  if (b.size() > 2 && b[0] == '0' && b[1] == 'b')
    return AllOf(b, 2, under_or([](char c) { return c == '0' || c == '1'; }));
  if (b.size() > 2 && b[0] == '0' && b[1] == 'x') return AllOf(b, 2, under_or(IsHex));
  if (b == "0") return true;
  if (b[0] == '0') return AllOf(b, 1, under_or(IsOctal));
  if (!IsDigit(b[0])) return false;
  std::size_t j = 1;
  while (j < b.size() && (IsDigit(b[j]) || b[j] == '_')) ++j;
  if (j == b.size()) return true;
  return SexagesimalTail(b, j);
}

bool MatchesFloat(std::string_view s) {
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  std::string_view b = s.substr(i);
  if (b == ".inf" || b == ".Inf" || b == ".INF") return true;
  if (b.empty()) return false;
  auto exponent_ok = [&](std::size_t k) {
    if (k == b.size()) return true;
    if (b[k] != 'e' && b[k] != 'E') return false;
    ++k;
    if (k >= b.size() || (b[k] != '-' && b[k] != '+')) return false;
    return AllOf(b, k + 1, IsDigit);
  };
  if (b[0] == '.') {
    // `\.[0-9][0-9_]*(exp)?` takes no sign.
    if (i != 0 || b.size() < 2 || !IsDigit(b[1])) return false;
    std::size_t k = 2;
    while (k < b.size() && (IsDigit(b[k]) || b[k] == '_')) ++k;
    return exponent_ok(k);
  }
  if (!IsDigit(b[0])) return false;
  std::size_t k = 1;
  while (k < b.size() && (IsDigit(b[k]) || b[k] == '_')) ++k;
  if (k < b.size() && b[k] == '.') {
    ++k;
    while (k < b.size() && (IsDigit(b[k]) || b[k] == '_')) ++k;
    return exponent_ok(k);
  }
  // Sexagesimal float: `[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`.
  const std::size_t dot = b.find('.', k);
  if (dot == std::string_view::npos || k >= b.size() || b[k] != ':') return false;
  if (!SexagesimalTail(b.substr(0, dot), k)) return false;
  for (std::size_t m = dot + 1; m < b.size(); ++m) {
    if (!IsDigit(b[m]) && b[m] != '_') return false;
  }
  return true;
}

bool MatchesTimestamp(std::string_view s) {
  if (s.size() < 8 || !IsDigit(s[0])) return false;
  static const std::regex kTimestamp(
      "[0-9]{4}-[0-9]{2}-[0-9]{2}|"
      "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \\t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]*)?"
      "([ \\t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?");
  return std::regex_match(s.begin(), s.end(), kTimestamp);
}

std::string WithoutUnderscores(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '_') out += c;
  }
  return out;
}

// Accumulates value*base+digit, flagging overflow of 64 unsigned bits.
bool Accumulate(std::uint64_t& value, std::uint64_t base, std::uint64_t digit) {
  return !__builtin_mul_overflow(value, base, &value) && !__builtin_add_overflow(value, digit, &value);
}

// Stores the magnitude `value` with its sign, or flags overflow beyond int64.
void StoreInt(std::uint64_t value, bool negative, YamlNode& node) {
  const std::uint64_t limit = static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1u : 0u);
  if (value > limit) {
    node.int_overflow = true;
  } else if (negative) {
    node.int_value = value == limit ? INT64_MIN : -static_cast<std::int64_t>(value);
  } else {
    node.int_value = static_cast<std::int64_t>(value);
  }
}

void ParseIntDigits(std::string_view digits, int base, bool negative, YamlNode& node) {
  std::uint64_t value = 0;
  for (char c : digits) {
    const int d = IsDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
    if (!Accumulate(value, static_cast<std::uint64_t>(base), static_cast<std::uint64_t>(d))) {
      node.int_overflow = true;
      return;
    }
  }
  StoreInt(value, negative, node);
}

void ResolveInt(YamlNode& node) {
  std::string s = WithoutUnderscores(node.text);
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.erase(0, 1);
  }
  node.kind = YamlKind::kInt;
  if (s == "0") return;
  if (s.rfind("0b", 0) == 0) return ParseIntDigits(std::string_view(s).substr(2), 2, negative, node);
  if (s.rfind("0x", 0) == 0) return ParseIntDigits(std::string_view(s).substr(2), 16, negative, node);
  if (s[0] == '0') return ParseIntDigits(std::string_view(s).substr(1), 8, negative, node);
  if (s.find(':') != std::string::npos) {
    std::uint64_t value = 0;
    std::size_t start = 0;
    while (start <= s.size()) {
      const std::size_t colon = std::min(s.find(':', start), s.size());
      const auto part = std::strtoull(s.substr(start, colon - start).c_str(), nullptr, 10);
      if (!Accumulate(value, 60, part)) {
        node.int_overflow = true;
        return;
      }
      start = colon + 1;
    }
    return StoreInt(value, negative, node);
  }
  ParseIntDigits(s, 10, negative, node);
}

void ResolveFloat(YamlNode& node) {
  node.kind = YamlKind::kFloat;
  std::string s = WithoutUnderscores(node.text);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double sign = 1.0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    if (s[0] == '-') sign = -1.0;
    s.erase(0, 1);
  }
  if (s == ".inf") {
    node.float_value = sign * HUGE_VAL;
  } else if (s == ".nan") {
    node.float_value = std::nan("");
  } else if (s.find(':') != std::string::npos) {
    double value = 0.0;
    std::size_t start = 0;
    while (start <= s.size()) {
      const std::size_t colon = std::min(s.find(':', start), s.size());
      value = value * 60.0 + std::strtod(s.substr(start, colon - start).c_str(), nullptr);
      start = colon + 1;
    }
    node.float_value = sign * value;
  } else {
    node.float_value = sign * std::strtod(s.c_str(), nullptr);
  }
}

// True for a character that can start a YAML 1.1 float, int or timestamp.
bool StartsNumber(char c) {
  return IsDigit(c) || c == '+' || c == '-' || c == '.';
}

// True for a character that can start a null ("~", "null") or a bool ("yes", "On", "false"…).
bool StartsNullOrBool(char c) {
  switch (c) {
    case '~':
    case 'n':
    case 'N':
    case 'y':
    case 'Y':
    case 't':
    case 'T':
    case 'o':
    case 'O':
    case 'f':
    case 'F':
      return true;
    default:
      return false;
  }
}

// Resolves the commonest integer spelling, `[-+]?[1-9][0-9]*` (no underscores, base prefix or
// colons), to what MatchesInt and ResolveInt would make of it, without their copies. False, and
// `node` untouched, for any other text.
bool ResolvePlainDecimal(YamlNode& node) {
  std::string_view digits = node.text;
  const bool negative = digits[0] == '-';
  if (negative || digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || digits[0] == '0') return false;
  for (char c : digits) {
    if (!IsDigit(c)) return false;
  }
  node.kind = YamlKind::kInt;
  ParseIntDigits(digits, 10, negative, node);
  return true;
}

// Resolves a plain scalar whose first character can start a number: PyYAML tries float, then
// int, then timestamp.
void ResolveNumberLike(YamlNode& node) {
  const std::string_view s = node.text;
  if (ResolvePlainDecimal(node)) return;
  if (MatchesFloat(s)) {
    ResolveFloat(node);
  } else if (MatchesInt(s)) {
    ResolveInt(node);
  } else if (MatchesTimestamp(s)) {
    node.kind = YamlKind::kTimestamp;
  } else {
    node.kind = YamlKind::kString;
  }
}

// The first character decides which of PyYAML's resolvers can match, so most scalars (keys,
// names) are told to be strings without running any of them.
void ResolvePlain(YamlNode& node) {
  const std::string_view s = node.text;
  if (s.empty()) {
    node.kind = YamlKind::kNull;
  } else if (StartsNumber(s[0])) {
    ResolveNumberLike(node);
  } else if (StartsNullOrBool(s[0]) && IsNull(s)) {
    node.kind = YamlKind::kNull;
  } else if (StartsNullOrBool(s[0]) && IsBool(s, node.bool_value)) {
    node.kind = YamlKind::kBool;
  } else {
    node.kind = YamlKind::kString;
  }
}

// ---- Event-driven tree building (iterative: nesting depth cannot blow the stack). ----

struct ParserHandle {
  yaml_parser_t parser{};
  ParserHandle() { yaml_parser_initialize(&parser); }
  ~ParserHandle() { yaml_parser_delete(&parser); }
  ParserHandle(const ParserHandle&) = delete;
  ParserHandle& operator=(const ParserHandle&) = delete;
};

struct EventHandle {
  yaml_event_t event;  // yaml_parser_parse fills it (zeroing it per event would cost a memset)
  bool owned = false;
  ~EventHandle() {
    if (owned) yaml_event_delete(&event);
  }
};

std::size_t CountNodes(const YamlNode& node) {
  std::size_t n = 1;
  for (const auto& item : node.items) n += CountNodes(item);
  for (const auto& [k, v] : node.entries) n += CountNodes(k) + CountNodes(v);
  return n;
}

// Mapping keys are duplicates when both their resolved kind and their text are equal.
bool SameKey(const YamlNode& a, const YamlNode& b) {
  return a.kind == b.kind && a.text == b.text;
}

// Finds an earlier key equal to the newest key of a mapping: a linear scan while the mapping is
// small, an open-addressing table of entry positions once it is large (a catalog's top level
// holds hundreds of keys, which a scan per key would make quadratic).
class KeyIndex {
 public:
  void Clear() { slots_.clear(); }

  /// The earlier entry whose key equals `entries.back().first`, or nullptr; when there is none the
  /// newest entry is recorded for later lookups.
  const YamlEntry* FindEarlier(const std::vector<YamlEntry>& entries) {
    const std::size_t newest = entries.size() - 1;
    const YamlNode& key = entries[newest].first;
    if (slots_.empty() && newest < kLinearLimit) {
      for (std::size_t i = 0; i < newest; ++i) {
        if (SameKey(entries[i].first, key)) return &entries[i];
      }
      return nullptr;
    }
    if (2 * (newest + 1) > slots_.size()) Rebuild(entries, newest);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = Hash(key) & mask;; slot = (slot + 1) & mask) {
      if (slots_[slot] == 0) {
        slots_[slot] = newest + 1;
        return nullptr;
      }
      const YamlEntry& earlier = entries[slots_[slot] - 1];
      if (SameKey(earlier.first, key)) return &earlier;
    }
  }

 private:
  static constexpr std::size_t kLinearLimit = 16;

  static std::size_t Hash(const YamlNode& key) { return std::hash<std::string_view>{}(key.text); }

  // Indexes entries [0, count), whose keys are distinct, in a table at most a quarter full.
  void Rebuild(const std::vector<YamlEntry>& entries, std::size_t count) {
    std::size_t size = 64;
    while (size < 4 * count) size *= 2;
    slots_.assign(size, 0);
    const std::size_t mask = size - 1;
    for (std::size_t i = 0; i < count; ++i) {
      std::size_t slot = Hash(entries[i].first) & mask;
      while (slots_[slot] != 0) slot = (slot + 1) & mask;
      slots_[slot] = i + 1;
    }
  }

  std::vector<std::size_t> slots_;  // entry position + 1; 0 marks a free slot
};

// Builds the tree in place: every node is written straight into the slot it ends up in (the
// root, a sequence's next item, a mapping's next key or value), and a collection's children go
// straight into its own vector, so nodes are only moved when such a vector grows. Each depth
// reserves as many children as the last collection of that depth had; configs repeat their
// shapes, so most collections allocate once.
class TreeBuilder {
 public:
  TreeBuilder(std::string name, const YamlLimits& limits) : name_(std::move(name)), limits_(limits) {}

  [[noreturn]] void Fail(int line, int column, std::string rule) const {
    throw InputError(Diagnostic{{name_, line, column}, "", "", std::move(rule)});
  }

  YamlNode Build(std::string_view text) {
    ParserHandle handle;
    yaml_parser_set_input_string(&handle.parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    yaml_parser_set_encoding(&handle.parser, YAML_UTF8_ENCODING);
    int documents = 0;
    for (;;) {
      EventHandle ev;
      if (yaml_parser_parse(&handle.parser, &ev.event) == 0) {
        const auto& p = handle.parser;
        std::string rule = p.problem != nullptr ? p.problem : "invalid YAML";
        if (p.context != nullptr) rule = std::string(p.context) + ": " + rule;
        Fail(static_cast<int>(p.problem_mark.line) + 1, static_cast<int>(p.problem_mark.column) + 1,
             "YAML syntax error: " + rule);
      }
      ev.owned = true;
      const yaml_event_t& e = ev.event;
      const int line = static_cast<int>(e.start_mark.line) + 1;
      const int column = static_cast<int>(e.start_mark.column) + 1;
      switch (e.type) {
        case YAML_STREAM_START_EVENT:
        case YAML_NO_EVENT:
          break;
        case YAML_STREAM_END_EVENT:
          return std::move(root_);
        case YAML_DOCUMENT_START_EVENT:
          if (++documents > 1) Fail(line, column, "expected a single YAML document, found another one here");
          break;
        case YAML_DOCUMENT_END_EVENT:
          break;
        case YAML_SCALAR_EVENT: {
          YamlNode& node = Slot();
          node.line = line;
          node.column = column;
          // The slot is a fresh node: append is assign without assign's aliasing checks.
          node.text.append(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
          const char* tag = reinterpret_cast<const char*>(e.data.scalar.tag);
          if (tag != nullptr) {
            ApplyTag(node, tag);
          } else if (e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            ResolvePlain(node);
          } else {
            node.kind = YamlKind::kString;
          }
          Anchor(e.data.scalar.anchor, node);
          CountNew(1, line, column);
          Commit(node);
          break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
          const bool mapping = e.type == YAML_MAPPING_START_EVENT;
          const char* tag =
              reinterpret_cast<const char*>(mapping ? e.data.mapping_start.tag : e.data.sequence_start.tag);
          if (tag != nullptr && std::string_view(tag) != (mapping ? YAML_MAP_TAG : YAML_SEQ_TAG)) {
            Fail(line, column, std::string("unsupported tag '") + tag + "'");
          }
          if (static_cast<int>(depth_) >= limits_.max_depth) {
            Fail(line, column, "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
          }
          const auto* anchor = mapping ? e.data.mapping_start.anchor : e.data.sequence_start.anchor;
          Open(mapping ? YamlKind::kMapping : YamlKind::kSequence, line, column, anchor);
          CountNew(1, line, column);
          break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          Close();
          break;
        case YAML_ALIAS_EVENT: {
          const std::string name = reinterpret_cast<const char*>(e.data.alias.anchor);
          auto it = anchors_.find(name);
          if (it == anchors_.end()) Fail(line, column, "alias '*" + name + "' refers to no anchor before it");
          const std::size_t size = CountNodes(it->second);
          CountNew(size, line, column);
          YamlNode& node = Slot();
          node = it->second;
          node.line = line;
          node.column = column;
          Commit(node);
          break;
        }
      }
    }
  }

 private:
  // A collection being read; frames are reused per depth. Its node stays put while it is open:
  // only the node's own vectors grow until it is finished.
  struct Frame {
    YamlNode* node = nullptr;
    std::string anchor;
    bool have_key = false;          // the node's last entry holds a key still waiting for its value
    std::vector<YamlEntry> merged;  // entries brought in by `<<`
    KeyIndex keys;                  // finds duplicate keys among the node's entries
    std::size_t items_hint = 0;     // children of the last sequence finished at this depth
    std::size_t entries_hint = 0;   // entries of the last mapping finished at this depth
  };

  void CountNew(std::size_t n, int line, int column) {
    nodes_ += n;
    if (nodes_ > limits_.max_nodes) {
      Fail(line, column, "document expands to more than " + std::to_string(limits_.max_nodes) + " nodes (alias bomb?)");
    }
  }

  void Anchor(const yaml_char_t* anchor, const YamlNode& node) {
    if (anchor != nullptr) anchors_[reinterpret_cast<const char*>(anchor)] = node;
  }

  void ApplyTag(YamlNode& node, std::string_view tag) {
    if (tag == YAML_STR_TAG) {
      node.kind = YamlKind::kString;
    } else if (tag == YAML_INT_TAG && MatchesInt(node.text)) {
      ResolveInt(node);
    } else if (tag == YAML_FLOAT_TAG && (MatchesFloat(node.text) || MatchesInt(node.text))) {
      ResolveFloat(node);
    } else if (tag == YAML_BOOL_TAG && IsBool(node.text, node.bool_value)) {
      node.kind = YamlKind::kBool;
    } else if (tag == YAML_NULL_TAG) {
      node.kind = YamlKind::kNull;
    } else if (tag == "!") {
      node.kind = YamlKind::kString;
    } else {
      Fail(node.line, node.column, "unsupported tag '" + std::string(tag) + "' on value '" + node.text + "'");
    }
  }

  void Open(YamlKind kind, int line, int column, const yaml_char_t* anchor) {
    YamlNode& node = Slot();
    node.kind = kind;
    node.line = line;
    node.column = column;
    if (depth_ == stack_.size()) stack_.emplace_back();
    Frame& frame = stack_[depth_++];
    frame.node = &node;
    frame.have_key = false;
    if (anchor != nullptr) {
      frame.anchor = reinterpret_cast<const char*>(anchor);
    } else {
      frame.anchor.clear();
    }
    frame.keys.Clear();
    if (kind == YamlKind::kMapping) {
      node.entries.reserve(frame.entries_hint);
    } else {
      node.items.reserve(frame.items_hint);
    }
  }

  // Finishes the innermost collection.
  void Close() {
    Frame& frame = stack_[--depth_];
    YamlNode& node = *frame.node;
    if (node.kind == YamlKind::kMapping) {
      frame.entries_hint = node.entries.size();
      ApplyMerges(frame.merged, node.entries);
    } else {
      frame.items_hint = node.items.size();
    }
    if (!frame.anchor.empty()) anchors_[frame.anchor] = node;
    Commit(node);
  }

  // The place the next node goes: the root, the innermost sequence's next item, or the innermost
  // mapping's next key (a new entry) or the value of its last entry.
  YamlNode& Slot() {
    if (depth_ == 0) return root_;
    const Frame& parent = stack_[depth_ - 1];
    YamlNode& collection = *parent.node;
    if (collection.kind == YamlKind::kSequence) return collection.items.emplace_back();
    if (!parent.have_key) return collection.entries.emplace_back().first;
    return collection.entries.back().second;
  }

  // Checks a finished node written to Slot() against its parent: keys must be scalars, `<<`
  // values merge, and a finished entry's key must not repeat an earlier one.
  void Commit(const YamlNode& node) {
    if (depth_ == 0) return;
    Frame& parent = stack_[depth_ - 1];
    std::vector<YamlEntry>& entries = parent.node->entries;
    if (parent.node->kind == YamlKind::kSequence) return;
    if (!parent.have_key) {
      if (!node.IsScalar()) Fail(node.line, node.column, "mapping keys must be scalars");
      parent.have_key = true;
      return;
    }
    parent.have_key = false;
    const YamlNode& key = entries.back().first;
    if (key.kind == YamlKind::kString && key.text == "<<") {
      AddMerge(parent, node);
      entries.pop_back();
      return;
    }
    if (const YamlEntry* earlier = parent.keys.FindEarlier(entries)) {
      Fail(key.line, key.column,
           "duplicate key '" + earlier->first.text + "' (first defined at line " + std::to_string(earlier->first.line) +
               ")");
    }
  }

  void AddMerge(Frame& frame, const YamlNode& value) {
    auto add_mapping = [&](const YamlNode& m) {
      if (m.kind != YamlKind::kMapping) Fail(m.line, m.column, "merge key '<<' needs a mapping or a list of mappings");
      for (const auto& entry : m.entries) frame.merged.push_back(entry);
    };
    if (value.kind == YamlKind::kSequence) {
      // Earlier mappings in the list win, as in PyYAML.
      for (auto it = value.items.rbegin(); it != value.items.rend(); ++it) add_mapping(*it);
    } else {
      add_mapping(value);
    }
  }

  // Merged entries come first and explicit keys override them in place (PyYAML's key order).
  static void ApplyMerges(std::vector<YamlEntry>& merged, std::vector<YamlEntry>& entries) {
    if (merged.empty()) return;
    std::vector<YamlEntry> out;
    auto put = [&out](YamlEntry entry) {
      for (auto& existing : out) {
        if (SameKey(existing.first, entry.first)) {
          existing.second = std::move(entry.second);
          return;
        }
      }
      out.push_back(std::move(entry));
    };
    for (auto& entry : merged) put(std::move(entry));
    for (auto& entry : entries) put(std::move(entry));
    entries = std::move(out);
    merged.clear();
  }

  std::string name_;
  YamlLimits limits_;
  std::vector<Frame> stack_;  // frames [0, depth_) are open; deeper ones wait to be reused
  std::size_t depth_ = 0;
  std::map<std::string, YamlNode> anchors_;
  YamlNode root_;
  std::size_t nodes_ = 0;
};

}  // namespace

YamlDocument ParseYaml(std::string_view text, const std::string& name, const YamlLimits& limits) {
  // libyaml accepts NUL bytes inside the buffer only as errors deep in scanning; reject them clearly.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < nul; ++i) {
      if (text[i] == '\n') ++line, line_start = i + 1;
    }
    throw InputError(Diagnostic{
        {name, line, static_cast<int>(nul - line_start) + 1}, "", "", "NUL byte in a YAML file (binary data?)"});
  }
  TreeBuilder builder(name, limits);
  return YamlDocument{name, builder.Build(text)};
}

YamlDocument LoadYamlFile(const std::string& path, const YamlLimits& limits) {
  return ParseYaml(ReadFile(path), path, limits);
}

}  // namespace infermark

#include "core/yaml_node.hpp"

#include <yaml.h>

#include <cmath>
#include <cstdlib>
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
    if (s == t) return value = true, true;
  }
  for (auto f : kFalse) {
    if (s == f) return value = false, true;
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

void ResolvePlain(YamlNode& node) {
  const std::string_view s = node.text;
  if (IsNull(s)) {
    node.kind = YamlKind::kNull;
  } else if (IsBool(s, node.bool_value)) {
    node.kind = YamlKind::kBool;
  } else if (MatchesFloat(s)) {
    ResolveFloat(node);
  } else if (MatchesInt(s)) {
    ResolveInt(node);
  } else if (MatchesTimestamp(s)) {
    node.kind = YamlKind::kTimestamp;
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
  yaml_event_t event{};
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
    YamlNode root;
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
          return root;
        case YAML_DOCUMENT_START_EVENT:
          if (++documents > 1) Fail(line, column, "expected a single YAML document, found another one here");
          break;
        case YAML_DOCUMENT_END_EVENT:
          break;
        case YAML_SCALAR_EVENT: {
          YamlNode node;
          node.line = line;
          node.column = column;
          node.text.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
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
          Push(std::move(node));
          if (stack_.empty()) root = std::move(finished_);
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
          if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
            Fail(line, column, "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
          }
          Frame frame;
          frame.node.kind = mapping ? YamlKind::kMapping : YamlKind::kSequence;
          frame.node.line = line;
          frame.node.column = column;
          const auto* anchor = mapping ? e.data.mapping_start.anchor : e.data.sequence_start.anchor;
          if (anchor != nullptr) frame.anchor = reinterpret_cast<const char*>(anchor);
          stack_.push_back(std::move(frame));
          if (scratch_items_.size() < stack_.size()) {
            scratch_items_.resize(stack_.size());
            scratch_entries_.resize(stack_.size());
          }
          CountNew(1, line, column);
          break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
          // Children were gathered in this depth's scratch vector; moving them into an exactly
          // sized vector costs one allocation per collection instead of one per doubling.
          const std::size_t depth = stack_.size() - 1;
          Frame frame = std::move(stack_.back());
          stack_.pop_back();
          auto& items = scratch_items_[depth];
          auto& entries = scratch_entries_[depth];
          frame.node.items.assign(std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
          frame.node.entries.assign(std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
          items.clear();
          entries.clear();
          if (frame.node.kind == YamlKind::kMapping) ApplyMerges(frame);
          if (!frame.anchor.empty()) anchors_[frame.anchor] = frame.node;
          Push(std::move(frame.node));
          if (stack_.empty()) root = std::move(finished_);
          break;
        }
        case YAML_ALIAS_EVENT: {
          const std::string name = reinterpret_cast<const char*>(e.data.alias.anchor);
          auto it = anchors_.find(name);
          if (it == anchors_.end()) Fail(line, column, "alias '*" + name + "' refers to no anchor before it");
          const std::size_t size = CountNodes(it->second);
          CountNew(size, line, column);
          YamlNode copy = it->second;
          copy.line = line;
          copy.column = column;
          Push(std::move(copy));
          if (stack_.empty()) root = std::move(finished_);
          break;
        }
      }
    }
  }

 private:
  struct Frame {
    YamlNode node;
    std::string anchor;
    bool have_key = false;
    YamlNode key;
    std::vector<YamlEntry> merged;  // entries brought in by `<<`
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

  // Places a finished node into its parent (or makes it the finished root).
  void Push(YamlNode node) {
    if (stack_.empty()) {
      finished_ = std::move(node);
      return;
    }
    Frame& parent = stack_.back();
    if (parent.node.kind == YamlKind::kSequence) {
      scratch_items_[stack_.size() - 1].push_back(std::move(node));
      return;
    }
    if (!parent.have_key) {
      if (!node.IsScalar()) Fail(node.line, node.column, "mapping keys must be scalars");
      parent.key = std::move(node);
      parent.have_key = true;
      return;
    }
    parent.have_key = false;
    if (parent.key.kind == YamlKind::kString && parent.key.text == "<<") {
      AddMerge(parent, node);
      return;
    }
    auto& siblings = scratch_entries_[stack_.size() - 1];
    for (const auto& [k, v] : siblings) {
      if (k.kind == parent.key.kind && k.text == parent.key.text) {
        Fail(parent.key.line, parent.key.column,
             "duplicate key '" + k.text + "' (first defined at line " + std::to_string(k.line) + ")");
      }
    }
    siblings.push_back(YamlEntry{std::move(parent.key), std::move(node)});
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
  static void ApplyMerges(Frame& frame) {
    if (frame.merged.empty()) return;
    std::vector<YamlEntry> out;
    auto put = [&out](YamlEntry entry) {
      for (auto& existing : out) {
        if (existing.first.kind == entry.first.kind && existing.first.text == entry.first.text) {
          existing.second = std::move(entry.second);
          return;
        }
      }
      out.push_back(std::move(entry));
    };
    for (auto& entry : frame.merged) put(std::move(entry));
    for (auto& entry : frame.node.entries) put(std::move(entry));
    frame.node.entries = std::move(out);
  }

  std::string name_;
  YamlLimits limits_;
  std::vector<Frame> stack_;
  std::vector<std::vector<YamlNode>> scratch_items_;     // children being gathered, per depth
  std::vector<std::vector<YamlEntry>> scratch_entries_;  // key/value pairs being gathered, per depth
  std::map<std::string, YamlNode> anchors_;
  YamlNode finished_;
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

#include "core/field_reader.hpp"

#include <algorithm>

namespace infermark {

void ReadContext::Report(const YamlNode* node, const std::string& field, std::string rule) const {
  SourceMark mark{file != nullptr ? *file : std::string(), node != nullptr ? node->line : 0,
                  node != nullptr ? node->column : 0};
  problems->push_back(Diagnostic{std::move(mark), entry, field, std::move(rule)});
}

std::string JoinPath(const std::string& parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  if (child.empty()) return parent;
  if (child.front() == '[') return parent + std::string(child);
  return parent + "." + std::string(child);
}

FieldReader::FieldReader(const ReadContext& context, const YamlNode& node, std::string path)
    : context_(context), node_(node), path_(std::move(path)) {
  if (node.kind != YamlKind::kMapping) {
    ok_ = false;
    context_.Report(&node, path_, std::string("expected a mapping, got ") + std::string(node.TypeName()));
  }
}

const YamlNode* FieldReader::Get(std::string_view key) {
  known_.push_back(key);
  return ok_ ? node_.Find(key) : nullptr;
}

void FieldReader::Missing(std::string_view key) {
  if (ok_) context_.Report(&node_, PathOf(key), "field required");
}

const YamlNode* FieldReader::Present(std::string_view key, Need need) {
  const YamlNode* v = Get(key);
  if (v == nullptr) {
    if (need == Need::kRequired) Missing(key);
    return nullptr;
  }
  if (v->kind == YamlKind::kNull && need == Need::kOptional) return nullptr;
  return v;
}

void FieldReader::WrongType(const YamlNode& value, std::string_view key, std::string_view expected) {
  std::string got(value.TypeName());
  if (value.IsScalar() && value.kind != YamlKind::kNull) got += " ('" + value.text + "')";
  context_.Report(&value, PathOf(key), "expected " + std::string(expected) + ", got " + got);
}

std::optional<std::string> FieldReader::String(std::string_view key, Need need, std::size_t min_length) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return std::nullopt;
  if (v->kind != YamlKind::kString) {
    WrongType(*v, key, "a string");
    return std::nullopt;
  }
  if (v->text.size() < min_length) {
    context_.Report(v, PathOf(key), "must not be empty");
    return std::nullopt;
  }
  return v->text;
}

std::optional<std::int64_t> FieldReader::Int(std::string_view key, Need need, std::optional<std::int64_t> minimum) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return std::nullopt;
  if (v->kind != YamlKind::kInt) {
    WrongType(*v, key, "an integer");
    return std::nullopt;
  }
  if (v->int_overflow) {
    context_.Report(v, PathOf(key), "integer " + v->text + " is out of range (64-bit)");
    return std::nullopt;
  }
  if (minimum && v->int_value < *minimum) {
    context_.Report(v, PathOf(key),
                    *minimum == 1
                        ? "must be greater than 0, got " + std::to_string(v->int_value)
                        : "must be at least " + std::to_string(*minimum) + ", got " + std::to_string(v->int_value));
    return std::nullopt;
  }
  return v->int_value;
}

std::optional<double> FieldReader::Float(std::string_view key, Need need) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return std::nullopt;
  if (v->kind == YamlKind::kFloat) return v->float_value;
  if (v->kind == YamlKind::kInt && !v->int_overflow) return static_cast<double>(v->int_value);
  WrongType(*v, key, "a number");
  return std::nullopt;
}

std::optional<bool> FieldReader::Bool(std::string_view key, Need need) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return std::nullopt;
  if (v->kind != YamlKind::kBool) {
    WrongType(*v, key, "a boolean");
    return std::nullopt;
  }
  return v->bool_value;
}

std::optional<std::string> FieldReader::Choice(std::string_view key, Need need,
                                               const std::vector<std::string>& choices) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return std::nullopt;
  if (v->kind != YamlKind::kString || std::find(choices.begin(), choices.end(), v->text) == choices.end()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "'" : ", '") + c + "'";
    context_.Report(v, PathOf(key), "must be one of " + list + ", got '" + v->text + "'");
    return std::nullopt;
  }
  return v->text;
}

std::optional<std::vector<std::int64_t>> FieldReader::IntList(std::string_view key, Need need) {
  const YamlNode* v = List(key, need);
  if (v == nullptr) return std::nullopt;
  std::vector<std::int64_t> out;
  bool good = true;
  for (std::size_t i = 0; i < v->items.size(); ++i) {
    const YamlNode& item = v->items[i];
    const std::string path = PathOf(key) + "[" + std::to_string(i) + "]";
    if (item.kind != YamlKind::kInt) {
      context_.Report(&item, path, "expected an integer, got " + std::string(item.TypeName()));
      good = false;
    } else if (item.int_overflow) {
      context_.Report(&item, path, "integer " + item.text + " is out of range (64-bit)");
      good = false;
    } else {
      out.push_back(item.int_value);
    }
  }
  if (!good) return std::nullopt;
  return out;
}

std::optional<std::vector<std::string>> FieldReader::StringList(std::string_view key, Need need,
                                                                std::size_t min_items) {
  const YamlNode* v = List(key, need);
  if (v == nullptr) return std::nullopt;
  std::vector<std::string> out;
  bool good = true;
  for (std::size_t i = 0; i < v->items.size(); ++i) {
    const YamlNode& item = v->items[i];
    if (item.kind != YamlKind::kString) {
      context_.Report(&item, PathOf(key) + "[" + std::to_string(i) + "]",
                      "expected a string, got " + std::string(item.TypeName()));
      good = false;
    } else {
      out.push_back(item.text);
    }
  }
  if (out.size() < min_items && good) {
    context_.Report(v, PathOf(key), "must have at least " + std::to_string(min_items) + " item");
    return std::nullopt;
  }
  if (!good) return std::nullopt;
  return out;
}

const YamlNode* FieldReader::Mapping(std::string_view key, Need need) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return nullptr;
  if (v->kind != YamlKind::kMapping) {
    WrongType(*v, key, "a mapping");
    return nullptr;
  }
  return v;
}

const YamlNode* FieldReader::List(std::string_view key, Need need) {
  const YamlNode* v = Present(key, need);
  if (v == nullptr) return nullptr;
  if (v->kind != YamlKind::kSequence) {
    WrongType(*v, key, "a list");
    return nullptr;
  }
  return v;
}

void FieldReader::RejectUnknown() {
  if (!ok_) return;
  for (const auto& [k, v] : node_.entries) {
    if (k.kind != YamlKind::kString) {
      context_.Report(&k, path_, "keys must be strings, got " + std::string(k.TypeName()) + " ('" + k.text + "')");
    } else if (std::find(known_.begin(), known_.end(), k.text) == known_.end()) {
      context_.Report(&k, PathOf(k.text), "unknown field (extra fields are not permitted)");
    }
  }
}

SourceMark DocumentMark(const YamlDocument& doc) {
  return SourceMark{doc.file, std::max(doc.root.line, 1), std::max(doc.root.column, 1)};
}

Json ToJson(const YamlNode& node) {
  switch (node.kind) {
    case YamlKind::kNull:
      return nullptr;
    case YamlKind::kBool:
      return node.bool_value;
    case YamlKind::kInt:
      return node.int_overflow ? Json(node.text) : Json(node.int_value);
    case YamlKind::kFloat:
      return node.float_value;
    case YamlKind::kString:
    case YamlKind::kTimestamp:
      return node.text;
    case YamlKind::kSequence: {
      Json out = Json::array();
      for (const auto& item : node.items) out.push_back(ToJson(item));
      return out;
    }
    case YamlKind::kMapping: {
      Json out = Json::object();
      for (const auto& [k, v] : node.entries) out[k.text] = ToJson(v);
      return out;
    }
  }
  return nullptr;
}

}  // namespace infermark

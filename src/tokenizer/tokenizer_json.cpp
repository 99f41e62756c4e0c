// Reads tokenizer.json (simdjson: Gemma's is 33 MB) into TokenizerParts. Every unsupported or
// malformed part is an InputError naming the field path, so a user learns exactly what is missing.
#include <simdjson.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/diagnostic.hpp"
#include "tokenizer/tokenizer_parts.hpp"
#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

namespace dom = simdjson::dom;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& rule) const {
    throw InputError(Diagnostic{SourceMark{source_, 0, 0}, "", field, rule});
  }

  dom::object Object(dom::element e, const std::string& field) const {
    dom::object o;
    if (e.get(o) != simdjson::SUCCESS) Fail(field, "must be an object");
    return o;
  }

  dom::array Array(dom::element e, const std::string& field) const {
    dom::array a;
    if (e.get(a) != simdjson::SUCCESS) Fail(field, "must be an array");
    return a;
  }

  std::string String(dom::element e, const std::string& field) const {
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS) Fail(field, "must be a string");
    return std::string(s);
  }

  std::uint64_t UInt(dom::element e, const std::string& field) const {
    std::uint64_t v = 0;
    if (e.get(v) != simdjson::SUCCESS) Fail(field, "must be a non-negative integer");
    return v;
  }

  // The member `key`, or nullopt when absent or null.
  static std::optional<dom::element> Member(dom::object o, std::string_view key) {
    dom::element e;
    if (o.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) return std::nullopt;
    return e;
  }

  dom::element Required(dom::object o, std::string_view key, const std::string& field) const {
    const auto e = Member(o, key);
    if (!e) Fail(Join(field, key), "is required");
    return *e;
  }

  std::string RequiredString(dom::object o, std::string_view key, const std::string& field) const {
    return String(Required(o, key, field), Join(field, key));
  }

  std::optional<std::string> OptionalString(dom::object o, std::string_view key, const std::string& field) const {
    const auto e = Member(o, key);
    if (!e) return std::nullopt;
    return String(*e, Join(field, key));
  }

  bool Bool(dom::object o, std::string_view key, bool fallback, const std::string& field) const {
    const auto e = Member(o, key);
    if (!e) return fallback;
    bool v = false;
    if (e->get(v) != simdjson::SUCCESS) Fail(Join(field, key), "must be true or false");
    return v;
  }

  std::uint64_t UIntOr(dom::object o, std::string_view key, std::uint64_t fallback, const std::string& field) const {
    const auto e = Member(o, key);
    return e ? UInt(*e, Join(field, key)) : fallback;
  }

  static std::string Join(const std::string& field, std::string_view key) {
    return field.empty() ? std::string(key) : field + "." + std::string(key);
  }
  static std::string Index(const std::string& field, std::size_t i) { return field + "[" + std::to_string(i) + "]"; }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// Rust's regex::escape, which `tokenizers` applies to literal patterns before compiling them.
std::string EscapeRegex(std::string_view literal) {
  std::string out;
  for (const char c : literal) {
    if (std::string_view("\\.+*?()|[]{}^$#&-~").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

OnigRegex Compile(const Reader& r, const std::string& pattern, const std::string& field) {
  try {
    return OnigRegex(pattern);
  } catch (const std::invalid_argument& e) {
    r.Fail(field, std::string("invalid regular expression: ") + e.what());
  }
}

// A `pattern` member: {"String": "..."} or {"Regex": "..."}.
struct Pattern {
  std::string text;
  bool is_regex = false;
};

Pattern ReadPattern(const Reader& r, dom::object o, const std::string& field) {
  const std::string path = Reader::Join(field, "pattern");
  const dom::object p = r.Object(r.Required(o, "pattern", field), path);
  if (const auto s = r.OptionalString(p, "String", path)) return {*s, false};
  if (const auto s = r.OptionalString(p, "Regex", path)) return {*s, true};
  r.Fail(path, "must hold \"String\" or \"Regex\"");
}

char32_t SingleChar(const Reader& r, const std::string& text, const std::string& field) {
  std::size_t pos = 0;
  if (text.empty() || !IsValidUtf8(text)) r.Fail(field, "must be one character");
  const char32_t c = DecodeChar(text, pos);
  if (pos != text.size()) r.Fail(field, "must be one character");
  return c;
}

std::unique_ptr<Normalizer> ReadNormalizer(const Reader& r, dom::element e, const std::string& field) {
  const dom::object o = r.Object(e, field);
  const std::string type = r.RequiredString(o, "type", field);
  if (type == "NFC") return MakeUnicodeNormalizer(UnicodeForm::kNfc);
  if (type == "NFD") return MakeUnicodeNormalizer(UnicodeForm::kNfd);
  if (type == "NFKC") return MakeUnicodeNormalizer(UnicodeForm::kNfkc);
  if (type == "NFKD") return MakeUnicodeNormalizer(UnicodeForm::kNfkd);
  if (type == "Lowercase") return MakeLowercase();
  if (type == "StripAccents") return MakeStripAccents();
  if (type == "Strip") {
    return MakeStrip(r.Bool(o, "strip_left", true, field), r.Bool(o, "strip_right", true, field));
  }
  if (type == "Prepend") return MakePrepend(r.RequiredString(o, "prepend", field));
  if (type == "Replace") {
    const Pattern pattern = ReadPattern(r, o, field);
    std::string content = r.RequiredString(o, "content", field);
    if (!pattern.is_regex) return MakeReplaceString(pattern.text, std::move(content));
    return MakeReplaceRegex(Compile(r, pattern.text, field + ".pattern.Regex"), std::move(content));
  }
  if (type == "Sequence") {
    const std::string path = Reader::Join(field, "normalizers");
    std::vector<std::unique_ptr<Normalizer>> parts;
    std::size_t i = 0;
    for (dom::element part : r.Array(r.Required(o, "normalizers", field), path)) {
      parts.push_back(ReadNormalizer(r, part, Reader::Index(path, i++)));
    }
    return MakeNormalizerSequence(std::move(parts));
  }
  r.Fail(Reader::Join(field, "type"), "normalizer '" + type + "' is not supported");
}

SplitBehavior ReadBehavior(const Reader& r, dom::object o, const std::string& field, SplitBehavior fallback) {
  const auto behavior = r.OptionalString(o, "behavior", field);
  if (!behavior) return fallback;
  if (*behavior == "Removed") return SplitBehavior::kRemoved;
  if (*behavior == "Isolated") return SplitBehavior::kIsolated;
  if (*behavior == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (*behavior == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (*behavior == "Contiguous") return SplitBehavior::kContiguous;
  r.Fail(Reader::Join(field, "behavior"), "unknown split behavior '" + *behavior + "'");
}

PrependScheme ReadPrependScheme(const Reader& r, dom::object o, const std::string& field) {
  if (const auto scheme = r.OptionalString(o, "prepend_scheme", field)) {
    if (*scheme == "always") return PrependScheme::kAlways;
    if (*scheme == "first") return PrependScheme::kFirst;
    if (*scheme == "never") return PrependScheme::kNever;
    r.Fail(Reader::Join(field, "prepend_scheme"), "must be \"always\", \"first\" or \"never\"");
  }
  // Files written before prepend_scheme existed say add_prefix_space.
  return r.Bool(o, "add_prefix_space", true, field) ? PrependScheme::kAlways : PrependScheme::kNever;
}

// `byte_level` is set when a ByteLevel pre-tokenizer is read; it must be the last one, since the
// model then works on raw bytes.
std::unique_ptr<PreTokenizer> ReadPreTokenizer(const Reader& r, dom::element e, const std::string& field,
                                               bool& byte_level) {
  const dom::object o = r.Object(e, field);
  const std::string type = r.RequiredString(o, "type", field);
  if (byte_level) r.Fail(field, "a pre-tokenizer after ByteLevel is not supported");
  if (type == "Split") {
    const Pattern pattern = ReadPattern(r, o, field);
    const std::string regex = pattern.is_regex ? pattern.text : EscapeRegex(pattern.text);
    return MakeSplit(Compile(r, regex, field + ".pattern"), ReadBehavior(r, o, field, SplitBehavior::kRemoved),
                     r.Bool(o, "invert", false, field));
  }
  if (type == "ByteLevel") {
    byte_level = true;
    return MakeByteLevelPreTokenizer(r.Bool(o, "add_prefix_space", true, field), r.Bool(o, "use_regex", true, field));
  }
  if (type == "Metaspace") {
    const std::string replacement = r.RequiredString(o, "replacement", field);
    SingleChar(r, replacement, Reader::Join(field, "replacement"));
    return MakeMetaspace(replacement, ReadPrependScheme(r, o, field), r.Bool(o, "split", true, field));
  }
  if (type == "Whitespace") return MakeWhitespace();
  if (type == "WhitespaceSplit") return MakeWhitespaceSplit();
  if (type == "Digits") return MakeDigits(r.Bool(o, "individual_digits", false, field));
  if (type == "Punctuation") return MakePunctuation(ReadBehavior(r, o, field, SplitBehavior::kIsolated));
  if (type == "Sequence") {
    const std::string path = Reader::Join(field, "pretokenizers");
    std::vector<std::unique_ptr<PreTokenizer>> parts;
    std::size_t i = 0;
    for (dom::element part : r.Array(r.Required(o, "pretokenizers", field), path)) {
      parts.push_back(ReadPreTokenizer(r, part, Reader::Index(path, i++), byte_level));
    }
    return MakePreTokenizerSequence(std::move(parts));
  }
  r.Fail(Reader::Join(field, "type"), "pre-tokenizer '" + type + "' is not supported");
}

std::unique_ptr<BpeModel> ReadModel(const Reader& r, dom::element e, bool byte_level) {
  const std::string field = "model";
  const dom::object o = r.Object(e, field);
  const auto type = r.OptionalString(o, "type", field);
  if (type && *type != "BPE") r.Fail("model.type", "model '" + *type + "' is not supported (only BPE)");
  if (const auto dropout = Reader::Member(o, "dropout")) {
    double p = 0;
    if (dropout->get(p) != simdjson::SUCCESS) r.Fail("model.dropout", "must be a number or null");
    if (p > 0) r.Fail("model.dropout", "BPE dropout makes encoding random; not supported");
  }
  BpeConfig config;
  config.byte_level = byte_level;
  const dom::object vocab = r.Object(r.Required(o, "vocab", field), "model.vocab");
  config.vocab.reserve(vocab.size());
  for (dom::key_value_pair entry : vocab) {
    std::uint64_t id = 0;
    if (entry.value.get(id) != simdjson::SUCCESS || id >= 0xFFFFFFF0u) {
      r.Fail("model.vocab." + std::string(entry.key), "must be a token id (a non-negative 32-bit integer)");
    }
    config.vocab.emplace_back(entry.key, static_cast<std::uint32_t>(id));
  }
  const dom::array merges = r.Array(r.Required(o, "merges", field), "model.merges");
  config.merges.reserve(merges.size());
  std::size_t i = 0;
  for (dom::element merge : merges) {
    const std::size_t index = i++;  // the path is only spelled out for an error
    std::string_view line;
    if (merge.get(line) == simdjson::SUCCESS) {
      // Legacy form "left right": exactly one space, as `tokenizers` requires; "#version" lines skipped.
      if (line.starts_with("#version")) continue;
      const std::size_t space = line.find(' ');
      if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos) {
        r.Fail(Reader::Index("model.merges", index), "a merge must be two tokens separated by one space");
      }
      config.merges.emplace_back(line.substr(0, space), line.substr(space + 1));
      continue;
    }
    dom::array pair;
    std::string_view parts[2];
    std::size_t count = 0;
    bool ok = merge.get(pair) == simdjson::SUCCESS;
    if (ok) {
      for (dom::element part : pair) {
        if (count >= 2 || part.get(parts[count]) != simdjson::SUCCESS) {
          ok = false;
          break;
        }
        ++count;
      }
    }
    if (!ok || count != 2) r.Fail(Reader::Index("model.merges", index), "a merge must be a pair of token strings");
    config.merges.emplace_back(parts[0], parts[1]);
  }
  config.unk_token = r.OptionalString(o, "unk_token", field);
  config.continuing_subword_prefix = r.OptionalString(o, "continuing_subword_prefix", field).value_or("");
  config.end_of_word_suffix = r.OptionalString(o, "end_of_word_suffix", field).value_or("");
  config.fuse_unk = r.Bool(o, "fuse_unk", false, field);
  config.byte_fallback = r.Bool(o, "byte_fallback", false, field);
  config.ignore_merges = r.Bool(o, "ignore_merges", false, field);
  try {
    return std::make_unique<BpeModel>(std::move(config));
  } catch (const std::invalid_argument& error) {
    r.Fail("model", error.what());
  }
}

std::vector<AddedToken> ReadAddedTokens(const Reader& r, dom::object root) {
  std::vector<AddedToken> tokens;
  const auto list = Reader::Member(root, "added_tokens");
  if (!list) return tokens;
  std::size_t i = 0;
  for (dom::element e : r.Array(*list, "added_tokens")) {
    const std::string path = Reader::Index("added_tokens", i++);
    const dom::object o = r.Object(e, path);
    AddedToken token;
    token.content = r.RequiredString(o, "content", path);
    const std::uint64_t id = r.UInt(r.Required(o, "id", path), path + ".id");
    if (id >= 0xFFFFFFF0u) r.Fail(path + ".id", "id is too large");
    token.id = static_cast<std::uint32_t>(id);
    token.special = r.Bool(o, "special", false, path);
    token.single_word = r.Bool(o, "single_word", false, path);
    token.lstrip = r.Bool(o, "lstrip", false, path);
    token.rstrip = r.Bool(o, "rstrip", false, path);
    token.normalized = r.Bool(o, "normalized", !token.special, path);
    tokens.push_back(std::move(token));
  }
  return tokens;
}

std::unique_ptr<Decoder> ReadDecoder(const Reader& r, dom::element e, const std::string& field) {
  const dom::object o = r.Object(e, field);
  const std::string type = r.RequiredString(o, "type", field);
  if (type == "ByteLevel") return MakeByteLevelDecoder();
  if (type == "ByteFallback") return MakeByteFallbackDecoder();
  if (type == "Fuse") return MakeFuseDecoder();
  if (type == "Replace") {
    const Pattern pattern = ReadPattern(r, o, field);
    std::string content = r.RequiredString(o, "content", field);
    if (!pattern.is_regex) return MakeReplaceStringDecoder(pattern.text, std::move(content));
    return MakeReplaceRegexDecoder(Compile(r, pattern.text, field + ".pattern.Regex"), std::move(content));
  }
  if (type == "Strip") {
    const char32_t content = SingleChar(r, r.RequiredString(o, "content", field), Reader::Join(field, "content"));
    return MakeStripDecoder(content, r.UIntOr(o, "start", 0, field), r.UIntOr(o, "stop", 0, field));
  }
  if (type == "Metaspace") {
    const std::string replacement = r.RequiredString(o, "replacement", field);
    const char32_t c = SingleChar(r, replacement, Reader::Join(field, "replacement"));
    return MakeMetaspaceDecoder(c, ReadPrependScheme(r, o, field) != PrependScheme::kNever);
  }
  if (type == "Sequence") {
    const std::string path = Reader::Join(field, "decoders");
    std::vector<std::unique_ptr<Decoder>> parts;
    std::size_t i = 0;
    for (dom::element part : r.Array(r.Required(o, "decoders", field), path)) {
      parts.push_back(ReadDecoder(r, part, Reader::Index(path, i++)));
    }
    return MakeDecoderSequence(std::move(parts));
  }
  r.Fail(Reader::Join(field, "type"), "decoder '" + type + "' is not supported");
}

// Applies one post-processor's single-sequence template around the ids so far.
void ReadPostProcessor(const Reader& r, dom::element e, const std::string& field, TokenizerParts& parts) {
  const dom::object o = r.Object(e, field);
  const std::string type = r.RequiredString(o, "type", field);
  if (type == "ByteLevel") return;  // offsets only
  if (type == "Sequence") {
    const std::string path = Reader::Join(field, "processors");
    std::size_t i = 0;
    for (dom::element part : r.Array(r.Required(o, "processors", field), path)) {
      ReadPostProcessor(r, part, Reader::Index(path, i++), parts);
    }
    return;
  }
  std::vector<std::uint32_t> before, after;
  if (type == "TemplateProcessing") {
    const std::string single_path = Reader::Join(field, "single");
    const dom::object specials =
        r.Object(r.Required(o, "special_tokens", field), Reader::Join(field, "special_tokens"));
    bool seen_sequence = false;
    std::size_t i = 0;
    for (dom::element item : r.Array(r.Required(o, "single", field), single_path)) {
      const std::string path = Reader::Index(single_path, i++);
      const dom::object piece = r.Object(item, path);
      if (Reader::Member(piece, "Sequence")) {
        seen_sequence = true;
        continue;
      }
      const auto special = Reader::Member(piece, "SpecialToken");
      if (!special) r.Fail(path, "must hold \"Sequence\" or \"SpecialToken\"");
      const std::string name =
          r.RequiredString(r.Object(*special, path + ".SpecialToken"), "id", path + ".SpecialToken");
      const auto entry = Reader::Member(specials, name);
      if (!entry) r.Fail(Reader::Join(field, "special_tokens"), "no entry for '" + name + "'");
      const std::string entry_path = Reader::Join(field, "special_tokens") + "." + name;
      std::size_t j = 0;
      for (dom::element id :
           r.Array(r.Required(r.Object(*entry, entry_path), "ids", entry_path), entry_path + ".ids")) {
        const std::uint64_t value = r.UInt(id, Reader::Index(entry_path + ".ids", j++));
        (seen_sequence ? after : before).push_back(static_cast<std::uint32_t>(value));
      }
    }
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    for (const char* key : {"cls", "sep"}) {
      const std::string path = Reader::Join(field, key);
      const dom::array pair = r.Array(r.Required(o, key, field), path);
      if (pair.size() != 2) r.Fail(path, "must be [token, id]");
      const std::uint64_t id = r.UInt(pair.at(1).value_unsafe(), path + "[1]");
      (std::string_view(key) == "cls" ? before : after).push_back(static_cast<std::uint32_t>(id));
    }
  } else {
    r.Fail(Reader::Join(field, "type"), "post-processor '" + type + "' is not supported");
  }
  parts.prefix_ids.insert(parts.prefix_ids.begin(), before.begin(), before.end());
  parts.suffix_ids.insert(parts.suffix_ids.end(), after.begin(), after.end());
}

// tokenizer_config.json names special tokens as strings or as {"content": ...} objects. It is small
// and may hold integers beyond 64 bits (model_max_length), so nlohmann reads it, not simdjson.
void ReadConfig(std::string_view config_json, const std::string& source, TokenizerParts& parts) {
  if (config_json.empty()) return;
  const Reader r(source + " (tokenizer_config.json)");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(config_json);
  } catch (const nlohmann::json::parse_error& error) {
    r.Fail("", std::string("not valid JSON: ") + error.what());
  }
  if (!config.is_object()) r.Fail("", "must be an object");
  const auto read = [&](const char* key, std::optional<std::uint32_t>& slot) {
    const auto it = config.find(key);
    if (it == config.end()) return;
    const nlohmann::json* name = &*it;
    if (name->is_object()) {
      const auto content = name->find("content");
      if (content == name->end()) return;
      name = &*content;
    }
    if (!name->is_string()) return;
    const std::string text = name->get<std::string>();
    if (const auto id = parts.added.FindByContent(text)) {
      slot = id;
    } else {
      slot = parts.model->TokenToId(text);
    }
  };
  read("bos_token", parts.special_token_ids.bos);
  read("eos_token", parts.special_token_ids.eos);
  read("pad_token", parts.special_token_ids.pad);
  read("unk_token", parts.special_token_ids.unk);
}

// Where simdjson only says "invalid", nlohmann says where.
std::string JsonErrorDetail(std::string_view json, simdjson::error_code code) {
  try {
    [[maybe_unused]] const auto parsed = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error& e) {
    return e.what();
  }
  return simdjson::error_message(code);
}

}  // namespace

TokenizerParts ReadTokenizerJson(std::string& tokenizer_json, std::string_view config_json, const std::string& source) {
  const Reader r(source);
  dom::parser parser;
  tokenizer_json.reserve(tokenizer_json.size() + simdjson::SIMDJSON_PADDING);
  dom::element root_element;
  if (const auto code = parser.parse(tokenizer_json.data(), tokenizer_json.size(), false).get(root_element);
      code != simdjson::SUCCESS) {
    r.Fail("", "not valid JSON: " + JsonErrorDetail(tokenizer_json, code));
  }
  const dom::object root = r.Object(root_element, "(top level)");

  TokenizerParts parts;
  parts.source = source;
  if (const auto e = Reader::Member(root, "normalizer")) parts.normalizer = ReadNormalizer(r, *e, "normalizer");
  bool byte_level = false;
  if (const auto e = Reader::Member(root, "pre_tokenizer")) {
    parts.pre_tokenizer = ReadPreTokenizer(r, *e, "pre_tokenizer", byte_level);
  }
  parts.model = ReadModel(r, r.Required(root, "model", ""), byte_level);
  const BpeModel& model = *parts.model;
  parts.added = AddedVocabulary(
      ReadAddedTokens(r, root), [&](std::string_view content) { return model.TokenToId(content); }, model.VocabSize(),
      parts.normalizer.get());
  if (const auto e = Reader::Member(root, "decoder")) {
    parts.decoder = ReadDecoder(r, *e, "decoder");
    std::string_view type;
    dom::object o;
    parts.decoder_is_byte_level =
        e->get(o) == simdjson::SUCCESS && o.at_key("type").get(type) == simdjson::SUCCESS && type == "ByteLevel";
  }
  if (const auto e = Reader::Member(root, "post_processor")) ReadPostProcessor(r, *e, "post_processor", parts);
  for (const auto* ids : {&parts.prefix_ids, &parts.suffix_ids}) {
    for (const std::uint32_t id : *ids) {
      if (parts.added.FindById(id) == nullptr && !model.IdToToken(id)) {
        r.Fail("post_processor", "special token id " + std::to_string(id) + " is not in the vocabulary");
      }
    }
  }
  ReadConfig(config_json, source, parts);
  return parts;
}

}  // namespace infermark::tokenizer

#include "tokenizer/tokenizer.hpp"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/diagnostic.hpp"
#include "tokenizer/byte_level.hpp"
#include "tokenizer/tokenizer_parts.hpp"
#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {

struct Tokenizer::Impl {
  TokenizerParts parts;
  std::uint64_t serial = 0;  // identifies this tokenizer's per-thread scratch
  std::uint32_t id_limit = 0;
  std::size_t vocab_size = 0;
};

namespace {

std::atomic<std::uint64_t> next_serial{1};

// Per-thread working memory of one tokenizer: caches and buffers survive across calls, so a warm
// Encode allocates nothing but its output.
struct EncodeScratch {
  BpeScratch bpe;
  std::string clean;       // input with invalid UTF-8 replaced
  std::string normalized;  // one section after normalization
};

EncodeScratch& ScratchFor(std::uint64_t serial) {
  // A few tokenizers per thread at most; the oldest scratch goes when a ninth arrives.
  thread_local std::vector<std::pair<std::uint64_t, std::unique_ptr<EncodeScratch>>> scratches;
  for (auto& [owner, scratch] : scratches) {
    if (owner == serial) return *scratch;
  }
  if (scratches.size() >= 8) scratches.erase(scratches.begin());
  scratches.emplace_back(serial, std::make_unique<EncodeScratch>());
  return *scratches.back().second;
}

}  // namespace

namespace {

// The whole file, with room for simdjson's padding so the parser reads it in place.
std::string ReadWholeFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    throw InputError(Diagnostic{{path, 0, 0}, "", "", std::string("cannot open: ") + std::strerror(errno)});
  std::string data;
  struct stat info {};
  if (fstat(fileno(f), &info) == 0 && info.st_size > 0) data.reserve(static_cast<std::size_t>(info.st_size) + 64);
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) data.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(Diagnostic{{path, 0, 0}, "", "", "read error"});
  return data;
}

}  // namespace

Tokenizer Tokenizer::FromJson(std::string_view tokenizer_json, std::string_view config_json,
                              const std::string& source) {
  std::string json;
  json.reserve(tokenizer_json.size() + 64);
  json.assign(tokenizer_json);
  return FromOwnedJson(json, config_json, source);
}

Tokenizer Tokenizer::FromOwnedJson(std::string& tokenizer_json, std::string_view config_json,
                                   const std::string& source) {
  auto impl = std::make_shared<Impl>();
  impl->parts = ReadTokenizerJson(tokenizer_json, config_json, source);
  impl->serial = next_serial.fetch_add(1);
  impl->id_limit = impl->parts.model->IdLimit();
  impl->vocab_size = impl->parts.model->VocabSize();
  for (const AddedToken& token : impl->parts.added.tokens()) {
    impl->id_limit = std::max(impl->id_limit, token.id + 1);
    if (!impl->parts.model->IdToToken(token.id)) ++impl->vocab_size;
  }
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::Load(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(file, ec)) file /= "tokenizer.json";
  if (!fs::exists(file, ec)) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "",
                                fs::is_directory(path, ec) ? "folder has no tokenizer.json" : "no such file"});
  }
  std::string json = ReadWholeFile(file.string());
  const fs::path config_file = file.parent_path() / "tokenizer_config.json";
  std::string config;
  if (fs::exists(config_file, ec)) config = ReadWholeFile(config_file.string());
  return FromOwnedJson(json, config, file.string());
}

void Tokenizer::EncodeInto(std::string_view text, std::vector<std::uint32_t>& ids, bool add_special_tokens) const {
  const TokenizerParts& p = impl_->parts;
  // Oniguruma reports match positions as int.
  if (text.size() > 0x7FFFFFFF) throw std::length_error("tokenizer input larger than 2 GiB");
  EncodeScratch& scratch = ScratchFor(impl_->serial);
  if (!IsValidUtf8(text)) {
    scratch.clean.clear();
    AppendSanitizedUtf8(text, scratch.clean);
    text = scratch.clean;
  }
  if (add_special_tokens) ids.insert(ids.end(), p.prefix_ids.begin(), p.prefix_ids.end());
  const auto model = [&](std::string_view piece, bool) { p.model->Tokenize(piece, ids, scratch.bpe); };
  const auto pre_tokenize = [&](std::string_view piece, bool at_start) {
    if (p.pre_tokenizer) {
      p.pre_tokenizer->Split(piece, at_start, model);
    } else {
      model(piece, at_start);
    }
  };
  const char* const text_begin = text.data();
  p.added.SplitRaw(text, [&](std::string_view section, std::optional<std::uint32_t> added_id) {
    if (added_id) {
      ids.push_back(*added_id);
      return;
    }
    const bool section_at_start = section.data() == text_begin;
    std::string_view normalized = section;
    if (p.normalizer) {
      scratch.normalized.assign(section);
      p.normalizer->Normalize(scratch.normalized);
      normalized = scratch.normalized;
    }
    const char* const normalized_begin = normalized.data();
    p.added.SplitNormalized(normalized, [&](std::string_view piece, std::optional<std::uint32_t> id) {
      if (id) {
        ids.push_back(*id);
      } else {
        pre_tokenize(piece, section_at_start && piece.data() == normalized_begin);
      }
    });
  });
  if (add_special_tokens) ids.insert(ids.end(), p.suffix_ids.begin(), p.suffix_ids.end());
}

std::vector<std::uint32_t> Tokenizer::Encode(std::string_view text, bool add_special_tokens) const {
  std::vector<std::uint32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  EncodeInto(text, ids, add_special_tokens);
  return ids;
}

std::size_t Tokenizer::CountTokens(std::string_view text) const {
  thread_local std::vector<std::uint32_t> ids;
  ids.clear();
  EncodeInto(text, ids, false);
  return ids.size();
}

std::string Tokenizer::Decode(std::span<const std::uint32_t> ids, bool skip_special_tokens) const {
  const TokenizerParts& p = impl_->parts;
  // Added tokens take precedence over the model's vocabulary, as in `tokenizers`.
  const auto token_of = [&](std::uint32_t id) -> std::optional<std::string_view> {
    if (const AddedToken* added = p.added.FindById(id)) {
      if (skip_special_tokens && added->special) return std::nullopt;
      return added->content;
    }
    return p.model->IdToToken(id);
  };
  if (p.decoder_is_byte_level) {
    std::string bytes;
    bytes.reserve(ids.size() * 4);
    for (const std::uint32_t id : ids) {
      const auto token = token_of(id);
      if (token && !ByteLevelDecode(*token, bytes)) bytes.append(*token);
    }
    return IsValidUtf8(bytes) ? bytes : SanitizeUtf8(bytes);
  }
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const std::uint32_t id : ids) {
    if (const auto token = token_of(id)) tokens.emplace_back(*token);
  }
  std::string text;
  if (p.decoder) {
    p.decoder->DecodeChain(tokens);
    for (const std::string& t : tokens) text.append(t);
  } else {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) text.push_back(' ');
      text.append(tokens[i]);
    }
  }
  return text;
}

std::string Tokenizer::Normalize(std::string_view text) const {
  const TokenizerParts& p = impl_->parts;
  const std::string clean = SanitizeUtf8(text);
  std::string out;
  p.added.SplitRaw(clean, [&](std::string_view section, std::optional<std::uint32_t> added_id) {
    std::string piece(section);
    if (!added_id && p.normalizer) p.normalizer->Normalize(piece);
    out.append(piece);
  });
  return out;
}

std::size_t Tokenizer::VocabSize() const {
  return impl_->vocab_size;
}

std::size_t Tokenizer::ModelVocabSize() const {
  return impl_->parts.model->VocabSize();
}

std::uint32_t Tokenizer::IdLimit() const {
  return impl_->id_limit;
}

std::optional<std::uint32_t> Tokenizer::TokenToId(std::string_view token) const {
  if (const auto id = impl_->parts.added.FindByContent(token)) return id;
  return impl_->parts.model->TokenToId(token);
}

std::optional<std::string> Tokenizer::IdToToken(std::uint32_t id) const {
  if (const AddedToken* added = impl_->parts.added.FindById(id)) return added->content;
  if (const auto token = impl_->parts.model->IdToToken(id)) return std::string(*token);
  return std::nullopt;
}

bool Tokenizer::IsSpecial(std::uint32_t id) const {
  const AddedToken* added = impl_->parts.added.FindById(id);
  return added != nullptr && added->special;
}

const SpecialTokenIds& Tokenizer::special_token_ids() const {
  return impl_->parts.special_token_ids;
}

const std::string& Tokenizer::source() const {
  return impl_->parts.source;
}

}  // namespace infermark::tokenizer

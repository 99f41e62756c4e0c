#include "tokenizer/normalizer.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

// A character that NFC leaves alone and that cannot combine with what precedes it: canonical
// combining class 0, no canonical decomposition, not the second half of a composition, no Hangul
// jamo (composed algorithmically).
bool IsNfcInert(char32_t c) {
  if (c < 0x300) return true;
  if (c >= 0x1100 && c <= 0x11FF) return false;
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  if (p->combining_class != 0) return false;
  if (p->decomp_seqindex != UINT16_MAX && p->decomp_type == 0) return false;
  if (p->comb_index != UINT16_MAX && p->comb_index >= 0x8000) return false;
  return true;
}

// Whole-string transform through utf8proc into a per-thread code-point buffer (no allocation once
// the buffer has grown).
void Utf8procTransform(std::string& text, utf8proc_option_t options) {
  thread_local std::vector<utf8proc_int32_t> buffer;
  const auto* in = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto len = static_cast<utf8proc_ssize_t>(text.size());
  if (buffer.size() < text.size() + 16) buffer.resize(text.size() + 16);
  utf8proc_ssize_t n =
      utf8proc_decompose(in, len, buffer.data(), static_cast<utf8proc_ssize_t>(buffer.size()), options);
  if (n > static_cast<utf8proc_ssize_t>(buffer.size())) {
    buffer.resize(static_cast<std::size_t>(n));
    n = utf8proc_decompose(in, len, buffer.data(), n, options);
  }
  if (n < 0) throw std::runtime_error(std::string("utf8proc: ") + utf8proc_errmsg(n));
  // utf8proc_reencode composes (when asked) and writes UTF-8 over the code-point buffer.
  const utf8proc_ssize_t bytes = utf8proc_reencode(buffer.data(), n, options);
  if (bytes < 0) throw std::runtime_error(std::string("utf8proc: ") + utf8proc_errmsg(bytes));
  text.assign(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(bytes));
}

// NFC touching only what can change. A position just before an inert character is a safe
// boundary (nothing reorders across it or composes into it), so each run of non-inert characters,
// together with the inert character before it (which may be the starter they compose with), is
// normalized on its own and everything else is copied. One stray combining mark in a long prompt
// costs a few bytes of utf8proc work, not the whole prompt.
void NfcBySegments(std::string& text) {
  constexpr auto kOptions = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE);
  const std::string_view in = text;
  std::size_t pos = 0, last_inert = 0, copied = 0;
  bool changed = false;
  thread_local std::string out, segment;
  while (pos < in.size()) {
    const std::size_t start = pos;
    if (static_cast<unsigned char>(in[pos]) < 0xCC) {  // below U+0300: inert
      last_inert = start;
      pos += CharLength(static_cast<unsigned char>(in[pos]));
      continue;
    }
    if (IsNfcInert(DecodeChar(in, pos))) {
      last_inert = start;
      continue;
    }
    // A non-inert run: extend to the next inert character.
    while (pos < in.size()) {
      std::size_t next = pos;
      if (static_cast<unsigned char>(in[pos]) < 0xCC || IsNfcInert(DecodeChar(in, next))) break;
      pos = next;
    }
    if (!changed) {
      out.clear();
      changed = true;
    }
    const std::size_t begin = std::max(last_inert, copied);
    out.append(in.substr(copied, begin - copied));
    segment.assign(in.substr(begin, pos - begin));
    Utf8procTransform(segment, kOptions);
    out.append(segment);
    copied = pos;
  }
  if (!changed) return;
  out.append(in.substr(copied));
  text.swap(out);
}

bool IsAscii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(UnicodeForm form) : form_(form) {}
  void Normalize(std::string& text) const override {
    switch (form_) {
      case UnicodeForm::kNfc:
        NfcBySegments(text);
        return;
      case UnicodeForm::kNfd:
        if (IsAscii(text)) return;
        Utf8procTransform(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE));
        return;
      case UnicodeForm::kNfkc:
        if (IsAscii(text)) return;
        Utf8procTransform(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
        return;
      case UnicodeForm::kNfkd:
        if (IsAscii(text)) return;
        Utf8procTransform(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT));
        return;
    }
  }

 private:
  UnicodeForm form_;
};

// Rewrites `text` character by character through `map`, which appends the replacement.
template <class Map>
void MapChars(std::string& text, Map&& map) {
  thread_local std::string out;
  out.clear();
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = pos;
    const char32_t c = DecodeChar(text, pos);
    map(c, std::string_view(text).substr(start, pos - start), out);
  }
  text.swap(out);
}

class Lowercase final : public Normalizer {
 public:
  void Normalize(std::string& text) const override {
    MapChars(text, [](char32_t c, std::string_view raw, std::string& out) {
      if (c < 0x80) {
        out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
      } else if (c == 0x130) {  // the one unconditional multi-character lowercase mapping
        out.append("i\xCC\x87");
      } else {
        const auto lower = static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
        if (lower == c) {
          out.append(raw);
        } else {
          AppendUtf8(lower, out);
        }
      }
    });
  }
};

class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void Normalize(std::string& text) const override {
    std::size_t begin = 0, end = text.size();
    if (left_) {
      while (begin < end) {
        std::size_t next = begin;
        if (!IsWhiteSpace(DecodeChar(text, next))) break;
        begin = next;
      }
    }
    if (right_) {
      while (end > begin) {
        std::size_t start = end - 1;
        while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
        std::size_t next = start;
        if (!IsWhiteSpace(DecodeChar(text, next))) break;
        end = start;
      }
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

class StripAccents final : public Normalizer {
 public:
  void Normalize(std::string& text) const override {
    MapChars(text, [](char32_t c, std::string_view raw, std::string& out) {
      const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
      if (category == UTF8PROC_CATEGORY_MN || category == UTF8PROC_CATEGORY_MC || category == UTF8PROC_CATEGORY_ME)
        return;
      out.append(raw);
    });
  }
};

class ReplaceString final : public Normalizer {
 public:
  ReplaceString(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void Normalize(std::string& text) const override {
    if (pattern_.empty()) return;
    std::size_t at = text.find(pattern_);
    if (at == std::string::npos) return;
    thread_local std::string out;
    out.clear();
    std::size_t from = 0;
    while (at != std::string::npos) {
      out.append(text, from, at - from);
      out.append(content_);
      from = at + pattern_.size();
      at = text.find(pattern_, from);
    }
    out.append(text, from);
    text.swap(out);
  }

 private:
  std::string pattern_, content_;
};

class ReplaceRegex final : public Normalizer {
 public:
  ReplaceRegex(OnigRegex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void Normalize(std::string& text) const override {
    thread_local std::string out;
    out.clear();
    RegexMatches matches(pattern_, text);
    std::size_t begin = 0, end = 0, from = 0;
    while (matches.Next(begin, end)) {
      out.append(text, from, begin - from);
      out.append(content_);
      from = end;
    }
    if (from == 0 && out.empty()) return;
    out.append(text, from);
    text.swap(out);
  }

 private:
  OnigRegex pattern_;
  std::string content_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void Normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  void Normalize(std::string& text) const override {
    for (const auto& part : parts_) part->Normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace

bool IsCertainlyNfc(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    // Everything below U+0300 (lead bytes below 0xCC) is inert.
    if (static_cast<unsigned char>(text[pos]) < 0xCC) {
      pos += CharLength(static_cast<unsigned char>(text[pos]));
      continue;
    }
    if (!IsNfcInert(DecodeChar(text, pos))) return false;
  }
  return true;
}

std::unique_ptr<Normalizer> MakeUnicodeNormalizer(UnicodeForm form) {
  return std::make_unique<UnicodeNormalizer>(form);
}
std::unique_ptr<Normalizer> MakeLowercase() {
  return std::make_unique<Lowercase>();
}
std::unique_ptr<Normalizer> MakeStrip(bool left, bool right) {
  return std::make_unique<Strip>(left, right);
}
std::unique_ptr<Normalizer> MakeStripAccents() {
  return std::make_unique<StripAccents>();
}
std::unique_ptr<Normalizer> MakeReplaceString(std::string pattern, std::string content) {
  return std::make_unique<ReplaceString>(std::move(pattern), std::move(content));
}
std::unique_ptr<Normalizer> MakeReplaceRegex(OnigRegex pattern, std::string content) {
  return std::make_unique<ReplaceRegex>(std::move(pattern), std::move(content));
}
std::unique_ptr<Normalizer> MakePrepend(std::string prefix) {
  return std::make_unique<Prepend>(std::move(prefix));
}
std::unique_ptr<Normalizer> MakeNormalizerSequence(std::vector<std::unique_ptr<Normalizer>> parts) {
  std::erase(parts, nullptr);
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<Sequence>(std::move(parts));
}

}  // namespace infermark::tokenizer

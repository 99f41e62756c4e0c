#include "tokenizer/decoder.hpp"

#include "tokenizer/byte_level.hpp"
#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

class ByteLevelDecoder final : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>& tokens) const override {
    std::string bytes;
    for (const std::string& token : tokens) {
      if (!ByteLevelDecode(token, bytes)) bytes.append(token);
    }
    tokens.assign(1, SanitizeUtf8(bytes));
  }
};

bool ParseByteToken(const std::string& token, unsigned char& byte) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return false;
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int hi = hex(token[3]), lo = hex(token[4]);
  if (hi < 0 || lo < 0) return false;
  byte = static_cast<unsigned char>(hi * 16 + lo);
  return true;
}

class ByteFallbackDecoder final : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string pending;
    const auto flush = [&] {
      if (pending.empty()) return;
      if (IsValidUtf8(pending)) {
        out.push_back(pending);
      } else {
        for (std::size_t i = 0; i < pending.size(); ++i) out.emplace_back(kReplacementCharacter);
      }
      pending.clear();
    };
    for (std::string& token : tokens) {
      unsigned char byte = 0;
      if (ParseByteToken(token, byte)) {
        pending.push_back(static_cast<char>(byte));
      } else {
        flush();
        out.push_back(std::move(token));
      }
    }
    flush();
    tokens.swap(out);
  }
};

class FuseDecoder final : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>& tokens) const override {
    std::string joined;
    for (const std::string& token : tokens) joined.append(token);
    tokens.assign(1, std::move(joined));
  }
};

class ReplaceStringDecoder final : public Decoder {
 public:
  ReplaceStringDecoder(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    if (pattern_.empty()) return;
    for (std::string& token : tokens) {
      std::size_t at = token.find(pattern_);
      if (at == std::string::npos) continue;
      std::string out;
      std::size_t from = 0;
      while (at != std::string::npos) {
        out.append(token, from, at - from);
        out.append(content_);
        from = at + pattern_.size();
        at = token.find(pattern_, from);
      }
      out.append(token, from);
      token.swap(out);
    }
  }

 private:
  std::string pattern_, content_;
};

class ReplaceRegexDecoder final : public Decoder {
 public:
  ReplaceRegexDecoder(OnigRegex pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) {
      std::string out;
      RegexMatches matches(pattern_, token);
      std::size_t begin = 0, end = 0, from = 0;
      while (matches.Next(begin, end)) {
        out.append(token, from, begin - from);
        out.append(content_);
        from = end;
      }
      out.append(token, from);
      token.swap(out);
    }
  }

 private:
  OnigRegex pattern_;
  std::string content_;
};

std::vector<char32_t> Chars(const std::string& text) {
  std::vector<char32_t> chars;
  std::size_t pos = 0;
  while (pos < text.size()) chars.push_back(DecodeChar(text, pos));
  return chars;
}

class StripDecoder final : public Decoder {
 public:
  StripDecoder(char32_t content, std::size_t start, std::size_t stop) : content_(content), start_(start), stop_(stop) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) {
      const std::vector<char32_t> chars = Chars(token);
      std::size_t begin = 0;
      while (begin < start_ && begin < chars.size() && chars[begin] == content_) ++begin;
      std::size_t end = chars.size();
      for (std::size_t i = 0; i < stop_ && end > begin && chars[end - 1] == content_; ++i) --end;
      std::string out;
      for (std::size_t i = begin; i < end; ++i) AppendUtf8(chars[i], out);
      token.swap(out);
    }
  }

 private:
  char32_t content_;
  std::size_t start_, stop_;
};

class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(char32_t replacement, bool drop_in_first_token)
      : replacement_(replacement), drop_in_first_token_(drop_in_first_token) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string out;
      std::size_t pos = 0;
      while (pos < tokens[i].size()) {
        const std::size_t start = pos;
        const char32_t c = DecodeChar(tokens[i], pos);
        if (c != replacement_) {
          out.append(tokens[i], start, pos - start);
        } else if (!(i == 0 && drop_in_first_token_)) {
          out.push_back(' ');
        }
      }
      tokens[i].swap(out);
    }
  }

 private:
  char32_t replacement_;
  bool drop_in_first_token_;
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  void DecodeChain(std::vector<std::string>& tokens) const override {
    for (const auto& part : parts_) part->DecodeChain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

}  // namespace

std::unique_ptr<Decoder> MakeByteLevelDecoder() {
  return std::make_unique<ByteLevelDecoder>();
}
std::unique_ptr<Decoder> MakeByteFallbackDecoder() {
  return std::make_unique<ByteFallbackDecoder>();
}
std::unique_ptr<Decoder> MakeFuseDecoder() {
  return std::make_unique<FuseDecoder>();
}
std::unique_ptr<Decoder> MakeReplaceStringDecoder(std::string pattern, std::string content) {
  return std::make_unique<ReplaceStringDecoder>(std::move(pattern), std::move(content));
}
std::unique_ptr<Decoder> MakeReplaceRegexDecoder(OnigRegex pattern, std::string content) {
  return std::make_unique<ReplaceRegexDecoder>(std::move(pattern), std::move(content));
}
std::unique_ptr<Decoder> MakeStripDecoder(char32_t content, std::size_t start, std::size_t stop) {
  return std::make_unique<StripDecoder>(content, start, stop);
}
std::unique_ptr<Decoder> MakeMetaspaceDecoder(char32_t replacement, bool drop_in_first_token) {
  return std::make_unique<MetaspaceDecoder>(replacement, drop_in_first_token);
}
std::unique_ptr<Decoder> MakeDecoderSequence(std::vector<std::unique_ptr<Decoder>> parts) {
  std::erase(parts, nullptr);
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<SequenceDecoder>(std::move(parts));
}

}  // namespace infermark::tokenizer

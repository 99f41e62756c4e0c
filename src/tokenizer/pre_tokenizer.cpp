#include "tokenizer/pre_tokenizer.hpp"

#include <algorithm>
#include <optional>

namespace infermark::tokenizer {
namespace {

struct Segment {
  std::size_t begin, end;
  bool is_match;
};

// Emits a piece unless it is empty (HF drops empty splits).
void Emit(std::string_view text, std::size_t begin, std::size_t end, bool at_start, PieceSink sink) {
  if (end > begin) sink(text.substr(begin, end - begin), at_start && begin == 0);
}

class SplitPattern final : public PreTokenizer {
 public:
  SplitPattern(OnigRegex pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}

  void Split(std::string_view text, bool at_start, PieceSink sink) const override {
    if (behavior_ == SplitBehavior::kIsolated) {
      // The hot path (every byte-level tokenizer): matches and gaps alike become pieces.
      RegexMatches matches(pattern_, text);
      std::size_t begin = 0, end = 0, prev = 0;
      while (matches.Next(begin, end)) {
        Emit(text, prev, begin, at_start, sink);
        Emit(text, begin, end, at_start, sink);
        prev = end;
      }
      Emit(text, prev, text.size(), at_start, sink);
      return;
    }
    std::vector<Segment> segments;
    {
      RegexMatches matches(pattern_, text);
      std::size_t begin = 0, end = 0, prev = 0;
      while (matches.Next(begin, end)) {
        if (prev != begin) segments.push_back({prev, begin, invert_});
        segments.push_back({begin, end, !invert_});
        prev = end;
      }
      if (prev != text.size()) segments.push_back({prev, text.size(), invert_});
    }
    std::vector<Segment> pieces;  // is_match here means "remove"
    bool previous_match = false;
    switch (behavior_) {
      case SplitBehavior::kIsolated:
        break;
      case SplitBehavior::kRemoved:
        pieces = segments;
        break;
      case SplitBehavior::kContiguous:
        for (const auto& s : segments) {
          if (s.is_match == previous_match && !pieces.empty()) {
            pieces.back().end = s.end;
          } else {
            pieces.push_back({s.begin, s.end, false});
          }
          previous_match = s.is_match;
        }
        break;
      case SplitBehavior::kMergedWithPrevious:
        for (const auto& s : segments) {
          if (s.is_match && !previous_match && !pieces.empty()) {
            pieces.back().end = s.end;
          } else {
            pieces.push_back({s.begin, s.end, false});
          }
          previous_match = s.is_match;
        }
        break;
      case SplitBehavior::kMergedWithNext:
        for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
          if (it->is_match && !previous_match && !pieces.empty()) {
            pieces.back().begin = it->begin;
          } else {
            pieces.push_back({it->begin, it->end, false});
          }
          previous_match = it->is_match;
        }
        std::reverse(pieces.begin(), pieces.end());
        break;
    }
    for (const auto& p : pieces) {
      if (!p.is_match) Emit(text, p.begin, p.end, at_start, sink);
    }
  }

 private:
  OnigRegex pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space) {
    if (use_regex) regex_.emplace(OnigRegex(kGpt2Pattern), SplitBehavior::kIsolated, false);
  }

  void Split(std::string_view text, bool at_start, PieceSink sink) const override {
    std::string prefixed;
    if (add_prefix_space_ && !text.starts_with(' ')) {
      prefixed.reserve(text.size() + 1);
      prefixed.push_back(' ');
      prefixed.append(text);
      text = prefixed;
    }
    if (regex_) {
      regex_->Split(text, at_start, sink);
    } else {
      Emit(text, 0, text.size(), at_start, sink);
    }
  }

 private:
  bool add_prefix_space_;
  std::optional<SplitPattern> regex_;
};

class Metaspace final : public PreTokenizer {
 public:
  Metaspace(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme) {
    if (split) splitter_.emplace(OnigRegex(Escape(replacement_)), SplitBehavior::kMergedWithNext, false);
  }

  void Split(std::string_view text, bool at_start, PieceSink sink) const override {
    std::string replaced;
    replaced.reserve(text.size() + replacement_.size());
    for (const char c : text) {
      if (c == ' ') {
        replaced.append(replacement_);
      } else {
        replaced.push_back(c);
      }
    }
    const bool prepend = scheme_ == PrependScheme::kAlways || (scheme_ == PrependScheme::kFirst && at_start);
    if (prepend && !std::string_view(replaced).starts_with(replacement_)) replaced.insert(0, replacement_);
    if (splitter_) {
      splitter_->Split(replaced, at_start, sink);
    } else {
      Emit(replaced, 0, replaced.size(), at_start, sink);
    }
  }

 private:
  static std::string Escape(std::string_view literal) {
    std::string out;
    for (const char c : literal) {
      if (std::string_view("\\^$.|?*+()[]{}-#&~ ").find(c) != std::string_view::npos) out.push_back('\\');
      out.push_back(c);
    }
    return out;
  }

  std::string replacement_;
  PrependScheme scheme_;
  std::optional<SplitPattern> splitter_;
};

class PreTokenizerSequence final : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}

  void Split(std::string_view text, bool at_start, PieceSink sink) const override {
    SplitFrom(0, text, at_start, sink);
  }

 private:
  void SplitFrom(std::size_t index, std::string_view text, bool at_start, PieceSink sink) const {
    if (index == parts_.size()) {
      sink(text, at_start);
      return;
    }
    parts_[index]->Split(text, at_start, [&](std::string_view piece, bool piece_at_start) {
      SplitFrom(index + 1, piece, piece_at_start, sink);
    });
  }

  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeSplit(OnigRegex pattern, SplitBehavior behavior, bool invert) {
  return std::make_unique<SplitPattern>(std::move(pattern), behavior, invert);
}

std::unique_ptr<PreTokenizer> MakeByteLevelPreTokenizer(bool add_prefix_space, bool use_regex) {
  return std::make_unique<ByteLevel>(add_prefix_space, use_regex);
}

std::unique_ptr<PreTokenizer> MakeMetaspace(std::string replacement, PrependScheme scheme, bool split) {
  return std::make_unique<Metaspace>(std::move(replacement), scheme, split);
}

std::unique_ptr<PreTokenizer> MakeWhitespace() {
  // HF: keep the matches of \w+|[^\w\s]+ and drop the rest.
  return MakeSplit(OnigRegex(R"(\w+|[^\w\s]+)"), SplitBehavior::kRemoved, true);
}

std::unique_ptr<PreTokenizer> MakeWhitespaceSplit() {
  return MakeSplit(OnigRegex(R"(\s+)"), SplitBehavior::kRemoved, false);
}

std::unique_ptr<PreTokenizer> MakeDigits(bool individual_digits) {
  if (individual_digits) return MakeSplit(OnigRegex(R"(\p{N})"), SplitBehavior::kIsolated, false);
  return MakeSplit(OnigRegex(R"(\p{N})"), SplitBehavior::kContiguous, false);
}

std::unique_ptr<PreTokenizer> MakePunctuation(SplitBehavior behavior) {
  return MakeSplit(OnigRegex(R"([\p{P}!-/:-@\[-`{-~])"), behavior, false);
}

std::unique_ptr<PreTokenizer> MakePreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> parts) {
  std::erase(parts, nullptr);
  if (parts.empty()) return nullptr;
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<PreTokenizerSequence>(std::move(parts));
}

}  // namespace infermark::tokenizer

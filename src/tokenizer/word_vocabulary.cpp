#include "tokenizer/word_vocabulary.hpp"

#include <array>

#include "tokenizer/tokenizer.hpp"

namespace infermark::tokenizer {
namespace {

// Frequent English words: single tokens in every tokenizer the project ships.
constexpr std::array<std::string_view, 64> kWords{
    "the",   "of",    "and",  "to",   "in",   "is",    "that",  "for",  "it",   "as",   "was",   "with",  "be",
    "by",    "on",    "not",  "he",   "this", "are",   "or",    "his",  "from", "at",   "which", "but",   "have",
    "an",    "had",   "they", "you",  "were", "their", "one",   "all",  "we",   "can",  "her",   "has",   "there",
    "been",  "if",    "more", "when", "will", "would", "who",   "so",   "no",   "time", "new",   "first", "people",
    "other", "model", "some", "what", "only", "into",  "after", "also", "many", "most", "made",  "over"};

}  // namespace

WordVocabulary::WordVocabulary(const Tokenizer* tokenizer) {
  std::vector<std::uint32_t> ids;
  for (const std::string_view w : kWords) {
    std::string word = " ";
    word += w;
    if (tokenizer) {
      ids.clear();
      tokenizer->EncodeInto(word, ids);
      if (ids.size() != 1) continue;
    }
    words_.push_back(std::move(word));
  }
  if (words_.empty()) words_.emplace_back(" the");  // a tokenizer without English words: never seen
}

void WordVocabulary::Append(std::string& out, std::uint64_t offset, std::uint64_t begin, std::uint64_t end) const {
  for (std::uint64_t i = begin; i < end; ++i) out += Word(offset, i);
}

}  // namespace infermark::tokenizer

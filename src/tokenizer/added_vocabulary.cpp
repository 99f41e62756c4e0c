#include "tokenizer/added_vocabulary.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "tokenizer/normalizer.hpp"
#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

bool IsWordChar(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      return false;
  }
}

// Start of the character that ends at `end` (exclusive).
std::size_t PreviousCharStart(std::string_view text, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return start;
}

bool EndsWithWordChar(std::string_view text, std::size_t end) {
  if (end == 0) return false;
  std::size_t start = PreviousCharStart(text, end);
  return IsWordChar(DecodeChar(text, start));
}

bool StartsWithWordChar(std::string_view text, std::size_t start) {
  if (start >= text.size()) return false;
  return IsWordChar(DecodeChar(text, start));
}

}  // namespace

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens,
                                 const FunctionRef<std::optional<std::uint32_t>(std::string_view)>& model_id,
                                 std::size_t model_vocab_size, const Normalizer* normalizer) {
  // Id assignment as `tokenizers`' AddedVocabulary::add_tokens: the model's id when the content is
  // in its vocabulary, else one past the largest added id (at least the vocabulary size). The ids
  // written in tokenizer.json are informative only there, and agree for well-formed files.
  std::unordered_map<std::string_view, std::size_t> index_of;  // content → position in tokens_
  std::optional<std::uint32_t> max_assigned;
  tokens_.reserve(tokens.size());
  for (AddedToken& token : tokens) {
    if (token.content.empty()) continue;
    const auto existing = index_of.find(token.content);
    std::uint32_t id = 0;
    if (existing != index_of.end()) {
      id = tokens_[existing->second].id;
    } else if (const auto in_model = model_id(token.content)) {
      id = *in_model;
    } else {
      const auto size = static_cast<std::uint32_t>(model_vocab_size);
      id = !max_assigned ? size : (*max_assigned >= size || size == 0) ? *max_assigned + 1 : size;
    }
    max_assigned = std::max(max_assigned.value_or(0), id);
    token.id = id;
    if (existing != index_of.end()) {
      tokens_[existing->second] = std::move(token);  // a later entry for the same text replaces the earlier one
    } else {
      tokens_.push_back(std::move(token));
      index_of.emplace(tokens_.back().content, tokens_.size() - 1);
    }
  }
  for (std::uint32_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken& token = tokens_[i];
    if (by_id_.size() <= token.id) by_id_.resize(token.id + 1, 0);
    by_id_[token.id] = i + 1;
    if (token.normalized && normalizer != nullptr) {
      std::string content = token.content;
      normalizer->Normalize(content);
      normalized_.Add(content, i);
    } else if (token.normalized) {
      normalized_.Add(token.content, i);
    } else {
      raw_.Add(token.content, i);
    }
  }
  raw_.Build();
  normalized_.Build();
}

const AddedToken* AddedVocabulary::FindById(std::uint32_t id) const {
  if (id >= by_id_.size() || by_id_[id] == 0) return nullptr;
  return &tokens_[by_id_[id] - 1];
}

std::optional<std::uint32_t> AddedVocabulary::FindByContent(std::string_view content) const {
  for (const AddedToken& token : tokens_) {
    if (token.content == content) return token.id;
  }
  return std::nullopt;
}

void AddedVocabulary::Matcher::Add(std::string_view content, std::uint32_t token_index) {
  if (!content.empty()) pending_.emplace_back(std::string(content), token_index);
}

void AddedVocabulary::Matcher::Build() {
  // Build a map-based trie, then flatten it breadth-first so each node's edges are contiguous.
  struct TempNode {
    std::map<unsigned char, std::unique_ptr<TempNode>> children;
    std::uint32_t token = 0;
  };
  TempNode root;
  for (const auto& [content, index] : pending_) {
    TempNode* node = &root;
    for (const char c : content) {
      auto& child = node->children[static_cast<unsigned char>(c)];
      if (!child) child = std::make_unique<TempNode>();
      node = child.get();
    }
    node->token = index + 1;
    first_byte_[static_cast<unsigned char>(content[0])] = true;
  }
  pending_.clear();
  nodes_.clear();
  edges_.clear();
  std::vector<const TempNode*> order{&root};
  nodes_.push_back(Node{});
  for (std::size_t i = 0; i < order.size(); ++i) {
    const TempNode* temp = order[i];
    nodes_[i].token = temp->token;
    nodes_[i].first_child = static_cast<std::uint32_t>(edges_.size());
    nodes_[i].child_count = static_cast<std::uint16_t>(temp->children.size());
    for (const auto& [byte, child] : temp->children) {
      edges_.push_back(Edge{byte, static_cast<std::uint32_t>(order.size())});
      order.push_back(child.get());
      nodes_.push_back(Node{});
    }
  }
}

std::uint32_t AddedVocabulary::Matcher::Child(std::uint32_t node, unsigned char byte) const {
  const Node& n = nodes_[node];
  const Edge* begin = edges_.data() + n.first_child;
  const Edge* end = begin + n.child_count;
  const Edge* it = std::lower_bound(begin, end, byte, [](const Edge& e, unsigned char b) { return e.byte < b; });
  return it != end && it->byte == byte ? it->node : 0;
}

void AddedVocabulary::Matcher::Split(std::string_view text, const std::vector<AddedToken>& tokens,
                                     SectionSink sink) const {
  if (text.empty()) return;
  if (empty()) {
    sink(text, std::nullopt);
    return;
  }
  const std::size_t n = text.size();
  std::size_t start_offset = 0;
  std::size_t pos = 0;
  while (pos < n) {
    if (!first_byte_[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    std::uint32_t node = 0, best = 0;
    std::size_t best_end = 0;
    for (std::size_t j = pos; j < n; ++j) {
      node = Child(node, static_cast<unsigned char>(text[j]));
      if (node == 0) break;
      if (nodes_[node].token != 0) {
        best = nodes_[node].token;
        best_end = j + 1;
      }
    }
    if (best == 0) {
      ++pos;
      continue;
    }
    const AddedToken& token = tokens[best - 1];
    std::size_t start = pos, stop = best_end;
    pos = best_end;
    if (token.single_word && (EndsWithWordChar(text, start) || StartsWithWordChar(text, stop))) continue;
    if (token.lstrip) {
      std::size_t s = start;
      while (s > start_offset) {
        std::size_t prev = PreviousCharStart(text, s);
        std::size_t at = prev;
        if (!IsWhiteSpace(DecodeChar(text, at))) break;
        s = prev;
      }
      start = s;
    }
    if (token.rstrip) {
      while (stop < n) {
        std::size_t at = stop;
        if (!IsWhiteSpace(DecodeChar(text, at))) break;
        stop = at;
      }
      pos = stop;
    }
    if (start_offset < start) sink(text.substr(start_offset, start - start_offset), std::nullopt);
    sink(text.substr(start, stop - start), token.id);
    start_offset = stop;
  }
  if (start_offset < n) sink(text.substr(start_offset), std::nullopt);
}

}  // namespace infermark::tokenizer

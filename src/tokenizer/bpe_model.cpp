#include "tokenizer/bpe_model.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "tokenizer/byte_level.hpp"
#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

// Words up to this many symbols merge by rescanning a flat array, which beats a heap on short words;
// longer ones use the heap. Both apply the same order (lowest rank, then leftmost).
constexpr std::size_t kSmallWord = 48;

std::string FallbackToken(unsigned byte) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + ">";
}

}  // namespace

BpeModel::BpeModel(BpeConfig config)
    : fuse_unk_(config.fuse_unk),
      byte_fallback_(config.byte_fallback),
      ignore_merges_(config.ignore_merges),
      byte_level_(config.byte_level) {
  std::uint32_t limit = 0;
  std::size_t bytes = 0;
  for (const auto& [token, id] : config.vocab) {
    limit = std::max(limit, id + 1);
    bytes += token.size();
  }
  originals_.Reserve(config.vocab.size(), bytes);
  // Token texts in id order, for decoding.
  std::vector<std::string_view> by_id(limit);
  has_id_.assign(limit, false);
  for (const auto& [token, id] : config.vocab) {
    originals_.Insert(token, id);
    by_id[id] = token;
    has_id_[id] = true;
  }
  token_text_.reserve(bytes);
  token_offsets_.reserve(limit + 1);
  for (const std::string_view token : by_id) {
    token_offsets_.push_back(static_cast<std::uint32_t>(token_text_.size()));
    token_text_.append(token);
  }
  token_offsets_.push_back(static_cast<std::uint32_t>(token_text_.size()));
  vocab_size_ = originals_.size();
  if (byte_level_) {
    // Tokens outside the byte alphabet can never come out of byte-level input; they stay decodable.
    vocab_.Reserve(config.vocab.size(), bytes);
    std::string raw;
    for (const auto& [token, id] : config.vocab) {
      raw.clear();
      if (ByteLevelDecode(token, raw)) vocab_.Insert(raw, id);
    }
  }
  const StringIdMap& lookup = byte_level_ ? vocab_ : originals_;

  const auto to_model_space = [&](const std::string& text, const char* what) {
    if (!byte_level_) return text;
    std::string raw;
    if (!ByteLevelDecode(text, raw)) {
      throw std::invalid_argument(std::string(what) + " '" + text + "' is not in the byte-level alphabet");
    }
    return raw;
  };
  prefix_ = to_model_space(config.continuing_subword_prefix, "continuing_subword_prefix");
  suffix_ = to_model_space(config.end_of_word_suffix, "end_of_word_suffix");
  simple_ = prefix_.empty() && suffix_.empty();

  const auto resolve = [&](std::string_view token, const char* role) {
    const auto id = originals_.Find(token);
    if (!id) throw std::invalid_argument(std::string(role) + " '" + std::string(token) + "' is not in the vocabulary");
    return *id;
  };
  // Resolve merges in batches: three lookups each in tables of hundreds of thousands of entries,
  // prefetched together (loading Gemma's 514k merges is dominated by these cache misses).
  merges_.Reserve(config.merges.size());
  const std::size_t prefix_len = config.continuing_subword_prefix.size();
  constexpr std::size_t kBatch = 256;
  std::string merged_text;
  std::vector<std::string_view> keys;
  std::vector<std::uint32_t> ids(3 * kBatch);
  for (std::size_t base = 0; base < config.merges.size(); base += kBatch) {
    const std::size_t n = std::min(kBatch, config.merges.size() - base);
    merged_text.clear();
    std::vector<std::size_t> merged_offsets;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& [left, right] = config.merges[base + i];
      if (right.size() < prefix_len) {
        throw std::invalid_argument("merge token '" + std::string(right) + "' is shorter than the prefix");
      }
      merged_offsets.push_back(merged_text.size());
      merged_text.append(left);
      merged_text.append(right.substr(prefix_len));
    }
    merged_offsets.push_back(merged_text.size());
    keys.clear();
    for (std::size_t i = 0; i < n; ++i) {
      keys.push_back(config.merges[base + i].first);
      keys.push_back(config.merges[base + i].second);
      keys.push_back(
          std::string_view(merged_text).substr(merged_offsets[i], merged_offsets[i + 1] - merged_offsets[i]));
    }
    originals_.FindMany(keys, std::span(ids).first(3 * n), kNone);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < 3; ++k) {
        if (ids[3 * i + k] == kNone) {
          throw std::invalid_argument(std::string(k < 2 ? "merge token" : "merged token") + " '" +
                                      std::string(keys[3 * i + k]) + "' is not in the vocabulary");
        }
      }
      merges_.Insert(ids[3 * i], ids[3 * i + 1], Merge{static_cast<std::uint32_t>(base + i), ids[3 * i + 2]});
    }
  }
  if (config.unk_token) unk_id_ = resolve(*config.unk_token, "unk_token");

  for (unsigned b = 0; b < 256; ++b) {
    byte_ids_[b] = byte_level_ ? lookup.Find(std::string(1, static_cast<char>(b))).value_or(kNone) : kNone;
    fallback_ids_[b] = byte_fallback_ ? originals_.Find(FallbackToken(b)).value_or(kNone) : kNone;
  }
  if (!byte_level_ && simple_) {
    bmp_ids_.assign(0x10000, kNone);
    std::string utf8;
    for (char32_t c = 0; c < 0x10000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      utf8.clear();
      AppendUtf8(c, utf8);
      bmp_ids_[c] = originals_.Find(utf8).value_or(kNone);
    }
  }
}

std::optional<std::uint32_t> BpeModel::TokenToId(std::string_view token) const {
  return originals_.Find(token);
}

std::optional<std::string_view> BpeModel::IdToToken(std::uint32_t id) const {
  if (id >= has_id_.size() || !has_id_[id]) return std::nullopt;
  return std::string_view(token_text_).substr(token_offsets_[id], token_offsets_[id + 1] - token_offsets_[id]);
}

void BpeModel::Tokenize(std::string_view piece, std::vector<std::uint32_t>& out, BpeScratch& scratch) const {
  if (piece.empty()) return;
  // The cache comes first: it is small and hot, the vocabulary is large and cold. Both give the
  // same answer for a piece, since only this function fills the cache.
  if (const auto cached = scratch.cache.Find(piece); !cached.empty()) {
    out.insert(out.end(), cached.begin(), cached.end());
    return;
  }
  if (ignore_merges_) {
    if (const auto id = (byte_level_ ? vocab_ : originals_).Find(piece)) {
      out.push_back(*id);
      scratch.cache.Insert(piece, std::span(&*id, 1));
      return;
    }
  }
  if (simple_) {
    InitialSymbols(piece, scratch);
  } else {
    InitialSymbolsGeneral(piece, scratch);
  }
  MergeSymbols(scratch.symbols, scratch);
  out.insert(out.end(), scratch.symbols.begin(), scratch.symbols.end());
  scratch.cache.Insert(piece, scratch.symbols);
}

bool BpeModel::AppendByteFallback(std::string_view bytes, std::vector<std::uint32_t>& symbols) const {
  for (const char b : bytes) {
    if (fallback_ids_[static_cast<unsigned char>(b)] == kNone) return false;
  }
  for (const char b : bytes) symbols.push_back(fallback_ids_[static_cast<unsigned char>(b)]);
  return true;
}

// Unknown characters follow `tokenizers`' merge_word exactly: byte fallback when every byte has a
// <0xXX> token, else the unk token (fused with a pending one when fuse_unk), else nothing. A pending
// unk is only flushed by the next known character, so it can land after byte-fallback tokens.
void BpeModel::InitialSymbols(std::string_view piece, BpeScratch& scratch) const {
  std::vector<std::uint32_t>& symbols = scratch.symbols;
  symbols.clear();
  bool pending_unk = false;
  const auto known = [&](std::uint32_t id) {
    if (pending_unk) {
      symbols.push_back(unk_id_);
      pending_unk = false;
    }
    symbols.push_back(id);
  };
  const auto unknown = [&](std::string_view fallback_bytes) {
    if (byte_fallback_ && AppendByteFallback(fallback_bytes, symbols)) return;
    if (unk_id_ == kNone) return;
    if (pending_unk && !fuse_unk_) symbols.push_back(unk_id_);
    pending_unk = true;
  };
  if (byte_level_) {
    for (const char ch : piece) {
      const auto b = static_cast<unsigned char>(ch);
      if (byte_ids_[b] != kNone) {
        known(byte_ids_[b]);
      } else {
        std::string mapped;  // `tokenizers` falls back on the bytes of the byte-level character
        AppendUtf8(ByteLevelChar(b), mapped);
        unknown(mapped);
      }
    }
  } else {
    std::size_t pos = 0;
    while (pos < piece.size()) {
      const std::size_t start = pos;
      const char32_t c = DecodeChar(piece, pos);
      const std::string_view unit = piece.substr(start, pos - start);
      const std::uint32_t id = c < 0x10000 ? bmp_ids_[c] : originals_.Find(unit).value_or(kNone);
      if (id != kNone) {
        known(id);
      } else {
        unknown(unit);
      }
    }
  }
  if (pending_unk) symbols.push_back(unk_id_);
}

void BpeModel::InitialSymbolsGeneral(std::string_view piece, BpeScratch& scratch) const {
  std::vector<std::uint32_t>& symbols = scratch.symbols;
  symbols.clear();
  const StringIdMap& lookup = byte_level_ ? vocab_ : originals_;
  bool pending_unk = false;
  std::size_t pos = 0;
  while (pos < piece.size()) {
    const std::size_t start = pos;
    pos += byte_level_ ? 1 : CharLength(static_cast<unsigned char>(piece[pos]));
    std::string& key = scratch.key;
    key.clear();
    if (start > 0) key.append(prefix_);
    key.append(piece.substr(start, pos - start));
    if (pos >= piece.size()) key.append(suffix_);
    if (const auto id = lookup.Find(key)) {
      if (pending_unk) {
        symbols.push_back(unk_id_);
        pending_unk = false;
      }
      symbols.push_back(*id);
      continue;
    }
    if (byte_fallback_ && AppendByteFallback(byte_level_ ? ByteLevelEncode(key) : key, symbols)) continue;
    if (unk_id_ == kNone) continue;
    if (pending_unk && !fuse_unk_) symbols.push_back(unk_id_);
    pending_unk = true;
  }
  if (pending_unk) symbols.push_back(unk_id_);
}

void BpeModel::MergeSymbols(std::vector<std::uint32_t>& symbols, BpeScratch& scratch) const {
  if (symbols.size() < 2 || merges_.size() == 0) return;
  if (symbols.size() <= kSmallWord) {
    MergeSmall(symbols, scratch);
  } else {
    MergeLarge(symbols, scratch);
  }
}

void BpeModel::MergeSmall(std::vector<std::uint32_t>& symbols, BpeScratch& scratch) const {
  std::size_t n = symbols.size();
  std::vector<std::uint32_t>& ranks = scratch.ranks;
  std::vector<std::uint32_t>& new_ids = scratch.new_ids;
  ranks.resize(n - 1);
  new_ids.resize(n - 1);
  const auto rate = [&](std::size_t i) {
    const Merge* m = merges_.Find(symbols[i], symbols[i + 1]);
    ranks[i] = m != nullptr ? m->rank : kNone;
    new_ids[i] = m != nullptr ? m->new_id : kNone;
  };
  for (std::size_t i = 0; i + 1 < n; ++i) rate(i);
  while (n > 1) {
    std::uint32_t best = kNone;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (ranks[i] < best) {
        best = ranks[i];
        at = i;
      }
    }
    if (best == kNone) break;
    symbols[at] = new_ids[at];
    std::copy(symbols.begin() + static_cast<std::ptrdiff_t>(at) + 2, symbols.begin() + static_cast<std::ptrdiff_t>(n),
              symbols.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    std::copy(ranks.begin() + static_cast<std::ptrdiff_t>(at) + 1, ranks.begin() + static_cast<std::ptrdiff_t>(n) - 1,
              ranks.begin() + static_cast<std::ptrdiff_t>(at));
    std::copy(new_ids.begin() + static_cast<std::ptrdiff_t>(at) + 1,
              new_ids.begin() + static_cast<std::ptrdiff_t>(n) - 1, new_ids.begin() + static_cast<std::ptrdiff_t>(at));
    --n;
    if (at > 0) rate(at - 1);
    if (at + 1 < n) rate(at);
  }
  symbols.resize(n);
}

// `tokenizers`' Word::merge_all: a min-heap of (rank, position) over a linked list of symbols; an
// entry is stale when its left symbol was absorbed or its pair no longer carries that rank.
void BpeModel::MergeLarge(std::vector<std::uint32_t>& symbols, BpeScratch& scratch) const {
  const std::size_t n = symbols.size();
  std::vector<std::int32_t>& prev = scratch.prev;
  std::vector<std::int32_t>& next = scratch.next;
  std::vector<std::uint64_t>& heap = scratch.heap;
  prev.resize(n);
  next.resize(n);
  heap.clear();
  const auto push = [&](std::size_t left, std::size_t right) {
    if (const Merge* m = merges_.Find(symbols[left], symbols[right])) {
      heap.push_back((static_cast<std::uint64_t>(m->rank) << 32) | left);
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<std::int32_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<std::int32_t>(i + 1) : -1;
  }
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (const Merge* m = merges_.Find(symbols[i], symbols[i + 1])) {
      heap.push_back((static_cast<std::uint64_t>(m->rank) << 32) | i);
    }
  }
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const std::uint64_t top = heap.back();
    heap.pop_back();
    const auto rank = static_cast<std::uint32_t>(top >> 32);
    const auto pos = static_cast<std::size_t>(top & 0xFFFFFFFFu);
    if (symbols[pos] == kNone || next[pos] < 0) continue;
    const auto right = static_cast<std::size_t>(next[pos]);
    const Merge* m = merges_.Find(symbols[pos], symbols[right]);
    if (m == nullptr || m->rank != rank) continue;
    symbols[pos] = m->new_id;
    symbols[right] = kNone;
    next[pos] = next[right];
    if (next[pos] >= 0) prev[static_cast<std::size_t>(next[pos])] = static_cast<std::int32_t>(pos);
    if (prev[pos] >= 0) push(static_cast<std::size_t>(prev[pos]), pos);
    if (next[pos] >= 0) push(pos, static_cast<std::size_t>(next[pos]));
  }
  std::erase(symbols, kNone);
}

}  // namespace infermark::tokenizer

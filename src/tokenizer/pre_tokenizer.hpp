// Pre-tokenizers: split normalized text into the pieces the model tokenizes one by one, with the
// semantics of Hugging Face `tokenizers` (Split behaviours, Sequence, ByteLevel, Metaspace…).
// Pieces are passed to a callback as views; nothing is collected per call on the hot path.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/function_ref.hpp"
#include "tokenizer/onig_regex.hpp"

namespace infermark::tokenizer {

/// Receives one non-empty piece; `at_start` is true when the piece begins the whole input.
using PieceSink = FunctionRef<void(std::string_view piece, bool at_start)>;

/// Splits text into pieces. Implementations are immutable and thread-safe.
class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  /// Calls `sink` for each non-empty piece of `text`, in order.
  virtual void Split(std::string_view text, bool at_start, PieceSink sink) const = 0;
};

/// What a Split does with the delimiters it finds (HF's SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

/// `Split`: splits at the matches of `pattern` (a literal pattern is compiled escaped, as HF does).
std::unique_ptr<PreTokenizer> MakeSplit(OnigRegex pattern, SplitBehavior behavior, bool invert);

/// `ByteLevel` as the last pre-tokenizer: optional prefix space and GPT-2 regex split. Pieces stay
/// raw bytes; the model works on bytes (see byte_level.hpp).
std::unique_ptr<PreTokenizer> MakeByteLevelPreTokenizer(bool add_prefix_space, bool use_regex);

/// When Metaspace adds its replacement character in front of a piece.
enum class PrependScheme { kAlways, kFirst, kNever };

/// `Metaspace`: spaces become `replacement`, which is prepended per `scheme`; optionally split
/// before each replacement character.
std::unique_ptr<PreTokenizer> MakeMetaspace(std::string replacement, PrependScheme scheme, bool split);

/// `Whitespace`: keeps runs of word characters and runs of other non-space characters.
std::unique_ptr<PreTokenizer> MakeWhitespace();

/// `WhitespaceSplit`: splits on whitespace, removing it.
std::unique_ptr<PreTokenizer> MakeWhitespaceSplit();

/// `Digits`: isolates digits, one by one or in runs.
std::unique_ptr<PreTokenizer> MakeDigits(bool individual_digits);

/// `Punctuation`: splits at each punctuation character per `behavior`.
std::unique_ptr<PreTokenizer> MakePunctuation(SplitBehavior behavior);

/// `Sequence`: each part splits the pieces of the one before. Empty: nullptr; one part: that part.
std::unique_ptr<PreTokenizer> MakePreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> parts);

/// The regex GPT-2's ByteLevel pre-tokenizer splits with.
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace infermark::tokenizer

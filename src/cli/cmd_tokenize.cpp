// `infermark tokenize --tokenizer PATH [--per-line] [--decode]`: UTF-8 text on stdin → token ids as a
// JSON array, or (--decode) a JSON array of ids → text. No special tokens are added unless asked;
// special-token text in the input is still recognized, as Hugging Face `tokenizers` does.
#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::cli {
namespace {

struct TokenizeOptions {
  std::string tokenizer;
  bool per_line = false;
  bool decode = false;
  bool add_special_tokens = false;
  bool skip_special_tokens = false;
};

std::string ReadStdin() {
  std::string data;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) data.append(buffer, n);
  return data;
}

void WriteStdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
}

// Lines end at "\n" (a "\r" before it is dropped too); a final line needs no terminator.
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    start = next;
  }
  return lines;
}

void AppendIds(const std::vector<std::uint32_t>& ids, std::string& out) {
  out.push_back('[');
  char digits[16];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out.push_back(',');
    const auto result = std::to_chars(digits, digits + sizeof digits, ids[i]);
    out.append(digits, result.ptr);
  }
  out.append("]\n");
}

// `line` is 0 when the whole input is one array.
[[noreturn]] void BadIds(int line, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{"stdin", line, 0}, "", "", rule});
}

std::vector<std::uint32_t> ParseIds(std::string_view text, const tokenizer::Tokenizer& tok, int where) {
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    BadIds(where, std::string("expected a JSON array of token ids: ") + e.what());
  }
  if (!parsed.is_array()) BadIds(where, "expected a JSON array of token ids");
  std::vector<std::uint32_t> ids;
  ids.reserve(parsed.size());
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const auto& value = parsed[i];
    if (!value.is_number_integer()) BadIds(where, "item " + std::to_string(i) + " is not an integer token id");
    const auto id = value.get<std::int64_t>();
    if (id < 0 || id >= static_cast<std::int64_t>(tok.IdLimit()) || !tok.IdToToken(static_cast<std::uint32_t>(id))) {
      BadIds(where, "item " + std::to_string(i) + ": no token has id " + value.dump() + " in " + tok.source());
    }
    ids.push_back(static_cast<std::uint32_t>(id));
  }
  return ids;
}

int RunTokenize(const TokenizeOptions& options) {
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::Load(options.tokenizer);
  const std::string input = ReadStdin();
  std::string out;
  if (options.decode) {
    if (options.per_line) {
      int number = 0;
      for (const std::string_view line : SplitLines(input)) {
        ++number;
        if (line.find_first_not_of(" \t") == std::string_view::npos) {
          out.push_back('\n');
          continue;
        }
        out.append(tok.Decode(ParseIds(line, tok, number), options.skip_special_tokens));
        out.push_back('\n');
      }
    } else {
      out = tok.Decode(ParseIds(input, tok, 0), options.skip_special_tokens);
    }
    WriteStdout(out);
    return kExitOk;
  }
  std::vector<std::uint32_t> ids;
  if (options.per_line) {
    for (const std::string_view line : SplitLines(input)) {
      ids.clear();
      tok.EncodeInto(line, ids, options.add_special_tokens);
      AppendIds(ids, out);
    }
  } else {
    tok.EncodeInto(input, ids, options.add_special_tokens);
    AppendIds(ids, out);
  }
  WriteStdout(out);
  return kExitOk;
}

void AddTokenizeCommand(CLI::App& app, CommandResult& result) {
  auto options = std::make_shared<TokenizeOptions>();
  auto* cmd = app.add_subcommand(
      "tokenize",
      "Encode UTF-8 text from stdin to token ids (a JSON array) with a Hugging Face tokenizer.json, or decode a "
      "JSON array of ids back to text. Invalid UTF-8 is replaced by U+FFFD before encoding.");
  cmd->add_option("--tokenizer", options->tokenizer,
                  "tokenizer.json, or a folder holding one (and tokenizer_config.json)")
      ->required();
  cmd->add_flag("--per-line", options->per_line,
                "One JSON array per input line (lines end at \\n; a \\r before it is dropped); with --decode, one "
                "array per line in and one text line out");
  cmd->add_flag("--decode", options->decode, "Read a JSON array of ids and print the text");
  cmd->add_flag("--add-special-tokens", options->add_special_tokens,
                "Apply the tokenizer's post-processor (e.g. a leading <bos>); off by default");
  cmd->add_flag("--skip-special-tokens", options->skip_special_tokens, "With --decode: leave special tokens out");
  cmd->callback([options, &result] { result.exit_code = RunTokenize(*options); });
}

[[maybe_unused]] const bool kTokenizeRegistered = RegisterCommand("tokenize", &AddTokenizeCommand);

}  // namespace
}  // namespace infermark::cli

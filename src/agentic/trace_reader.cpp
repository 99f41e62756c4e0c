#include "agentic/trace_reader.hpp"

#include <lzma.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>
#include <utility>

#include "core/diagnostic.hpp"
#include "core/parallel_chunks.hpp"
#include "tokenizer/locate.hpp"

namespace infermark::agentic {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;

[[noreturn]] void Fail(const std::string& file, int line, const std::string& entry, const std::string& field,
                       const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{file, line, 0}, entry, field, rule});
}

// A file's bytes in malloc'd memory followed by simdjson's padding.
class TextBuffer {
 public:
  TextBuffer() = default;
  TextBuffer(char* data, std::size_t size) : data_(data), size_(size) {}
  TextBuffer(TextBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(o.size_) {}
  TextBuffer& operator=(TextBuffer&&) = delete;
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;
  ~TextBuffer() { std::free(data_); }
  [[nodiscard]] std::string_view view() const { return {data_, size_}; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
};

// The text of a file (xz-decompressed when it ends in .xz).
TextBuffer ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) Fail(path, 0, "", "", "cannot be read: " + std::string(std::strerror(errno)));
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  auto* raw = static_cast<char*>(std::malloc(size + kPadding));
  if (raw == nullptr) Fail(path, 0, "", "", "does not fit in memory");
  TextBuffer file(raw, size);
  in.read(raw, static_cast<std::streamsize>(size));
  std::memset(raw + size, 0, kPadding);
  if (path.size() < 3 || path.compare(path.size() - 3, 3, ".xz") != 0) return file;
  // The output grows by realloc (large blocks move by remapping, not copying) and is never
  // zero-filled: a 400 MB corpus decodes at the decoder's own speed.
  lzma_stream strm = LZMA_STREAM_INIT;
  lzma_mt mt{};
  mt.threads = static_cast<std::uint32_t>(std::min<std::size_t>(ThreadBudget(), 8));
  mt.memlimit_threading = std::uint64_t{1} << 30;
  mt.memlimit_stop = std::numeric_limits<std::uint64_t>::max();
  if (lzma_stream_decoder_mt(&strm, &mt) != LZMA_OK) Fail(path, 0, "", "", "cannot start an xz decoder");
  std::size_t capacity = std::max<std::size_t>(size * 16, std::size_t{1} << 24);
  auto* buffer = static_cast<char*>(std::malloc(capacity));
  std::size_t produced = 0;
  strm.next_in = reinterpret_cast<const std::uint8_t*>(raw);
  strm.avail_in = size;
  lzma_ret r = LZMA_OK;
  while (buffer != nullptr) {
    if (produced + kPadding + (std::size_t{1} << 20) > capacity) {
      capacity *= 2;
      buffer = static_cast<char*>(std::realloc(buffer, capacity));
      if (buffer == nullptr) break;
    }
    strm.next_out = reinterpret_cast<std::uint8_t*>(buffer + produced);
    strm.avail_out = capacity - produced - kPadding;
    const std::size_t room = strm.avail_out;
    r = lzma_code(&strm, LZMA_FINISH);
    produced += room - strm.avail_out;
    if (r != LZMA_OK) break;
  }
  lzma_end(&strm);
  if (buffer == nullptr) Fail(path, 0, "", "", "does not fit in memory once decompressed");
  TextBuffer out(buffer, produced);
  std::memset(buffer + produced, 0, kPadding);
  if (r == LZMA_BUF_ERROR) Fail(path, 0, "", "", "ends before its xz stream does (truncated)");
  if (r != LZMA_STREAM_END) {
    Fail(path, 0, "", "", "is not a valid xz file (liblzma error " + std::to_string(static_cast<int>(r)) + ")");
  }
  return out;
}

// Reads one trace object into the corpus under construction.
class TraceBuilder {
 public:
  TraceBuilder(const std::string& file, const TraceReadOptions& options, TraceLoad& load)
      : file_(file), options_(options), load_(load) {}

  void Add(element root, int line) {
    line_ = line;
    entry_.clear();
    object o;
    if (root.get_object().get(o) != simdjson::SUCCESS) Fail(file_, line, "", "", "a trace must be a JSON object");
    Trace trace;
    trace.source = line > 0 ? file_ + ":" + std::to_string(line) : file_;
    turn_ = 0;
    std::string_view id;
    if (o["id"].get_string().get(id) != simdjson::SUCCESS) Fail(file_, line, "", "id", "must be a string");
    trace.id.assign(id);
    entry_ = trace.id;
    element models;
    if (o["models"].get(models) == simdjson::SUCCESS) {
      simdjson::dom::array a;
      std::string_view first;
      if (models.get_array().get(a) != simdjson::SUCCESS) Bad("models", "must be a list of strings");
      if (a.size() > 0) {
        if (a.at(0).get_string().get(first) != simdjson::SUCCESS) Bad("models[0]", "must be a string");
        trace.model.assign(first);
      }
    }
    trace.block_size = static_cast<int>(OptionalCount(o, "block_size", "", 64));
    if (trace.block_size <= 0) Bad("block_size", "must be a positive number of tokens");
    trace.tool_tokens = OptionalCount(o, "tool_tokens", "", 0);
    trace.system_tokens = OptionalCount(o, "system_tokens", "", 0);
    simdjson::dom::array requests;
    if (o["requests"].get_array().get(requests) != simdjson::SUCCESS) Bad("requests", "must be a list");
    std::size_t k = 0;
    for (element r : requests) {
      const std::string field = "requests[" + std::to_string(k++) + "]";
      object ro;
      if (r.get_object().get(ro) != simdjson::SUCCESS) Bad(field, "must be an object");
      std::string_view type;
      if (ro["type"].get_string().get(type) != simdjson::SUCCESS) Bad(field + ".type", "must be a string");
      if (type == "subagent") {
        TraceSubagent s;
        s.t = Seconds(ro, "t", field, true);
        std::string_view text;
        if (ro["agent_id"].get_string().get(text) == simdjson::SUCCESS) s.agent_id.assign(text);
        if (ro["subagent_type"].get_string().get(text) == simdjson::SUCCESS) s.subagent_type.assign(text);
        s.duration_ms = Seconds(ro, "duration_ms", field, false);
        simdjson::dom::array inner;
        if (ro["requests"].get_array().get(inner) != simdjson::SUCCESS) Bad(field + ".requests", "must be a list");
        std::size_t j = 0;
        std::size_t dropped = 0;
        for (element c : inner) {
          const std::string cf = field + ".requests[" + std::to_string(j++) + "]";
          object co;
          if (c.get_object().get(co) != simdjson::SUCCESS) Bad(cf, "must be an object");
          std::string_view ctype;
          if (co["type"].get_string().get(ctype) != simdjson::SUCCESS) Bad(cf + ".type", "must be a string");
          if (ctype != "n" && ctype != "s") Bad(cf + ".type", "must be \"n\" or \"s\" inside a subagent");
          TraceCall call = Call(co, cf, ctype == "s");
          if (OverContext(call)) {
            ++dropped;
            continue;
          }
          s.calls.push_back(call);
        }
        if (s.calls.empty() && dropped > 0) continue;
        trace.items.push_back(TraceItem{true, static_cast<std::uint32_t>(trace.subagents.size())});
        trace.subagents.push_back(std::move(s));
      } else if (type == "n" || type == "s") {
        TraceCall call = Call(ro, field, type == "s");
        if (OverContext(call)) continue;
        trace.items.push_back(TraceItem{false, static_cast<std::uint32_t>(trace.calls.size())});
        trace.calls.push_back(call);
      } else {
        Bad(field + ".type", "must be \"n\", \"s\" or \"subagent\", not \"" + std::string(type) + "\"");
      }
    }
    load_.corpus.traces.push_back(std::move(trace));
  }

 private:
  [[noreturn]] void Bad(const std::string& field, const std::string& rule) { Fail(file_, line_, entry_, field, rule); }

  bool OverContext(const TraceCall& call) {
    if (options_.max_context_tokens <= 0 || call.in + call.out <= options_.max_context_tokens) return false;
    // The call's hash ids stay in the pool unused; dropping is rare and the pool is append-only.
    ++load_.calls_over_context;
    return true;
  }

  std::int64_t OptionalCount(object o, const char* key, const std::string& at, std::int64_t fallback) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS || e.is_null()) return fallback;
    return Count(e, at.empty() ? key : at + "." + key);
  }

  std::int64_t Count(element e, const std::string& field) {
    std::int64_t v = 0;
    if (e.get_int64().get(v) == simdjson::SUCCESS) {
      if (v < 0) Bad(field, "must not be negative");
      return v;
    }
    double d = 0;
    if (e.get_double().get(d) == simdjson::SUCCESS && d >= 0 &&
        d == static_cast<double>(static_cast<std::int64_t>(d))) {
      return static_cast<std::int64_t>(d);
    }
    Bad(field, "must be a non-negative whole number");
  }

  double Seconds(object o, const char* key, const std::string& at, bool required) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS || e.is_null()) {
      if (required) Bad(at + "." + key, "is required (a number of seconds)");
      return 0;
    }
    double v = 0;
    if (e.get_double().get(v) != simdjson::SUCCESS) {
      std::int64_t i = 0;
      if (e.get_int64().get(i) != simdjson::SUCCESS) Bad(at + "." + key, "must be a number");
      v = static_cast<double>(i);
    }
    if (!(v >= 0) || v > 1e12) Bad(at + "." + key, "must be a finite number ≥ 0");
    return v;
  }

  TraceCall Call(object o, const std::string& field, bool streamed) {
    TraceCall c;
    c.streamed = streamed;
    c.line = line_;
    c.turn_index = turn_++;
    c.t = Seconds(o, "t", field, true);
    element e;
    if (o["in"].get(e) != simdjson::SUCCESS) Bad(field + ".in", "is required (input tokens)");
    c.in = Count(e, field + ".in");
    if (o["out"].get(e) != simdjson::SUCCESS) Bad(field + ".out", "is required (output tokens)");
    c.out = Count(e, field + ".out");
    c.think_time = Seconds(o, "think_time", field, false);
    c.api_time = Seconds(o, "api_time", field, false);
    if (o["ttft"].get(e) == simdjson::SUCCESS && !e.is_null()) c.ttft = Seconds(o, "ttft", field, false);
    simdjson::dom::array ids;
    if (o["hash_ids"].get_array().get(ids) != simdjson::SUCCESS) Bad(field + ".hash_ids", "must be a list");
    std::vector<std::uint32_t>& pool = load_.corpus.hash_pool;
    c.hash_begin = pool.size();
    std::size_t k = 0;
    for (element id : ids) {
      std::uint64_t v = 0;
      if (id.get_uint64().get(v) != simdjson::SUCCESS || v > std::numeric_limits<std::uint32_t>::max()) {
        pool.resize(c.hash_begin);
        Bad(field + ".hash_ids[" + std::to_string(k) + "]", "must be a whole number in [0, 2^32)");
      }
      pool.push_back(static_cast<std::uint32_t>(v));
      ++k;
    }
    c.hash_count = static_cast<std::uint32_t>(k);
    return c;
  }

  const std::string& file_;
  const TraceReadOptions& options_;
  TraceLoad& load_;
  int line_ = 0;
  std::uint32_t turn_ = 0;  // calls read so far in the current trace
  std::string entry_;
};

// Appends `part` to `into`, moving its hash ids behind the ones already there.
void Merge(TraceLoad& into, TraceLoad&& part) {
  const std::uint64_t offset = into.corpus.hash_pool.size();
  into.corpus.hash_pool.insert(into.corpus.hash_pool.end(), part.corpus.hash_pool.begin(), part.corpus.hash_pool.end());
  for (Trace& t : part.corpus.traces) {
    for (TraceCall& c : t.calls) c.hash_begin += offset;
    for (TraceSubagent& s : t.subagents) {
      for (TraceCall& c : s.calls) c.hash_begin += offset;
    }
    into.corpus.traces.push_back(std::move(t));
  }
  into.calls_over_context += part.calls_over_context;
  into.bytes += part.bytes;
}

TraceLoad ParseRange(std::string_view text, int first_line, const std::string& file, const TraceReadOptions& options) {
  TraceLoad load;
  load.bytes = text.size();
  load.corpus.hash_pool.reserve(text.size() / 5);  // a hash id takes at least five bytes of JSON ("1234,")
  simdjson::dom::parser parser;
  TraceBuilder builder(file, options, load);
  int line = first_line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(at, end - at);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    if (row.find_first_not_of(" \t") != std::string_view::npos) {
      element root;
      const auto error = parser.parse(row.data(), row.size(), false).get(root);
      if (error != simdjson::SUCCESS) {
        Fail(file, line, "", "", std::string("is not valid JSON: ") + simdjson::error_message(error));
      }
      builder.Add(root, line);
      if (options.max_traces > 0 && load.corpus.traces.size() >= options.max_traces) break;
    }
    at = end + 1;
    ++line;
  }
  return load;
}

std::optional<std::string> CorpusFileIn(const fs::path& dir) {
  for (const char* name : {"traces.jsonl", "traces.jsonl.xz"}) {
    if (fs::is_regular_file(dir / name)) return (dir / name).string();
  }
  return std::nullopt;
}

// A dataset's snapshot folder in a Hugging Face cache repository folder.
std::optional<std::string> FromCacheRepo(const fs::path& repo) {
  std::error_code ec;
  if (!fs::is_directory(repo / "snapshots", ec)) return std::nullopt;
  std::ifstream ref(repo / "refs" / "main");
  std::string rev;
  if (ref && std::getline(ref, rev)) {
    if (auto f = CorpusFileIn(repo / "snapshots" / rev)) return f;
  }
  std::vector<fs::path> snapshots;
  for (const auto& e : fs::directory_iterator(repo / "snapshots", ec)) snapshots.push_back(e.path());
  std::sort(snapshots.begin(), snapshots.end());
  for (const fs::path& s : snapshots) {
    if (auto f = CorpusFileIn(s)) return f;
  }
  return std::nullopt;
}

// aiperf's public-dataset aliases ("semianalysis_cc_traces_weka_062126[_256k]") name the
// datasets "semianalysisai/cc-traces-weka-062126[-256k]".
std::string DatasetName(const std::string& spec) {
  const std::string alias = "semianalysis_cc_traces_weka_";
  if (spec.rfind(alias, 0) != 0) return spec;
  std::string rest = spec.substr(alias.size());
  std::replace(rest.begin(), rest.end(), '_', '-');
  return "semianalysisai/cc-traces-weka-" + rest;
}

}  // namespace

std::string ResolveTraceSource(const std::string& spec, const std::string& flag) {
  std::error_code ec;
  const fs::path p(spec);
  if (fs::is_regular_file(p, ec)) return spec;
  if (fs::is_directory(p, ec)) {
    if (auto f = CorpusFileIn(p)) return *f;
    if (auto f = FromCacheRepo(p)) return *f;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.path().extension() == ".json") return spec;
    }
    throw InputError(Diagnostic{SourceMark{}, "", flag,
                                "folder '" + spec + "' holds no traces.jsonl[.xz] and no one-trace .json files"});
  }
  const std::string name = DatasetName(spec);
  const std::size_t slash = name.find('/');
  if (slash != std::string::npos && name.find('/', slash + 1) == std::string::npos) {
    const std::string repo = "datasets--" + name.substr(0, slash) + "--" + name.substr(slash + 1);
    for (const std::string& root : tokenizer::HubCacheRoots()) {
      if (auto f = FromCacheRepo(fs::path(root) / repo)) return *f;
    }
  }
  throw InputError(Diagnostic{SourceMark{}, "", flag,
                              "'" + spec +
                                  "' is neither a file, a folder, nor a dataset in the local Hugging Face cache "
                                  "($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub)"});
}

TraceLoad ParseTraceLines(std::string_view text, const std::string& file, const TraceReadOptions& options) {
  // Two or more threads split the lines; each keeps its own pool, merged in order afterwards.
  const std::size_t parts = options.max_traces > 0 ? 1 : ChunkCount(text.size(), std::size_t{16} << 20, 8);
  std::vector<std::size_t> cuts{0};
  for (std::size_t i = 1; i < parts; ++i) {
    std::size_t at = text.find('\n', std::max(text.size() * i / parts, cuts.back()));
    if (at == std::string_view::npos) break;
    cuts.push_back(at + 1);
  }
  cuts.push_back(text.size());
  std::vector<int> first_lines{1};
  for (std::size_t i = 1; i + 1 < cuts.size(); ++i) {
    const auto newlines = std::count(text.begin() + static_cast<std::ptrdiff_t>(cuts[i - 1]),
                                     text.begin() + static_cast<std::ptrdiff_t>(cuts[i]), '\n');
    first_lines.push_back(first_lines.back() + static_cast<int>(newlines));
  }
  std::vector<TraceLoad> loads(cuts.size() - 1);
  std::vector<std::exception_ptr> errors(loads.size());
  std::vector<std::thread> threads;
  auto run = [&](std::size_t i) {
    try {
      loads[i] = ParseRange(text.substr(cuts[i], cuts[i + 1] - cuts[i]), first_lines[i], file, options);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  for (std::size_t i = 1; i < loads.size(); ++i) threads.emplace_back(run, i);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  std::size_t ids = 0;
  for (const TraceLoad& l : loads) ids += l.corpus.hash_pool.size();
  TraceLoad all;
  all.corpus.hash_pool.reserve(ids);
  for (TraceLoad& l : loads) Merge(all, std::move(l));
  all.corpus.origin = file;
  return all;
}

TraceLoad ReadTraces(const std::string& spec, const TraceReadOptions& options) {
  const std::string source = ResolveTraceSource(spec);
  std::error_code ec;
  if (!fs::is_directory(source, ec)) {
    const TextBuffer text = ReadText(source);
    TraceLoad load = ParseTraceLines(text.view(), source, options);
    if (load.corpus.traces.empty()) Fail(source, 0, "", "", "holds no traces");
    return load;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(source, ec)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  TraceLoad load;
  simdjson::dom::parser parser;
  for (const fs::path& f : files) {
    const TextBuffer text = ReadText(f.string());
    element root;
    const auto error = parser.parse(text.view().data(), text.view().size(), false).get(root);
    if (error != simdjson::SUCCESS) {
      Fail(f.string(), 0, "", "", std::string("is not valid JSON: ") + simdjson::error_message(error));
    }
    TraceBuilder(f.string(), options, load).Add(root, 0);
    load.bytes += text.view().size();
    if (options.max_traces > 0 && load.corpus.traces.size() >= options.max_traces) break;
  }
  load.corpus.origin = source;
  return load;
}

}  // namespace infermark::agentic

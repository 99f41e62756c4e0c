// Loading a session-trace corpus: a JSON Lines file (plain or xz-compressed, one trace per line),
// a folder of one-trace JSON files, or a Hugging Face dataset (its folder, or its name in the
// local Hugging Face cache). Every trace is checked against the format's rules; a broken one
// stops the load with a message naming the file, line, field and rule.
#pragma once

#include <cstdint>
#include <string>

#include "agentic/trace.hpp"

namespace infermark::agentic {

/// How a corpus is read.
struct TraceReadOptions {
  /// Drop calls whose `in + out` exceeds this (0: keep all), as the 256k corpus variant does; a
  /// subagent group goes only when all its calls go. Dropped calls are counted.
  std::int64_t max_context_tokens = 0;
  std::size_t max_traces = 0;  ///< Stop after this many traces (0: all).
};

/// A loaded corpus and what loading it dropped.
struct TraceLoad {
  TraceCorpus corpus;
  std::size_t calls_over_context = 0;  ///< Calls dropped by max_context_tokens.
  std::size_t bytes = 0;               ///< JSON bytes parsed.
};

/// Where `spec` points: a file, a folder, or a dataset name ("org/name") in $HF_HUB_CACHE,
/// $HF_HOME/hub or ~/.cache/huggingface/hub; the path of the JSON Lines file or folder to read.
/// Throws InputError naming `flag` when nothing usable is found.
std::string ResolveTraceSource(const std::string& spec, const std::string& flag = "--traces");

/// Reads the corpus `spec` points to (see ResolveTraceSource). Throws InputError for unreadable
/// or malformed input.
TraceLoad ReadTraces(const std::string& spec, const TraceReadOptions& options = {});

/// Parses traces from JSON Lines text (`file` names it in messages). `text` must be followed by at
/// least 64 readable bytes (simdjson's padding).
TraceLoad ParseTraceLines(std::string_view text, const std::string& file, const TraceReadOptions& options = {});

}  // namespace infermark::agentic

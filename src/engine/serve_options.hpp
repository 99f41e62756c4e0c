// Settings of `infermark engine serve`: the modelled deployment plus how the server runs.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/deployment.hpp"

namespace infermark::engine {

/// Everything `engine serve` needs.
struct ServeOptions {
  perfmodel::DeploymentOptions deployment;  ///< The modelled deployment (model, GPU, parallelism, scheduler).
  std::string served_model_name;            ///< Name in responses and /v1/models (default: --model as given).
  /// Prompt tokenizer: a tokenizer.json or a folder holding one; empty: the model's default package
  /// from tools/tokenizers/node_modules; "none": no tokenizer (a prompt counts one token per 4 bytes).
  std::string tokenizer;
  double time_scale = 1.0;         ///< Modelled hardware runs this many times faster; 0 = max speed.
  std::string emission_log;        ///< JSON-lines file of every SSE event sent (empty: none).
  std::int64_t max_waiting = 0;    ///< Requests waiting for admission above this get 429 (0: no bound).
  std::string host = "127.0.0.1";  ///< Address to listen on.
  std::uint16_t port = 0;          ///< Port (0: pick one).
  std::size_t threads = 1;         ///< HTTP event-loop threads for connections (the engine has its own).
  /// Threads that parse, tokenize and check requests off the event loops, at a lowered priority
  /// (0: on the connection's own loop).
  std::size_t prep_threads = 1;
  /// CPUs to pin to (empty: no pinning): the engine's loop to the first, connection loop i to
  /// cpus[i % size].
  std::vector<int> cpus;
  double eos_mean_tokens = 256;     ///< Mean output length before EOS for requests without ignore_eos (0: no EOS).
  std::uint64_t seed = 0;           ///< Seed of the output-length model.
  double reasoning_fraction = 0.5;  ///< Reasoning models: share of the output sent as reasoning_content.
  /// Disaggregated serving: "" (a whole engine), "prefill" (computes prompts and hands their KV
  /// to a decode worker over the modelled link) or "decode" (admits a request with the prompt's
  /// KV present once the modelled transfer is over, then generates).
  std::string role;
  std::string kv_transfer = "nixl";  ///< Prefill: the KV transfer backend (nixl, mooncake, mori, moriio).
  std::string kv_link = "auto";      ///< Prefill: the link (auto, nvlink, scale-out).
  /// ServerOptions::flush_interval: output waits this long to share writes (default: 0 in real
  /// time, 1 ms in max-speed mode).
  std::chrono::microseconds flush_interval{-1};
};

}  // namespace infermark::engine

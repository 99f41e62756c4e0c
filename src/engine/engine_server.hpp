// `infermark engine serve`: the built-in engine as an OpenAI-compatible HTTP server whose token
// timing follows the performance model (docs/engine-serve.md).
//
// Routes: POST /v1/completions and /v1/chat/completions (streaming and not), GET /v1/models,
// GET /health, GET /metrics (Prometheus, vLLM's names). Requests are parsed and their prompts
// tokenized on the connection's event loop; admission, scheduling and streaming run on loop 0
// (RealtimeEngine). Other paths get 404, other methods on known paths 405, both as OpenAI-style
// error JSON.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/serve_options.hpp"
#include "http/event_loops.hpp"
#include "perfmodel/deployment.hpp"

namespace infermark::engine {

/// What the server resolved its options to (for the ready line and /v1/models).
struct ServeDescription {
  std::string served_model_name;    ///< Name clients send and see.
  std::string tokenizer;            ///< Where the prompt tokenizer came from ("none": no tokenizer).
  bool tokenizer_stand_in = false;  ///< The tokenizer stands in for the model's own.
  int max_model_len = 0;            ///< Longest prompt + output accepted.
  double time_scale = 1.0;          ///< Time scale (0 = max speed).
};

/// The server. Construct (resolves the deployment, loads the tokenizer, opens the emission log:
/// InputError for bad options), Start(), Stop().
class EngineServer {
 public:
  /// Resolves everything; throws InputError on bad options and std::runtime_error on I/O faults.
  explicit EngineServer(ServeOptions options);
  /// Stops the server if it runs.
  ~EngineServer();
  EngineServer(const EngineServer&) = delete;
  EngineServer& operator=(const EngineServer&) = delete;

  /// Binds and starts serving; throws std::runtime_error when it cannot listen.
  void Start();
  /// Closes every connection, joins the loops and flushes the emission log. Idempotent; not from
  /// a loop thread.
  void Stop();
  /// The port listened on (after Start).
  [[nodiscard]] std::uint16_t port() const;
  /// The resolved deployment.
  [[nodiscard]] const perfmodel::Deployment& deployment() const;
  /// What the server serves.
  [[nodiscard]] const ServeDescription& description() const;
  /// The engine's own loop (one thread, loop 0): its passes and every method of its state run
  /// there; connections live on the server's loops (ServeOptions::threads).
  http::EventLoops& loops();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Resolves the tokenizer setting: "" picks the model's default package (searched under
/// $INFERMARK_TOKENIZERS, then tools/tokenizers/node_modules above the data folder and the current
/// directory), "none" stays "none", anything else is found as tokenizer::Locate finds it (a file, a
/// folder or a model in the local Hugging Face cache). Throws InputError when not found.
std::string ResolveTokenizerPath(const std::string& setting, const perfmodel::ModelSpec& model,
                                 const std::string& data_dir);

}  // namespace infermark::engine

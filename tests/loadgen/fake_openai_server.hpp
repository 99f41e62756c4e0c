// A small OpenAI-style completions server on src/http for the load generator's tests: streams
// `max_tokens` one-token events with usage, or misbehaves in one chosen way (the bad conditions a
// benchmark client must record per request without losing the run).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "http/server.hpp"

namespace infermark::test {

/// How the server misbehaves.
enum class Fault {
  kNone,                 ///< Well-behaved.
  kStatus500EveryThird,  ///< Every third request gets HTTP 500.
  kResetMidStream,       ///< Every other request: the connection drops after two tokens.
  kMalformedEvent,       ///< Every other request: an event that is not JSON.
  kStallAfterFirst,      ///< Every request: one token, then silence (until the client gives up).
  kNoUsage,              ///< No usage at all (the client must not invent output counts).
};

/// Settings of the fake server.
struct FakeServerOptions {
  Fault fault = Fault::kNone;
  std::chrono::microseconds token_interval{1000};  ///< Gap between tokens.
  /// Pose as infermark's built-in engine at this time scale (0: an ordinary server): its model
  /// card says so, and /metrics publishes the engine's lateness histogram, which grows by 100
  /// passes on schedule and `late_passes` passes 3–5 ms late at every scrape.
  double engine_time_scale = 0;
  int late_passes = 0;
  /// Posing as the built-in engine: each request's stream stops this long after its second token,
  /// while the model times it states (`infermark_timing`, when asked) go on at `token_interval`,
  /// as an engine whose host stalled.
  std::chrono::milliseconds stall{0};
  /// Passes later than the histogram's largest bucket (counted in `+Inf` alone) at every scrape.
  int stalled_passes = 0;
};

/// Serves POST /v1/completions and /v1/chat/completions and GET /v1/models on 127.0.0.1.
class FakeOpenAiServer {
 public:
  explicit FakeOpenAiServer(FakeServerOptions options) : options_(options), server_(Options()) {
    server_.Route("GET", "/v1/models", [this](http::Request&, http::Responder r) {
      if (options_.engine_time_scale > 0) {
        r.Respond(200, "application/json",
                  R"({"object":"list","data":[{"id":"fake","owned_by":"infermark","hardware":"h200","tp":8,)"
                  R"("time_scale":)" +
                      std::to_string(options_.engine_time_scale) + R"(,"model_epoch_ns":)" + std::to_string(epoch_ns_) +
                      "}]}");
      } else {
        r.Respond(200, "application/json", R"({"object":"list","data":[{"id":"fake"}]})");
      }
    });
    server_.Route("GET", "/metrics", [this](http::Request&, http::Responder r) {
      if (options_.engine_time_scale <= 0) {
        r.Respond(404, "text/plain", "no metrics");
        return;
      }
      const int scrape = ++scrapes_;
      const int on_time = 100 * scrape;
      const int late = options_.late_passes * scrape;
      const int stalled = options_.stalled_passes * scrape;
      std::string text = "# TYPE infermark:step_lateness_seconds histogram\n";
      for (const auto& [le, n] : std::vector<std::pair<std::string, int>>{{"0.0001", on_time},
                                                                          {"0.001", on_time},
                                                                          {"0.002", on_time},
                                                                          {"0.005", on_time + late},
                                                                          {"+Inf", on_time + late + stalled}}) {
        text +=
            "infermark:step_lateness_seconds_bucket{model_name=\"fake\",le=\"" + le + "\"} " + std::to_string(n) + "\n";
      }
      text += "infermark:step_lateness_seconds_count{model_name=\"fake\"} " + std::to_string(on_time + late + stalled) +
              "\n";
      text += "infermark:clock_slips_total{model_name=\"fake\"} " + std::to_string(scrape) + "\n";
      r.Respond(200, "text/plain", text);
    });
    for (const char* path : {"/v1/completions", "/v1/chat/completions"}) {
      const bool chat = std::string(path).find("chat") != std::string::npos;
      server_.Route("POST", path, [this, chat](http::Request& request, http::Responder responder) {
        Handle(request, std::move(responder), chat);
      });
    }
    server_.Start();
  }
  ~FakeOpenAiServer() { server_.Stop(); }

  /// The port listened on.
  std::uint16_t port() const { return server_.port(); }
  /// Completion requests received.
  int requests() const { return requests_.load(); }
  /// The last request body received.
  std::string last_body() const {
    std::lock_guard lock(mu_);
    return last_body_;
  }

 private:
  struct Stream {
    http::StreamWriter writer;
    int total = 0;
    int sent = 0;
    int prompt_tokens = 0;
    bool chat = false;
    int number = 0;
    bool timing = false;         // asked for the model's clock
    std::int64_t arrival_v = 0;  // when it entered the model (virtual ns)
    bool stalled = false;
  };

  static http::ServerOptions Options() {
    http::ServerOptions o;
    o.threads = 1;
    return o;
  }

  void Handle(http::Request& request, http::Responder responder, bool chat) {
    const int number = requests_.fetch_add(1);
    {
      std::lock_guard lock(mu_);
      last_body_ = request.body;
    }
    const auto body = nlohmann::json::parse(request.body, nullptr, false);
    if (options_.fault == Fault::kStatus500EveryThird && number % 3 == 2) {
      responder.Respond(500, "application/json", R"({"error":"overloaded"})");
      return;
    }
    auto stream = std::make_shared<Stream>();
    stream->total = body.value(chat ? "max_completion_tokens" : "max_tokens", 16);
    stream->prompt_tokens =
        body.contains("prompt") && body["prompt"].is_array() ? static_cast<int>(body["prompt"].size()) : 7;
    stream->chat = chat;
    stream->number = number;
    const auto asked = request.FindHeader("X-Infermark-Timing");
    stream->timing = options_.engine_time_scale > 0 && asked && *asked == "1";
    stream->arrival_v = Virtual(request.received_ns);
    stream->writer = responder.StartStream();
    Next(stream, request.loop);
  }

  std::string Event(const Stream& s, bool last) const {
    nlohmann::json e;
    e["id"] = "cmpl-" + std::to_string(s.number);
    if (s.chat) {
      e["choices"] = nlohmann::json::array({{{"index", 0}, {"delta", {{"content", "t" + std::to_string(s.sent)}}}}});
    } else {
      e["choices"] = nlohmann::json::array({{{"index", 0}, {"text", " t" + std::to_string(s.sent)}}});
    }
    if (last) e["choices"][0]["finish_reason"] = "length";
    if (options_.fault != Fault::kNoUsage) {
      e["usage"] = {{"prompt_tokens", s.prompt_tokens}, {"completion_tokens", s.sent + 1}};
    }
    if (s.timing) e["infermark_timing"] = {s.arrival_v, ModelTime(s, s.sent)};
    return e.dump();
  }

  // Virtual ns of a monotonic time.
  std::int64_t Virtual(std::int64_t ns) const {
    return static_cast<std::int64_t>(static_cast<double>(ns - epoch_ns_) * options_.engine_time_scale);
  }
  // The modelled time of token `k`: the first at the request's arrival (the server answers at once),
  // then one token interval after another.
  std::int64_t ModelTime(const Stream& s, int k) const {
    const auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.token_interval).count();
    return s.arrival_v + static_cast<std::int64_t>(static_cast<double>(k * interval) * options_.engine_time_scale);
  }

  void Next(const std::shared_ptr<Stream>& s, std::size_t loop) {
    const bool odd = s->number % 2 == 1;
    if (options_.fault == Fault::kResetMidStream && odd && s->sent == 2) {
      s->writer.Abort();
      return;
    }
    if (options_.fault == Fault::kMalformedEvent && odd && s->sent == 1) {
      s->writer.SendEvent("{not json");
    }
    if (options_.fault == Fault::kStallAfterFirst && s->sent == 1) {
      // Keep the writer alive (silent) until the server stops.
      std::lock_guard lock(mu_);
      stalled_.push_back(s);
      return;
    }
    if (s->sent < s->total) {
      s->writer.SendEvent(Event(*s, s->sent + 1 == s->total));
      ++s->sent;
      auto next = std::chrono::steady_clock::now() + options_.token_interval;
      if (options_.stall.count() > 0 && s->sent == 2 && !s->stalled) {
        s->stalled = true;
        next += options_.stall;
      }
      server_.loops().RunAt(loop, next, [this, s, loop] { Next(s, loop); });
      return;
    }
    if (options_.fault != Fault::kNoUsage) {
      nlohmann::json usage;
      usage["choices"] = nlohmann::json::array();
      usage["usage"] = {{"prompt_tokens", s->prompt_tokens}, {"completion_tokens", s->total}};
      if (s->timing) usage["infermark_timing"] = {s->arrival_v, ModelTime(*s, s->total - 1)};
      s->writer.SendEvent(usage.dump());
    }
    s->writer.SendEvent("[DONE]");
    s->writer.End();
  }

  FakeServerOptions options_;
  std::int64_t epoch_ns_ = MonotonicNs();
  std::atomic<int> requests_{0};
  std::atomic<int> scrapes_{0};
  mutable std::mutex mu_;
  std::string last_body_;
  std::vector<std::shared_ptr<Stream>> stalled_;
  http::Server server_;
};

}  // namespace infermark::test

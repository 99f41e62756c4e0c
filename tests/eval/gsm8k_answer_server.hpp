// A scripted OpenAI-compatible server for the eval tests and benchmark, on src/http: it finds the
// GSM8K question in each request (the last "Question: " of the prompt) and streams the data's own
// worked answer at once, or a wrong one, or fails, as its settings say. It has no model: it knows
// the answers because it reads the test split.
#pragma once

#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/server.hpp"

namespace infermark::test {

/// How the server answers.
struct AnswerServerOptions {
  int wrong_every = 0;          ///< Every n-th distinct question (by test order) is answered wrongly (0: never).
  int fail_first_attempts = 0;  ///< Each question's first n requests get HTTP 500 (retries then succeed).
  bool always_fail = false;     ///< Every request gets HTTP 500.
  int fail_after_requests = 0;  ///< Requests after the first n get HTTP 500 (0: never): a later eval fails.
  std::size_t threads = 1;      ///< Server event loops.
};

/// Serves /v1/chat/completions, /v1/completions and /v1/models on 127.0.0.1.
class Gsm8kAnswerServer {
 public:
  /// Reads `test_jsonl` (the questions and their answers) and starts.
  Gsm8kAnswerServer(const std::string& test_jsonl, AnswerServerOptions options)
      : options_(options), server_(Options(options)) {
    std::ifstream in(test_jsonl);
    std::string line;
    int index = 0;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const auto doc = nlohmann::json::parse(line);
      answers_[doc["question"].get<std::string>()] = Entry{doc["answer"].get<std::string>(), index++};
    }
    server_.Route("GET", "/v1/models", [](http::Request&, http::Responder r) {
      r.Respond(200, "application/json", R"({"object":"list","data":[{"id":"gsm8k-oracle"}]})");
    });
    for (const char* path : {"/v1/chat/completions", "/v1/completions"}) {
      const bool chat = std::string(path).find("chat") != std::string::npos;
      server_.Route("POST", path, [this, chat](http::Request& request, http::Responder responder) {
        Handle(request, std::move(responder), chat);
      });
    }
    server_.Start();
  }
  ~Gsm8kAnswerServer() { server_.Stop(); }
  Gsm8kAnswerServer(const Gsm8kAnswerServer&) = delete;
  Gsm8kAnswerServer& operator=(const Gsm8kAnswerServer&) = delete;

  /// The port listened on.
  std::uint16_t port() const { return server_.port(); }
  /// Requests received.
  int requests() const { return requests_.load(); }
  /// The bodies received, in arrival order.
  std::vector<std::string> bodies() const {
    std::lock_guard lock(mu_);
    return bodies_;
  }

 private:
  struct Entry {
    std::string answer;
    int index = 0;
  };

  static http::ServerOptions Options(const AnswerServerOptions& o) {
    http::ServerOptions s;
    s.threads = o.threads;
    return s;
  }

  static std::string Question(const nlohmann::json& body, bool chat) {
    std::string prompt;
    if (chat) {
      if (body.contains("messages") && body["messages"].is_array() && !body["messages"].empty()) {
        prompt = body["messages"].back().value("content", "");
      }
    } else {
      prompt = body.value("prompt", "");
    }
    const std::size_t at = prompt.rfind("Question: ");
    if (at == std::string::npos) return {};
    const std::size_t begin = at + 10;
    const std::size_t end = prompt.find("\nEnd your response", begin);
    return prompt.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }

  void Handle(http::Request& request, http::Responder responder, bool chat) {
    const int seen = requests_.fetch_add(1) + 1;
    const auto body = nlohmann::json::parse(request.body, nullptr, false);
    const std::string question = body.is_discarded() ? std::string() : Question(body, chat);
    int attempt = 0;
    {
      std::lock_guard lock(mu_);
      bodies_.push_back(request.body);
      attempt = ++attempts_[question];
    }
    if (options_.always_fail || attempt <= options_.fail_first_attempts ||
        (options_.fail_after_requests > 0 && seen > options_.fail_after_requests)) {
      responder.Respond(500, "application/json", R"({"error":"scripted failure"})");
      return;
    }
    const auto found = answers_.find(question);
    std::string text = "I do not know this question.";
    if (found != answers_.end()) {
      const Entry& e = found->second;
      text = e.answer;
      if (options_.wrong_every > 0 && e.index % options_.wrong_every == 0) {
        const std::size_t hash = text.rfind("#### ");
        text = text.substr(0, hash) + "#### 999999999";
      }
    }
    nlohmann::json event;
    event["id"] = "eval-" + std::to_string(requests_.load());
    if (chat) {
      event["choices"] = nlohmann::json::array(
          {{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}});
    } else {
      event["choices"] = nlohmann::json::array({{{"index", 0}, {"text", text}, {"finish_reason", "stop"}}});
    }
    nlohmann::json usage;
    usage["choices"] = nlohmann::json::array();
    usage["usage"] = {{"prompt_tokens", 100}, {"completion_tokens", 50}};
    http::StreamWriter writer = responder.StartStream();
    writer.SendEvent(event.dump());
    writer.SendEvent(usage.dump());
    writer.SendEvent("[DONE]");
    writer.End();
  }

  AnswerServerOptions options_;
  std::unordered_map<std::string, Entry> answers_;
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::vector<std::string> bodies_;
  std::unordered_map<std::string, int> attempts_;
  http::Server server_;
};

}  // namespace infermark::test

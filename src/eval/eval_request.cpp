#include "eval/eval_request.hpp"

#include <algorithm>
#include <cmath>

namespace infermark::eval {
namespace {

Json Number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return static_cast<long long>(v);
  return v;
}

Json Body(const char* key, Json prompt, const GenerationSettings& s) {
  Json body = Json::object();
  body[key] = std::move(prompt);
  body["model"] = s.model;
  body["max_tokens"] = s.max_tokens;
  body["temperature"] = Number(s.temperature);
  body["stop"] = StopStrings(s.stop, s.eos);
  body["seed"] = s.seed;
  body["top_p"] = Number(s.top_p);
  body["stream"] = true;
  body["stream_options"] = Json{{"include_usage", true}};
  return body;
}

}  // namespace

std::vector<std::string> StopStrings(const std::vector<std::string>& until, const std::string& eos) {
  std::vector<std::string> stop = until;
  if (!eos.empty() && std::find(stop.begin(), stop.end(), eos) == stop.end()) stop.push_back(eos);
  if (stop.size() > 4) stop.resize(4);
  return stop;
}

std::string ChatBody(const Json& messages, const GenerationSettings& settings) {
  return Body("messages", messages, settings).dump();
}

std::string CompletionsBody(const std::string& prompt, const GenerationSettings& settings) {
  return Body("prompt", prompt, settings).dump();
}

Json LoggedGenKwargs(const std::vector<std::string>& until, const GenerationSettings& settings) {
  return Json{{"until", until},
              {"do_sample", false},
              {"temperature", Number(settings.temperature)},
              {"max_tokens", settings.max_tokens},
              {"top_p", Number(settings.top_p)}};
}

}  // namespace infermark::eval

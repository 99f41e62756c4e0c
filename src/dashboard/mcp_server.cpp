#include "dashboard/mcp_server.hpp"

#include <chrono>
#include <condition_variable>
#include <istream>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/version.hpp"

namespace infermark::dashboard {
namespace {

// JSON-RPC's error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

// How long past its time limit a call is waited for before it is answered as timed out.
constexpr std::chrono::milliseconds kLimitGrace{1000};

Json Error(const Json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json Result(const Json& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

std::string Text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// One tool call's outcome, filled by its worker thread.
struct CallState {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  Json reply;
};

}  // namespace

struct McpServer::Impl {
  McpOptions options;
  std::unique_ptr<SnapshotSource> source;
  std::vector<std::thread> workers;  // calls, including those answered as timed out; joined at the end

  Json Initialize(const Json& id, const Json& params) {
    std::string version = kMcpProtocolVersions[0];
    if (params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
      const std::string asked = params["protocolVersion"].get<std::string>();
      for (const char* known : kMcpProtocolVersions) {
        if (asked == known) version = asked;
      }
    }
    Json result = Json::object();
    result["protocolVersion"] = version;
    result["capabilities"] = {{"tools", {{"listChanged", false}}}};
    result["serverInfo"] = {{"name", "infermark"}, {"title", "infermark results store"}, {"version", kVersion}};
    result["instructions"] =
        "Read-only access to an infermark results store: LLM inference benchmark points (throughput per GPU vs "
        "interactivity), runs, accuracy evaluations and the reliability of benchmark rows. Start with list_models, "
        "list_hardware or list_runs; points and frontier_at_interactivity take the same filters; query_sql runs one "
        "read-only statement.";
    return Result(id, std::move(result));
  }

  Json Call(const Json& id, const Json& params) {
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
      return Error(id, kInvalidParams, "tools/call needs params.name, a tool's name");
    }
    const std::string name = params["name"].get<std::string>();
    const Json arguments = params.value("arguments", Json::object());
    auto state = std::make_shared<CallState>();
    SnapshotSource* snapshots = source.get();
    const ToolLimits limits = options.limits;
    workers.emplace_back([state, snapshots, name, arguments, limits, id] {
      Json reply;
      try {
        const Json result = CallTool(*snapshots, name, arguments, limits);
        reply = Result(id, {{"content", Json::array({Json{{"type", "text"}, {"text", Text(result)}}})},
                            {"structuredContent", result},
                            {"isError", false}});
      } catch (const ToolArgumentError& e) {
        reply = Error(id, kInvalidParams, e.what());
      } catch (const InputError& e) {
        // The store refused what the arguments asked (a failing SQL statement): the tool's own error.
        std::string text;
        for (const Diagnostic& d : e.diagnostics()) text += (text.empty() ? "" : "\n") + d.ToString();
        reply = Result(id, {{"content", Json::array({Json{{"type", "text"}, {"text", text}}})}, {"isError", true}});
      } catch (const std::exception& e) {
        reply = Error(id, kInternalError, std::string("the tool failed: ") + e.what());
      }
      const std::lock_guard<std::mutex> lock(state->mutex);
      state->reply = std::move(reply);
      state->done = true;
      state->done_cv.notify_all();
    });
    // A tool that stops itself at the limit (an SQL statement) is given a moment to say so.
    std::unique_lock<std::mutex> lock(state->mutex);
    if (!state->done_cv.wait_for(lock, options.limits.timeout + kLimitGrace, [&] { return state->done; })) {
      const std::string text = "tool " + name + " ran past the call's time limit of " +
                               std::to_string(options.limits.timeout.count()) + " ms";
      return Result(id, {{"content", Json::array({Json{{"type", "text"}, {"text", text}}})}, {"isError", true}});
    }
    return state->reply;
  }

  std::optional<Json> One(const Json& message) {
    if (!message.is_object()) return Error(nullptr, kInvalidRequest, "a JSON-RPC message is an object");
    const bool notification = !message.contains("id");
    const Json id = notification ? Json(nullptr) : message["id"];
    if (!id.is_null() && !id.is_string() && !id.is_number_integer()) {
      return Error(nullptr, kInvalidRequest, "a request's id is a string or an integer");
    }
    if (message.value("jsonrpc", "") != "2.0" || !message.contains("method") || !message["method"].is_string()) {
      if (notification && !message.contains("method")) return std::nullopt;  // a stray response: nothing to answer
      return Error(id, kInvalidRequest, "a request has jsonrpc \"2.0\" and a method");
    }
    const std::string method = message["method"].get<std::string>();
    const Json params = message.value("params", Json::object());
    if (notification) return std::nullopt;  // notifications/initialized, notifications/cancelled…
    if (method == "initialize") return Initialize(id, params);
    if (method == "ping") return Result(id, Json::object());
    if (method == "tools/list") return Result(id, {{"tools", ToolList()}});
    if (method == "tools/call") return Call(id, params);
    return Error(id, kMethodNotFound, "no method " + method + " (this server offers tools only)");
  }
};

McpServer::McpServer(McpOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->options.limits.db = impl_->options.db;
  impl_->source = std::make_unique<SnapshotSource>(impl_->options.db, impl_->options.price_dir);
}

McpServer::~McpServer() {
  for (std::thread& t : impl_->workers) t.join();
}

std::optional<Json> McpServer::Handle(const Json& message) {
  if (!message.is_array()) return impl_->One(message);
  if (message.empty()) return Error(nullptr, kInvalidRequest, "an empty batch");
  Json replies = Json::array();
  for (const Json& m : message) {
    if (std::optional<Json> r = impl_->One(m)) replies.push_back(std::move(*r));
  }
  if (replies.empty()) return std::nullopt;
  return replies;
}

std::optional<std::string> McpServer::HandleLine(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return std::nullopt;
  const Json message = Json::parse(line, nullptr, false);
  if (message.is_discarded()) return Text(Error(nullptr, kParseError, "the line is not JSON"));
  const std::optional<Json> reply = Handle(message);
  if (!reply) return std::nullopt;
  return Text(*reply);
}

void McpServer::Serve(std::istream& in, std::ostream& out) {
  for (std::string line; std::getline(in, line);) {
    if (const std::optional<std::string> reply = HandleLine(line)) out << *reply << '\n' << std::flush;
  }
}

}  // namespace infermark::dashboard

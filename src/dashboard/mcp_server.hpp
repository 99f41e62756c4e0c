// `infermark mcp`: a Model Context Protocol server over stdio through which an agent reads a results
// store. JSON-RPC 2.0, one message per line (MCP's stdio transport): `initialize`, `ping`,
// `tools/list` and `tools/call` (dashboard/mcp_tools.hpp); notifications are taken silently.
// Read-only: it opens the store as the dashboard does and never writes. Each call runs under a time
// limit: an SQL statement is stopped there by its database; any other call still running a second
// later is answered as the tool's error while it finishes in the background.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "core/json_text.hpp"
#include "dashboard/mcp_tools.hpp"

namespace infermark::dashboard {

/// The protocol revisions this server speaks, newest first.
inline constexpr const char* kMcpProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

/// How to serve.
struct McpOptions {
  std::string db;         ///< Store: `sqlite:PATH`, a path, or `postgresql://…`.
  std::string price_dir;  ///< Price table folder ("": no costs).
  ToolLimits limits;      ///< Rows and time per call.
};

/// A server over one store.
class McpServer {
 public:
  /// Opens the store and loads its snapshot; throws InputError as OpenDashboardStore does.
  explicit McpServer(McpOptions options);
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  /// The reply to one JSON-RPC message, or nullopt for a notification (or a batch of them).
  std::optional<Json> Handle(const Json& message);
  /// The reply line to one line of input (a parse error when it is not JSON), or nullopt.
  std::optional<std::string> HandleLine(const std::string& line);
  /// Reads lines from `in` until it ends, writing each reply as one line to `out` (flushed).
  void Serve(std::istream& in, std::ostream& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::dashboard

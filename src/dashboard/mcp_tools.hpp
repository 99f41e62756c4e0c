// The tools `infermark mcp` offers an agent, each a thin reading of the store through the
// dashboard's own API routes (so an agent and a person see the same figures): listing hardware,
// models, frameworks and runs; points with filters; frontiers read at chosen interactivities;
// comparing two runs; evaluations and their samples; reliability; and a read-only SQL query.
// Arguments are checked against each tool's declared parameters, then by the route's own strict
// query parsing; every list is cut to a row limit and says so.
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "dashboard/snapshot_source.hpp"

namespace infermark::dashboard {

/// An argument a tool cannot take (answered as JSON-RPC "invalid params", naming the argument).
class ToolArgumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Limits of one tool call.
struct ToolLimits {
  std::size_t default_rows = 100;            ///< Rows a list returns when the call gives no `limit`.
  std::size_t max_rows = 1000;               ///< The most rows a call may ask for.
  std::chrono::milliseconds timeout{10000};  ///< How long a call may take (the SQL tool's statement too).
  std::string db;                            ///< The store's URL (the SQL tool opens its own connection).
};

/// Every tool as `tools/list` describes it: name, title, description, inputSchema.
Json ToolList();

/// Runs tool `name` with `arguments` (a JSON object) on `source`: the tool's result as a JSON
/// object. Throws ToolArgumentError for an unknown tool or a bad argument, InputError for what the
/// store refuses (an unknown run, a failing SQL statement).
Json CallTool(SnapshotSource& source, const std::string& name, const Json& arguments, const ToolLimits& limits);

}  // namespace infermark::dashboard

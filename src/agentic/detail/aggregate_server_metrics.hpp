// The agentic aggregate's `server_metrics` block: server_metrics_export.json read through the
// vLLM, Dynamo-vLLM and SGLang adapters, with the KV pool from the server logs. Private to the
// agentic module (aggregate.cpp writes the block).
#pragma once

#include <string>
#include <vector>

#include "agentic/profile_export.hpp"
#include "core/json_text.hpp"

namespace infermark::agentic::detail {

/// The server_metrics block of the kept `records`' aggregate; appends the warnings it raised.
/// Throws InputError for server metrics of no known engine.
Json ServerMetricsBlock(const Json& export_json, const std::string& framework,
                        const std::vector<const ProfileRecord*>& records, const std::vector<std::string>& logs,
                        std::vector<std::string>& warnings);

}  // namespace infermark::agentic::detail

// The identity half of the agentic aggregate: the KV offload backend's and the router's metadata
// and the GPU shape, as the reference derives them from the row's environment. Private to the
// agentic module.
#pragma once

#include <cstdint>
#include <string>

#include "agentic/aggregate.hpp"
#include "core/json_text.hpp"

namespace infermark::agentic::detail {

/// KV_OFFLOAD_BACKEND_METADATA read: null when unset, else {"name"[, "version"]}, non-empty strings.
Json BackendMetadata(const std::string& raw);
/// ROUTER_METADATA read: null when unset, else exactly {"name", "version"}, non-empty strings.
Json RouterMetadata(const std::string& raw);

/// The GPU shape fields and the number of GPUs, tp, ep and dp_attention as the reference derives them.
struct Shape {
  Json fields = Json::object();
  std::int64_t num_gpus = 0;
  std::int64_t tp = 0;
  std::int64_t ep = 0;
  std::string dp_attention;
};

/// The GPU shape of `id`; throws InputError for parallel sizes the reference refuses.
Shape GpuShape(const AgenticIdentity& id);

}  // namespace infermark::agentic::detail

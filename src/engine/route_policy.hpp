// How the disaggregated router (`engine serve --role router`) picks a worker of a pool (the
// policy and picker are perfmodel's, shared with prediction). The router has no tokenizer: a
// prompt's identity is chained hashes of its leading 64-byte blocks of text, which name equal
// prefixes as the workers' token blocks do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfmodel/worker_picker.hpp"

namespace infermark::engine {

/// A router's policy (shared with the predicted disaggregated target).
using RoutePolicy = perfmodel::RoutePolicy;
using perfmodel::ParseRoutePolicy;
using perfmodel::RoutePolicyName;
/// Picks workers of one pool (shared with the predicted disaggregated target).
using WorkerPicker = perfmodel::WorkerPicker;

/// Chained hashes of the prompt's full 64-byte blocks (element k names its first 64·(k+1) bytes).
std::vector<std::uint64_t> PromptBlocks(std::string_view prompt);

}  // namespace infermark::engine

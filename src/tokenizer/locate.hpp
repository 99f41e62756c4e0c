// Where a tokenizer setting points: a tokenizer.json, a folder holding one, or a Hugging Face model id
// found in the local Hugging Face cache (no download: benchmark hosts are often offline).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace infermark::tokenizer {

/// The path to load for `spec`: itself when it is a file or a folder with a tokenizer.json; else,
/// for an id like "org/name", the snapshot folder in $HF_HUB_CACHE, $HF_HOME/hub or
/// ~/.cache/huggingface/hub (the one refs/main names, else any holding a tokenizer.json).
/// nullopt when nothing is found.
std::optional<std::string> Locate(const std::string& spec);

/// The local Hugging Face hub caches, in the order Hugging Face looks: $HF_HUB_CACHE, $HF_HOME/hub,
/// ~/.cache/huggingface/hub (those whose variables are set).
std::vector<std::string> HubCacheRoots();

}  // namespace infermark::tokenizer

#include "engine/route_policy.hpp"

#include "core/split_mix.hpp"

namespace infermark::engine {
namespace {

constexpr std::size_t kBlockBytes = 64;

}  // namespace

std::vector<std::uint64_t> PromptBlocks(std::string_view prompt) {
  std::vector<std::uint64_t> blocks;
  blocks.reserve(prompt.size() / kBlockBytes);
  std::uint64_t h = 0x243F6A8885A308D3ull;
  for (std::size_t b = 0; (b + 1) * kBlockBytes <= prompt.size(); ++b) {
    for (std::size_t i = b * kBlockBytes; i < (b + 1) * kBlockBytes; ++i)
      h = SplitMix64(h ^ static_cast<unsigned char>(prompt[i]));
    blocks.push_back(h);
  }
  return blocks;
}

}  // namespace infermark::engine

// The prompt a chat request stands for: messages rendered with one simple, documented template
// (ChatML), whatever the model, so prompt token counts are reproducible across models:
//
//   <|im_start|>{role}\n{content}<|im_end|>\n   for each message, then   <|im_start|>assistant\n
//
// The markers are ordinary text to tokenizers that lack them as special tokens.
#pragma once

#include <string>
#include <vector>

namespace infermark::engine {

/// One chat message (content parts of type "text" already joined).
struct ChatMessage {
  std::string role;     ///< system, user, assistant, tool…
  std::string content;  ///< Text.
};

/// The prompt text of `messages`.
std::string RenderChatPrompt(const std::vector<ChatMessage>& messages);

}  // namespace infermark::engine

#include "tokenizer/onig_regex.hpp"

#include <oniguruma.h>

#include <mutex>
#include <stdexcept>
#include <utility>

#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

const OnigUChar* Bytes(std::string_view text) {
  return reinterpret_cast<const OnigUChar*>(text.data());
}

void InitializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}

// One match region per thread, reused by every search: a region per search would cost a malloc.
struct ThreadRegion {
  OnigRegion* region = onig_region_new();
  ThreadRegion() = default;
  ThreadRegion(const ThreadRegion&) = delete;
  ThreadRegion& operator=(const ThreadRegion&) = delete;
  ~ThreadRegion() { onig_region_free(region, 1); }
};

OnigRegion* Region() {
  thread_local ThreadRegion region;
  return region.region;
}

}  // namespace

OnigRegex::OnigRegex(std::string_view pattern) : pattern_(pattern) {
  InitializeOnce();
  regex_t* compiled = nullptr;
  OnigErrorInfo info{};
  // ONIG_SYNTAX_DEFAULT and no options: what rust-onig's Regex::new, used by `tokenizers`, passes.
  const int rc = onig_new(&compiled, Bytes(pattern), Bytes(pattern) + pattern.size(), ONIG_OPTION_NONE,
                          ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
  if (rc != ONIG_NORMAL) {
    OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(message, rc, &info);
    throw std::invalid_argument(reinterpret_cast<const char*>(message));
  }
  regex_ = compiled;
}

OnigRegex::~OnigRegex() {
  if (regex_ != nullptr) onig_free(static_cast<regex_t*>(regex_));
}

OnigRegex::OnigRegex(OnigRegex&& other) noexcept
    : regex_(std::exchange(other.regex_, nullptr)), pattern_(std::move(other.pattern_)) {}

OnigRegex& OnigRegex::operator=(OnigRegex&& other) noexcept {
  if (this != &other) {
    if (regex_ != nullptr) onig_free(static_cast<regex_t*>(regex_));
    regex_ = std::exchange(other.regex_, nullptr);
    pattern_ = std::move(other.pattern_);
  }
  return *this;
}

bool OnigRegex::Search(std::string_view text, std::size_t from, std::size_t& begin, std::size_t& end) const {
  OnigRegion* region = Region();
  const OnigUChar* start = Bytes(text);
  const OnigUChar* stop = start + text.size();
  const int at = onig_search(static_cast<regex_t*>(regex_), start, stop, start + from, stop, region, ONIG_OPTION_NONE);
  if (at < 0) return false;
  begin = static_cast<std::size_t>(region->beg[0]);
  end = static_cast<std::size_t>(region->end[0]);
  return true;
}

bool RegexMatches::Next(std::size_t& begin, std::size_t& end) {
  while (last_end_ <= text_.size()) {
    if (!regex_.Search(text_, last_end_, begin, end)) {
      last_end_ = text_.size() + 1;
      return false;
    }
    last_end_ = end;
    if (begin != end) {
      skip_next_empty_ = true;
      return true;
    }
    // An empty match: step one character (one byte past the end) so the search makes progress.
    last_end_ += last_end_ < text_.size() ? CharLength(static_cast<unsigned char>(text_[last_end_])) : 1;
    if (!skip_next_empty_) return true;
    skip_next_empty_ = false;
  }
  return false;
}

}  // namespace infermark::tokenizer

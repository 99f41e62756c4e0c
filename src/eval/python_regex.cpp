#include "eval/python_regex.hpp"

#include <oniguruma.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace infermark::eval {
namespace {

void InitOniguruma() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}

// Bytes of the UTF-8 character starting at `at` (1 for a stray byte), for stepping past an empty match.
std::size_t CharLength(std::string_view text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
  return std::min(n, text.size() - at);
}

struct RegionGuard {
  OnigRegion* region = onig_region_new();
  ~RegionGuard() { onig_region_free(region, 1); }
  RegionGuard() = default;
  RegionGuard(const RegionGuard&) = delete;
  RegionGuard& operator=(const RegionGuard&) = delete;
};

}  // namespace

PythonRegex::PythonRegex(std::string_view pattern) {
  InitOniguruma();
  OnigErrorInfo info{};
  regex_t* re = nullptr;
  const auto* p = reinterpret_cast<const OnigUChar*>(pattern.data());
  const int rc = onig_new(&re, p, p + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_PYTHON, &info);
  if (rc != ONIG_NORMAL) {
    OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(message, rc, &info);
    throw std::invalid_argument(reinterpret_cast<const char*>(message));
  }
  regex_ = re;
}

PythonRegex::~PythonRegex() {
  if (regex_ != nullptr) onig_free(static_cast<regex_t*>(regex_));
}

PythonRegex::PythonRegex(PythonRegex&& other) noexcept : regex_(other.regex_) {
  other.regex_ = nullptr;
}

PythonRegex& PythonRegex::operator=(PythonRegex&& other) noexcept {
  if (this != &other) {
    if (regex_ != nullptr) onig_free(static_cast<regex_t*>(regex_));
    regex_ = other.regex_;
    other.regex_ = nullptr;
  }
  return *this;
}

std::optional<std::string> PythonRegex::Check(std::string_view pattern) {
  try {
    PythonRegex compiled(pattern);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

int PythonRegex::groups() const {
  return onig_number_of_captures(static_cast<regex_t*>(regex_));
}

template <typename Visit>
void PythonRegex::Walk(std::string_view text, Visit&& visit) const {
  auto* re = static_cast<regex_t*>(regex_);
  const auto* start = reinterpret_cast<const OnigUChar*>(text.data());
  const auto* end = start + text.size();
  RegionGuard guard;
  std::size_t pos = 0;
  bool last_empty = false;
  while (pos <= text.size()) {
    int at = ONIG_MISMATCH;
    if (last_empty) {
      // Python never returns two matches at one place: after an empty match at `pos`, only a
      // non-empty match starting there is taken, else the search moves one character on.
      const int len = onig_match(re, start, end, start + pos, guard.region, ONIG_OPTION_FIND_NOT_EMPTY);
      if (len > 0) {
        at = static_cast<int>(pos);
      } else {
        if (pos >= text.size()) break;
        pos += CharLength(text, pos);
        last_empty = false;
        continue;
      }
    } else {
      at = onig_search(re, start, end, start + pos, end, guard.region, ONIG_OPTION_NONE);
    }
    if (at < 0) break;
    const OnigRegion* r = guard.region;
    visit(r);
    const auto match_end = static_cast<std::size_t>(r->end[0]);
    last_empty = match_end == static_cast<std::size_t>(r->beg[0]);
    pos = match_end;
  }
}

std::vector<RegexMatch> PythonRegex::FindAll(std::string_view text) const {
  std::vector<RegexMatch> out;
  Walk(text, [&](const OnigRegion* r) {
    RegexMatch m;
    m.whole.assign(text.substr(static_cast<std::size_t>(r->beg[0]), static_cast<std::size_t>(r->end[0] - r->beg[0])));
    for (int g = 1; g < r->num_regs; ++g) {
      if (r->beg[g] < 0) {
        m.groups.emplace_back();
      } else {
        m.groups.emplace_back(
            text.substr(static_cast<std::size_t>(r->beg[g]), static_cast<std::size_t>(r->end[g] - r->beg[g])));
      }
    }
    out.push_back(std::move(m));
  });
  return out;
}

std::string PythonRegex::Delete(std::string_view text) const {
  std::string out;
  std::size_t kept = 0;
  Walk(text, [&](const OnigRegion* r) {
    const auto b = static_cast<std::size_t>(r->beg[0]);
    out.append(text.substr(kept, b - kept));
    kept = static_cast<std::size_t>(r->end[0]);
  });
  out.append(text.substr(kept));
  return out;
}

}  // namespace infermark::eval

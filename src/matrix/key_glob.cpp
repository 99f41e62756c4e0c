#include "matrix/key_glob.hpp"

#include <string>
#include <utility>
#include <vector>

#include "core/diagnostic.hpp"

namespace infermark::matrix {
namespace {

// UTF-8 to code points. A byte that does not start a valid sequence becomes U+DC80..U+DCFF, as
// Python's surrogateescape decoding of argv does.
std::u32string Decode(std::string_view text) {
  std::u32string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    char32_t cp = 0;
    char32_t minimum = 0;
    if (lead < 0x80) {
      length = 1;
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      cp = lead & 0x1Fu;
      minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      cp = lead & 0x0Fu;
      minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      cp = lead & 0x07u;
      minimum = 0x10000;
    }
    bool valid = length != 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) valid = false;
      cp = (cp << 6) | (next & 0x3Fu);
    }
    if (valid && length > 1 && (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) valid = false;
    if (!valid) {
      out.push_back(0xDC00 + lead);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += length;
  }
  return out;
}

// One step of a compiled pattern: `*`, or something that matches exactly one code point.
struct Atom {
  enum class Kind { kStar, kAny, kChar, kSet, kNever };
  Kind kind = Kind::kChar;
  char32_t ch = 0;                                    // kChar
  bool negate = false;                                // kSet
  std::vector<std::pair<char32_t, char32_t>> ranges;  // kSet members; a single member has lo == hi

  [[nodiscard]] bool Matches(char32_t c) const {
    switch (kind) {
      case Kind::kAny:
        return true;
      case Kind::kChar:
        return c == ch;
      case Kind::kSet: {
        bool in = false;
        for (const auto& [lo, hi] : ranges) in = in || (lo <= c && c <= hi);
        return in != negate;
      }
      default:
        return false;
    }
  }
};

// A bracket expression's text (between `[` and its closing `]`) as Python's fnmatch turns it into
// a regex set: hyphens split it into chunks, a chunk boundary `x-y` is a range, reversed ranges are
// merged away, everything else is literal. `!` first negates.
Atom CompileSet(std::string_view pattern, const std::u32string& raw) {
  std::vector<std::u32string> chunks;
  bool has_ranges = raw.find(U'-') != std::u32string::npos;
  if (!has_ranges) {
    chunks.push_back(raw);
  } else {
    std::size_t start = 0;
    std::size_t k = raw[0] == U'!' ? 2 : 1;
    while (k < raw.size()) {
      k = raw.find(U'-', k);
      if (k == std::u32string::npos) break;
      chunks.push_back(raw.substr(start, k - start));
      start = k + 1;
      k += 3;
    }
    if (start < raw.size()) {
      chunks.push_back(raw.substr(start));
    } else {
      chunks.back() += U'-';
    }
    for (std::size_t k2 = chunks.size() - 1; k2 > 0; --k2) {
      if (!chunks[k2 - 1].empty() && !chunks[k2].empty() && chunks[k2 - 1].back() > chunks[k2].front()) {
        chunks[k2 - 1] = chunks[k2 - 1].substr(0, chunks[k2 - 1].size() - 1) + chunks[k2].substr(1);
        chunks.erase(chunks.begin() + static_cast<std::ptrdiff_t>(k2));
      }
    }
  }

  Atom atom;
  const bool empty = chunks.size() == 1 && chunks[0].empty();
  if (empty) {
    atom.kind = Atom::Kind::kNever;
    return atom;
  }
  if (chunks.size() == 1 && chunks[0] == U"!") {
    atom.kind = Atom::Kind::kAny;
    return atom;
  }
  atom.kind = Atom::Kind::kSet;
  if (!chunks[0].empty() && chunks[0][0] == U'!') {
    atom.negate = true;
    chunks[0].erase(0, 1);
  }
  // Tokens of the regex set: the chunks' characters (all literal there) and, between chunks, the
  // range hyphens. Read them as Python's regex parser does.
  struct Token {
    char32_t ch;
    bool range_hyphen;
  };
  std::vector<Token> tokens;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    if (c > 0) tokens.push_back({U'-', true});
    for (char32_t ch : chunks[c]) tokens.push_back({ch, false});
  }
  for (std::size_t t = 0; t < tokens.size();) {
    const char32_t lo = tokens[t++].ch;
    if (t < tokens.size() && tokens[t].range_hyphen) {
      ++t;
      if (t == tokens.size()) {
        atom.ranges.emplace_back(lo, lo);
        atom.ranges.emplace_back(U'-', U'-');
        break;
      }
      const char32_t hi = tokens[t++].ch;
      if (hi < lo) {
        throw InputError(Diagnostic{SourceMark{}, "", "--config-keys",
                                    "bad character range in pattern '" + std::string(pattern) + "'"});
      }
      atom.ranges.emplace_back(lo, hi);
    } else {
      atom.ranges.emplace_back(lo, lo);
    }
  }
  return atom;
}

std::vector<Atom> Compile(std::string_view original) {
  const std::u32string pattern = Decode(original);
  std::vector<Atom> atoms;
  const std::size_t n = pattern.size();
  std::size_t i = 0;
  while (i < n) {
    const char32_t c = pattern[i++];
    Atom atom;
    if (c == U'*') {
      if (atoms.empty() || atoms.back().kind != Atom::Kind::kStar) {
        atom.kind = Atom::Kind::kStar;
        atoms.push_back(atom);
      }
      continue;
    }
    if (c == U'?') {
      atom.kind = Atom::Kind::kAny;
      atoms.push_back(atom);
      continue;
    }
    if (c == U'[') {
      std::size_t j = i;
      if (j < n && pattern[j] == U'!') ++j;
      if (j < n && pattern[j] == U']') ++j;
      while (j < n && pattern[j] != U']') ++j;
      if (j < n) {
        atoms.push_back(CompileSet(original, pattern.substr(i, j - i)));
        i = j + 1;
        continue;
      }
      // No closing bracket: a literal `[`.
    }
    atom.ch = c;
    atoms.push_back(atom);
  }
  return atoms;
}

}  // namespace

bool MatchKeyGlob(std::string_view pattern, std::string_view name) {
  const std::vector<Atom> atoms = Compile(pattern);
  const std::u32string text = Decode(name);
  // Every atom but `*` consumes one code point, so the classic backtrack-to-last-star walk decides.
  std::size_t a = 0;
  std::size_t s = 0;
  std::size_t star = atoms.size();
  std::size_t star_text = 0;
  while (s < text.size()) {
    if (a < atoms.size() && atoms[a].kind == Atom::Kind::kStar) {
      star = a++;
      star_text = s;
    } else if (a < atoms.size() && atoms[a].Matches(text[s])) {
      ++a;
      ++s;
    } else if (star < atoms.size()) {
      a = star + 1;
      s = ++star_text;
    } else {
      return false;
    }
  }
  while (a < atoms.size() && atoms[a].kind == Atom::Kind::kStar) ++a;
  return a == atoms.size();
}

}  // namespace infermark::matrix

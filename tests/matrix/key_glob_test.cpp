// test-config key globs follow Python's fnmatch, not POSIX fnmatch(3). Expected values were taken
// from Python 3.11's fnmatch.fnmatchcase.
#include "matrix/key_glob.hpp"

#include <gtest/gtest.h>

namespace infermark::matrix {
namespace {

struct GlobCase {
  const char* pattern;
  const char* name;
  bool matches;
};

TEST(KeyGlob, MatchesLikePythonFnmatch) {
  const GlobCase cases[] = {
      {R"(dsr1-fp?-*)", R"(dsr1-fp4-b200)", true},
      {R"(*-mtp?)", R"(x-mtp2)", true},
      {R"(*)", R"()", true},
      // `^` does not negate; only `!` does.
      {R"([^d]*)", R"(dsr1)", true},
      {R"([^d]*)", R"(^x)", true},
      {R"([^d]*)", R"(qwen)", false},
      {R"([!d]*)", R"(qwen)", true},
      {R"([!d]*)", R"(dsr1)", false},
      // No POSIX classes: the set ends at the first `]`.
      {R"(*[[:digit:]]*)", R"(glm5)", false},
      {R"(*[[:digit:]]*)", R"(a[:])", true},
      // Reversed ranges are dropped.
      {R"([z-a]*)", R"(zed)", false},
      {R"([!z-a])", R"(q)", true},
      // Hyphens: a range, then literals.
      {R"([a-c-e])", R"(-)", true},
      {R"([a-c-e])", R"(d)", false},
      {R"([a-c-e])", R"(e)", true},
      {R"([]-a])", R"(^)", true},
      {R"([!]])", R"(])", false},
      {R"([!]])", R"(x)", true},
      {R"(a[!b-]c)", R"(a-c)", false},
      {R"(a[!b-]c)", R"(axc)", true},
      // An unclosed `[` is literal; a backslash escapes nothing.
      {R"([)", R"([)", true},
      {R"([!])", R"([!])", true},
      {R"(a\b*)", R"(a\bc)", true},
      {R"(*[&~|]*)", R"(a|b)", true},
      // Code points, not bytes.
      {R"(?)", R"(é)", true},
      {R"(??)", R"(é)", false},
      {R"([é])", R"(é)", true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(MatchKeyGlob(c.pattern, c.name), c.matches) << "pattern " << c.pattern << " name " << c.name;
  }
}

}  // namespace
}  // namespace infermark::matrix

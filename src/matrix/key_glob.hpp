// Config-key globs of `matrix test-config`. InferenceX expands --config-keys with Python's
// fnmatch.filter, whose rules differ from POSIX fnmatch(3): `[^x]` is the set {^, x} (only `[!x]`
// negates), there are no `[:digit:]` classes and no backslash escapes, reversed ranges such as
// `z-a` are dropped, and an unclosed `[` is a literal. Matching is on code points.
#pragma once

#include <string_view>

namespace infermark::matrix {

/// Whether `name` matches the shell pattern `pattern` (`*`, `?`, `[seq]`, `[!seq]`) exactly as
/// Python's `fnmatch.fnmatchcase(name, pattern)` decides. Throws InputError where Python's regex
/// compilation would fail (a bad character range).
bool MatchKeyGlob(std::string_view pattern, std::string_view name);

}  // namespace infermark::matrix

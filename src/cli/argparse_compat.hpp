// Reading command lines the way Python's argparse reads them, for commands that stand in for
// InferenceX's Python tools (matrix, changelog): users paste the same command lines.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace infermark::cli {

/// Rewrites `args` (without argv[0]) so CLI11 sees what argparse would: an unambiguous prefix of
/// a long option is expanded (`--prec` → `--precision`), and an option given again replaces its
/// earlier occurrence, list options included (argparse keeps the last; CLI11 would append).
std::vector<std::string> NormalizeArgparseStyle(const CLI::App& root, std::vector<std::string> args);

/// Marks `option` as argparse's `action='append'`: every occurrence adds its values (`--interval 0.1
/// --interval 1`) instead of replacing the earlier ones. Returns `option`.
CLI::Option* Appending(CLI::Option* option);

/// CLI11 transform accepting integers as Python's int() does: decimal digits with single `_`
/// separators and any leading zeros (`010` is ten, not eight); hex and octal prefixes are errors.
CLI::Validator PythonInt();

}  // namespace infermark::cli

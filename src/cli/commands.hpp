// The command table: each command lives in its own file and registers itself on the root app.
// A command's callback stores its exit code in `CommandResult`. A command holds its flag table, renders
// what the modules return and maps it to an exit code; the work itself lives in the modules.
#pragma once

#include <CLI/CLI.hpp>
#include <string_view>

namespace infermark::cli {

/// Exit code the chosen command produced (set by its callback).
struct CommandResult {
  int exit_code = 0;  ///< One of the kExit* codes.
};

/// Adds one command (its flags and callback) to the root app.
using AddCommand = void (*)(CLI::App& app, CommandResult& result);

/// Registers a command; each cmd_*.cpp does this once at static-initialization time, under a
/// name of its own (files of a module may share one unity translation unit, cmake/Unity.cmake):
/// `[[maybe_unused]] const bool kNameRegistered = RegisterCommand("name", &AddNameCommand);`
/// Several files may register the same name (subcommands of one group, see CommandGroup).
bool RegisterCommand(const char* name, AddCommand add);

/// The command group `name` of `app` (e.g. "bench"), created on first use with `description`:
/// several files may add subcommands to one group.
CLI::App* CommandGroup(CLI::App& app, const char* name, const char* description);

/// Adds the registered commands to `app`, in name order. When `chosen` names one of them, only
/// that one is built: a run pays for its own flag table, not for every command's.
void AddCommands(CLI::App& app, CommandResult& result, std::string_view chosen);

}  // namespace infermark::cli

// The command table: each command lives in its own file and registers itself on the root app.
// A command's callback stores its exit code in `CommandResult`; all logic lives in the modules.
#pragma once

#include <CLI/CLI.hpp>

namespace infermark::cli {

/// Exit code the chosen command produced (set by its callback).
struct CommandResult {
  int exit_code = 0;  ///< One of the kExit* codes.
};

/// Adds one command (its flags and callback) to the root app.
using AddCommand = void (*)(CLI::App& app, CommandResult& result);

/// Registers a command; each cmd_*.cpp does this once at static-initialization time:
/// `[[maybe_unused]] const bool kRegistered = RegisterCommand("name", &AddNameCommand);`
bool RegisterCommand(const char* name, AddCommand add);

/// Adds every registered command to `app`, in name order.
void AddAllCommands(CLI::App& app, CommandResult& result);

}  // namespace infermark::cli

// `infermark sweep KEY…`: matrix + run — every row of the named recipes at this site.
#include <memory>

#include "cli/cmd_run_flags.hpp"
#include "cli/commands.hpp"

namespace infermark::cli {
namespace {

void AddSweepCommand(CLI::App& app, CommandResult& result) {
  auto o = std::make_shared<runner::SweepCommandOptions>();
  auto* cmd = app.add_subcommand("sweep", "Sweep recipes: matrix test-config KEY... then run every row");
  cmd->add_option("keys", o->config_keys, "Config keys or globs")->required();
  AddSweepFlags(cmd, *o);
  cmd->callback([o, &result] { result.exit_code = RunSweepWithDefaults(*o); });
}

[[maybe_unused]] const bool kSweepRegistered = RegisterCommand("sweep", &AddSweepCommand);

}  // namespace
}  // namespace infermark::cli

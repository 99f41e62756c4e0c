// `infermark run`: execute matrix rows at this site — each row's server started, awaited, loaded
// and stopped, its result stored; resumable; failed rows recorded with their reason.
#include <memory>

#include "cli/cmd_run_flags.hpp"
#include "cli/commands.hpp"

namespace infermark::cli {
namespace {

void AddRunCommand(CLI::App& app, CommandResult& result) {
  auto o = std::make_shared<runner::SweepCommandOptions>();
  auto* cmd = app.add_subcommand(
      "run", "Run matrix rows (--matrix FILE from `infermark matrix`, or --config-keys) on this site's targets");
  cmd->add_option("--matrix", o->matrix_file, "Rows as JSON: `infermark matrix ... --format json|github` output");
  cmd->add_option("--config-keys", o->config_keys, "Config keys or globs, selected as `matrix test-config` does");
  AddSweepFlags(cmd, *o);
  cmd->callback([o, &result] { result.exit_code = RunSweepWithDefaults(*o); });
}

[[maybe_unused]] const bool kRunRegistered = RegisterCommand("run", &AddRunCommand);

}  // namespace
}  // namespace infermark::cli

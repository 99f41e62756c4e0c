// `infermark dashboard`: the read-only web dashboard over a results store (src/dashboard): the JSON
// API of docs/dashboard.md and the embedded page, on 127.0.0.1 unless --bind says otherwise (then
// with --token). Prints the URL it serves and runs until SIGINT or SIGTERM.
#include <csignal>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "dashboard/dashboard_server.hpp"
#include "report/price_table.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

struct DashboardFlags {
  dashboard::DashboardOptions options;
  std::string prices;
  double poll_s = 2;
};

int RunDashboard(DashboardFlags flags) {
  dashboard::DashboardOptions options = flags.options;
  if (flags.poll_s <= 0) throw InputError(Diagnostic{{}, "", "--poll", "must be a positive number of seconds"});
  options.poll = std::chrono::milliseconds(static_cast<long long>(flags.poll_s * 1000));
  if (flags.prices == "none") {
    options.price_dir.clear();
  } else if (!flags.prices.empty()) {
    options.price_dir = flags.prices;
  } else {
    try {
      options.price_dir = results::PriceDataDir();
    } catch (const InputError&) {
      std::cerr << "infermark dashboard: no price table found (data/prices): costs are left empty\n";
    }
  }
  // SIGINT and SIGTERM are taken by sigwait below: blocked before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  dashboard::DashboardServer server(std::move(options));
  server.Start();
  const auto snapshot = server.snapshot();
  std::cerr << "infermark dashboard: " << snapshot->runs.size() << " runs, " << snapshot->points.size()
            << " points from " << results::DisplayStoreUrl(flags.options.db) << " (" << snapshot->store_kind
            << ", schema " << snapshot->schema_version << ")\n";
  std::cout << "infermark dashboard: serving " << server.Url() << std::endl;
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::cerr << "infermark dashboard: " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM") << ", shutting down\n";
  server.Stop();
  return kExitOk;
}

void AddDashboardCommand(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<DashboardFlags>();
  flags->options.db = results::DefaultStorePath();
  auto* cmd = app.add_subcommand("dashboard",
                                 "Serve the read-only web dashboard over a results store: Pareto charts, GPU "
                                 "head-to-head, history and the JSON API (docs/dashboard.md)");
  cmd->add_option("--db", flags->options.db, "Results store: sqlite:PATH, a path, or postgresql://…")
      ->capture_default_str();
  cmd->add_option("--port", flags->options.port, "Port (0: pick a free one; the URL is printed)")
      ->capture_default_str();
  cmd->add_option("--bind", flags->options.bind, "Address to listen on (beyond this host needs --token)")
      ->capture_default_str();
  cmd->add_option("--token", flags->options.token,
                  "Require this token on the API (header Authorization: Bearer TOKEN, or token=TOKEN)");
  cmd->add_option("--prices", flags->prices, "Price table folder (default: data/prices; 'none': no costs)");
  cmd->add_option("--poll", flags->poll_s, "Seconds between checks of the store for new points")->capture_default_str();
  cmd->callback([flags, &result] { result.exit_code = RunDashboard(*flags); });
}

[[maybe_unused]] const bool kDashboardRegistered = RegisterCommand("dashboard", &AddDashboardCommand);

}  // namespace
}  // namespace infermark::cli

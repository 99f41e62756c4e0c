// infermark: continuous, reproducible benchmarking of LLM inference serving.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/argparse_compat.hpp"
#include "cli/commands.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/version.hpp"

int main(int argc, char** argv) {
  using namespace infermark;
  CLI::App app{"infermark: continuous, reproducible benchmarking of LLM inference serving", "infermark"};
  app.set_version_flag("--version", std::string("infermark ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  cli::CommandResult result;
  cli::AddCommands(app, result, argc > 1 ? argv[1] : "");
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "infermark: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
      return kExitBadInput;
    }
  }

  try {
    // Reference-compatible commands read their flags as argparse does (prefixes, last one wins).
    std::vector<std::string> args(argv + 1, argv + argc);
    args = cli::NormalizeArgparseStyle(app, std::move(args));
    std::reverse(args.begin(), args.end());  // CLI11 takes the vector form in reverse order
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << '\n';
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help for sub-apps that were asked; everything else is a usage error.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "infermark: " << e.what() << "\nRun with --help for usage.\n";
    return kExitBadInput;
  } catch (const InputError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    // Faults of the environment (a server that cannot be reached, a disk that cannot be written).
    std::cerr << "infermark: error: " << e.what() << '\n';
    return kExitRunFailed;
  } catch (const std::exception& e) {
    // Anything else is a bug (InternalError, a broken invariant, a JSON type error): never a verdict.
    std::cerr << "infermark: internal error (please report it): " << e.what() << '\n';
    return kExitInternal;
  }
  return result.exit_code;
}

// The flags that describe a modelled deployment (model, GPU, parallelism, precision, scheduler
// settings), shared by `infermark predict` and `infermark engine serve` so both read them alike.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "perfmodel/deployment.hpp"

namespace infermark::cli {

/// Flag values that need a step between CLI11 and DeploymentOptions.
struct DeploymentFlags {
  perfmodel::DeploymentOptions options;  ///< Filled directly by most flags.
  std::string acceptance;                ///< --acceptance as given.
  bool no_prefix_caching = false;        ///< --no-enable-prefix-caching.
  bool enable_prefix_caching = false;    ///< --enable-prefix-caching.
  bool disable_radix_cache = false;      ///< --disable-radix-cache (SGLang's spelling of the above).
  std::optional<int> page_size;          ///< --page-size (SGLang's spelling of --block-size).
};

/// Adds the deployment flags to `cmd`, writing into `flags` (which must outlive parsing).
void AddDeploymentFlags(CLI::App* cmd, DeploymentFlags& flags);

/// The options with the two-step flags applied; throws InputError for a bad --acceptance.
perfmodel::DeploymentOptions ResolveDeploymentFlags(const DeploymentFlags& flags);

}  // namespace infermark::cli

// What the built-in engine serves for a row, decided once: the deployment (the site's built-in
// model for the row's model id, the label's GPU, the row's parallelism, framework, precision and
// limits). A measured row passes it to `infermark engine serve` as flags; a predicted row builds
// the deployment in process. Both see the same settings.
#pragma once

#include <string>
#include <vector>

#include "matrix/matrix_row.hpp"
#include "perfmodel/deployment.hpp"
#include "runner/site_config.hpp"

namespace infermark::runner {

/// The framework the built-in engine models for a row's framework: sglang, trt, else vllm.
std::string EngineFramework(const std::string& framework);

/// The GPU a row's label runs on: its engine target's hardware, else the label's own name
/// (`cluster:mi355x-amds` → `mi355x`).
std::string LabelHardware(const SiteConfig& site, const std::string& label);

/// The name InferenceX's launchers give `row`'s script, without the framework part:
/// `<exp prefix>_<precision>_<gpu>[_mtp]` (`dsr1_fp8_b200`), `<gpu>` the label without `cluster:`
/// and after-`-` parts.
std::string LauncherRecipe(const matrix::MatrixRow& row);

/// The deployment of `row` on `hardware` with the site's entry for its model; a fixed-length
/// single-node row names its launcher (LauncherRecipe), whose memory flag the engine applies.
perfmodel::DeploymentOptions RowDeployment(const matrix::MatrixRow& row, const std::string& hardware,
                                           const ModelSite& model);

/// The `engine serve` command line for `deployment`, answering to `served_name`, with the prompt
/// `tokenizer` (empty: the model's default), on `port`, at `time_scale`, plus `extra` flags.
std::vector<std::string> EngineServeArgv(const std::string& infermark, const perfmodel::DeploymentOptions& deployment,
                                         const std::string& served_name, const std::string& tokenizer, int port,
                                         double time_scale, const std::vector<std::string>& extra);

}  // namespace infermark::runner

// `infermark engine kernel-table`: the step-time model beside a hardware profile, kernel class by
// kernel class (docs/engine-model.md, "The model beside the probe").
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/exit_codes.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/hardware_profile.hpp"
#include "perfmodel/kernel_table.hpp"

namespace infermark::cli {
namespace {

struct KernelTableFlags {
  std::string profile;
  std::string framework = "vllm";
  std::string hardware;
};

int RunKernelTable(const KernelTableFlags& f) {
  const perfmodel::EngineData& data = perfmodel::DefaultEngineData();
  const perfmodel::HardwareProfile profile = perfmodel::LoadHardwareProfile(f.profile);
  const perfmodel::HardwareSpec& hw = data.FindHardware(f.hardware.empty() ? profile.hardware : f.hardware);
  std::string source;
  perfmodel::EfficiencyFactors factors =
      perfmodel::ChooseEfficiency(data, data.FindFramework(f.framework), hw, &source);
  std::cout << "Model: " << hw.name << " datasheet with " << f.framework << " factors (" << source
            << "); probe: " << f.profile << " (" << profile.gpu_name << ", " << profile.measured_at << ")\n\n"
            << perfmodel::FormatKernelTable(perfmodel::CompareWithProbe(profile, hw, factors));
  return kExitOk;
}

void AddKernelTableCommand(CLI::App& app, CommandResult& result) {
  CLI::App* engine = CommandGroup(app, "engine", "The built-in engine: serve it over HTTP, calibrate its model");
  auto f = std::make_shared<KernelTableFlags>();
  auto* cmd = engine->add_subcommand(
      "kernel-table",
      "The step-time model beside a hardware profile (infermark gpu probe): ceilings, per-kernel cost and every "
      "probed GEMM by kernel class, measured over modelled");
  cmd->add_option("--hardware-profile", f->profile, "A profile written by infermark gpu probe")->required();
  cmd->add_option("--framework", f->framework, "Whose fitted factors the model uses")->capture_default_str();
  cmd->add_option("--hardware", f->hardware, "GPU of the model (default: the profile's)");
  cmd->callback([f, &result] { result.exit_code = RunKernelTable(*f); });
}

[[maybe_unused]] const bool kEngineKernelTableRegistered = RegisterCommand("engine", &AddKernelTableCommand);

}  // namespace
}  // namespace infermark::cli

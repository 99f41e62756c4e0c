// The engine's data catalog (data/engine/): hardware, models, quantization, frameworks and the
// calibrated profiles, loaded once and looked up by name or alias.
#pragma once

#include <string>
#include <vector>

#include "perfmodel/efficiency.hpp"
#include "perfmodel/framework.hpp"
#include "perfmodel/hardware.hpp"
#include "perfmodel/model_spec.hpp"
#include "perfmodel/quantization.hpp"
#include "perfmodel/recipe_memory.hpp"

namespace infermark::perfmodel {

/// Everything under data/engine/.
struct EngineData {
  std::string dir;                            ///< The folder it was read from.
  std::vector<HardwareSpec> hardware;         ///< hardware.yaml.
  std::vector<ModelSpec> models;              ///< models/*.yaml, sorted by name.
  QuantCatalog quant;                         ///< quantization.yaml.
  std::vector<FrameworkProfile> frameworks;   ///< frameworks.yaml.
  std::vector<CalibratedProfile> calibrated;  ///< calibrated/*.yaml.
  std::vector<RecipeMemory> recipe_memory;    ///< recipe_memory.yaml (empty where the folder has none).

  /// A GPU by name or alias (case-insensitive); throws InputError listing the known ones.
  [[nodiscard]] const HardwareSpec& FindHardware(const std::string& name) const;
  /// A built-in model by name or alias (case-insensitive), or a path to an HF config.json (or a
  /// folder holding one); throws InputError listing the known ones.
  [[nodiscard]] ModelSpec FindModel(const std::string& name_or_path) const;
  /// A framework by name (`trtllm`, `tensorrt-llm` also select `trt`); throws InputError.
  [[nodiscard]] const FrameworkProfile& FindFramework(const std::string& name) const;
  /// The calibrated profile for `framework` on exactly `scope` (hardware or vendor), or nullptr.
  [[nodiscard]] const CalibratedProfile* FindCalibrated(const std::string& framework, const std::string& scope) const;
};

/// The data folder: $INFERMARK_ENGINE_DATA, else the nearest `data/engine` above the current
/// directory, else the one beside the binary (or its share/infermark). Throws InputError.
std::string EngineDataDir();

/// Loads and validates every file under `dir`; throws one InputError with every problem found.
EngineData LoadEngineData(const std::string& dir);

/// LoadEngineData(EngineDataDir()), loaded once per process.
const EngineData& DefaultEngineData();

}  // namespace infermark::perfmodel

// The memory flags the InferenceX catalog's launcher scripts give their servers (SGLang
// --mem-fraction-static, vLLM --gpu-memory-utilization, and --kv-cache-dtype), as data
// (data/engine/recipe_memory.yaml): the catalog's rows name no server flags, and a recipe that
// overrides the framework's defaults fits deployments the defaults would refuse (DeepSeek-R1 FP8
// at TP 4 on B200 runs at 0.95 with an fp8 KV cache).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace infermark::perfmodel {

/// One launcher script's memory flag at one TP size.
struct RecipeMemory {
  std::string script;     ///< Launcher `<exp prefix>_<precision>_<gpu>[_mtp]` (`dsr1_fp8_b200`).
  std::string framework;  ///< The framework it serves with (`sglang`, `vllm`, `trt`).
  int tp = 1;             ///< The TP size the flag applies at.
  double fraction = 0;    ///< The memory fraction it passes (the framework's own flag).
  /// The --kv-cache-dtype it passes (`fp8_e4m3`); empty: none (the checkpoint's).
  std::string kv_cache_dtype;
};

/// Reads recipe_memory.yaml; throws InputError listing every problem (file:line).
std::vector<RecipeMemory> LoadRecipeMemoryFile(const std::string& path);

/// The flags `script` passes at `tp` with `framework`, if the file lists them.
std::optional<RecipeMemory> FindRecipeMemory(const std::vector<RecipeMemory>& recipes, const std::string& script,
                                             const std::string& framework, int tp);

}  // namespace infermark::perfmodel

// Where the project's own catalog lives when a command is given no files.
#pragma once

#include <string>
#include <vector>

namespace infermark::cli {

/// The `recipes/` folder: $INFERMARK_RECIPES, else the nearest `recipes/configs` above the current
/// directory, else the one installed beside the binary. Throws InputError when none is found.
std::string RecipesDir();

/// The project's catalog: recipes/configs/*-master.yaml, recipes/configs/runners.yaml and
/// recipes/perf-changelog.yaml.
std::vector<std::string> ProjectCatalogFiles();

/// Tunes the heap for a short run (core/fast_heap.hpp) when `files` add up to enough input to
/// make page faults the main cost; small inputs skip it, since the huge pages it touches cost more.
void TuneHeapForInputs(const std::vector<std::string>& files);

/// The project's master-config files (recipes/configs/*-master.yaml), sorted.
std::vector<std::string> ProjectMasterConfigs();

}  // namespace infermark::cli

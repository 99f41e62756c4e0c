// The project's engine data (data/engine: hardware, models, quantization, frameworks), read once
// per test binary, for the tests of the performance model and of what runs on it.
#pragma once

#include "perfmodel/engine_data.hpp"
#include "test_paths.hpp"

namespace infermark::test {

/// data/engine of the source tree, read on first use.
inline const perfmodel::EngineData& ProjectEngineData() {
  static const perfmodel::EngineData data = perfmodel::LoadEngineData(SourcePath("data/engine"));
  return data;
}

}  // namespace infermark::test

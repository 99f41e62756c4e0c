// Points a sweep served on a real engine, read from its processed agg records (the runner's
// `agg_<result>.json`, InferenceX's format) so that `engine calibrate --served` can fit a
// framework to them: tests/fixtures/real-gpu/h100 holds the lent H100's transformers sweep.
#pragma once

#include <string>
#include <vector>

#include "calibration/measured_points.hpp"

namespace infermark::calibration {

/// One MeasuredPoint per `agg_*.json` in `dir`, sorted by concurrency: its model id (the catalog
/// resolves aliases), `hw`, `framework`, `precision`, `isl`, `osl`, GPUs (`tp·pp·pcp`), `conc`,
/// `tput_per_gpu`, `median_intvty` and `median_e2el`; the prompts the client sent come from the raw
/// result beside it (`<result>.json`, `num_prompts`; 10 × conc when absent). `hw_key` is
/// `hw_framework`. Throws InputError (file, field) on a record without these fields.
std::vector<MeasuredPoint> LoadServedPoints(const std::string& dir);

}  // namespace infermark::calibration

// Measured serving points to calibrate against: the InferenceMAX dashboard export of October
// 2025 (data/engine/measured/), mapped onto the engine's catalog names.
#pragma once

#include <string>
#include <vector>

namespace infermark::calibration {

/// One measured point.
struct MeasuredPoint {
  std::string model;        ///< Catalog model name (`llama-3.3-70b`).
  std::string hw_key;       ///< The file's hardware key (`h200_trt`).
  std::string hardware;     ///< Catalog GPU (`h200`).
  std::string framework;    ///< `trt` (keys ending in `_trt`), else `vllm` (`sglang` for DeepSeek-R1).
  std::string precision;    ///< `fp8`, `fp4`.
  int isl = 0;              ///< Input length.
  int osl = 0;              ///< Output length.
  int tp = 0;               ///< GPUs.
  int conc = 0;             ///< Concurrency.
  double tput_per_gpu = 0;  ///< Total tokens/s per GPU.
  double intvty = 0;        ///< Median interactivity, tokens/s/user.
  double e2el = 0;          ///< Median end-to-end latency, s.
  int prompts = 0;          ///< Requests the client sent (0: 10 × conc, as InferenceX's sweeps do).
  int line = 0;             ///< Line in the file.
};

/// Reads measured_points.csv; throws InputError (file:line) on a malformed row or unknown model.
std::vector<MeasuredPoint> LoadMeasuredPoints(const std::string& path);

/// The same point measured twice (repeat_*.csv): its tput and interactivity on both dates.
struct RepeatedPoint {
  double tput_a = 0, tput_b = 0;      ///< tok/s/GPU on the first and second date.
  double intvty_a = 0, intvty_b = 0;  ///< tok/s/user on the first and second date.
};

/// Reads repeat_2025-10-25_vs_2025-10-28.csv.
std::vector<RepeatedPoint> LoadRepeatedPoints(const std::string& path);

}  // namespace infermark::calibration

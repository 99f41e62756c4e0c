// Every GPU telemetry sample of a row, per GPU and per field, as the store keeps it for the point
// page: read from nvidia-smi's CSV (what the runner's NVML sampler and InferenceX's monitor write)
// or from a multi-node row's DCGM-exporter package (`power/samples.csv`, power alone), and kept as
// one compact JSON document per GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// A telemetry field: its key in the stored series and the API, what it is, its unit.
struct GpuField {
  const char* key;    ///< `power_w`, `temperature_c`…
  const char* label;  ///< What a person reads.
  const char* unit;   ///< `W`, `°C`, `MHz`, `%`, `MiB`.
};

/// The fields a series may hold, in display order.
inline constexpr GpuField kGpuFields[] = {
    {"power_w", "Power", "W"},
    {"temperature_c", "Temperature", "°C"},
    {"sm_clock_mhz", "SM clock", "MHz"},
    {"memory_clock_mhz", "Memory clock", "MHz"},
    {"gpu_util_pct", "GPU utilisation", "%"},
    {"memory_util_pct", "Memory utilisation", "%"},
    {"memory_used_mib", "Memory used", "MiB"},
};

/// Where a series came from.
inline constexpr const char* kGpuSourceNvml = "nvml";  ///< nvidia-smi's CSV (the runner's sampler or a launcher's).
inline constexpr const char* kGpuSourceDcgm = "dcgm";  ///< A multi-node row's DCGM-exporter package.

/// One GPU's samples over a row.
struct GpuSeries {
  std::string source = kGpuSourceNvml;  ///< kGpuSourceNvml or kGpuSourceDcgm.
  std::string host;                     ///< The node (DCGM packages); empty for a single-node row.
  std::string gpu;                      ///< The GPU's id as written (`0`, `1`…).
  double start_unix = 0;                ///< Unix time of the first sample.
  std::vector<double> t_s;              ///< Each sample's time, seconds after start_unix.
  /// Per field of kGpuFields that the source has (absent fields have no entry): one value per
  /// sample, empty where the cell held none (`[N/A]`).
  std::vector<std::pair<std::string, std::vector<std::optional<double>>>> fields;

  /// The values of field `key`, or nullptr when the series has none.
  [[nodiscard]] const std::vector<std::optional<double>>* Field(const std::string& key) const;
};

/// The most samples a series keeps: a longer series is thinned evenly (every k-th sample, the last
/// kept), so a day-long row at 10 Hz stays a bounded document. 20,000 is 5.5 hours at 1 Hz.
inline constexpr std::size_t kMaxGpuSamples = 20000;

/// The series of an nvidia-smi CSV (`timestamp, index, power.draw [W], …`), one per GPU in the
/// reference's GPU order: rows whose timestamp does not parse are left out, as the power
/// aggregation leaves them out. Throws InputError naming `path` when it cannot be read or has no
/// timestamp column.
std::vector<GpuSeries> ReadGpuMetricsCsv(const std::string& path);

/// The series of a DCGM package's samples.csv (`timestamp_unix, hostname, gpu_index, power_w`…),
/// one per (host, GPU). Throws InputError naming `path` when it cannot be read or lacks a column.
std::vector<GpuSeries> ReadDcgmSamplesCsv(const std::string& path);

/// The stored form of `series`' samples: `{"t":[…],"power_w":[…],…}` (times to the millisecond).
Json GpuSamplesJson(const GpuSeries& series);

/// The samples of a stored document's text back into `series` (t_s and fields); a field whose
/// length differs from `t` is dropped, and text that is no such document leaves `series` empty.
void ReadGpuSamplesJson(std::string_view text, GpuSeries& series);

}  // namespace infermark::results

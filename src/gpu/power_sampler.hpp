// A thread that samples GPUs through NVML on a steady schedule and writes what it reads as
// nvidia-smi's CSV, the file InferenceX's power monitor writes (`nvidia-smi --query-gpu=timestamp,
// index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,
// utilization.memory --format=csv -l 1`), so the same power aggregation reads either. It also reads
// each GPU's energy counter when it starts and when it stops, and brackets the end as the reference
// does: one more sample after the stop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpu/nvml.hpp"

namespace infermark::gpu {

/// The CSV header nvidia-smi writes for the query above (the first line of the file).
inline constexpr const char* kGpuMetricsCsvHeader =
    "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], clocks.current.memory [MHz], "
    "utilization.gpu [%], utilization.memory [%]";

/// One CSV row as nvidia-smi writes it, e.g. `2026/12/04 15:01:02.345, 0, 412.34 W, 45, 1980 MHz, 3201 MHz,
/// 87 %, 40 %`: local wall-clock time to the millisecond, `[N/A]` for a reading the device lacks.
[[nodiscard]] std::string FormatGpuMetricsRow(std::chrono::system_clock::time_point when, unsigned index,
                                              const GpuReading& reading);

/// What to sample and where to write it.
struct PowerSamplerOptions {
  std::filesystem::path csv;   ///< The CSV written (created or truncated).
  double interval_s = 1.0;     ///< Seconds between sampling ticks (> 0; 0.1 and 1 are the usual).
  std::vector<unsigned> gpus;  ///< NVML indices to sample; empty: every GPU NVML sees.
};

/// One GPU's energy counter read at the start and at the stop of sampling.
struct GpuEnergyCounter {
  unsigned gpu = 0;               ///< NVML index.
  std::optional<double> start_j;  ///< Counter at start in joules; empty when the device has none.
  std::optional<double> end_j;    ///< Counter at stop in joules; empty when the device has none.
  /// end − start, empty when either read is missing.
  [[nodiscard]] std::optional<double> delta_j() const;
};

/// What a finished sampling run did.
struct PowerSamplerReport {
  std::filesystem::path csv;   ///< The CSV written.
  double interval_s = 0;       ///< The interval asked for.
  std::vector<unsigned> gpus;  ///< The GPUs sampled, in row order.
  /// When the energy counters were read at start (after the first tick), rounded up to the millisecond.
  double start_time_unix = 0;
  /// When they were read at stop (before the bracketing tick), rounded down to the millisecond.
  double end_time_unix = 0;
  std::size_t ticks = 0;                 ///< Sampling ticks written, the bracketing one included.
  std::size_t rows = 0;                  ///< CSV rows written (ticks × GPUs unless a write failed).
  std::size_t skipped_ticks = 0;         ///< Deadlines passed while a tick was still reading (fell behind).
  std::vector<GpuEnergyCounter> energy;  ///< Energy counters per GPU, in `gpus` order.
  std::string error;                     ///< Why sampling stopped early (an NVML or write failure); empty if not.
};

/// Samples on its own thread from Start to Stop. Deadlines are absolute (start + k·interval on the
/// steady clock), so the schedule does not drift with the time each tick takes; a tick that runs past
/// its successor's deadline skips it. Failures are recorded in the report, never thrown from the thread.
class PowerSampler {
 public:
  /// Checks the options (interval > 0, every GPU index known to NVML) and creates the CSV; throws
  /// std::invalid_argument for a bad option and std::runtime_error when the file cannot be written.
  PowerSampler(std::shared_ptr<const Nvml> nvml, PowerSamplerOptions options);
  /// Stops sampling if it still runs.
  ~PowerSampler();
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;

  /// Writes the header and the first tick, reads the energy counters, then starts the thread. Once only.
  void Start();
  /// Stops the thread, reads the energy counters, writes one more tick and closes the file; later
  /// calls return the same report.
  PowerSamplerReport Stop();

 private:
  void Run();
  void Tick();
  double ReadCounters(bool at_start);

  std::shared_ptr<const Nvml> nvml_;
  PowerSamplerOptions options_;
  std::ofstream out_;
  PowerSamplerReport report_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool started_ = false;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point origin_;
  std::thread thread_;
};

}  // namespace infermark::gpu

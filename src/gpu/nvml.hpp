// NVIDIA's management library (NVML) loaded at run time: libnvidia-ml.so.1 comes with the driver,
// so it is opened with dlopen when asked for, and a host without the driver only loses telemetry.
// The environment variable INFERMARK_NVML_LIBRARY names another library to load instead (tests load
// a scripted one).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace infermark::gpu {

/// NVML could not be used: the library is absent, lacks a function, or failed to initialize.
class NvmlUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What identifies one GPU.
struct GpuIdentity {
  unsigned index = 0;  ///< NVML's index (PCI order, as nvidia-smi's `index`).
  std::string name;    ///< Product name, e.g. "NVIDIA H200".
  std::string uuid;    ///< "GPU-…" UUID.
};

/// One GPU's readings at one moment; a reading the device does not support is empty.
struct GpuReading {
  std::optional<double> power_w;               ///< Board power draw in watts (NVML reports milliwatts).
  std::optional<unsigned> temperature_c;       ///< GPU core temperature in °C.
  std::optional<unsigned> sm_clock_mhz;        ///< Current SM clock.
  std::optional<unsigned> memory_clock_mhz;    ///< Current memory clock.
  std::optional<unsigned> gpu_utilization;     ///< Percent of time a kernel ran over the last sample period.
  std::optional<unsigned> memory_utilization;  ///< Percent of time device memory was read or written.
};

/// An initialized NVML; shut down when the last owner lets go. Its queries are thread-safe (NVML's are).
class Nvml {
 public:
  /// The library name searched when INFERMARK_NVML_LIBRARY is not set.
  static constexpr const char* kDefaultLibrary = "libnvidia-ml.so.1";
  /// The environment variable naming another NVML library to load.
  static constexpr const char* kLibraryVariable = "INFERMARK_NVML_LIBRARY";

  /// Loads and initializes NVML; throws NvmlUnavailable with one clear message when it cannot
  /// ("NVML (libnvidia-ml.so.1) not found: no NVIDIA driver on this host", a missing function, or
  /// nvmlInit's error string).
  static std::shared_ptr<const Nvml> Load();

  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  /// The path of the library that was loaded.
  [[nodiscard]] const std::string& library() const;
  /// Number of GPUs NVML sees.
  [[nodiscard]] unsigned DeviceCount() const;
  /// The driver's version string, e.g. "550.90.07".
  [[nodiscard]] std::string DriverVersion() const;
  /// Name and UUID of GPU `index`; throws NvmlUnavailable for an index NVML does not know.
  [[nodiscard]] GpuIdentity Identity(unsigned index) const;
  /// Power, temperature, clocks and utilization of GPU `index` now.
  [[nodiscard]] GpuReading Read(unsigned index) const;
  /// GPU `index`'s energy counter in joules (NVML: millijoules since the driver loaded); empty when
  /// the device has none (before Volta).
  [[nodiscard]] std::optional<double> EnergyJ(unsigned index) const;

  /// Implementation: the loaded library and its function table.
  struct Api;

 private:
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
};

/// Whether NVML loads here and sees at least one GPU (never throws): the test telemetry defaults use.
[[nodiscard]] bool NvmlSeesGpu();

}  // namespace infermark::gpu

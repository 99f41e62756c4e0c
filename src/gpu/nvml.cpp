#include "gpu/nvml.hpp"

#include <cstdlib>
#include <utility>

#include "gpu/dynamic_library.hpp"

namespace infermark::gpu {

namespace {

// The few NVML C declarations used here, from NVIDIA's public API reference (nvml.h).
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;
constexpr unsigned kNameBufferSize = 96;    // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kUuidBufferSize = 96;    // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr unsigned kDriverBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

}  // namespace

struct Nvml::Api {
  explicit Api(DynamicLibrary lib) : library(std::move(lib)) {}
  DynamicLibrary library;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*device_count)(unsigned*) = nullptr;
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*total_energy)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;

  [[nodiscard]] std::string Error(NvmlReturn code) const {
    const char* text = error_string(code);
    return text != nullptr ? std::string(text) : "NVML error " + std::to_string(code);
  }

  [[nodiscard]] NvmlDevice Device(unsigned index) const {
    NvmlDevice device = nullptr;
    const NvmlReturn rc = handle_by_index(index, &device);
    if (rc != kNvmlSuccess) throw NvmlUnavailable("NVML has no GPU " + std::to_string(index) + ": " + Error(rc));
    return device;
  }
};

std::shared_ptr<const Nvml> Nvml::Load() {
  const char* override_path = std::getenv(kLibraryVariable);
  const bool overridden = override_path != nullptr && *override_path != '\0';
  const std::string path = overridden ? override_path : kDefaultLibrary;
  std::unique_ptr<Api> api;
  try {
    api = std::make_unique<Api>(DynamicLibrary(path));
  } catch (const DynamicLibraryError& e) {
    if (!overridden) throw NvmlUnavailable("NVML (libnvidia-ml.so.1) not found: no NVIDIA driver on this host");
    throw NvmlUnavailable(std::string("NVML library from ") + kLibraryVariable + " " + e.what());
  }
  try {
    const DynamicLibrary& lib = api->library;
    api->init = lib.Function<decltype(api->init)>("nvmlInit_v2");
    api->shutdown = lib.Function<decltype(api->shutdown)>("nvmlShutdown");
    api->error_string = lib.Function<decltype(api->error_string)>("nvmlErrorString");
    api->device_count = lib.Function<decltype(api->device_count)>("nvmlDeviceGetCount_v2");
    api->handle_by_index = lib.Function<decltype(api->handle_by_index)>("nvmlDeviceGetHandleByIndex_v2");
    api->name = lib.Function<decltype(api->name)>("nvmlDeviceGetName");
    api->uuid = lib.Function<decltype(api->uuid)>("nvmlDeviceGetUUID");
    api->driver_version = lib.Function<decltype(api->driver_version)>("nvmlSystemGetDriverVersion");
    api->power_usage = lib.Function<decltype(api->power_usage)>("nvmlDeviceGetPowerUsage");
    api->total_energy = lib.Function<decltype(api->total_energy)>("nvmlDeviceGetTotalEnergyConsumption");
    api->clock_info = lib.Function<decltype(api->clock_info)>("nvmlDeviceGetClockInfo");
    api->temperature = lib.Function<decltype(api->temperature)>("nvmlDeviceGetTemperature");
    api->utilization = lib.Function<decltype(api->utilization)>("nvmlDeviceGetUtilizationRates");
  } catch (const DynamicLibraryError& e) {
    throw NvmlUnavailable(std::string("NVML is too old or incomplete: ") + e.what());
  }
  const NvmlReturn rc = api->init();
  if (rc != kNvmlSuccess) throw NvmlUnavailable("NVML failed to initialize: " + api->Error(rc));
  return std::shared_ptr<const Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
}

const std::string& Nvml::library() const {
  return api_->library.path();
}

unsigned Nvml::DeviceCount() const {
  unsigned count = 0;
  const NvmlReturn rc = api_->device_count(&count);
  if (rc != kNvmlSuccess) throw NvmlUnavailable("NVML cannot count GPUs: " + api_->Error(rc));
  return count;
}

std::string Nvml::DriverVersion() const {
  char buffer[kDriverBufferSize] = {};
  const NvmlReturn rc = api_->driver_version(buffer, kDriverBufferSize);
  if (rc != kNvmlSuccess) throw NvmlUnavailable("NVML cannot read the driver version: " + api_->Error(rc));
  return buffer;
}

GpuIdentity Nvml::Identity(unsigned index) const {
  const NvmlDevice device = api_->Device(index);
  GpuIdentity id;
  id.index = index;
  char name[kNameBufferSize] = {};
  if (api_->name(device, name, kNameBufferSize) == kNvmlSuccess) id.name = name;
  char uuid[kUuidBufferSize] = {};
  if (api_->uuid(device, uuid, kUuidBufferSize) == kNvmlSuccess) id.uuid = uuid;
  return id;
}

GpuReading Nvml::Read(unsigned index) const {
  const NvmlDevice device = api_->Device(index);
  GpuReading r;
  unsigned value = 0;
  if (api_->power_usage(device, &value) == kNvmlSuccess) r.power_w = value / 1000.0;
  if (api_->temperature(device, kNvmlTemperatureGpu, &value) == kNvmlSuccess) r.temperature_c = value;
  if (api_->clock_info(device, kNvmlClockSm, &value) == kNvmlSuccess) r.sm_clock_mhz = value;
  if (api_->clock_info(device, kNvmlClockMem, &value) == kNvmlSuccess) r.memory_clock_mhz = value;
  NvmlUtilization utilization{};
  if (api_->utilization(device, &utilization) == kNvmlSuccess) {
    r.gpu_utilization = utilization.gpu;
    r.memory_utilization = utilization.memory;
  }
  return r;
}

std::optional<double> Nvml::EnergyJ(unsigned index) const {
  const NvmlDevice device = api_->Device(index);
  unsigned long long millijoules = 0;
  if (api_->total_energy(device, &millijoules) != kNvmlSuccess) return std::nullopt;
  return static_cast<double>(millijoules) / 1000.0;
}

bool NvmlSeesGpu() {
  try {
    return Nvml::Load()->DeviceCount() > 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace infermark::gpu

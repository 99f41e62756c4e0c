// A scripted stand-in for libnvidia-ml.so.1, loaded through INFERMARK_NVML_LIBRARY so that the
// telemetry code runs on hosts without a GPU. It exports the NVML functions infermark uses. GPU g
// draws P_g(t) = base + 25·g + ramp·t + sine·sin(2πt/period) watts, t being seconds since the first
// nvmlInit_v2 of the process, and its energy counter is the exact integral of that power (plus an
// offset, as a counter that runs since the driver loaded). Environment (read at nvmlInit_v2):
//   INFERMARK_FAKE_NVML_GPUS        number of GPUs (default 2)
//   INFERMARK_FAKE_NVML_BASE_W      base power (default 300)
//   INFERMARK_FAKE_NVML_RAMP_W      ramp in W/s (default 10)
//   INFERMARK_FAKE_NVML_SINE_W      sine amplitude in W (default 30)
//   INFERMARK_FAKE_NVML_PERIOD_S    sine period in s (default 8)
//   INFERMARK_FAKE_NVML_NO_ENERGY   when set: the energy counter is not supported
//   INFERMARK_FAKE_NVML_FAIL_INIT   when set: nvmlInit_v2 fails as without a loaded driver
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <string>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kDriverNotLoaded = 9;

struct Script {
  unsigned gpus = 2;
  double base_w = 300;
  double ramp_w = 10;
  double sine_w = 30;
  double period_s = 8;
  bool energy = true;
  bool initialized = false;
  std::chrono::steady_clock::time_point origin;
};

Script& State() {
  static Script script;
  return script;
}

double EnvNumber(const char* name, double fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtod(text, nullptr) : fallback;
}

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - State().origin).count();
}

// Devices are handed out as (index + 1) cast to a pointer: never dereferenced.
unsigned Index(const void* device) {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(device) - 1);
}

bool Known(const void* device) {
  return device != nullptr && Index(device) < State().gpus;
}

double PowerW(unsigned gpu, double t) {
  const Script& s = State();
  return s.base_w + 25.0 * gpu + s.ramp_w * t + s.sine_w * std::sin(2 * std::numbers::pi * t / s.period_s);
}

double EnergyJ(unsigned gpu, double t) {
  const Script& s = State();
  const double offset = 1.0e6 * (gpu + 1);
  return offset + (s.base_w + 25.0 * gpu) * t + s.ramp_w * t * t / 2 +
         s.sine_w * s.period_s / (2 * std::numbers::pi) * (1 - std::cos(2 * std::numbers::pi * t / s.period_s));
}

int Text(const std::string& text, char* out, unsigned length) {
  if (out == nullptr || text.size() + 1 > length) return kInvalidArgument;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return kSuccess;
}

}  // namespace

extern "C" {

struct FakeUtilization {
  unsigned int gpu;
  unsigned int memory;
};

__attribute__((visibility("default"))) int nvmlInit_v2() {
  if (std::getenv("INFERMARK_FAKE_NVML_FAIL_INIT") != nullptr) return kDriverNotLoaded;
  Script& s = State();
  s.gpus = static_cast<unsigned>(EnvNumber("INFERMARK_FAKE_NVML_GPUS", 2));
  s.base_w = EnvNumber("INFERMARK_FAKE_NVML_BASE_W", 300);
  s.ramp_w = EnvNumber("INFERMARK_FAKE_NVML_RAMP_W", 10);
  s.sine_w = EnvNumber("INFERMARK_FAKE_NVML_SINE_W", 30);
  s.period_s = EnvNumber("INFERMARK_FAKE_NVML_PERIOD_S", 8);
  s.energy = std::getenv("INFERMARK_FAKE_NVML_NO_ENERGY") == nullptr;
  if (!s.initialized) s.origin = std::chrono::steady_clock::now();
  s.initialized = true;
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlShutdown() {
  return kSuccess;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(int result) {
  switch (result) {
    case kSuccess:
      return "Success";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = State().gpus;
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index >= State().gpus) return kInvalidArgument;
  *device = reinterpret_cast<void*>(static_cast<std::uintptr_t>(index) + 1);
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetName(void* device, char* name, unsigned length) {
  return Known(device) ? Text("Fake NVIDIA H200", name, length) : kInvalidArgument;
}

__attribute__((visibility("default"))) int nvmlDeviceGetUUID(void* device, char* uuid, unsigned length) {
  if (!Known(device)) return kInvalidArgument;
  char text[64];
  std::snprintf(text, sizeof text, "GPU-fa4e0000-0000-0000-0000-%012u", Index(device));
  return Text(text, uuid, length);
}

__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* version, unsigned length) {
  return Text("999.99.99", version, length);
}

__attribute__((visibility("default"))) int nvmlDeviceGetPowerUsage(void* device, unsigned* milliwatts) {
  if (!Known(device)) return kInvalidArgument;
  *milliwatts = static_cast<unsigned>(std::lround(PowerW(Index(device), Seconds()) * 1000));
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetTotalEnergyConsumption(void* device,
                                                                               unsigned long long* millijoules) {
  if (!Known(device)) return kInvalidArgument;
  if (!State().energy) return kNotSupported;
  *millijoules = static_cast<unsigned long long>(std::floor(EnergyJ(Index(device), Seconds()) * 1000));
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetClockInfo(void* device, int type, unsigned* mhz) {
  if (!Known(device)) return kInvalidArgument;
  *mhz = type == 1 ? 1980 : 3201;
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetTemperature(void* device, int, unsigned* celsius) {
  if (!Known(device)) return kInvalidArgument;
  *celsius = 40 + Index(device);
  return kSuccess;
}

__attribute__((visibility("default"))) int nvmlDeviceGetUtilizationRates(void* device, FakeUtilization* rates) {
  if (!Known(device)) return kInvalidArgument;
  rates->gpu = 87;
  rates->memory = 40;
  return kSuccess;
}

}  // extern "C"

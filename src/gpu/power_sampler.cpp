#include "gpu/power_sampler.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <stdexcept>
#include <utility>

namespace infermark::gpu {

namespace {

constexpr const char* kNotAvailable = "[N/A]";

double UnixSeconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

std::string WithUnit(const std::optional<unsigned>& value, const char* unit) {
  return value ? std::to_string(*value) + unit : kNotAvailable;
}

}  // namespace

std::string FormatGpuMetricsRow(std::chrono::system_clock::time_point when, unsigned index, const GpuReading& reading) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  const long millis = static_cast<long>(since_epoch.count() % 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[40];
  std::strftime(stamp, sizeof stamp, "%Y/%m/%d %H:%M:%S", &local);
  char power[32];
  if (reading.power_w) {
    std::snprintf(power, sizeof power, "%.2f W", *reading.power_w);
  } else {
    std::snprintf(power, sizeof power, "%s", kNotAvailable);
  }
  char millis_text[8];
  std::snprintf(millis_text, sizeof millis_text, ".%03ld", millis);
  return std::string(stamp) + millis_text + ", " + std::to_string(index) + ", " + power + ", " +
         WithUnit(reading.temperature_c, "") + ", " + WithUnit(reading.sm_clock_mhz, " MHz") + ", " +
         WithUnit(reading.memory_clock_mhz, " MHz") + ", " + WithUnit(reading.gpu_utilization, " %") + ", " +
         WithUnit(reading.memory_utilization, " %");
}

std::optional<double> GpuEnergyCounter::delta_j() const {
  if (!start_j || !end_j) return std::nullopt;
  return *end_j - *start_j;
}

PowerSampler::PowerSampler(std::shared_ptr<const Nvml> nvml, PowerSamplerOptions options)
    : nvml_(std::move(nvml)), options_(std::move(options)) {
  if (!(options_.interval_s > 0) || !std::isfinite(options_.interval_s)) {
    throw std::invalid_argument("the sampling interval must be a positive number of seconds");
  }
  const unsigned count = nvml_->DeviceCount();
  if (options_.gpus.empty()) {
    for (unsigned i = 0; i < count; ++i) options_.gpus.push_back(i);
  }
  for (unsigned gpu : options_.gpus) {
    if (gpu >= count) {
      throw std::invalid_argument("GPU " + std::to_string(gpu) + " does not exist (NVML sees " + std::to_string(count) +
                                  ")");
    }
  }
  if (!options_.csv.parent_path().empty()) std::filesystem::create_directories(options_.csv.parent_path());
  out_.open(options_.csv, std::ios::out | std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write " + options_.csv.string());
  report_.csv = options_.csv;
  report_.interval_s = options_.interval_s;
  report_.gpus = options_.gpus;
  for (unsigned gpu : options_.gpus) report_.energy.push_back(GpuEnergyCounter{gpu, std::nullopt, std::nullopt});
}

PowerSampler::~PowerSampler() {
  Stop();
}

void PowerSampler::Tick() {
  try {
    for (unsigned gpu : options_.gpus) {
      const auto when = std::chrono::system_clock::now();
      const GpuReading reading = nvml_->Read(gpu);
      out_ << FormatGpuMetricsRow(when, gpu, reading) << '\n';
      ++report_.rows;
    }
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write " + options_.csv.string());
    ++report_.ticks;
  } catch (const std::exception& e) {
    if (report_.error.empty()) report_.error = e.what();
  }
}

// The counters' read time (the middle of the reads) on the CSV's millisecond grid: rounded up at
// the start and down at the end, so that the ticks around the reads, whose times the CSV truncates
// to the millisecond, still bracket the window.
double PowerSampler::ReadCounters(bool at_start) {
  const auto before = std::chrono::system_clock::now();
  for (GpuEnergyCounter& counter : report_.energy) {
    try {
      (at_start ? counter.start_j : counter.end_j) = nvml_->EnergyJ(counter.gpu);
    } catch (const std::exception& e) {
      if (report_.error.empty()) report_.error = e.what();
    }
  }
  const auto after = std::chrono::system_clock::now();
  const double millis = (UnixSeconds(before) + UnixSeconds(after)) / 2 * 1000;
  return (at_start ? std::ceil(millis) : std::floor(millis)) / 1000;
}

void PowerSampler::Start() {
  if (started_) return;
  started_ = true;
  out_ << kGpuMetricsCsvHeader << '\n';
  origin_ = std::chrono::steady_clock::now();
  Tick();
  report_.start_time_unix = ReadCounters(true);
  thread_ = std::thread([this] { Run(); });
}

void PowerSampler::Run() {
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(options_.interval_s));
  std::size_t k = 1;
  std::unique_lock lock(mutex_);
  while (report_.error.empty()) {
    const auto deadline = origin_ + interval * static_cast<long>(k);
    if (wake_.wait_until(lock, deadline, [this] { return stopping_; })) return;
    lock.unlock();
    Tick();
    lock.lock();
    // The next deadline still ahead: ticks whose deadline passed while this one read are skipped.
    const auto now = std::chrono::steady_clock::now();
    std::size_t next = k + 1;
    while (origin_ + interval * static_cast<long>(next) <= now) {
      ++next;
      ++report_.skipped_ticks;
    }
    k = next;
  }
}

PowerSamplerReport PowerSampler::Stop() {
  if (!started_ || stopped_) return report_;
  stopped_ = true;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  report_.end_time_unix = ReadCounters(false);
  Tick();
  out_.close();
  return report_;
}

}  // namespace infermark::gpu

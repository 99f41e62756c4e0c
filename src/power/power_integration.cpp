#include "power/power_integration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "power/power_telemetry.hpp"
#include "power/python_csv.hpp"

namespace infermark::results {
namespace {

// 128-bit integers (a GCC extension) hold an exact sum of a few doubles.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

void AddReason(std::vector<std::string>& reasons, const std::string& reason) {
  if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(reason);
}

int BitLength(UInt128 v) {
  int bits = 0;
  while (v != 0) {
    ++bits;
    v >>= 1;
  }
  return bits;
}

double InterpolatePower(const std::vector<PowerSample>& samples, double t) {
  const auto it = std::lower_bound(samples.begin(), samples.end(), t,
                                   [](const PowerSample& s, double value) { return s.time_unix < value; });
  const auto right = static_cast<std::size_t>(it - samples.begin());
  if (right < samples.size() && std::fabs(samples[right].time_unix - t) <= 1e-9) return samples[right].watts;
  if (right == 0 || right >= samples.size()) throw std::logic_error("timestamp is not bracketed");
  const PowerSample& l = samples[right - 1];
  const PowerSample& r = samples[right];
  const double fraction = (t - l.time_unix) / (r.time_unix - l.time_unix);
  return l.watts + fraction * (r.watts - l.watts);
}

// The samples of one GPU: exact timestamps to every reading at that time, in time order.
struct DeviceReadings {
  std::string id;
  std::map<double, std::vector<double>> by_time;
};

}  // namespace

double ExactMean(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("mean of no values");
  // Each value is m·2^e with a 53-bit integer m; the exact sum is an integer times 2^e_min.
  std::vector<std::pair<long long, int>> parts;
  int e_min = 0;
  int e_max = 0;
  for (double v : values) {
    if (v == 0) continue;
    int e = 0;
    const double fraction = std::frexp(v, &e);
    const auto m = static_cast<long long>(std::ldexp(fraction, 53));
    e -= 53;
    if (parts.empty()) {
      e_min = e_max = e;
    } else {
      e_min = std::min(e_min, e);
      e_max = std::max(e_max, e);
    }
    parts.emplace_back(m, e);
  }
  const auto n = static_cast<unsigned long long>(values.size());
  if (parts.empty()) return 0.0;
  if (e_max - e_min > 127 - 55 - BitLength(n) - 1) {
    long double sum = 0;
    for (double v : values) sum += v;
    return static_cast<double>(sum / static_cast<long double>(n));
  }
  Int128 sum = 0;
  for (const auto& [m, e] : parts) sum += static_cast<Int128>(m) << (e - e_min);
  if (sum == 0) return 0.0;
  const bool negative = sum < 0;
  const auto a = static_cast<UInt128>(negative ? -sum : sum);
  const int shift = std::max(0, 55 + BitLength(n) - BitLength(a));
  const UInt128 scaled = a << shift;
  const UInt128 q = scaled / n;
  const bool sticky = scaled % n != 0;
  const int drop = BitLength(q) - 53;
  auto mantissa = static_cast<unsigned long long>(q >> drop);
  const UInt128 rest = q & ((static_cast<UInt128>(1) << drop) - 1);
  const UInt128 half = static_cast<UInt128>(1) << (drop - 1);
  if (rest > half || (rest == half && (sticky || (mantissa & 1U) != 0))) ++mantissa;
  const double magnitude = std::ldexp(static_cast<double>(mantissa), e_min - shift + drop);
  return negative ? -magnitude : magnitude;
}

double IntegrateDeviceEnergy(const std::vector<PowerSample>& samples, double start_unix, double end_unix) {
  std::vector<PowerSample> clipped{{start_unix, InterpolatePower(samples, start_unix)}};
  for (const PowerSample& s : samples) {
    if (start_unix < s.time_unix && s.time_unix < end_unix) clipped.push_back(s);
  }
  clipped.push_back({end_unix, InterpolatePower(samples, end_unix)});
  double energy_j = 0.0;
  for (std::size_t i = 1; i < clipped.size(); ++i) {
    const PowerSample& l = clipped[i - 1];
    const PowerSample& r = clipped[i];
    energy_j += (r.time_unix - l.time_unix) * (l.watts + r.watts) / 2.0;
  }
  return energy_j;
}

PowerIntegration EmptyPowerIntegration(std::optional<long long> expected_num_gpus, std::vector<std::string> reasons) {
  PowerIntegration out;
  out.valid = false;
  out.reasons = std::move(reasons);
  out.expected_num_gpus = expected_num_gpus;
  return out;
}

PowerIntegration IntegratePower(const std::string& csv_path, double start_unix, double end_unix,
                                std::optional<long long> expected_num_gpus, double max_sample_gap_s) {
  namespace fs = std::filesystem;
  std::vector<std::string> reasons;
  if (!std::isfinite(start_unix) || !std::isfinite(end_unix) || end_unix <= start_unix) {
    return EmptyPowerIntegration(expected_num_gpus, {"invalid_benchmark_window"});
  }
  if (expected_num_gpus && *expected_num_gpus <= 0) AddReason(reasons, "invalid_expected_gpu_count");
  if (!std::isfinite(max_sample_gap_s) || max_sample_gap_s <= 0) {
    return EmptyPowerIntegration(expected_num_gpus, {"invalid_max_sample_gap"});
  }

  std::error_code ec;
  if (csv_path.empty() || !fs::is_regular_file(csv_path, ec)) {
    AddReason(reasons, "telemetry_file_missing");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }
  const auto size = fs::file_size(csv_path, ec);
  if (ec) {
    AddReason(reasons, "telemetry_file_unreadable");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }
  if (size == 0) {
    AddReason(reasons, "telemetry_file_empty");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }
  std::ifstream in(csv_path, std::ios::binary);
  std::ostringstream buffer;
  if (in) buffer << in.rdbuf();
  if (!in || in.bad()) {
    AddReason(reasons, "telemetry_file_unreadable");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }
  const CsvDict csv = ParseCsvDict(buffer.str());
  if (!csv.has_header) {
    AddReason(reasons, "telemetry_file_unreadable");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }
  const TelemetryColumns columns = DetectTelemetryColumns(csv.header);
  if (!columns.timestamp) AddReason(reasons, "timestamp_column_missing");
  if (!columns.power) AddReason(reasons, "power_column_missing");
  if (!columns.gpu) AddReason(reasons, "gpu_identity_column_missing");
  if (!columns.timestamp || !columns.power || !columns.gpu) return EmptyPowerIntegration(expected_num_gpus, reasons);

  // Readings grouped by GPU and exact timestamp; duplicates are averaged below.
  std::vector<DeviceReadings> devices;
  std::unordered_map<std::string, std::size_t> device_index;
  bool saw_missing_gpu_identity = false;
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    const auto timestamp = ParseTelemetryTimestamp(csv.Get(row, *columns.timestamp).value_or(""));
    if (!timestamp || !std::isfinite(*timestamp)) {
      AddReason(reasons, "invalid_timestamp_sample");
      continue;
    }
    // Rows farther than one allowed gap from the window cannot affect it.
    if (*timestamp < start_unix - max_sample_gap_s || *timestamp > end_unix + max_sample_gap_s) continue;
    const auto power = ParseTelemetryPower(csv.Get(row, *columns.power).value_or(""));
    const std::string gpu_id(StripPython(csv.Get(row, *columns.gpu).value_or("")));
    if (!power || !std::isfinite(*power) || *power < 0) {
      AddReason(reasons, "invalid_power_sample");
      continue;
    }
    if (gpu_id.empty()) {
      saw_missing_gpu_identity = true;
      continue;
    }
    auto [it, added] = device_index.try_emplace(gpu_id, devices.size());
    if (added) devices.push_back({gpu_id, {}});
    devices[it->second].by_time[*timestamp].push_back(*power);
  }
  if (csv.read_error) {
    AddReason(reasons, "telemetry_file_unreadable");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }
  if (saw_missing_gpu_identity) AddReason(reasons, "gpu_identity_missing");
  if (devices.empty()) {
    AddReason(reasons, "no_usable_power_samples");
    return EmptyPowerIntegration(expected_num_gpus, reasons);
  }

  std::stable_sort(devices.begin(), devices.end(),
                   [](const DeviceReadings& a, const DeviceReadings& b) { return GpuIdBefore(a.id, b.id); });
  PowerIntegration out;
  out.expected_num_gpus = expected_num_gpus;
  for (const DeviceReadings& d : devices) out.observed_gpu_ids.push_back(d.id);
  if (expected_num_gpus && *expected_num_gpus > 0 && static_cast<long long>(devices.size()) != *expected_num_gpus) {
    AddReason(reasons, "expected_gpu_count_mismatch");
  }

  for (const DeviceReadings& d : devices) {
    std::vector<PowerSample> samples;
    samples.reserve(d.by_time.size());
    for (const auto& [time, readings] : d.by_time) samples.push_back({time, ExactMean(readings)});
    out.per_gpu_sample_counts.emplace_back(d.id, static_cast<long long>(samples.size()));
    std::vector<std::string> issues;
    if (samples.size() < 2) {
      issues.emplace_back("insufficient_power_samples");
    } else if (samples.front().time_unix > start_unix || samples.back().time_unix < end_unix) {
      issues.emplace_back("benchmark_window_not_bracketed");
    } else {
      const auto by_time = [](const PowerSample& s, double value) { return s.time_unix < value; };
      const auto after_start = std::upper_bound(samples.begin(), samples.end(), start_unix,
                                                [](double value, const PowerSample& s) { return value < s.time_unix; });
      const auto first_at_end = std::lower_bound(samples.begin(), samples.end(), end_unix, by_time);
      double max_gap = 0.0;
      bool first = true;
      for (auto it = after_start; it <= first_at_end; ++it) {
        const double gap = it->time_unix - (it - 1)->time_unix;
        if (first || gap > max_gap) max_gap = gap;
        first = false;
      }
      out.per_gpu_max_sample_gap_s.emplace_back(d.id, max_gap);
      if (max_gap > max_sample_gap_s) issues.emplace_back("sampling_gap_exceeded");
      out.per_gpu_energy_j.emplace_back(d.id, IntegrateDeviceEnergy(samples, start_unix, end_unix));
    }
    for (const std::string& issue : issues) AddReason(reasons, issue);
    if (!issues.empty()) out.device_issues.emplace_back(d.id, issues);
  }

  if (out.per_gpu_energy_j.size() == out.observed_gpu_ids.size()) {
    double total = 0.0;
    for (const auto& [id, energy] : out.per_gpu_energy_j) total += energy;
    out.total_gpu_energy_j = total;
    out.avg_total_gpu_power_w = total / (end_unix - start_unix);
    out.avg_power_w = *out.avg_total_gpu_power_w / static_cast<double>(out.observed_gpu_ids.size());
  }
  out.reasons = std::move(reasons);
  out.valid = out.reasons.empty();
  return out;
}

}  // namespace infermark::results

// Cells of a GPU telemetry CSV (nvidia-smi `--query-gpu … --format=csv`, amd-smi `metric --csv`)
// read as InferenceX's utils/aggregate_power.py reads them: which columns hold the time, the power
// and the GPU identity, timestamps as Unix seconds, power as watts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::results {

/// The columns a telemetry header names (stripped header names; nullopt where none matches).
struct TelemetryColumns {
  std::optional<std::string> timestamp;  ///< First name containing "time" (any case).
  /// First name containing "power" and none of "limit", "cap", "max", "min" (any case).
  std::optional<std::string> power;
  /// First name equal to one of index, gpu, gpu_id, gpu_index, card, device (any case).
  std::optional<std::string> gpu;
};

/// The columns of `header` as the reference picks them.
TelemetryColumns DetectTelemetryColumns(const std::vector<std::string>& header);

/// A timestamp cell as Unix seconds, or nullopt where the reference reads none. Tried in order:
/// a plain number (`-?\d+(\.\d+)?`, milliseconds when above 1e12); nvidia-smi's
/// `YYYY/MM/DD HH:MM:SS[.ffffff]` as local time (Python's strptime fields and ranges); ISO 8601 as
/// Python 3.11's `datetime.fromisoformat` reads it (a space becomes `T` when no `T` is present;
/// naive values are local time, offsets and `Z` honoured). Local time is converted as Python's
/// `datetime.timestamp()` converts it (the earlier time in a repeated hour, the pre-transition
/// offset in a skipped one), in the process's time zone (TZ).
std::optional<double> ParseTelemetryTimestamp(std::string_view cell);

/// A power cell as watts: the first number in it (`412.34 W` → 412.34), nullopt when it is empty,
/// `[N/A]`, `N/A`, `NA` (any case) or holds no number. Negative and infinite values are returned.
std::optional<double> ParseTelemetryPower(std::string_view cell);

/// The reference's GPU order: all-digit ids first, by numeric value, then the others by code point
/// (a strict weak order: ids of equal value, such as "1" and "01", are equivalent).
bool GpuIdBefore(std::string_view a, std::string_view b);

/// Python's `float(text)` for a stripped string: decimal with optional exponent, `_` between
/// digits, `inf`/`infinity`/`nan` in any case; nullopt where Python raises ValueError.
std::optional<double> ParsePythonFloat(std::string_view text);

/// An ISO 8601 date and time as Python 3.11's `datetime.fromisoformat` reads it.
struct IsoDateTime {
  /// Microseconds since the Unix epoch: exact for an aware value; a naive value's wall time read as UTC.
  long long micros = 0;
  bool aware = false;  ///< The text gave `Z` or a UTC offset.
};

/// `text` (no surrounding spaces) as `datetime.fromisoformat` reads it; nullopt where it raises.
std::optional<IsoDateTime> ParseIsoDateTime(std::string_view text);

/// Microseconds as seconds, rounded once as Python's `timedelta / timedelta(seconds=1)`.
double MicrosToSeconds(long long micros);

}  // namespace infermark::results

#include "power/power_telemetry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <mutex>

#include "power/python_csv.hpp"

namespace infermark::results {
namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(const std::string& lowered, std::string_view needle) {
  return lowered.find(needle) != std::string::npos;
}

// The match of `-?\d+(?:\.\d+)?` starting at `at`, or 0 when none starts there.
std::size_t NumberAt(std::string_view text, std::size_t at) {
  std::size_t i = at;
  if (i < text.size() && text[i] == '-') ++i;
  const std::size_t digits = i;
  while (i < text.size() && IsDigit(text[i])) ++i;
  if (i == digits) return 0;
  if (i + 1 < text.size() && text[i] == '.' && IsDigit(text[i + 1])) {
    i += 2;
    while (i < text.size() && IsDigit(text[i])) ++i;
  }
  return i - at;
}

double ToDouble(std::string_view number) {
  return std::strtod(std::string(number).c_str(), nullptr);
}

// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's days_from_civil).
long long DaysFromCivil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool IsLeap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// A broken-down time, as Python's datetime holds it before a time zone applies.
struct Civil {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, microsecond = 0;

  bool Valid() const {
    return year >= 1 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month) &&
           hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && microsecond >= 0 &&
           microsecond <= 999999;
  }
  long long UtcSeconds() const {
    return DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 + hour * 3600LL +
           minute * 60LL + second;
  }
};

// The local wall clock at Unix time `u`, as seconds since the epoch read as UTC.
std::optional<long long> Local(long long u) {
  static std::once_flag tz_once;
  std::call_once(tz_once, [] { tzset(); });
  const auto t = static_cast<std::time_t>(u);
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return std::nullopt;
  const Civil c{tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, 0};
  return c.UtcSeconds();
}

// CPython's local_to_seconds with fold=0: the Unix time whose local wall clock is `t`; in a
// repeated hour the earlier one, in a skipped hour the later of the two candidate offsets' results.
std::optional<long long> LocalToSeconds(long long t) {
  constexpr long long kMaxFold = 24 * 3600;
  const auto lt = Local(t);
  if (!lt) return std::nullopt;
  const long long a = *lt - t;
  const long long u1 = t - a;
  const auto t1 = Local(u1);
  if (!t1) return std::nullopt;
  long long b = 0;
  if (*t1 == t) {
    const long long u2 = u1 - kMaxFold;
    const auto lt2 = Local(u2);
    if (!lt2) return std::nullopt;
    b = *lt2 - u2;
    if (a == b) return u1;
  } else {
    b = *t1 - u1;
  }
  const long long u2 = t - b;
  const auto t2 = Local(u2);
  if (!t2) return std::nullopt;
  if (*t2 == t) return u2;
  if (*t1 == t) return u1;
  return std::max(u1, u2);
}

// A naive datetime's `timestamp()`: local seconds plus the microseconds.
std::optional<double> NaiveTimestamp(const Civil& c) {
  if (!c.Valid()) return std::nullopt;
  const auto seconds = LocalToSeconds(c.UtcSeconds());
  if (!seconds) return std::nullopt;
  return static_cast<double>(*seconds) + c.microsecond / 1e6;
}

// --- strptime("%Y/%m/%d %H:%M:%S[.%f]") --------------------------------------------------------

bool IsRegexSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

// The 1–2 digit field at `at`: the whole digit run, which the following literal forces the regex
// to consume, checked against the field's alternatives.
std::optional<int> SmallField(std::string_view s, std::size_t& at, int two_digit_max, bool single_zero_ok) {
  std::size_t end = at;
  while (end < s.size() && IsDigit(s[end])) ++end;
  const std::size_t n = end - at;
  if (n == 0 || n > 2) return std::nullopt;
  const int value = n == 1 ? s[at] - '0' : (s[at] - '0') * 10 + (s[at + 1] - '0');
  if (n == 1 && value == 0 && !single_zero_ok) return std::nullopt;
  if (n == 2 && (value > two_digit_max || (value == 0 && !single_zero_ok))) return std::nullopt;
  at = end;
  return value;
}

bool Literal(std::string_view s, std::size_t& at, char c) {
  if (at >= s.size() || s[at] != c) return false;
  ++at;
  return true;
}

std::optional<double> ParseNvidiaSmi(std::string_view s, bool with_fraction) {
  Civil c;
  std::size_t at = 0;
  if (s.size() < 4 || !std::all_of(s.begin(), s.begin() + 4, IsDigit)) return std::nullopt;
  c.year = std::atoi(std::string(s.substr(0, 4)).c_str());
  at = 4;
  if (!Literal(s, at, '/')) return std::nullopt;
  // %m: 1[0-2] | 0[1-9] | [1-9]
  const auto month = SmallField(s, at, 12, false);
  if (!month || !Literal(s, at, '/')) return std::nullopt;
  c.month = *month;
  // %d: 3[01] | [12]\d | 0[1-9] | [1-9] | " "[1-9]
  if (at < s.size() && s[at] == ' ') {
    if (at + 1 >= s.size() || s[at + 1] < '1' || s[at + 1] > '9') return std::nullopt;
    c.day = s[at + 1] - '0';
    at += 2;
  } else {
    const auto day = SmallField(s, at, 31, false);
    if (!day) return std::nullopt;
    c.day = *day;
  }
  // \s+
  const std::size_t spaces = at;
  while (at < s.size() && IsRegexSpace(s[at])) ++at;
  if (at == spaces) return std::nullopt;
  // %H: 2[0-3] | [01]\d | \d;  %M: [0-5]\d | \d;  %S: 6[01] | [0-5]\d | \d
  const auto hour = SmallField(s, at, 23, true);
  if (!hour || !Literal(s, at, ':')) return std::nullopt;
  const auto minute = SmallField(s, at, 59, true);
  if (!minute || !Literal(s, at, ':')) return std::nullopt;
  const auto second = SmallField(s, at, 61, true);
  if (!second) return std::nullopt;
  c.hour = *hour;
  c.minute = *minute;
  c.second = *second;
  if (with_fraction) {
    // \.  then %f: [0-9]{1,6}, and nothing after it.
    if (!Literal(s, at, '.')) return std::nullopt;
    const std::size_t digits = s.size() - at;
    if (digits == 0 || digits > 6 || !std::all_of(s.begin() + static_cast<long>(at), s.end(), IsDigit)) {
      return std::nullopt;
    }
    std::string fraction(s.substr(at));
    fraction.append(6 - fraction.size(), '0');
    c.microsecond = std::atoi(fraction.c_str());
    at = s.size();
  }
  if (at != s.size()) return std::nullopt;
  return NaiveTimestamp(c);
}

// --- datetime.fromisoformat (CPython 3.11's C implementation) ------------------------------------

class IsoText {
 public:
  explicit IsoText(std::string_view s) : s_(s) {}
  char At(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  std::size_t size() const { return s_.size(); }
  // Exactly `n` ASCII digits at `at`.
  bool Digits(std::size_t& at, std::size_t n, int& value) const {
    value = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = At(at + i);
      if (!IsDigit(c)) return false;
      value = value * 10 + (c - '0');
    }
    at += n;
    return true;
  }

 private:
  std::string_view s_;
};

std::optional<std::size_t> IsoSeparator(const IsoText& s) {
  const std::size_t len = s.size();
  if (len == 7) return 7;
  if (s.At(4) == '-') {
    if (s.At(5) == 'W') {
      if (len < 8) return std::nullopt;
      if (len > 8 && s.At(8) == '-') {
        if (len == 9) return std::nullopt;
        if (len > 10 && IsDigit(s.At(10))) return 8;
        return 10;
      }
      return 8;
    }
    return 10;
  }
  if (s.At(4) == 'W') {
    std::size_t idx = 7;
    while (idx < len && IsDigit(s.At(idx))) ++idx;
    if (idx < 9) return idx;
    return idx % 2 == 0 ? 7 : 8;
  }
  return 8;
}

// ISO year/week/day to a calendar date, as date.fromisocalendar (false where it raises).
bool IsoWeekToDate(int year, int week, int day, Civil& c) {
  if (year < 1 || year > 9999) return false;
  if (week <= 0 || week >= 53) {
    bool out_of_range = true;
    if (week == 53) {
      // Years starting on a Thursday, and leap years starting on a Wednesday, have 53 weeks.
      const long long jan1 = DaysFromCivil(year, 1, 1);
      const long long weekday = ((jan1 % 7) + 7 + 3) % 7;  // 0 = Monday
      if (weekday == 3 || (weekday == 2 && IsLeap(year))) out_of_range = false;
    }
    if (out_of_range) return false;
  }
  if (day <= 0 || day >= 8) return false;
  const long long jan1 = DaysFromCivil(year, 1, 1);
  const long long jan1_weekday = ((jan1 % 7) + 7 + 3) % 7;
  long long week1_monday = jan1 - jan1_weekday;
  if (jan1_weekday > 3) week1_monday += 7;
  const long long days = week1_monday + (week - 1) * 7LL + (day - 1);
  // Back to a civil date (Howard Hinnant's civil_from_days).
  const long long z = days + 719468;
  const long long era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  c.year = static_cast<int>(static_cast<long long>(yoe) + era * 400 + (m <= 2));
  c.month = static_cast<int>(m);
  c.day = static_cast<int>(d);
  return true;
}

bool IsoDate(const IsoText& s, std::size_t len, Civil& c) {
  std::size_t p = 0;
  if (!s.Digits(p, 4, c.year)) return false;
  const bool sep = s.At(p) == '-';
  if (sep) ++p;
  if (s.At(p) == 'W') {
    ++p;
    int week = 0;
    int day = 1;
    if (!s.Digits(p, 2, week)) return false;
    if (p < len) {
      if (sep && s.At(p++) != '-') return false;
      if (!s.Digits(p, 1, day)) return false;
    }
    return IsoWeekToDate(c.year, week, day, c);
  }
  if (!s.Digits(p, 2, c.month)) return false;
  if (sep && s.At(p++) != '-') return false;
  return s.Digits(p, 2, c.day);
}

// parse_hh_mm_ss_ff over [begin, end): -1 on error, else 0 at the end of the text, 1 otherwise.
int HhMmSsFf(const IsoText& s, std::size_t begin, std::size_t end, int* values, int& microsecond) {
  values[0] = values[1] = values[2] = 0;
  microsecond = 0;
  std::size_t p = begin;
  bool has_separator = true;
  bool fraction = false;
  for (int i = 0; i < 3; ++i) {
    if (!s.Digits(p, 2, values[i])) return -1;
    const char c = s.At(p++);
    if (i == 0) has_separator = c == ':';
    if (p >= end) return c != '\0' ? 1 : 0;
    if (has_separator && c == ':') continue;
    if (c == '.' || c == ',') {
      fraction = true;
      break;
    }
    if (!has_separator) {
      --p;
    } else {
      return -1;
    }
  }
  (void)fraction;
  const std::size_t remains = end > p ? end - p : 0;
  const std::size_t to_parse = std::min<std::size_t>(remains, 6);
  if (!s.Digits(p, to_parse, microsecond)) return -1;
  static constexpr int kCorrection[] = {100000, 10000, 1000, 100, 10};
  if (to_parse > 0 && to_parse < 6) microsecond *= kCorrection[to_parse - 1];
  while (IsDigit(s.At(p))) ++p;
  return s.At(p) != '\0' ? 1 : 0;
}

// Python 3.11's `datetime.fromisoformat`: the exact microsecond count since the epoch of an aware
// value, or of a naive value's wall time read as UTC.
struct IsoParsed {
  long long micros = 0;
  bool aware = false;
  Civil civil;
};

std::optional<IsoParsed> ParseIsoMicros(std::string_view text) {
  if (text.size() < 7) return std::nullopt;
  const IsoText s(text);
  const auto separator = IsoSeparator(s);
  if (!separator) return std::nullopt;
  Civil c;
  if (!IsoDate(s, *separator, c)) return std::nullopt;
  bool aware = false;
  long long offset_us = 0;
  if (text.size() > *separator) {
    const std::size_t begin = *separator + 1;
    const std::size_t end = text.size();
    std::size_t tz = begin;
    do {
      const char ch = s.At(tz);
      if (ch == 'Z' || ch == '+' || ch == '-') break;
    } while (++tz < end);
    int hms[3];
    const int rv = HhMmSsFf(s, begin, tz, hms, c.microsecond);
    if (rv < 0) return std::nullopt;
    c.hour = hms[0];
    c.minute = hms[1];
    c.second = hms[2];
    if (tz >= end) {
      if (rv == 1) return std::nullopt;
    } else if (s.At(tz) == 'Z') {
      if (s.At(tz + 1) != '\0') return std::nullopt;
      aware = true;
    } else {
      const int sign = s.At(tz) == '-' ? -1 : 1;
      int tz_hms[3];
      int tz_us = 0;
      if (HhMmSsFf(s, tz + 1, end, tz_hms, tz_us) != 0) return std::nullopt;
      offset_us = sign * ((tz_hms[0] * 3600LL + tz_hms[1] * 60LL + tz_hms[2]) * 1000000LL + tz_us);
      if (offset_us <= -86400LL * 1000000LL || offset_us >= 86400LL * 1000000LL) return std::nullopt;
      aware = true;
    }
  }
  if (!c.Valid()) return std::nullopt;
  return IsoParsed{c.UtcSeconds() * 1000000LL + c.microsecond - offset_us, aware, c};
}

}  // namespace

double MicrosToSeconds(long long total_us) {
  if (std::llabs(total_us) < (1LL << 53)) return static_cast<double>(total_us) / 1e6;
  return static_cast<double>(static_cast<long double>(total_us) / 1e6L);
}

namespace {

std::optional<double> ParseIso(std::string_view text) {
  const auto parsed = ParseIsoMicros(text);
  if (!parsed) return std::nullopt;
  if (!parsed->aware) return NaiveTimestamp(parsed->civil);
  return MicrosToSeconds(parsed->micros);
}

}  // namespace

TelemetryColumns DetectTelemetryColumns(const std::vector<std::string>& header) {
  TelemetryColumns columns;
  for (const std::string& name : header) {
    const std::string lowered = Lower(name);
    if (!columns.timestamp && Contains(lowered, "time")) columns.timestamp = name;
    if (!columns.power && Contains(lowered, "power") && !Contains(lowered, "limit") && !Contains(lowered, "cap") &&
        !Contains(lowered, "max") && !Contains(lowered, "min")) {
      columns.power = name;
    }
    const std::string bare = Lower(StripPython(name));
    if (!columns.gpu && (bare == "index" || bare == "gpu" || bare == "gpu_id" || bare == "gpu_index" ||
                         bare == "card" || bare == "device")) {
      columns.gpu = name;
    }
  }
  return columns;
}

std::optional<double> ParseTelemetryTimestamp(std::string_view cell) {
  const std::string_view value = StripPython(cell);
  if (value.empty()) return std::nullopt;
  if (NumberAt(value, 0) == value.size()) {
    const double n = ToDouble(value);
    return n > 1e12 ? n / 1000.0 : n;
  }
  if (auto t = ParseNvidiaSmi(value, true)) return t;
  if (auto t = ParseNvidiaSmi(value, false)) return t;
  std::string iso(value);
  if (iso.find(' ') != std::string::npos && iso.find('T') == std::string::npos) iso[iso.find(' ')] = 'T';
  return ParseIso(iso);
}

std::optional<double> ParseTelemetryPower(std::string_view cell) {
  const std::string_view value = StripPython(cell);
  if (value.empty()) return std::nullopt;
  const std::string lowered = Lower(value);
  if (lowered == "[n/a]" || lowered == "n/a" || lowered == "na") return std::nullopt;
  for (std::size_t at = 0; at < value.size(); ++at) {
    if (const std::size_t n = NumberAt(value, at)) return ToDouble(value.substr(at, n));
  }
  return std::nullopt;
}

bool GpuIdBefore(std::string_view a, std::string_view b) {
  const auto numeric = [](std::string_view id) { return !id.empty() && std::all_of(id.begin(), id.end(), IsDigit); };
  const bool na = numeric(a);
  const bool nb = numeric(b);
  if (na != nb) return na;
  if (!na) return a < b;
  const auto trim = [](std::string_view id) {
    const std::size_t first = id.find_first_not_of('0');
    return first == std::string_view::npos ? std::string_view() : id.substr(first);
  };
  const std::string_view ta = trim(a);
  const std::string_view tb = trim(b);
  if (ta.size() != tb.size()) return ta.size() < tb.size();
  return ta < tb;
}

std::optional<double> ParsePythonFloat(std::string_view raw) {
  const std::string_view text = StripPython(raw);
  std::size_t at = 0;
  std::string clean;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) clean += text[at++];
  const std::string rest = Lower(text.substr(at));
  if (rest == "inf" || rest == "infinity") return clean == "-" ? -HUGE_VAL : HUGE_VAL;
  if (rest == "nan") return std::nan("");
  // digitpart: digits with single underscores between them.
  const auto digitpart = [&](std::size_t& i) {
    const std::size_t start = i;
    while (i < text.size()) {
      if (IsDigit(text[i])) {
        clean += text[i++];
      } else if (text[i] == '_' && i > start && IsDigit(text[i - 1]) && i + 1 < text.size() && IsDigit(text[i + 1])) {
        ++i;
      } else {
        break;
      }
    }
    return i > start;
  };
  const bool whole = digitpart(at);
  bool fraction = false;
  if (at < text.size() && text[at] == '.') {
    clean += text[at++];
    fraction = digitpart(at);
  }
  if (!whole && !fraction) return std::nullopt;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    clean += text[at++];
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) clean += text[at++];
    if (!digitpart(at)) return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

std::optional<IsoDateTime> ParseIsoDateTime(std::string_view text) {
  const auto parsed = ParseIsoMicros(text);
  if (!parsed) return std::nullopt;
  return IsoDateTime{parsed->micros, parsed->aware};
}

}  // namespace infermark::results

#include "cli/gpu_probe_power.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <exception>
#include <fstream>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>
#include <string>

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;

// The first number in a cell ("412.34 W" → 412.34); nullopt for "[N/A]".
std::optional<double> CellNumber(const std::string& cell) {
  const std::size_t start = cell.find_first_of("0123456789");
  if (start == std::string::npos) return std::nullopt;
  try {
    return std::stod(cell.substr(start));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// nvidia-smi's `YYYY/MM/DD HH:MM:SS.mmm` in local time, as the sampler writes it.
std::optional<double> CellTime(const std::string& cell) {
  std::tm tm{};
  std::istringstream in(cell);
  in >> std::get_time(&tm, "%Y/%m/%d %H:%M:%S");
  if (in.fail()) return std::nullopt;
  double fraction = 0;
  if (in.peek() == '.') {
    std::string digits;
    in >> digits;
    try {
      fraction = std::stod("0" + digits);
    } catch (const std::exception&) {
      fraction = 0;
    }
  }
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + fraction;
}

}  // namespace

std::vector<PowerSample> ReadPowerCsv(const fs::path& csv, unsigned gpu) {
  std::vector<PowerSample> out;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(", ", start);
      cells.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 2;
    }
    if (cells.size() < 6 || cells[1] != std::to_string(gpu)) continue;
    const std::optional<double> when = CellTime(cells[0]);
    const std::optional<double> power = CellNumber(cells[2]);
    if (!when || !power) continue;
    out.push_back({*when, *power, CellNumber(cells[4]).value_or(0), CellNumber(cells[5]).value_or(0)});
  }
  return out;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}
perfmodel::ProbedPower Windows(const std::vector<PowerSample>& samples,
                               const std::vector<std::pair<double, double>>& windows, double interval) {
  perfmodel::ProbedPower p;
  std::set<const PowerSample*> inside;
  for (const auto& [start, end] : windows) {
    bool any = false;
    for (const PowerSample& s : samples) {
      if (s.unix >= start && s.unix <= end) {
        inside.insert(&s);
        any = true;
      }
    }
    if (any) continue;
    const double mid = 0.5 * (start + end);
    const PowerSample* best = nullptr;
    for (const PowerSample& s : samples)
      if (best == nullptr || std::abs(s.unix - mid) < std::abs(best->unix - mid)) best = &s;
    if (best != nullptr && best->unix >= start - interval && best->unix <= end + interval) inside.insert(best);
  }
  if (inside.empty()) return p;
  std::vector<double> sm, mem;
  double sum = 0;
  for (const PowerSample* s : inside) {
    sum += s->power_w;
    sm.push_back(s->sm_mhz);
    mem.push_back(s->mem_mhz);
  }
  p.avg_power_w = sum / static_cast<double>(inside.size());
  p.sm_clock_mhz = Median(sm);
  p.mem_clock_mhz = Median(mem);
  return p;
}

std::vector<std::pair<double, double>> TestWindows(const Json& test) {
  std::vector<std::pair<double, double>> out;
  const auto it = test.find("windows");
  if (it != test.end() && it->is_array()) {
    for (const Json& w : *it)
      if (w.is_array() && w.size() == 2 && w[0].is_number() && w[1].is_number())
        out.emplace_back(w[0].get<double>(), w[1].get<double>());
  }
  if (out.empty()) {
    const auto start = test.find("start"), end = test.find("end");
    if (start != test.end() && end != test.end() && start->is_number() && end->is_number())
      out.emplace_back(start->get<double>(), end->get<double>());
  }
  return out;
}

}  // namespace infermark::cli

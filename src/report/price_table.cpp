#include "report/price_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <utility>

#include "core/field_reader.hpp"
#include "core/yaml_node.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool IsDay(const std::string& text) {
  static const std::regex kDay(R"(\d{4}-\d{2}-\d{2})");
  return std::regex_match(text, kDay);
}

bool IsKey(const std::string& text) {
  static const std::regex kKey(R"([a-z0-9][a-z0-9.]*)");
  return std::regex_match(text, kKey);
}

std::string Where(const SourceMark& mark) {
  return mark.file + ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
}

// One `prices` block: date, tier, source, url and the GPU → price mapping.
void ReadBlock(const ReadContext& context, const YamlNode& node, std::vector<GpuPrice>& out) {
  FieldReader block(context, node, "");
  if (!block.ok()) return;
  std::optional<std::string> date;
  if (const YamlNode* d = block.Get("date"); d == nullptr) {
    context.Report(&node, "date", "field required");
  } else if ((d->kind != YamlKind::kTimestamp && d->kind != YamlKind::kString) || !IsDay(d->text)) {
    context.Report(d, "date", "must be a day written YYYY-MM-DD, not '" + d->text + "'");
  } else {
    date = d->text;
  }
  const auto tier = block.String("tier", Need::kRequired, 1);
  if (tier && !IsKey(*tier)) context.Report(block.Get("tier"), "tier", "must be a lowercase name ([a-z0-9.])");
  const auto source = block.String("source", Need::kRequired, 1);
  const auto url = block.String("url", Need::kRequired, 1);
  const YamlNode* prices = block.Mapping("usd_per_gpu_hour", Need::kRequired);
  block.RejectUnknown();
  if (prices == nullptr) return;
  for (const auto& [key, value] : prices->entries) {
    const std::string field = JoinPath("usd_per_gpu_hour", key.text);
    if (key.kind != YamlKind::kString || !IsKey(key.text)) {
      context.Report(&key, field, "a GPU key is a lowercase base name ([a-z0-9.]), e.g. h100");
      continue;
    }
    double usd = 0;
    if (value.kind == YamlKind::kInt) {
      usd = static_cast<double>(value.int_value);
    } else if (value.kind == YamlKind::kFloat) {
      usd = value.float_value;
    } else {
      context.Report(&value, field, "must be a number (USD per GPU-hour), not " + std::string(value.TypeName()));
      continue;
    }
    if (!(usd > 0) || !std::isfinite(usd)) {
      context.Report(&value, field, "must be a positive USD per GPU-hour");
      continue;
    }
    if (!date || !tier || !source || !url) continue;
    out.push_back(
        GpuPrice{key.text, *tier, usd, *date, *source, *url, SourceMark{*context.file, value.line, value.column}});
  }
}

bool IsPriceDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec);
}

}  // namespace

void PriceTable::Add(GpuPrice price) {
  for (const GpuPrice& e : entries_) {
    if (e.gpu == price.gpu && e.tier == price.tier && e.date == price.date) {
      throw InputError(Diagnostic{price.mark, "", "usd_per_gpu_hour." + price.gpu,
                                  "a second price for " + price.gpu + " in tier " + price.tier + " on " + price.date +
                                      " (the first is at " + Where(e.mark) + ")"});
    }
  }
  entries_.push_back(std::move(price));
}

const GpuPrice* PriceTable::Find(const std::string& gpu, const std::string& date, const std::string& tier) const {
  const std::string key = GpuPriceKey(gpu);
  const std::string day = date.substr(0, std::min<std::size_t>(date.size(), 10));
  const GpuPrice* best = nullptr;
  for (const GpuPrice& e : entries_) {
    if (e.gpu != key || e.tier != tier) continue;
    if (!day.empty() && e.date > day) continue;
    if (best == nullptr || e.date > best->date) best = &e;
  }
  return best;
}

std::vector<std::string> PriceTable::Tiers() const {
  std::set<std::string> tiers;
  for (const GpuPrice& e : entries_) tiers.insert(e.tier);
  return {tiers.begin(), tiers.end()};
}

void LoadPriceFile(const std::string& path, PriceTable& table) {
  const YamlDocument doc = LoadYamlFile(path);
  std::vector<Diagnostic> problems;
  ReadContext root_context{&doc.file, "", &problems};
  FieldReader root(root_context, doc.root, "");
  const YamlNode* blocks = root.ok() ? root.List("prices", Need::kRequired) : nullptr;
  root.RejectUnknown();
  std::vector<GpuPrice> prices;
  if (blocks != nullptr) {
    for (std::size_t i = 0; i < blocks->items.size(); ++i) {
      ReadContext context{&doc.file, "prices[" + std::to_string(i) + "]", &problems};
      ReadBlock(context, blocks->items[i], prices);
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  for (GpuPrice& p : prices) table.Add(std::move(p));
}

PriceTable LoadPriceDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError(Diagnostic{SourceMark{dir}, "", "", "the price folder does not exist or is not a folder"});
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  PriceTable table;
  for (const std::string& f : files) LoadPriceFile(f, table);
  return table;
}

std::string PriceDataDir() {
  if (const char* env = std::getenv("INFERMARK_PRICE_DATA"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
    if (IsPriceDir(dir / "data" / "prices")) return (dir / "data" / "prices").string();
    if (dir == dir.root_path()) break;
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = ec ? fs::path() : exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (IsPriceDir(dir / "data" / "prices")) return (dir / "data" / "prices").string();
    if (IsPriceDir(dir / "share" / "infermark" / "prices")) return (dir / "share" / "infermark" / "prices").string();
    if (dir == dir.root_path()) break;
  }
  throw InputError(
      Diagnostic{SourceMark{}, "", "", "cannot find the price folder (data/prices): set INFERMARK_PRICE_DATA"});
}

std::string GpuPriceKey(const std::string& hardware) {
  const std::string lower = Lower(hardware);
  return lower.substr(0, lower.find_first_of("-_"));
}

std::optional<double> CostPerMillionTokens(double usd_per_gpu_hour, double tokens_per_s_per_gpu) {
  if (!(tokens_per_s_per_gpu > 0)) return std::nullopt;
  return usd_per_gpu_hour / (3600.0 * tokens_per_s_per_gpu) * 1e6;
}

}  // namespace infermark::results

#include "perfmodel/engine_data.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "core/diagnostic.hpp"

namespace infermark::perfmodel {
namespace fs = std::filesystem;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool SameName(const std::string& a, const std::string& b) {
  return Lower(a) == Lower(b);
}

InputError Unknown(const std::string& flag, const std::string& what, const std::string& name,
                   const std::vector<std::string>& known) {
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  return InputError(Diagnostic{SourceMark{}, "", flag, "unknown " + what + " '" + name + "' (known: " + list + ")"});
}

bool IsDataDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "hardware.yaml", ec);
}

}  // namespace

const HardwareSpec& EngineData::FindHardware(const std::string& name) const {
  for (const auto& h : hardware) {
    if (SameName(h.name, name)) return h;
    for (const auto& a : h.aliases)
      if (SameName(a, name)) return h;
  }
  std::vector<std::string> known;
  for (const auto& h : hardware) known.push_back(h.name);
  throw Unknown("--hardware", "hardware", name, known);
}

ModelSpec EngineData::FindModel(const std::string& name_or_path) const {
  for (const auto& m : models) {
    if (SameName(m.name, name_or_path)) return m;
    for (const auto& a : m.aliases)
      if (SameName(a, name_or_path)) return m;
  }
  std::error_code ec;
  const fs::path p(name_or_path);
  if (fs::is_regular_file(p, ec)) return LoadHfConfig(p.string());
  if (fs::is_regular_file(p / "config.json", ec)) return LoadHfConfig((p / "config.json").string());
  std::vector<std::string> known;
  for (const auto& m : models) known.push_back(m.name);
  known.push_back("or a path to an HF config.json");
  throw Unknown("--model", "model", name_or_path, known);
}

const FrameworkProfile& EngineData::FindFramework(const std::string& name) const {
  std::string key = Lower(name);
  if (key == "trtllm" || key == "tensorrt-llm" || key == "trt-llm" || key == "dynamo-trt") key = "trt";
  if (key == "dynamo-vllm") key = "vllm";
  if (key == "dynamo-sglang") key = "sglang";
  for (const auto& f : frameworks)
    if (f.name == key) return f;
  std::vector<std::string> known;
  for (const auto& f : frameworks) known.push_back(f.name);
  throw Unknown("--framework", "framework", name, known);
}

const CalibratedProfile* EngineData::FindCalibrated(const std::string& framework, const std::string& scope) const {
  for (const auto& c : calibrated)
    if (c.framework == framework && c.scope == scope) return &c;
  return nullptr;
}

std::string EngineDataDir() {
  if (const char* env = std::getenv("INFERMARK_ENGINE_DATA"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
    if (IsDataDir(dir / "data" / "engine")) return (dir / "data" / "engine").string();
    if (dir == dir.root_path()) break;
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = ec ? fs::path() : exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (IsDataDir(dir / "data" / "engine")) return (dir / "data" / "engine").string();
    if (IsDataDir(dir / "share" / "infermark" / "engine")) return (dir / "share" / "infermark" / "engine").string();
    if (dir == dir.root_path()) break;
  }
  throw InputError(Diagnostic{SourceMark{}, "", "",
                              "cannot find the engine's data folder (data/engine): set INFERMARK_ENGINE_DATA"});
}

EngineData LoadEngineData(const std::string& dir) {
  EngineData d;
  d.dir = dir;
  std::vector<Diagnostic> problems;
  auto guard = [&](auto&& load) {
    try {
      load();
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  };
  const fs::path root(dir);
  guard([&] { d.hardware = LoadHardwareFile((root / "hardware.yaml").string()); });
  guard([&] { d.quant = LoadQuantizationFile((root / "quantization.yaml").string()); });
  guard([&] { d.frameworks = LoadFrameworksFile((root / "frameworks.yaml").string()); });
  if (std::error_code exists; fs::exists(root / "recipe_memory.yaml", exists))
    guard([&] { d.recipe_memory = LoadRecipeMemoryFile((root / "recipe_memory.yaml").string()); });
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(root / "models", ec))
    if (item.path().extension() == ".yaml") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) guard([&] { d.models.push_back(LoadModelFile(f.string())); });
  files.clear();
  for (const auto& item : fs::directory_iterator(root / "calibrated", ec))
    if (item.path().extension() == ".yaml") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) guard([&] { d.calibrated.push_back(LoadCalibratedProfile(f.string())); });
  // Names must be unique across the catalog, aliases included, or a lookup would be ambiguous.
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& m : d.models) {
    names.emplace_back(Lower(m.name), "model " + m.name);
    for (const auto& a : m.aliases) names.emplace_back(Lower(a), "model " + m.name);
  }
  std::sort(names.begin(), names.end());
  for (std::size_t i = 1; i < names.size(); ++i)
    if (names[i].first == names[i - 1].first)
      problems.push_back(Diagnostic{SourceMark{(root / "models").string(), 0, 0}, "", names[i].first,
                                    "name used by " + names[i - 1].second + " and " + names[i].second});
  for (const auto& c : d.calibrated) {
    bool fw = false, scope = c.scope == "nvidia" || c.scope == "amd";
    for (const auto& f : d.frameworks) fw |= f.name == c.framework;
    for (const auto& h : d.hardware) scope |= h.name == c.scope;
    if (!fw || !scope)
      problems.push_back(Diagnostic{SourceMark{c.path, 1, 1}, "", "", "unknown framework or scope (hardware/vendor)"});
  }
  for (const auto& r : d.recipe_memory) {
    if (!r.kv_cache_dtype.empty() && d.quant.kv_bytes.count(r.kv_cache_dtype) == 0)
      problems.push_back(Diagnostic{SourceMark{(root / "recipe_memory.yaml").string(), 0, 0}, r.script,
                                    "kv_cache_dtype",
                                    "unknown KV dtype '" + r.kv_cache_dtype + "' (quantization.yaml)"});
  }
  if (!problems.empty()) throw InputError(problems);
  return d;
}

const EngineData& DefaultEngineData() {
  static const EngineData data = LoadEngineData(EngineDataDir());
  return data;
}

}  // namespace infermark::perfmodel

#include "results/point_details.hpp"

#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "results/row_attempt.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

bool NonEmptyFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0;
}

// The first of `names` in `dir` that holds something ("" when none).
std::string FirstFile(const fs::path& dir, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (NonEmptyFile(dir / name)) return (dir / name).string();
  }
  return "";
}

// A client log of the row (`client.log`, else the newest `client_conc<N>.log`).
std::string ClientLog(const fs::path& dir) {
  if (NonEmptyFile(dir / "client.log")) return (dir / "client.log").string();
  std::string found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("client_conc", 0) == 0 && e.path().extension() == ".log" &&
        name > fs::path(found).filename().string())
      found = e.path().string();
  }
  return found;
}

}  // namespace

bool PointDetails::Empty() const {
  return timeline.empty() && server_log_tail.empty() && client_log_tail.empty() && gpus.empty() &&
         dcgm_manifest.empty();
}

std::string RowLogDir(const std::string& result_path) {
  const fs::path file(result_path);
  const fs::path logs = file.parent_path() / "logs";
  std::string stem = file.stem().string();
  std::error_code ec;
  if (fs::is_directory(logs / stem, ec)) return (logs / stem).string();
  // A multi-node point's file is named after its row, then `_conc<N>_gpus_…`.
  const std::size_t conc = stem.rfind("_conc");
  if (conc != std::string::npos && stem.find("_gpus_", conc) != std::string::npos) {
    stem.resize(conc);
    if (fs::is_directory(logs / stem, ec)) return (logs / stem).string();
  }
  return "";
}

void CheckRequestTimeline(const std::string& text, const std::string& path) {
  if (text.size() > kMaxRequestTimelineBytes) {
    throw InputError(Diagnostic{
        {path, 0, 0}, "", "", "request timeline larger than " + std::to_string(kMaxRequestTimelineBytes) + " bytes"});
  }
  const Json header = Json::parse(text.substr(0, text.find('\n')), nullptr, false);
  if (!header.is_object() || header.value("schema", "") != kRequestTimelineSchemaName) {
    throw InputError(
        Diagnostic{{path, 1, 1},
                   "",
                   "schema",
                   std::string("a request timeline opens with a header of schema ") + kRequestTimelineSchemaName});
  }
}

PointDetails ReadPointDetails(const std::string& result_path, std::vector<std::string>* problems) {
  PointDetails d;
  // A part that cannot be read: thrown, or noted and left out.
  const auto part = [&](const auto& read) {
    try {
      read();
    } catch (const InputError& e) {
      if (problems == nullptr) throw;
      problems->push_back(e.what());
    }
  };
  const std::string dir_text = RowLogDir(result_path);
  if (dir_text.empty()) return d;
  const fs::path dir(dir_text);
  // A multi-node point keeps its own timeline beside its row's (`requests_conc<N>.timeline.jsonl`).
  const std::string stem = fs::path(result_path).stem().string();
  const std::size_t conc = stem.rfind("_conc");
  std::string timeline;
  if (conc != std::string::npos && stem.find("_gpus_", conc) != std::string::npos) {
    const std::string n = stem.substr(conc + 5, stem.find('_', conc + 5) - conc - 5);
    timeline = FirstFile(dir, {("requests_conc" + n + ".timeline.jsonl").c_str()});
  }
  if (timeline.empty()) timeline = FirstFile(dir, {kRequestTimelineFile});
  if (!timeline.empty()) {
    part([&] {
      d.timeline = ReadFile(timeline);
      try {
        CheckRequestTimeline(d.timeline, timeline);
      } catch (const InputError&) {
        d.timeline.clear();
        throw;
      }
    });
  }
  if (const std::string log = FirstFile(dir, {"server.log", "launcher.log", "router.log"}); !log.empty())
    d.server_log_tail = FileTail(log);
  if (const std::string log = ClientLog(dir); !log.empty()) d.client_log_tail = FileTail(log);
  // The launcher's own samples when it wrote any (what the power aggregation reads), else the runner's.
  if (const std::string csv = FirstFile(dir, {"gpu_metrics.csv", "gpu_metrics.runner.csv"}); !csv.empty())
    part([&] { d.gpus = ReadGpuMetricsCsv(csv); });
  if (const fs::path samples = dir / "power" / "samples.csv"; NonEmptyFile(samples)) {
    part([&] {
      for (GpuSeries& s : ReadDcgmSamplesCsv(samples.string())) d.gpus.push_back(std::move(s));
    });
    if (NonEmptyFile(dir / "power" / "manifest.json"))
      d.dcgm_manifest = ReadFile((dir / "power" / "manifest.json").string());
  }
  return d;
}

}  // namespace infermark::results

// The dashboard with a large store: generated points (several models, GPUs, frameworks, precisions,
// sequences, runs and concurrencies, every point a full processed record) are ingested into each
// store given, then the dashboard opens it (snapshot load time: every point read and derived) and
// serves filtered API queries over loopback HTTP, each a different filter (model, hardware, sequence,
// precision, run, kind, dates): points, frontier, iso, history and export.csv. Prints a table with
// the load time and the p50/p99 latency per route. Target: <= 50 ms per filtered query.
// Usage: dashboard_bench [--points N] [--queries Q] [--db URL]...
// (default: 100,000 points, 400 queries, one temporary SQLite store; a `postgresql://` URL adds a
// PostgreSQL store, e.g. the one scripts/pg-test-server.sh starts, emptied first by the caller)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "dashboard/dashboard_server.hpp"
#include "dashboard/store_location.hpp"
#include "http/client.hpp"
#include "store/result_store.hpp"

namespace {

using namespace infermark;
using Clock = std::chrono::steady_clock;

const char* const kModels[] = {"amd/MiniMax-M3-MXFP4", "deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2.5",
                               "openai/gpt-oss-120b", "Qwen/Qwen3-235B"};
const char* const kHardware[] = {"mi355x", "mi325x", "mi300x", "b200", "h200", "h100", "gb200", "b300"};
const char* const kFrameworks[] = {"vllm", "sglang", "trt"};
const char* const kPrecisions[] = {"fp4", "fp8"};
const std::pair<int, int> kSequences[] = {{1024, 1024}, {8192, 1024}, {1024, 8192}};
const int kConcs[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// One processed record at `conc` with figures shaped like a real sweep (throughput up, interactivity
// down as concurrency rises), scaled per series so series differ.
results::Point MakePoint(int model, int hw, int fw, int prec, int seq, int conc, int night) {
  const double speed = 1.0 + 0.15 * hw + 0.1 * fw + 0.3 * prec - 0.01 * night;
  const double tput = speed * 40.0 * std::pow(conc, 0.8);
  const double intvty = 120.0 / std::pow(conc, 0.35);
  const auto [isl, osl] = kSequences[seq];
  Json agg = Json::object();
  agg["hw"] = kHardware[hw];
  agg["conc"] = conc;
  agg["image"] = std::string(kFrameworks[fw]) + ":nightly";
  agg["model"] = kModels[model];
  agg["framework"] = kFrameworks[fw];
  agg["precision"] = kPrecisions[prec];
  agg["spec_decoding"] = "none";
  agg["disagg"] = false;
  agg["isl"] = isl;
  agg["osl"] = osl;
  agg["is_multinode"] = false;
  agg["tp"] = 8;
  agg["ep"] = 1;
  agg["dp_attention"] = "false";
  agg["tput_per_gpu"] = tput;
  agg["output_tput_per_gpu"] = tput * osl / (isl + osl);
  agg["input_tput_per_gpu"] = tput * isl / (isl + osl);
  agg["median_ttft"] = 0.2 * std::sqrt(conc);
  agg["p99_ttft"] = 0.5 * std::sqrt(conc);
  agg["median_tpot"] = 1.0 / intvty;
  agg["median_intvty"] = intvty;
  agg["median_e2el"] = osl / intvty;
  agg["power_valid"] = 1;
  agg["avg_power_w"] = 700.0 + 50 * hw;
  agg["joules_per_output_token"] = (700.0 + 50 * hw) / (tput * osl / (isl + osl));
  results::Point p;
  p.key = results::KeyFromAgg(agg, "generated");
  p.agg = agg;
  p.raw_json = DumpJson(agg);
  p.provenance.image = agg["image"];
  p.provenance.engine_flags = "--tp 8";
  p.provenance.host = "bench";
  p.provenance.infermark_version = "0.1.0";
  char date[32];
  std::snprintf(date, sizeof date, "2026-%02d-%02dT01:00:00Z", 1 + night / 28, 1 + night % 28);
  p.provenance.started_at = date;
  return p;
}

// Ingests `total` points as nightly runs of every series; returns the seconds it took.
double Fill(results::ResultStore& store, int total) {
  const auto start = Clock::now();
  constexpr int kSeries = 5 * 8 * 3 * 2 * 3;  // 720 series x 10 concurrencies per night
  const int nights = std::max(1, (total + kSeries * 10 - 1) / (kSeries * 10));
  int made = 0;
  for (int night = 0; night < nights && made < total; ++night) {
    std::vector<results::Point> points;
    for (int m = 0; m < 5; ++m)
      for (int h = 0; h < 8; ++h)
        for (int f = 0; f < 3; ++f)
          for (int p = 0; p < 2; ++p)
            for (int s = 0; s < 3; ++s)
              for (int c : kConcs) {
                if (made++ >= total) continue;
                points.push_back(MakePoint(m, h, f, p, s, c, night));
              }
    store.Ingest({"nightly-" + std::to_string(night + 1), "", "generated", "bench", "0.1.0", "sweep"}, points);
  }
  return Seconds(start);
}

// A query of each kind with a filter chosen by `i` (different every time).
std::string QueryFor(const std::string& route, int i, int runs) {
  const std::string model = std::string("model=") + kModels[i % 5];
  const std::string hw = std::string("&hardware=") + kHardware[i % 8] + "," + kHardware[(i + 3) % 8];
  const std::string seq[] = {"&sequence=1k/1k", "&sequence=8k/1k", "&isl=1024&osl=8192"};
  const std::string run = "&run=" + std::to_string(1 + i % runs);
  const std::string prec = std::string("&precision=") + kPrecisions[i % 2];
  if (route == "points") return "/api/v1/points?" + model + hw + seq[i % 3] + run;
  if (route == "points (dates)") return "/api/v1/points?" + model + prec + "&from=2026-01-02&to=2026-01-20";
  if (route == "frontier") return "/api/v1/frontier?" + model + seq[i % 3] + prec + run + "&y=j_per_token";
  if (route == "iso") return "/api/v1/iso?" + model + hw + seq[i % 3] + run + "&interactivity=20,40,60";
  if (route == "history") return "/api/v1/history?" + model + hw + seq[i % 3] + prec + "&interactivity=40";
  return "/api/v1/export.csv?" + model + hw + seq[i % 3] + run;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

void Measure(const std::string& db, const std::string& label, int queries) {
  const auto start = Clock::now();
  dashboard::DashboardServer server({db, "127.0.0.1", 0, "", std::chrono::milliseconds(3'600'000), ""});
  const double load = Seconds(start);
  server.Start();
  const auto snapshot = server.snapshot();
  std::printf("%-10s load %zu points, %zu runs: %.2f s\n", label.c_str(), snapshot->points.size(),
              snapshot->runs.size(), load);
  http::ClientOptions options;
  options.port = server.port();
  http::Client client(options);
  const int runs = static_cast<int>(snapshot->runs.size());
  std::printf("%-10s %-16s %8s %10s %10s %12s\n", "store", "route", "queries", "p50 ms", "p99 ms", "mean rows");
  for (const std::string route : {"points", "points (dates)", "frontier", "iso", "history", "export.csv"}) {
    std::vector<double> ms;
    double rows = 0;
    for (int i = -1; i < queries; ++i) {  // i = -1: a warm-up query, not counted
      http::ClientRequest request;
      request.method = "GET";
      request.target = QueryFor(route, std::max(i, 0), runs);
      request.content_type.clear();
      const auto t0 = Clock::now();
      const http::FetchResult r = client.Fetch(request);
      if (i < 0) continue;
      ms.push_back(Seconds(t0) * 1000);
      if (r.head.status != 200) {
        std::fprintf(stderr, "%s: %d %s\n", request.target.c_str(), r.head.status, r.body.c_str());
        std::exit(1);
      }
      if (route == "export.csv") {
        rows += static_cast<double>(std::count(r.body.begin(), r.body.end(), '\n') - 1);
      } else if (route.rfind("points", 0) == 0) {
        rows += Json::parse(r.body)["count"].get<double>();
      } else {
        rows += static_cast<double>(Json::parse(r.body).begin()->size());
      }
    }
    std::printf("%-10s %-16s %8d %10.2f %10.2f %12.1f\n", label.c_str(), route.c_str(), queries, Percentile(ms, 0.5),
                Percentile(ms, 0.99), rows / queries);
  }
  server.Stop();
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured, also into a file
  int total = 100'000;
  int queries = 400;
  std::vector<std::string> dbs;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--points")
      total = std::atoi(argv[i + 1]);
    else if (flag == "--queries")
      queries = std::atoi(argv[i + 1]);
    else if (flag == "--db")
      dbs.push_back(argv[i + 1]);
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("infermark_dashboard_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  dbs.insert(dbs.begin(), "sqlite:" + (dir / "store.db").string());
  for (const std::string& db : dbs) {
    const std::string label = db.rfind("sqlite:", 0) == 0 ? "sqlite" : "postgresql";
    {
      std::unique_ptr<results::ResultStore> store;
      if (label == "sqlite") {
        store = results::OpenStore(db.substr(7));
      } else {
        store = dashboard::OpenDashboardStore(db).store;
      }
      std::printf("%-10s ingest %d points: %.1f s\n", label.c_str(), total, Fill(*store, total));
    }
    Measure(db, label, queries);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

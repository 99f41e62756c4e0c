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
#include "generated_points.hpp"
#include "http/client.hpp"
#include "store/result_store.hpp"

namespace {

using namespace infermark;
using bench::Clock;
using bench::Fill;
using bench::kHardware;
using bench::kModels;
using bench::kPrecisions;
using bench::Seconds;

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

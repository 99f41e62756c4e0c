// Loads 100,000 points from each results store: the time to AllPoints() (what a dashboard reads
// at start), beside the time to ingest them. Points are one real InferenceX agg record (1.5 KB)
// varied over 20 runs x 5 hardware x 5 models x 200 concurrencies. SQLite in a temporary file;
// PostgreSQL in a fresh database `infermark_bench` on the server `--pg URL` names (default: the
// test server's, scripts/pg-test-server.sh start), skipped when there is none. Prints a table.
//   bench_store [--points N] [--pg URL]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "results/result_files.hpp"
#include "store/postgres_db.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace {

using infermark::results::Point;
using Clock = std::chrono::steady_clock;

constexpr int kRuns = 20;

double Seconds(const std::function<void()>& fn) {
  const auto start = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// `n` points spread over kRuns runs, from one record.
std::vector<std::vector<Point>> MakeRuns(int n) {
  const std::string fixture = std::string(INFERMARK_SOURCE_DIR) +
                              "/tests/fixtures/inferencex-results/processed/"
                              "agg_kimik2.5_8k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc32_"
                              "MI355-gbt350-odcdh5-wbb3.json";
  const Point base = infermark::results::ReadResultFile(fixture, {}).at(0);
  const char* const hw[] = {"mi355x", "mi300x", "b200", "h200", "gb200"};
  const char* const models[] = {"kimik2.5", "dsr1", "gptoss", "qwen3.5", "minimaxm3"};
  std::vector<std::vector<Point>> runs(kRuns);
  for (int i = 0; i < n; ++i) {
    Point p = base;
    const int per_run = i / kRuns;
    p.key.hw = hw[per_run % 5];
    p.key.model = models[(per_run / 5) % 5];
    p.key.conc = 1 + per_run / 25;
    p.agg["hw"] = p.key.hw;
    p.agg["conc"] = p.key.conc;
    p.agg["tput_per_gpu"] = 100.0 + i % 977;
    p.raw_json = infermark::DumpJson(p.agg);
    p.raw_sha256.clear();
    runs[static_cast<std::size_t>(i % kRuns)].push_back(std::move(p));
  }
  return runs;
}

std::string TestServerUrl() {
  if (const char* url = std::getenv("INFERMARK_TEST_PG_URL"); url != nullptr && *url != '\0') return url;
  std::ifstream file("/tmp/infermark-pg-test-" + std::to_string(::getuid()) + "/url");
  std::string url;
  std::getline(file, url);
  return url;
}

void Measure(const char* name, const std::string& url, const std::vector<std::vector<Point>>& runs, int n) {
  auto store = infermark::results::OpenStoreUrl(url);
  const double ingest_s = Seconds([&] {
    for (std::size_t r = 0; r < runs.size(); ++r) {
      store->Ingest({"bench-run-" + std::to_string(r), "", "", "", "", "bench"}, runs[r]);
    }
  });
  double best = 1e9;
  std::size_t loaded = 0;
  for (int rep = 0; rep < 3; ++rep) {
    best = std::min(best, Seconds([&] { loaded = store->AllPoints().size(); }));
  }
  std::printf("%-10s %8d %8zu %10.2f %12.3f %12.0f\n", name, n, loaded, ingest_s, best,
              static_cast<double>(loaded) / best);
}

}  // namespace

int main(int argc, char** argv) {
  int n = 100000;
  std::string pg = TestServerUrl();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--points") n = std::atoi(argv[i + 1]);
    if (flag == "--pg") pg = argv[i + 1];
  }
  const auto runs = MakeRuns(n);
  std::printf("%-10s %8s %8s %10s %12s %12s\n", "store", "points", "loaded", "ingest s", "AllPoints s", "points/s");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("infermark_bench_store_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Measure("sqlite", "sqlite:" + (dir / "store.db").string(), runs, n);
  std::filesystem::remove_all(dir);
  if (pg.empty()) {
    std::printf("%-10s skipped: no server (scripts/pg-test-server.sh start, or --pg URL)\n", "postgresql");
    return 0;
  }
  {
    infermark::results::PgConnection admin(pg);
    admin.Exec("DROP DATABASE IF EXISTS infermark_bench WITH (FORCE)");
    admin.Exec("CREATE DATABASE infermark_bench");
  }
  const std::string url = pg.substr(0, pg.find('/', pg.find("://") + 3)) + "/infermark_bench" +
                          (pg.find('?') == std::string::npos ? "" : pg.substr(pg.find('?')));
  Measure("postgresql", url, runs, n);
  infermark::results::PgConnection(pg).Exec("DROP DATABASE IF EXISTS infermark_bench WITH (FORCE)");
  return 0;
}

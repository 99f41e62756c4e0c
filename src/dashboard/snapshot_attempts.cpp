// The snapshot's row attempts: every attempt the store keeps, each linked to the point its row
// stored in its run (the point whose result file has the attempt's stem: the runner stores a row's
// point from `<stem>.json`).
#include <filesystem>
#include <map>
#include <utility>

#include "dashboard/snapshot.hpp"

namespace infermark::dashboard {

void LoadAttempts(Snapshot& snapshot, results::ResultStore& store, const std::vector<results::Point>& points) {
  std::map<std::pair<std::int64_t, std::string>, std::int64_t> point_of;
  for (const results::Point& p : points) {
    if (p.provenance.source_path.empty()) continue;
    point_of.emplace(std::make_pair(p.run_id, std::filesystem::path(p.provenance.source_path).stem().string()), p.id);
  }
  std::map<std::int64_t, const RunRow*> runs;
  for (const RunRow& r : snapshot.runs) runs[r.id] = &r;
  std::vector<results::RowAttempt> attempts = store.Attempts();
  snapshot.attempts.reserve(attempts.size());
  for (results::RowAttempt& a : attempts) {
    const auto run = runs.find(a.run_id);
    if (run == runs.end()) continue;  // stored after ListRuns: the next reload has it
    DashboardAttempt d;
    d.run_label = run->second->label;
    if (const auto p = point_of.find({a.run_id, a.result_filename}); p != point_of.end()) d.point_id = p->second;
    d.attempt = std::move(a);
    snapshot.attempts.push_back(std::move(d));
  }
}

}  // namespace infermark::dashboard

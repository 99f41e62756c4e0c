#include "dashboard/snapshot_source.hpp"

namespace infermark::dashboard {
namespace {

Json PricesJson(const results::PriceTable& table) {
  Json prices = Json::array();
  for (const results::GpuPrice& p : table.entries()) {
    prices.push_back({{"gpu", p.gpu},
                      {"tier", p.tier},
                      {"usd_per_gpu_hour", p.usd_per_gpu_hour},
                      {"date", p.date},
                      {"source", p.source},
                      {"url", p.url}});
  }
  return Json{{"default_tier", results::kDefaultPriceTier}, {"prices", prices}};
}

}  // namespace

SnapshotSource::SnapshotSource(const std::string& db, const std::string& price_dir) {
  if (!price_dir.empty()) {
    prices_ = results::LoadPriceDirectory(price_dir);
    has_prices_ = true;
  }
  opened_ = OpenDashboardStore(db);
  loader_ = OpenDashboardStore(db);
  const std::lock_guard<std::mutex> lock(load_mutex_);
  Load();
}

void SnapshotSource::Load() {
  commits_ = loader_.store->CommitCounter();  // before reading: a commit during the load shows next time
  signature_.clear();
  for (const results::RunSummary& r : loader_.store->ListRuns())
    signature_.emplace_back(r.id, r.points, r.predicted_points);
  attempts_stamp_ = loader_.store->AttemptsStamp();
  PriceLookup lookup;
  if (has_prices_) {
    lookup = [this](const std::string& hardware, const std::string& date) -> std::optional<double> {
      const results::GpuPrice* p = prices_.Find(hardware, date);
      if (!p) return std::nullopt;
      return p->usd_per_gpu_hour;
    };
  }
  auto fresh = std::make_shared<const Snapshot>(LoadSnapshot(*loader_.store, loader_.kind, lookup));
  const std::lock_guard<std::mutex> lock(snapshot_mutex_);
  current_ = std::move(fresh);
}

std::shared_ptr<const Snapshot> SnapshotSource::Current() const {
  const std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return current_;
}

bool SnapshotSource::ReloadIfChanged() {
  const std::lock_guard<std::mutex> lock(load_mutex_);
  // Nothing committed since the last look (SQLite): the signature below would read every point.
  const std::optional<std::int64_t> commits = loader_.store->CommitCounter();
  if (commits && commits == commits_) return false;
  commits_ = commits;
  Signature now;
  for (const results::RunSummary& r : loader_.store->ListRuns()) now.emplace_back(r.id, r.points, r.predicted_points);
  if (now == signature_ && loader_.store->AttemptsStamp() == attempts_stamp_) return false;
  Load();
  return true;
}

ApiSources SnapshotSource::Sources() {
  ApiSources sources;
  sources.run_points = [this](std::int64_t run_id) {
    const std::lock_guard<std::mutex> lock(store_mutex_);
    return opened_.store->Points(run_id);
  };
  if (has_prices_) sources.prices = [this] { return PricesJson(prices_); };
  sources.with_store = [this](const std::function<void(results::ResultStore&)>& read) {
    const std::lock_guard<std::mutex> lock(store_mutex_);
    read(*opened_.store);
  };
  return sources;
}

}  // namespace infermark::dashboard

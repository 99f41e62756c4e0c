#include "sim/predict_agentic.hpp"

#include <cmath>
#include <functional>
#include <utility>

#include "agentic/server_metrics.hpp"
#include "sim/model_metrics.hpp"
#include "sim/sim_executor.hpp"

namespace infermark::sim {
namespace {

// A virtual target, with the model's /metrics (`stats` as `deployment` names them) read as the
// profiling window opens and closes.
class ScrapedModel final : public loadgen::Target {
 public:
  ScrapedModel(loadgen::Target& inner, std::function<perfmodel::SchedulerStats()> stats,
               const perfmodel::Deployment& deployment, SimExecutor& executor)
      : inner_(inner), stats_(std::move(stats)), deployment_(deployment), executor_(executor) {}
  void PreparePhase(std::span<const loadgen::Prompt> p, std::span<const std::size_t> o) override {
    inner_.PreparePhase(p, o);
  }
  void PrepareOpenPhase(std::size_t slots) override { inner_.PrepareOpenPhase(slots); }
  void Issue(const loadgen::RequestSpec& spec, loadgen::RequestTracker& tracker) override {
    inner_.Issue(spec, tracker);
  }
  void CancelAll(std::string_view why) override { inner_.CancelAll(why); }
  void OpenWindow() override {
    Scrape();
    inner_.OpenWindow();
  }
  void CloseWindow() override {
    inner_.CloseWindow();
    Scrape();
  }
  [[nodiscard]] loadgen::TargetReport Report() const override { return inner_.Report(); }
  [[nodiscard]] const std::vector<agentic::MetricsScrape>& scrapes() const { return scrapes_; }

 private:
  void Scrape() {
    scrapes_.push_back(
        agentic::MetricsScrape{"model", executor_.UnixAt(executor_.NowNs()), ModelMetricsText(stats_(), deployment_)});
  }
  loadgen::Target& inner_;
  std::function<perfmodel::SchedulerStats()> stats_;
  const perfmodel::Deployment& deployment_;
  SimExecutor& executor_;
  std::vector<agentic::MetricsScrape> scrapes_;
};

}  // namespace

AgenticPrediction PredictAgentic(const perfmodel::Deployment& deployment, const agentic::TraceCorpus& corpus,
                                 const agentic::ReplayOptions& options, const VirtualTargetOptions& target_options) {
  const perfmodel::StepTimeModel model(deployment);
  SimExecutor executor;
  VirtualTargetOptions o = target_options;
  o.ignore_eos = true;  // the replay asks for exactly the recorded output
  VirtualTarget target(deployment, model, executor, o);
  agentic::ReplayOptions replay = options;
  replay.build_text = false;
  AgenticPrediction p;
  ScrapedModel scraped(
      target, [&target] { return target.stats(); }, deployment, executor);
  p.run = agentic::Replay(corpus, replay, nullptr, scraped, executor);
  p.stats = target.stats();
  if (scraped.scrapes().size() == 2) p.server_metrics = agentic::SummarizeServerMetrics(scraped.scrapes());
  p.virtual_start_unix_ns = static_cast<std::int64_t>(std::llround(executor.UnixAt(0) * 1e9));
  return p;
}

AgenticDisaggPrediction PredictAgenticDisagg(const perfmodel::DisaggDeployment& deployment,
                                             const agentic::TraceCorpus& corpus, const agentic::ReplayOptions& options,
                                             RouterPolicy router, const VirtualTargetOptions& target_options) {
  SimExecutor executor;
  VirtualTargetOptions o = target_options;
  o.ignore_eos = true;
  o.record_trace = false;
  DisaggTarget target(deployment, executor, o, router);
  agentic::ReplayOptions replay = options;
  replay.build_text = false;
  AgenticDisaggPrediction p;
  // The engine's counters of a disaggregated deployment are its prefill workers' (the prefix
  // cache and host tier serve prompts there), summed as a scrape of every worker would add them.
  ScrapedModel scraped(
      target, [&target] { return target.PrefillTotals(); }, deployment.prefill, executor);
  p.agentic.run = agentic::Replay(corpus, replay, nullptr, scraped, executor);
  p.agentic.stats = target.PrefillTotals();
  if (scraped.scrapes().size() == 2) p.agentic.server_metrics = agentic::SummarizeServerMetrics(scraped.scrapes());
  p.agentic.virtual_start_unix_ns = static_cast<std::int64_t>(std::llround(executor.UnixAt(0) * 1e9));
  p.transfers = target.transfers();
  p.agentic.server_report = target.Report().server;
  return p;
}

}  // namespace infermark::sim

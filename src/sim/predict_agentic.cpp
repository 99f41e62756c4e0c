#include "sim/predict_agentic.hpp"

#include <cmath>

#include "agentic/server_metrics.hpp"
#include "sim/model_metrics.hpp"
#include "sim/sim_executor.hpp"

namespace infermark::sim {
namespace {

// The virtual target, with the model's /metrics read as the profiling window opens and closes.
class ScrapedModel final : public loadgen::Target {
 public:
  ScrapedModel(VirtualTarget& inner, const perfmodel::Deployment& deployment, SimExecutor& executor)
      : inner_(inner), deployment_(deployment), executor_(executor) {}
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
    scrapes_.push_back(agentic::MetricsScrape{"model", executor_.UnixAt(executor_.NowNs()),
                                              ModelMetricsText(inner_.stats(), deployment_)});
  }
  VirtualTarget& inner_;
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
  ScrapedModel scraped(target, deployment, executor);
  p.run = agentic::Replay(corpus, replay, nullptr, scraped, executor);
  p.stats = target.stats();
  if (scraped.scrapes().size() == 2) p.server_metrics = agentic::SummarizeServerMetrics(scraped.scrapes());
  p.virtual_start_unix_ns = static_cast<std::int64_t>(std::llround(executor.UnixAt(0) * 1e9));
  return p;
}

}  // namespace infermark::sim

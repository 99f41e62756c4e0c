// Times `predict` over the founding recipe's 30 points (MiniMax-M3 MXFP4 on MI355X with vLLM:
// TP8 at concurrency 1–32 and TP4 at 1–256, powers of two, 1k/1k and 8k/1k) on one core, and
// prints the predicted table: InferenceX's client (10 x conc prompts after 2 x conc warm-ups)
// through the load generator against the performance model. Target: all 30 points in <= 2 s.
#include <chrono>
#include <cstdio>
#include <vector>

#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"
#include "sim/predict.hpp"

int main() {
  using namespace infermark::perfmodel;
  using infermark::sim::Predict;
  using infermark::sim::ReferenceClient;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const EngineData data = LoadEngineData(std::string(INFERMARK_SOURCE_DIR) + "/data/engine");
  const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  struct Curve {
    int tp;
    std::vector<int> conc;
  };
  const std::vector<Curve> curves{{8, {1, 2, 4, 8, 16, 32}}, {4, {1, 2, 4, 8, 16, 32, 64, 128, 256}}};
  std::printf("%-5s %-3s %5s %12s %12s %12s %9s %9s %9s %9s %10s\n", "seq", "tp", "conc", "tok/s/GPU", "out/s/GPU",
              "tok/s/user", "TTFT s", "TPOT ms", "E2EL s", "steps", "wall ms");
  int points = 0;
  std::int64_t steps = 0, plans = 0;
  const auto start = Clock::now();
  for (const auto& [isl, osl, name] : {std::tuple{1024, 1024, "1k1k"}, std::tuple{8192, 1024, "8k1k"}}) {
    for (const Curve& c : curves) {
      DeploymentOptions o;
      o.model = "amd/MiniMax-M3-MXFP4";
      o.hardware = "mi355x";
      o.framework = "vllm";
      o.precision = "fp4";
      o.tp = c.tp;
      o.block_size = 128;        // the recipe's --block-size 128
      o.prefix_caching = false;  // --no-enable-prefix-caching
      const Deployment d = ResolveDeployment(data, o);
      for (const int conc : c.conc) {
        const auto p0 = Clock::now();
        const auto r = Predict(d, ReferenceClient(o.model, isl, osl, conc, 10 * conc, 2 * conc));
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - p0).count();
        const auto& m = r.figures;
        std::printf("%-5s %-3d %5d %12.1f %12.1f %12.2f %9.3f %9.2f %9.2f %9lld %10.2f\n", name, c.tp, conc,
                    m.tput_per_gpu, m.output_tput_per_gpu, m.median_intvty, m.median_ttft, m.median_tpot * 1e3,
                    m.median_e2el, static_cast<long long>(r.stats.steps), ms);
        ++points;
        steps += r.stats.steps;
        plans += r.stats.plans;
      }
    }
  }
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("\n%d points, %lld simulated forward passes in %lld plans: %.3f s (data load %.3f s); target <= 2 s\n",
              points, static_cast<long long>(steps), static_cast<long long>(plans), total, load_s);
  return 0;
}

#include "runner/multinode_plan.hpp"

#include <cstdio>

#include "runner/row_engine.hpp"

namespace infermark::runner {
namespace {

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::vector<std::string> WorkerArgv(const std::string& infermark, const MultiNodeEngine& engine,
                                    const std::string& role, const std::string& host, int port) {
  const perfmodel::DeploymentOptions& d = role == "prefill" ? engine.prefill : engine.decode;
  std::vector<std::string> argv =
      EngineServeArgv(infermark, d, engine.served_name, engine.tokenizer, port, engine.time_scale, {});
  argv.insert(argv.begin() + 3, {"--role", role});
  if (role == "prefill") argv.insert(argv.end(), {"--kv-transfer", engine.kv_transfer});
  argv.insert(argv.end(), {"--host", host});
  // The site's flags last: they win over the runner's (the last value of a flag counts).
  argv.insert(argv.end(), engine.extra_args.begin(), engine.extra_args.end());
  return argv;
}

std::vector<std::string> RouterArgv(const std::string& infermark, const MultiNodeEngine& engine,
                                    const std::vector<std::string>& prefill_urls,
                                    const std::vector<std::string>& decode_urls, const std::string& host, int port) {
  auto join = [](const std::vector<std::string>& urls) {
    std::string out;
    for (const auto& u : urls) out += (out.empty() ? "" : ",") + u;
    return out;
  };
  std::vector<std::string> argv = {infermark,
                                   "engine",
                                   "serve",
                                   "--role",
                                   "router",
                                   "--prefill",
                                   join(prefill_urls),
                                   "--decode",
                                   join(decode_urls),
                                   "--model",
                                   engine.prefill.model,
                                   "--served-model-name",
                                   engine.served_name,
                                   "--host",
                                   host,
                                   "--port",
                                   std::to_string(port)};
  if (!engine.router_policy.empty()) argv.insert(argv.end(), {"--policy", engine.router_policy});
  if (!engine.tokenizer.empty()) argv.insert(argv.end(), {"--tokenizer", engine.tokenizer});
  if (engine.time_scale != 1) argv.insert(argv.end(), {"--time-scale", Number(engine.time_scale)});
  return argv;
}

std::string VisibleDevices(int first_gpu, int gpus) {
  std::string out;
  for (int g = first_gpu; g < first_gpu + gpus; ++g) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

}  // namespace infermark::runner

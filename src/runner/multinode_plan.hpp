// What a multi-node row runs on its Slurm allocation, decided from the row and the site file
// before anything starts: how many nodes to ask for, one point per concurrency of the row's list
// (its result file, and its client when the runner drives the load), and for the built-in engine
// the deployment of each role, whose command lines get their host and port once the workers are
// placed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loadgen/bench_config.hpp"
#include "matrix/matrix_row.hpp"
#include "perfmodel/deployment.hpp"
#include "runner/process_group.hpp"
#include "runner/slurm_allocation.hpp"

namespace infermark::runner {

/// One concurrency of a multi-node row.
struct MultiNodePoint {
  int conc = 1;                                       ///< Its concurrency.
  std::string result_filename;                        ///< MultiNodePointStem of the row's stem.
  std::string result_path;                            ///< `<result_dir>/<result_filename>.json`.
  std::optional<loadgen::BenchConfig> client_config;  ///< Built-in engine: the client's settings.
  std::optional<SpawnSpec> client;                    ///< Built-in engine: `bench serve` on the head node.
};

/// The built-in engine per role: `engine serve --role prefill|decode|router`.
struct MultiNodeEngine {
  perfmodel::DeploymentOptions prefill;  ///< A prefill worker's deployment (its pool's tp, ep, dp-attn).
  perfmodel::DeploymentOptions decode;   ///< A decode worker's deployment.
  std::string served_name;               ///< Model name clients use (the row's model id).
  std::string tokenizer;                 ///< Prompt tokenizer (empty: the model's default).
  std::string kv_transfer = "nixl";      ///< KV transfer backend (the row's kv-p2p-transfer).
  std::string router_policy;             ///< Router's prefill pick (empty: the engine's default).
  double time_scale = 1;                 ///< Modelled hardware runs this many times faster.
  std::vector<std::string> extra_args;   ///< The site's extra `engine serve` flags, given to the workers.
};

/// Everything a multi-node row needs besides the common row plan.
struct MultiNodePlan {
  SlurmAllocationRequest allocation;      ///< Nodes: as many as the workers take (PlacementNodes).
  int gpus_per_node = 8;                  ///< The label's gpus-per-node (8 when unset).
  int prefill_gpus = 0;                   ///< GPUs of the prefill pool (workers × tp).
  int decode_gpus = 0;                    ///< GPUs of the decode pool.
  std::vector<MultiNodePoint> points;     ///< In the row's order.
  std::optional<MultiNodeEngine> engine;  ///< Built-in engine target; empty: a launcher script.
};

/// The `engine serve` command line of one worker of `role` ("prefill" or "decode") listening on
/// `host`:`port`, the site's extra flags last (so they win).
std::vector<std::string> WorkerArgv(const std::string& infermark, const MultiNodeEngine& engine,
                                    const std::string& role, const std::string& host, int port);

/// The router's command line: listening on `host`:`port`, in front of the workers' URLs.
std::vector<std::string> RouterArgv(const std::string& infermark, const MultiNodeEngine& engine,
                                    const std::vector<std::string>& prefill_urls,
                                    const std::vector<std::string>& decode_urls, const std::string& host, int port);

/// `CUDA_VISIBLE_DEVICES` of a worker: `gpus` GPUs from `first_gpu` ("2,3").
std::string VisibleDevices(int first_gpu, int gpus);

}  // namespace infermark::runner

#include "gpu/probe/collectives.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include "gpu/probe/cuda_check.hpp"
#include "gpu/probe/nccl_api.hpp"
#include "gpu/probe/timing.hpp"
#include "gpu/probe_abi.h"

namespace infermark::gpu::probe {

namespace {

using nlohmann::json;

// Everything one communicator of `gpus` ranks holds: one rank per device 0..gpus-1, each with its
// stream, events and a send and a receive buffer of `bytes`.
class Ranks {
 public:
  Ranks(const Nccl& nccl, int gpus, std::size_t bytes) : nccl_(nccl), comms_(static_cast<std::size_t>(gpus)) {
    try {
      std::vector<int> devices(static_cast<std::size_t>(gpus));
      for (int d = 0; d < gpus; ++d) devices[static_cast<std::size_t>(d)] = d;
      for (int d = 0; d < gpus; ++d) {
        CudaCheck(cudaSetDevice(d), "cudaSetDevice");
        Rank& r = ranks_.emplace_back();
        CudaCheck(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        r.send = std::make_unique<DeviceBuffer>(bytes);
        r.recv = std::make_unique<DeviceBuffer>(bytes);
        CudaCheck(cudaMemset(r.send->get(), 0, bytes), "cudaMemset");
        CudaCheck(cudaMemset(r.recv->get(), 0, bytes), "cudaMemset");
      }
      nccl_.Check(nccl_.CommInitAll(comms_.data(), gpus, devices.data()), "ncclCommInitAll");
      made_ = true;
    } catch (...) {
      Release();
      throw;
    }
  }
  ~Ranks() { Release(); }
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  // Enqueues `calls` calls of `spec` on every rank, each call one NCCL group over all ranks.
  void Enqueue(const CollectiveSpec& spec, int calls) const {
    const auto n = static_cast<std::size_t>(ranks_.size());
    const std::size_t bytes = RunBytes(spec, static_cast<int>(n));
    for (int c = 0; c < calls; ++c) {
      nccl_.Check(nccl_.GroupStart(), "ncclGroupStart");
      for (std::size_t d = 0; d < n; ++d) {
        const Rank& r = ranks_[d];
        void* send = r.send->get();
        void* recv = r.recv->get();
        if (spec.op == "all_reduce") {
          nccl_.Check(nccl_.AllReduce(send, recv, bytes / 2, kNcclBfloat16, kNcclSum, comms_[d], r.stream),
                      "ncclAllReduce");
        } else if (spec.op == "all_gather") {
          nccl_.Check(nccl_.AllGather(send, recv, bytes / 2 / n, kNcclBfloat16, comms_[d], r.stream), "ncclAllGather");
        } else if (spec.op == "reduce_scatter") {
          nccl_.Check(nccl_.ReduceScatter(send, recv, bytes / 2 / n, kNcclBfloat16, kNcclSum, comms_[d], r.stream),
                      "ncclReduceScatter");
        } else {
          const std::size_t part = bytes / n;
          for (std::size_t peer = 0; peer < n; ++peer) {
            const auto p = static_cast<int>(peer);
            nccl_.Check(nccl_.Send(static_cast<char*>(send) + peer * part, part, kNcclInt8, p, comms_[d], r.stream),
                        "ncclSend");
            nccl_.Check(nccl_.Recv(static_cast<char*>(recv) + peer * part, part, kNcclInt8, p, comms_[d], r.stream),
                        "ncclRecv");
          }
        }
      }
      nccl_.Check(nccl_.GroupEnd(), "ncclGroupEnd");
    }
  }

  // Captures `calls` calls as one graph per rank; leaves none (errors cleared) when capture fails.
  bool Capture(const CollectiveSpec& spec, int calls) {
    ReleaseGraphs();
    std::size_t begun = 0;
    bool ok = true;
    for (std::size_t d = 0; d < ranks_.size() && ok; ++d) {
      cudaSetDevice(static_cast<int>(d));
      ok = cudaStreamBeginCapture(ranks_[d].stream, cudaStreamCaptureModeGlobal) == cudaSuccess;
      begun += ok ? 1 : 0;
    }
    if (ok) {
      try {
        Enqueue(spec, calls);
      } catch (const ProbeError&) {
        ok = false;
      }
    }
    for (std::size_t d = 0; d < begun; ++d) {
      cudaSetDevice(static_cast<int>(d));
      cudaGraph_t graph = nullptr;
      ok = cudaStreamEndCapture(ranks_[d].stream, &graph) == cudaSuccess && graph != nullptr && ok;
      if (graph != nullptr) graphs_.push_back(graph);
    }
    for (std::size_t d = 0; d < graphs_.size() && ok; ++d) {
      cudaSetDevice(static_cast<int>(d));
      cudaGraphExec_t exec = nullptr;
      ok = cudaGraphInstantiate(&exec, graphs_[d], 0) == cudaSuccess;
      if (ok) execs_.push_back(exec);
    }
    if (!ok) {
      for (std::size_t d = 0; d < ranks_.size(); ++d) {
        cudaSetDevice(static_cast<int>(d));
        cudaGetLastError();
      }
      ReleaseGraphs();
    }
    return ok;
  }

  // One batch on every rank: the graphs, or `calls` plain calls (each an NCCL group over all ranks).
  void Enqueue(const CollectiveSpec& spec, int calls, bool replay) const {
    if (!replay || execs_.empty()) {
      Enqueue(spec, calls);
      return;
    }
    for (std::size_t d = 0; d < execs_.size(); ++d) {
      CudaCheck(cudaSetDevice(static_cast<int>(d)), "cudaSetDevice");
      CudaCheck(cudaGraphLaunch(execs_[d], ranks_[d].stream), "cudaGraphLaunch");
    }
  }

  // Waits for every rank.
  void Synchronize() const {
    Each([](Rank& r) { CudaCheck(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize"); });
  }

  // One untimed batch, then `count` timed batches back to back (the queue never runs dry, so no
  // host enqueue gap is timed); each batch's seconds, that of its slowest rank.
  std::vector<double> Time(const CollectiveSpec& spec, int calls, int count) {
    Each([&](Rank& r) {
      while (r.events.size() < static_cast<std::size_t>(count) + 1) {
        cudaEvent_t e = nullptr;
        CudaCheck(cudaEventCreate(&e), "cudaEventCreate");
        r.events.push_back(e);
      }
    });
    Enqueue(spec, calls, true);
    Each([](Rank& r) { CudaCheck(cudaEventRecord(r.events[0], r.stream), "cudaEventRecord"); });
    for (int i = 1; i <= count; ++i) {
      Enqueue(spec, calls, true);
      Each([i](Rank& r) {
        CudaCheck(cudaEventRecord(r.events[static_cast<std::size_t>(i)], r.stream), "cudaEventRecord");
      });
    }
    Synchronize();
    std::vector<double> out(static_cast<std::size_t>(count), 0.0);
    Each([&](Rank& r) {
      for (std::size_t i = 0; i < out.size(); ++i) {
        float ms = 0;
        CudaCheck(cudaEventElapsedTime(&ms, r.events[i], r.events[i + 1]), "cudaEventElapsedTime");
        out[i] = std::max(out[i], static_cast<double>(ms) * 1e-3);
      }
    });
    return out;
  }

  [[nodiscard]] bool graph() const { return !execs_.empty(); }

  // Drops the captured graphs (the next size's calls run plain until captured).
  void ReleaseGraphs() {
    for (cudaGraphExec_t e : execs_) cudaGraphExecDestroy(e);
    for (cudaGraph_t g : graphs_) cudaGraphDestroy(g);
    execs_.clear();
    graphs_.clear();
  }

 private:
  struct Rank {
    cudaStream_t stream = nullptr;
    std::vector<cudaEvent_t> events;
    std::unique_ptr<DeviceBuffer> send;
    std::unique_ptr<DeviceBuffer> recv;
  };

  // Graphs, communicators, events and streams, rank by rank (buffers go with the ranks).
  void Release() {
    ReleaseGraphs();
    for (std::size_t d = 0; d < ranks_.size(); ++d) {
      cudaSetDevice(static_cast<int>(d));
      if (ranks_[d].stream != nullptr) cudaStreamSynchronize(ranks_[d].stream);
      if (made_) nccl_.CommDestroy(comms_[d]);
      for (cudaEvent_t e : ranks_[d].events) cudaEventDestroy(e);
      if (ranks_[d].stream != nullptr) cudaStreamDestroy(ranks_[d].stream);
    }
    ranks_.clear();
    made_ = false;
  }

  void Each(const std::function<void(Rank&)>& f) const {
    for (std::size_t d = 0; d < ranks_.size(); ++d) {
      CudaCheck(cudaSetDevice(static_cast<int>(d)), "cudaSetDevice");
      f(ranks_[d]);
    }
  }

  const Nccl& nccl_;
  std::vector<NcclComm> comms_;
  mutable std::vector<Rank> ranks_;
  std::vector<cudaGraph_t> graphs_;
  std::vector<cudaGraphExec_t> execs_;
  bool made_ = false;
};

// Times one size on the ranks: warm-up calls, a batch sized from one timed call and re-sized from
// a timed replay of it (a lone call's time includes the host's enqueue), captured where possible,
// then `windows` timed batches back to back.
json TimeOne(Ranks& ranks, const CollectiveSpec& spec, const CollectivePlan& plan) {
  ranks.ReleaseGraphs();
  for (int w = 0; w < std::max(plan.warmup, 1); ++w) ranks.Enqueue(spec, 1, false);
  ranks.Synchronize();
  auto size = [&](double per_call) {
    return static_cast<int>(
        std::clamp(std::ceil(plan.min_batch_s / std::max(per_call, 1e-7)), 1.0, static_cast<double>(plan.max_calls)));
  };
  int calls = size(ranks.Time(spec, 1, 1).front());
  ranks.Capture(spec, calls);
  const int resized = size(ranks.Time(spec, calls, 1).front() / calls);
  if (resized > calls) {
    calls = resized;
    ranks.Capture(spec, calls);
  }
  const double start = UnixNow();
  std::vector<double> per_call = ranks.Time(spec, calls, std::max(plan.windows, 1));
  for (double& t : per_call) t /= calls;
  double median = 0, spread = 0;
  MedianSpread(per_call, median, spread);
  return {{"seconds", median},      {"spread", spread}, {"calls", calls},  {"batches", per_call.size()},
          {"graph", ranks.graph()}, {"start", start},   {"end", UnixNow()}};
}

}  // namespace

std::size_t RunBytes(const CollectiveSpec& spec, int gpus) {
  const auto n = static_cast<std::size_t>(std::max(gpus, 1));
  const std::size_t unit = spec.op == "all_reduce" ? 2 : spec.op == "all_to_all" ? n : 2 * n;
  return std::max<std::size_t>((spec.bytes + unit - 1) / unit, 1) * unit;
}

json RunCollectives(const CollectivePlan& plan) {
  // NVLink multicast (NVLS) stays off: on shared hosts it can put the GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const Nccl nccl(plan.nccl_library);
  int devices = 0;
  CudaCheck(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  json out = {{"nccl_version", nccl.Version()}, {"nccl_library", nccl.path()}, {"devices", devices}, {"nvls", false},
              {"runs", json::array()},          {"skipped", json::array()}};
  for (const int gpus : plan.gpu_counts) {
    if (gpus < 1 || gpus > devices) {
      out["skipped"].push_back(gpus);
      if (plan.verbose) std::fprintf(stderr, "probe: collectives over %d GPUs skipped (%d here)\n", gpus, devices);
      continue;
    }
    std::size_t largest = 0;
    for (const CollectiveSpec& s : plan.tests) largest = std::max(largest, RunBytes(s, gpus));
    std::unique_ptr<Ranks> ranks;
    std::string failure;
    try {
      ranks = std::make_unique<Ranks>(nccl, gpus, largest);
    } catch (const ProbeError& e) {
      failure = e.what();
    }
    for (std::size_t i = 0; i < plan.tests.size(); ++i) {
      const CollectiveSpec& s = plan.tests[i];
      json r = {{"index", i}, {"op", s.op}, {"gpus", gpus}, {"bytes", RunBytes(s, gpus)}};
      if (failure.empty()) {
        try {
          r.update(TimeOne(*ranks, s, plan));
        } catch (const ProbeError& e) {
          // A failed collective can leave the communicator unusable: the rest of this count is not run.
          failure = e.what();
        }
      }
      if (!failure.empty()) r["error"] = failure;
      if (plan.verbose && failure.empty())
        std::fprintf(stderr, "probe: %s %d GPUs %zu B: %.2f us (spread %.1f %%, %d calls a %s)\n", s.op.c_str(), gpus,
                     RunBytes(s, gpus), r["seconds"].get<double>() * 1e6, 100 * r["spread"].get<double>(),
                     r["calls"].get<int>(), r["graph"].get<bool>() ? "graph" : "batch of launches");
      out["runs"].push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace infermark::gpu::probe

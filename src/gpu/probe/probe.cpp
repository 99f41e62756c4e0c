// The library's entry points: reads the JSON request, runs the tests it asks for on one GPU and
// returns the JSON result (docs/gpu.md, "Probe"). Every CUDA and cuBLAS return code is checked; a
// GEMM that cannot run is reported on its own and the others go on.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "gpu/probe/collectives.hpp"
#include "gpu/probe/cuda_check.hpp"
#include "gpu/probe/gemm.hpp"
#include "gpu/probe/kernels.hpp"
#include "gpu/probe/timing.hpp"
#include "gpu/probe_abi.h"

namespace infermark::gpu::probe {

namespace {

using nlohmann::json;

constexpr std::size_t kGiB = std::size_t{1} << 30;

std::string VersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string UuidText(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

// The settings of one run, read from the request.
struct Request {
  int device = 0;
  TimingPlan plan;
  bool hbm = true;
  bool peak = true;
  bool launch = true;
  bool verbose = false;
  std::size_t hbm_bytes = 4 * kGiB;
  std::size_t arena_bytes = 0;
  std::int64_t peak_size = 8192;
  double peak_warmup_s = 2;
  double peak_window_s = 1;
  int peak_windows = 3;
  double launch_warmup_s = 1;
  std::vector<GemmSpec> gemms;  // in request order
  bool collectives = false;
  CollectivePlan collective_plan;
};

[[noreturn]] void BadRequest(const std::string& why) {
  throw ProbeError(INFERMARK_PROBE_BAD_REQUEST, why);
}

template <typename T>
T Field(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    BadRequest(std::string("field '") + key + "' has the wrong type");
  }
}

// The `collectives` object: {nccl_library, gpu_counts, tests: [{op, bytes}], warmup, windows,
// min_batch_s, max_calls}.
void ReadCollectives(const json& c, Request& r) {
  if (!c.is_object()) BadRequest("field 'collectives' must be an object");
  CollectivePlan& p = r.collective_plan;
  r.collectives = true;
  p.verbose = r.verbose;
  p.nccl_library = Field<std::string>(c, "nccl_library", "");
  if (p.nccl_library.empty()) BadRequest("collectives.nccl_library must name libnccl.so.2");
  p.gpu_counts = Field<std::vector<int>>(c, "gpu_counts", {1, 2, 4, 8});
  p.warmup = Field(c, "warmup", p.warmup);
  p.windows = Field(c, "windows", p.windows);
  p.min_batch_s = Field(c, "min_batch_s", p.min_batch_s);
  p.max_calls = Field(c, "max_calls", p.max_calls);
  if (p.warmup < 0 || p.windows < 1 || p.max_calls < 1 || !(p.min_batch_s >= 0 && p.min_batch_s <= 1))
    BadRequest("collectives: warmup must be at least 0, windows and max_calls at least 1, min_batch_s in 0..1");
  const json tests = c.contains("tests") ? c["tests"] : json::array();
  if (!tests.is_array()) BadRequest("field 'collectives.tests' must be a list");
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const std::string at = "collectives.tests[" + std::to_string(i) + "]";
    if (!tests[i].is_object()) BadRequest(at + " must be an object");
    CollectiveSpec s;
    s.op = Field<std::string>(tests[i], "op", "");
    s.bytes = Field<std::size_t>(tests[i], "bytes", 0);
    if (s.op != "all_reduce" && s.op != "all_gather" && s.op != "reduce_scatter" && s.op != "all_to_all")
      BadRequest(at + ".op must be all_reduce, all_gather, reduce_scatter or all_to_all");
    if (s.bytes == 0 || s.bytes > (std::size_t{1} << 34)) BadRequest(at + ".bytes must be in 1..16 GiB");
    p.tests.push_back(s);
  }
}

Request ReadRequest(const char* text) {
  json j;
  try {
    j = json::parse(text == nullptr ? "" : text);
  } catch (const json::exception& e) {
    BadRequest(std::string("request is not JSON: ") + e.what());
  }
  if (!j.is_object()) BadRequest("request must be a JSON object");
  Request r;
  r.device = Field(j, "device", 0);
  r.plan.warmup = Field(j, "warmup", 3);
  r.plan.repeats = Field(j, "repeats", 40);
  r.plan.rounds = Field(j, "rounds", 20);
  r.plan.min_batch_s = Field(j, "min_batch_s", 200e-6);
  r.hbm = Field(j, "hbm", true);
  r.peak = Field(j, "peak", true);
  r.launch = Field(j, "launch", true);
  r.verbose = Field(j, "verbose", false);
  r.hbm_bytes = Field<std::size_t>(j, "hbm_bytes", r.hbm_bytes) / 16 * 16;
  r.arena_bytes = Field<std::size_t>(j, "arena_bytes", 0);
  r.peak_size = Field<std::int64_t>(j, "peak_size", 8192);
  r.peak_warmup_s = Field(j, "peak_warmup_s", r.peak_warmup_s);
  r.peak_window_s = Field(j, "peak_window_s", r.peak_window_s);
  r.peak_windows = Field(j, "peak_windows", r.peak_windows);
  r.launch_warmup_s = Field(j, "launch_warmup_s", r.launch_warmup_s);
  if (r.plan.repeats < 1 || r.plan.warmup < 0) BadRequest("repeats must be at least 1 and warmup at least 0");
  if (r.plan.rounds < 1 || r.plan.rounds > r.plan.repeats) BadRequest("rounds must be in 1..repeats");
  if (!(r.plan.min_batch_s >= 0 && r.plan.min_batch_s <= 1)) BadRequest("min_batch_s must be in 0..1");
  if (r.peak_size < 16 || r.peak_size % 16 != 0) BadRequest("peak_size must be a positive multiple of 16");
  if (!(r.peak_warmup_s >= 0 && r.peak_warmup_s <= 60) || !(r.peak_window_s > 0 && r.peak_window_s <= 10) ||
      r.peak_windows < 1 || r.peak_windows > 20)
    BadRequest("peak_warmup_s must be in 0..60, peak_window_s in (0, 10] and peak_windows in 1..20");
  if (!(r.launch_warmup_s >= 0 && r.launch_warmup_s <= 10)) BadRequest("launch_warmup_s must be in 0..10");
  const json gemms = j.contains("gemms") ? j["gemms"] : json::array();
  if (!gemms.is_array()) BadRequest("field 'gemms' must be a list");
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    const json& g = gemms[i];
    const std::string at = "gemms[" + std::to_string(i) + "]";
    if (!g.is_object()) BadRequest(at + " must be an object");
    GemmSpec s;
    s.dtype = Field<std::string>(g, "dtype", "bf16");
    if (s.dtype != "bf16" && s.dtype != "fp8") BadRequest(at + ".dtype must be bf16 or fp8");
    s.m = Field<std::int64_t>(g, "m", 0);
    s.n = (Field<std::int64_t>(g, "n", 0) + 15) / 16 * 16;
    s.k = (Field<std::int64_t>(g, "k", 0) + 15) / 16 * 16;
    s.experts = Field(g, "experts", 0);
    if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.experts < 0) BadRequest(at + " needs m, n, k >= 1 and experts >= 0");
    r.gemms.push_back(s);
  }
  if (j.contains("collectives")) ReadCollectives(j["collectives"], r);
  return r;
}

// A CUDA graph of `nodes` empty kernels, destroyed with the object.
class CapturedGraph {
 public:
  CapturedGraph(cudaStream_t stream, int nodes) {
    CudaCheck(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    try {
      for (int i = 0; i < nodes; ++i) LaunchEmpty(stream);
    } catch (const ProbeError&) {
      cudaStreamEndCapture(stream, &graph_);
      Release();
      throw;
    }
    CudaCheck(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture");
    const cudaError_t made = cudaGraphInstantiate(&exec_, graph_, 0);
    if (made != cudaSuccess) Release();
    CudaCheck(made, "cudaGraphInstantiate");
  }
  ~CapturedGraph() { Release(); }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  void Launch(cudaStream_t stream) const { CudaCheck(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

 private:
  void Release() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Keeps the calling thread on the CPU it runs on while it lives (launch costs are the host's: a thread
// moved between CPUs pays for cold caches); best effort, the old affinity restored.
class PinnedThread {
 public:
  PinnedThread() {
    const int cpu = sched_getcpu();
    if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<std::size_t>(cpu), &one);
    pinned_ = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  }
  ~PinnedThread() {
    if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
  }
  PinnedThread(const PinnedThread&) = delete;
  PinnedThread& operator=(const PinnedThread&) = delete;

 private:
  cpu_set_t saved_{};
  bool pinned_ = false;
};

// Everything one run holds on the device, released in reverse order.
class Session {
 public:
  explicit Session(const Request& request) : request_(request) {
    int count = 0;
    CudaCheck(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (count == 0) throw ProbeError(INFERMARK_PROBE_NO_DEVICE, "cudaGetDeviceCount found no CUDA device");
    if (request.device < 0 || request.device >= count)
      BadRequest("device " + std::to_string(request.device) + " does not exist (" + std::to_string(count) +
                 " CUDA devices)");
    CudaCheck(cudaSetDevice(request.device), "cudaSetDevice");
    CudaCheck(cudaGetDeviceProperties(&props_, request.device), "cudaGetDeviceProperties");
    CudaCheck(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  ~Session() {
    if (blas_ != nullptr) cublasDestroy(blas_);
    if (lt_ != nullptr) cublasLtDestroy(lt_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  json DeviceInfo() const {
    int runtime = 0, driver = 0, sm_khz = 0, mem_khz = 0;
    CudaCheck(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
    CudaCheck(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    CudaCheck(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, request_.device), "cudaDeviceGetAttribute");
    CudaCheck(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, request_.device), "cudaDeviceGetAttribute");
    return {{"name", props_.name},
            {"uuid", UuidText(props_.uuid)},
            {"compute_capability", std::to_string(props_.major) + "." + std::to_string(props_.minor)},
            {"sm_count", props_.multiProcessorCount},
            {"memory_bytes", static_cast<double>(props_.totalGlobalMem)},
            {"l2_bytes", props_.l2CacheSize},
            {"sm_clock_max_mhz", sm_khz / 1000.0},
            {"mem_clock_max_mhz", mem_khz / 1000.0},
            {"cuda_runtime", VersionText(runtime)},
            {"cuda_driver_api", VersionText(driver)},
            {"cublas", std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR)}};
  }

  void Say(const std::string& line) const {
    if (request_.verbose) std::fprintf(stderr, "probe: %s\n", line.c_str());
  }

  static json TestJson(const Timing& t, const char* value_key, double value) {
    json windows = json::array();
    for (const Window& w : t.windows) windows.push_back({w.first, w.second});
    return {{value_key, value},      {"seconds", t.seconds}, {"spread", t.spread},
            {"start", t.start_unix}, {"end", t.end_unix},    {"calls", t.calls},
            {"batches", t.batches},  {"graph", t.graph},     {"windows", std::move(windows)}};
  }

  void Hbm(json& tests) {
    std::size_t free_bytes = 0, total = 0;
    CudaCheck(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    const std::size_t bytes = std::min(request_.hbm_bytes, free_bytes / 4 / 16 * 16);
    DeviceBuffer a(bytes), b(bytes), sink(SinkWords(props_.multiProcessorCount) * sizeof(unsigned));
    FillPattern(a.get(), bytes, 1, stream_);
    FillPattern(b.get(), bytes, 2, stream_);
    TimingPlan plan = request_.plan;
    plan.min_batch_s = 0;
    plan.max_calls = 1;
    plan.try_graph = false;
    const int sms = props_.multiProcessorCount;
    const double size = static_cast<double>(bytes);
    Timing t = TimeCalls(stream_, plan,
                         [&](long) { StreamRead(a.get(), bytes, static_cast<unsigned*>(sink.get()), sms, stream_); });
    tests["hbm_read"] = TestJson(t, "bytes_per_s", size / t.seconds);
    Say("hbm_read " + std::to_string(size / t.seconds / 1e9) + " GB/s");
    t = TimeCalls(stream_, plan, [&](long i) { StreamWrite(b.get(), bytes, static_cast<unsigned>(i), sms, stream_); });
    tests["hbm_write"] = TestJson(t, "bytes_per_s", size / t.seconds);
    Say("hbm_write " + std::to_string(size / t.seconds / 1e9) + " GB/s");
    t = TimeCalls(stream_, plan, [&](long) { StreamCopy(b.get(), a.get(), bytes, sms, stream_); });
    tests["hbm_copy"] = TestJson(t, "bytes_per_s", 2 * size / t.seconds);
    Say("hbm_copy " + std::to_string(2 * size / t.seconds / 1e9) + " GB/s (read + written)");
    tests["hbm_bytes"] = bytes;
  }

  // The three launch tests, interleaved: a warm-up of launch_warmup_s over all of them (host, driver and
  // GPU settle), then rounds, each one untimed batch and repeats/rounds timed batches of every test, on
  // the CPU the thread started on.
  void Launch(json& tests) {
    constexpr int kLaunches = 1000;
    const CapturedGraph many(stream_, kLaunches), one(stream_, 1);
    TimingPlan plan = request_.plan;
    plan.min_batch_s = 0;
    plan.max_calls = 1;
    plan.call_multiple = 1;
    plan.try_graph = false;
    const PinnedThread pinned;
    Batch launch(stream_, plan, [&](long) {
      for (int i = 0; i < kLaunches; ++i) LaunchEmpty(stream_);
    });
    Batch node(stream_, plan, [&](long) { many.Launch(stream_); });
    Batch replay(stream_, plan, [&](long) {
      for (int r = 0; r < kLaunches; ++r) one.Launch(stream_);
    });
    Batch* const all[] = {&launch, &node, &replay};
    for (const double until = UnixNow() + request_.launch_warmup_s; UnixNow() < until;) {
      for (Batch* b : all) b->Enqueue();
      CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    }
    const int per_round = PerRound();
    for (int r = 0; r < request_.plan.rounds; ++r)
      for (Batch* b : all) b->Time(per_round);
    Timing t = launch.Result();
    t.seconds /= kLaunches;
    tests["kernel_launch"] = TestJson(t, "seconds_each", t.seconds);
    Say("kernel_launch " + std::to_string(t.seconds * 1e6) + " us");
    t = node.Result();
    t.seconds /= kLaunches;
    tests["graph_kernel"] = TestJson(t, "seconds_each", t.seconds);
    Say("graph_kernel " + std::to_string(t.seconds * 1e6) + " us per node of a 1000-node graph");
    t = replay.Result();
    t.seconds /= kLaunches;
    tests["graph_launch"] = TestJson(t, "seconds_each", t.seconds);
    Say("graph_launch " + std::to_string(t.seconds * 1e6) + " us per replay of a 1-node graph");
  }

  // Timed batches per round of an interleaved test.
  [[nodiscard]] int PerRound() const {
    return (request_.plan.repeats + request_.plan.rounds - 1) / request_.plan.rounds;
  }

  void OpenLibraries() {
    CublasCheck(cublasLtCreate(&lt_), "cublasLtCreate");
    CublasCheck(cublasCreate(&blas_), "cublasCreate");
    CublasCheck(cublasSetStream(blas_, stream_), "cublasSetStream");
    workspace_ = std::make_unique<DeviceBuffer>(kWorkspace);
    CublasCheck(cublasSetWorkspace(blas_, workspace_->get(), kWorkspace), "cublasSetWorkspace");
    unit_ = std::make_unique<DeviceBuffer>(sizeof(float));
    const float one = 1.0f;
    CudaCheck(cudaMemcpy(unit_->get(), &one, sizeof one, cudaMemcpyHostToDevice), "cudaMemcpy");
    // Activations and outputs every GEMM shares, sized for the largest (the peak's included).
    std::size_t act_bytes = 0, out_bytes = 0;
    std::vector<GemmSpec> all = request_.gemms;
    if (request_.peak)
      for (const char* dtype : {"bf16", "fp8"})
        all.push_back({dtype, request_.peak_size, request_.peak_size, request_.peak_size, 0});
    for (const GemmSpec& g : all) {
      const auto [act, out] = GemmBuffers(g);
      act_bytes = std::max(act_bytes, act);
      out_bytes = std::max(out_bytes, out);
    }
    outputs_ = std::make_unique<DeviceBuffer>(out_bytes);
    std::size_t free_bytes = 0, total = 0;
    CudaCheck(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    free_bytes -= std::min(free_bytes, act_bytes);
    // Room for the arena and, beside it, what cuBLAS and the graphs allocate.
    std::size_t arena =
        request_.arena_bytes > 0 ? request_.arena_bytes : std::min<std::size_t>(48 * kGiB, free_bytes / 2);
    arena = std::min(arena, free_bytes - std::min(free_bytes, 8 * kGiB)) / 256 * 256;
    if (arena < 256 * (std::size_t{1} << 20))
      throw ProbeError(INFERMARK_PROBE_CUDA_ERROR, "too little free device memory for the weight arena (" +
                                                       std::to_string(free_bytes >> 20) + " MiB free)");
    arena_ = std::make_unique<WeightArena>(arena, act_bytes);
    Say("weight arena " + std::to_string(arena >> 20) + " MiB, activations " + std::to_string(act_bytes >> 20) +
        " MiB, outputs " + std::to_string(out_bytes >> 20) + " MiB");
  }

  GemmContext Context() const {
    GemmContext c;
    c.stream = stream_;
    c.lt = lt_;
    c.blas = blas_;
    c.workspace = workspace_->get();
    c.workspace_bytes = kWorkspace;
    c.unit_scale = static_cast<const float*>(unit_->get());
    c.arena = arena_.get();
    c.outputs = outputs_->get();
    c.output_bytes = outputs_->bytes();
    c.l2_bytes = static_cast<std::size_t>(props_.l2CacheSize);
    return c;
  }

  // Each peak GEMM replayed for peak_warmup_s until power and clocks are steady, then timed over
  // peak_windows windows of peak_window_s: the rate the GPU sustains, not a cool GPU's first burst.
  void Peak(json& tests) {
    for (const char* dtype : {"bf16", "fp8"}) {
      GemmSpec s{dtype, request_.peak_size, request_.peak_size, request_.peak_size, 0};
      const std::string name = std::string("gemm_peak_") + dtype;
      try {
        GemmBench bench(Context(), s, request_.plan);
        const Timing t = bench.batch().Sustain(request_.peak_warmup_s, request_.peak_window_s, request_.peak_windows);
        const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
        tests[name] = TestJson(t, "flops_per_s", flops / t.seconds);
        tests[name]["size"] = s.m;
        tests[name]["algo"] = bench.algo();
        Say(name + " " + std::to_string(flops / t.seconds / 1e12) + " TFLOP/s sustained (spread " +
            std::to_string(100 * t.spread) + " %)");
      } catch (const ProbeError& e) {
        if (e.code() != INFERMARK_PROBE_CUDA_ERROR || Sticky()) throw;
        tests[name] = {{"error", e.what()}};
        Say(name + " failed: " + e.what());
      }
    }
  }

  // Every GEMM of one dtype is set up first (its batch sized and captured), then all are timed in
  // rounds: each round runs one untimed and repeats/rounds timed batches of every GEMM in turn, so
  // that each GEMM's batches are spread over the whole section and see the same mix of power and
  // clock states in every run. bf16 first, then fp8: the arena is refilled once.
  json Gemms() {
    json out = json::array();
    const GemmContext context = Context();
    const int per_round = PerRound();
    for (const char* dtype : {"bf16", "fp8"}) {
      std::vector<std::size_t> order;
      for (std::size_t i = 0; i < request_.gemms.size(); ++i)
        if (request_.gemms[i].dtype == dtype) order.push_back(i);
      if (order.empty()) continue;
      std::vector<std::unique_ptr<GemmBench>> benches(order.size());
      std::vector<std::string> errors(order.size());
      auto failed = [&](std::size_t j, const ProbeError& e) {
        if (e.code() != INFERMARK_PROBE_CUDA_ERROR || Sticky()) throw e;
        errors[j] = e.what();
        benches[j].reset();
      };
      for (std::size_t j = 0; j < order.size(); ++j) {
        try {
          benches[j] = std::make_unique<GemmBench>(context, request_.gemms[order[j]], request_.plan);
        } catch (const ProbeError& e) {
          failed(j, e);
        }
      }
      Say(std::string(dtype) + ": " + std::to_string(order.size()) + " GEMMs set up");
      // Each round visits the GEMMs in another order (the same in every run), so that no GEMM always
      // follows the same neighbours at the same point of the power controller's swings.
      std::vector<std::size_t> visit(order.size());
      std::mt19937 shuffle(0x5eed);
      for (int r = 0; r < request_.plan.rounds; ++r) {
        for (std::size_t j = 0; j < visit.size(); ++j) visit[j] = j;
        std::shuffle(visit.begin(), visit.end(), shuffle);
        for (const std::size_t j : visit) {
          if (!benches[j]) continue;
          try {
            benches[j]->batch().Time(per_round);
          } catch (const ProbeError& e) {
            failed(j, e);
          }
        }
        Say(std::string(dtype) + ": round " + std::to_string(r + 1) + "/" + std::to_string(request_.plan.rounds));
      }
      for (std::size_t j = 0; j < order.size(); ++j) {
        const GemmSpec& s = request_.gemms[order[j]];
        json r = {{"index", order[j]}, {"n", s.n}, {"k", s.k}};
        if (benches[j]) {
          r.update(TestJson(benches[j]->batch().Result(), "copies", benches[j]->copies()));
          r["algo"] = benches[j]->algo();
        } else {
          r["error"] = errors[j];
        }
        out.push_back(std::move(r));
      }
    }
    return out;
  }

  // Whether the context is broken for good (an error no later call can recover from).
  static bool Sticky() {
    const cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess) return false;
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess;
  }

  const Request& request_;

 private:
  static constexpr std::size_t kWorkspace = std::size_t{64} << 20;
  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  std::unique_ptr<DeviceBuffer> workspace_;
  std::unique_ptr<DeviceBuffer> unit_;
  std::unique_ptr<DeviceBuffer> outputs_;
  std::unique_ptr<WeightArena> arena_;
};

json Run(const Request& request) {
  Session session(request);
  json result = {{"abi", INFERMARK_PROBE_ABI_VERSION}, {"device", session.DeviceInfo()}};
  json tests = json::object();
  session.Say(std::string("device ") + result["device"]["name"].get<std::string>());
  if (request.hbm) session.Hbm(tests);
  if (request.peak || !request.gemms.empty()) session.OpenLibraries();
  if (request.peak) session.Peak(tests);
  result["gemms"] = request.gemms.empty() ? json::array() : session.Gemms();
  // Last, when host, driver and GPU have run for a while in every run alike (the first launches of a
  // fresh process on an idle GPU run slower).
  if (request.launch) session.Launch(tests);
  result["tests"] = std::move(tests);
  // Last: the collectives drive every GPU of the host.
  if (request.collectives) result["collectives"] = RunCollectives(request.collective_plan);
  result["notes"] = json::array({"grouped GEMMs run in bf16 only: cublasGemmGroupedBatchedEx takes no fp8 operands"});
  return result;
}

char* Copy(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace

}  // namespace infermark::gpu::probe

extern "C" int infermark_probe_abi_version(void) {
  return INFERMARK_PROBE_ABI_VERSION;
}

extern "C" int infermark_probe_run(const char* request_json, char** result_json) {
  using infermark::gpu::probe::ProbeError;
  using nlohmann::json;
  int code = INFERMARK_PROBE_OK;
  std::string text;
  try {
    text = infermark::gpu::probe::Run(infermark::gpu::probe::ReadRequest(request_json)).dump();
  } catch (const ProbeError& e) {
    code = e.code();
    text = json{{"error", e.what()}}.dump();
  } catch (const std::exception& e) {
    code = INFERMARK_PROBE_CUDA_ERROR;
    text = json{{"error", std::string("probe failed: ") + e.what()}}.dump();
  }
  if (result_json != nullptr) *result_json = infermark::gpu::probe::Copy(text);
  return code;
}

extern "C" void infermark_probe_free(char* text) {
  std::free(text);
}

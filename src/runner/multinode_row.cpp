// Every process of the row carries the row's mark (kRowMarkVariable; srun passes the environment
// on to the steps), and the allocation's job id is kept in the row's log folder while it is held,
// so a sweep started again after SIGKILL ends what the killed one left on any node.
#include "runner/multinode_row.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/sha256.hpp"
#include "core/subprocess.hpp"
#include "http/client.hpp"
#include "runner/exit_reason.hpp"
#include "runner/multinode_launch.hpp"
#include "runner/probe_get.hpp"
#include "runner/readiness.hpp"
#include "runner/slurm_allocation.hpp"
#include "runner/stop_signal.hpp"
#include "runner/worker_idle.hpp"
#include "runner/worker_placement.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

bool ParsesAsObject(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  try {
    return Json::parse(ReadFile(path)).is_object();
  } catch (const std::exception&) {
    return false;
  }
}

// Heads a step's log with what it is and where it runs.
void Announce(const std::string& log, const std::string& name, const std::string& job) {
  std::ofstream(log, std::ios::app) << "infermark runner: " << name << ", a step of Slurm job " << job << '\n';
}

// A step of the row: a worker, the router, the client or the launcher.
struct Step {
  std::string name;  // "decode worker 0 on n2"
  std::string log;
  std::unique_ptr<ProcessGroup> group;
  WorkerEndpoint endpoint;
};

// What the row's GPUs and nodes are, for reasons.
std::string Needs(const matrix::MatrixRow& row, const MultiNodePlan& m) {
  std::ostringstream s;
  s << "the row's workers (prefill " << row.prefill->num_worker << " x tp " << row.prefill->tp << ", decode "
    << row.decode->num_worker << " x tp " << row.decode->tp << ": " << m.prefill_gpus + m.decode_gpus << " GPUs) need "
    << m.allocation.nodes << " node(s) of " << m.gpus_per_node << " GPUs";
  return s.str();
}

// The router's own answer to /health: ok when 200, else its status and the message of its JSON
// error (which names the workers it cannot reach); nullopt when it does not answer.
std::optional<std::string> RouterHealth(const std::string& host, int port, bool& ok) {
  const http::FetchResult r = ProbeGet(host, port, "/health");
  ok = r.result.ok() && r.head.status == 200;
  if (r.head.status == 0) return std::nullopt;  // an error status is an answer too
  std::string text = r.body;
  try {
    const Json body = Json::parse(r.body);
    if (body.contains("error") && body["error"].is_object() && body["error"].value("message", "") != "")
      text = body["error"]["message"].get<std::string>();
  } catch (const std::exception&) {
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return "HTTP " + std::to_string(r.head.status) + (text.empty() ? "" : ": " + text);
}

// The first step of `steps` that has ended: its name, how it ended, `when`, and its log's tail.
std::optional<std::string> EndedStep(std::vector<Step>& steps, const std::string& when) {
  for (Step& s : steps) {
    if (auto code = s.group->Poll()) return WithLogTail(s.name + " " + ExitText(*code) + " " + when, s.log);
  }
  return std::nullopt;
}

class MultiNodeRun {
 public:
  MultiNodeRun(const matrix::MatrixRow& row, const RowPlan& plan, const RowLimits& limits, const StoreResult& store,
               bool resume)
      : row_(row), plan_(plan), m_(*plan.multinode), limits_(limits), store_(store), resume_(resume) {
    out_.points.resize(m_.points.size());
    for (std::size_t i = 0; i < m_.points.size(); ++i) {
      out_.points[i].result_filename = m_.points[i].result_filename;
      out_.points[i].outcome.status = RowStatus::kSkipped;
    }
  }

  MultiNodeOutcome Run() {
    start_ = Clock::now();
    deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(Seconds(limits_.row_timeout_s));
    std::error_code ec;
    fs::create_directories(plan_.log_dir, ec);
    fs::create_directories(plan_.result_dir, ec);
    mark_ = (fs::path(plan_.log_dir) / "groups").string();
    job_file_ = (fs::path(plan_.log_dir) / "slurm_job").string();
    // A name no other row or sweep shares, so a resumed sweep finds an allocation granted just
    // before a SIGKILL, before its job id reached job_file_.
    job_name_ = m_.allocation.job_name + "_" + Sha256Hex(mark_).substr(0, 12);
    EndLeftovers();
    Execute();
    Teardown();
    return Finish();
  }

 private:
  // What a sweep killed with SIGKILL left: its allocation (by job id, and by the row's job name
  // for one granted before its id was recorded) and the row's local processes.
  void EndLeftovers() {
    std::ifstream in(job_file_);
    std::string job;
    try {
      if (in >> job && !job.empty()) RunCapture({m_.allocation.scancel, job});
      if (plan_.executor == ExecutorKind::kSlurm) RunCapture({m_.allocation.scancel, "--name=" + job_name_});
    } catch (const std::exception&) {
    }
    KillMarkedProcesses({mark_});
  }

  void Execute() {
    if (plan_.executor != ExecutorKind::kSlurm) {
      Fail("a multi-node row runs on a Slurm allocation: give runner label '" + plan_.label +
           "' executor: slurm in the site file");
      return;
    }
    std::size_t todo = 0;
    for (std::size_t i = 0; i < m_.points.size(); ++i) {
      const MultiNodePoint& p = m_.points[i];
      if (resume_ && ParsesAsObject(p.result_path)) {
        Point(i, RowStatus::kDone, "result found from an interrupted sweep; stored without re-running");
      } else {
        std::error_code ec;
        fs::remove(p.result_path, ec);
        ++todo;
      }
    }
    if (todo == 0) return;
    const int partition = PartitionNodes(m_.allocation);
    if (partition > 0 && partition < m_.allocation.nodes) {
      Fail(Needs(row_, m_) + "; the partition has " + std::to_string(partition));
      return;
    }
    try {
      SlurmAllocationRequest request = m_.allocation;
      request.job_name = job_name_;
      alloc_.emplace(request);
    } catch (const std::exception& e) {
      Fail(Needs(row_, m_) + "; " + e.what());
      return;
    }
    WriteFileAtomic(job_file_, alloc_->job_id() + "\n");
    try {
      placement_ = PlaceWorkers(row_, m_.gpus_per_node, alloc_->nodes());
    } catch (const std::exception& e) {
      Fail(e.what());
      return;
    }
    if (m_.engine) {
      RunEngine();
    } else {
      RunLauncher();
    }
  }

  EnvList Env(EnvList env) const {
    env.emplace_back(kRowMarkVariable, mark_);
    return env;
  }

  // The built-in engine per role: workers, router, readiness, then the points.
  void RunEngine() {
    try {
      const MultiNodeLaunch launch = PlanMultiNodeLaunch(
          plan_.server.argv.front(), *m_.engine, placement_, plan_.port, plan_.log_dir, plan_.server.log_path,
          [this](const std::string& node) { return alloc_->NodeAddress(node); });
      for (const LaunchStep& w : launch.workers) {
        const std::string& node = w.nodes.front();
        Step s;
        s.name = w.role + " worker " + std::to_string(w.index) + " on " + node;
        s.log = w.log_path;
        s.endpoint = WorkerEndpoint{s.name, alloc_->NodeAddress(node), w.port};
        Announce(s.log, s.name + " with CUDA_VISIBLE_DEVICES=" + w.devices, alloc_->job_id());
        s.group = alloc_->Start(node, w.argv, s.log, Env({{"CUDA_VISIBLE_DEVICES", w.devices}}));
        workers_.push_back(std::move(s));
      }
      Step r;
      r.name = "router on " + placement_.head_node;
      r.log = launch.router.log_path;
      r.endpoint = WorkerEndpoint{r.name, alloc_->NodeAddress(placement_.head_node), plan_.port};
      Announce(r.log, r.name, alloc_->job_id());
      r.group = alloc_->Start(placement_.head_node, launch.router.argv, r.log, Env({}));
      router_.push_back(std::move(r));
    } catch (const std::exception& ex) {
      Fail(ex.what());
      return;
    }
    if (!WaitRouterReady()) return;
    std::vector<WorkerEndpoint> endpoints;
    for (const Step& s : workers_) endpoints.push_back(s.endpoint);
    for (std::size_t i = 0; i < m_.points.size(); ++i) {
      if (out_.points[i].outcome.status != RowStatus::kSkipped) continue;
      if (!RunEnginePoint(i, endpoints)) return;
    }
  }

  bool WaitRouterReady() {
    const auto ready_start = Clock::now();
    const auto deadline = ready_start + std::chrono::duration_cast<Clock::duration>(Seconds(limits_.startup_timeout_s));
    std::string last = "no answer";
    for (;;) {
      if (StopRequested() != 0) {
        Interrupt();
        return false;
      }
      bool ok = false;
      if (auto answer = RouterHealth(router_.front().endpoint.host, plan_.port, ok)) {
        last = *answer;
        std::string named;
        for (const Step& w : workers_) {
          const std::string url = "http://" + w.endpoint.host + ":" + std::to_string(w.endpoint.port);
          if (last.find(url) != std::string::npos) named += (named.empty() ? "" : ", ") + w.name + " at " + url;
        }
        if (!named.empty()) last += " (" + named + ")";
      }
      if (ok) break;
      for (auto* steps : {&workers_, &router_}) {
        if (auto ended = EndedStep(*steps, "before the deployment was ready")) {
          Fail(*ended);
          return false;
        }
      }
      if (Clock::now() >= deadline) {
        std::ostringstream why;
        why << "deployment not ready after " << limits_.startup_timeout_s << " s (start-up timeout): router /health "
            << last;
        Fail(why.str());
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    out_.row.ready_s = Seconds(Clock::now() - ready_start).count();
    return true;
  }

  // One concurrency on the running deployment; false when the row cannot go on.
  bool RunEnginePoint(std::size_t i, const std::vector<WorkerEndpoint>& endpoints) {
    const MultiNodePoint& p = m_.points[i];
    const std::string idle = WaitWorkersIdle(endpoints, std::min(limits_.startup_timeout_s, 120.0));
    if (StopRequested() != 0) {
      Interrupt();
      return false;
    }
    if (!idle.empty()) {
      if (auto ended = EndedStep(workers_, "before the point started")) return PointFails(i, *ended);
      Point(i, RowStatus::kFailed, idle);
      return true;
    }
    Step client;
    client.name = "client on " + placement_.head_node;
    client.log = p.client->log_path;
    try {
      Announce(client.log, client.name, alloc_->job_id());
      client.group = alloc_->Start(placement_.head_node, p.client->argv, client.log, Env(p.client->env));
    } catch (const std::exception& e) {
      return PointFails(i, e.what());
    }
    const auto p0 = Clock::now();
    for (;;) {
      if (auto code = client.group->WaitFor(Seconds(0.2))) {
        std::error_code ec;
        const bool written = fs::exists(p.result_path, ec);
        // A worker that died is the cause whatever the client made of its failed requests (srun
        // may see its step end a moment after the client does).
        for (int wait = 0; wait < 5 && !(*code == 0 && written); ++wait) {
          for (auto* steps : {&workers_, &router_}) {
            if (auto ended = EndedStep(*steps, "during the load")) {
              fs::remove(p.result_path, ec);
              return PointFails(i, *ended);
            }
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        const double took = Seconds(Clock::now() - p0).count();
        if (*code == 0 && written) {
          Point(i, RowStatus::kDone, "", took);
        } else if (written) {
          Point(i, RowStatus::kInvalid, "run judged INVALID by the load generator" + VerdictReasons(client.log), took);
        } else {
          Point(i, RowStatus::kFailed, WithLogTail("client " + ExitText(*code) + " without a result", client.log));
        }
        return true;
      }
      if (StopRequested() != 0) {
        client.group->Stop(Seconds(limits_.stop_grace_s));
        Interrupt();
        return false;
      }
      for (auto* steps : {&workers_, &router_}) {
        if (auto ended = EndedStep(*steps, "during the load")) {
          client.group->Stop(Seconds(limits_.stop_grace_s));
          return PointFails(i, *ended);
        }
      }
      if (Clock::now() >= deadline_) {
        client.group->Stop(Seconds(limits_.stop_grace_s));
        return PointFails(i, "row timeout: load still running after " +
                                 std::to_string(static_cast<int>(limits_.row_timeout_s)) + " s");
      }
    }
  }

  // A launcher script as one step on the head node; it starts the workers itself.
  void RunLauncher() {
    std::vector<std::string> prefill_nodes;
    std::vector<std::string> decode_nodes;
    for (const PlacedWorker& w : placement_.workers) {
      auto& nodes = w.role == "prefill" ? prefill_nodes : decode_nodes;
      for (const auto& n : w.nodes) {
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
      }
    }
    EnvList env = plan_.server.env;
    // The layout, unless the row's worker blocks set it.
    if (EnvValue(env, "PREFILL_NODES").empty()) env.emplace_back("PREFILL_NODES", std::to_string(prefill_nodes.size()));
    if (EnvValue(env, "DECODE_NODES").empty()) env.emplace_back("DECODE_NODES", std::to_string(decode_nodes.size()));
    env.emplace_back("GPUS_PER_NODE", std::to_string(m_.gpus_per_node));
    // The whole allocation's nodes: srun started from outside it would give the step only its own.
    std::string nodes;
    for (const auto& n : alloc_->nodes()) nodes += (nodes.empty() ? "" : ",") + n;
    env.emplace_back("SLURM_JOB_NODELIST", nodes);
    env.emplace_back("SLURM_JOB_NUM_NODES", std::to_string(alloc_->nodes().size()));
    Step launcher;
    launcher.name = "launcher on " + placement_.head_node;
    launcher.log = plan_.server.log_path;
    try {
      Announce(launcher.log, launcher.name, alloc_->job_id());
      launcher.group = alloc_->Start(placement_.head_node, plan_.server.argv, launcher.log, Env(env));
    } catch (const std::exception& e) {
      Fail(e.what());
      return;
    }
    std::optional<int> code;
    for (;;) {
      code = launcher.group->WaitFor(Seconds(0.2));
      StoreWrittenPoints();
      if (code) break;
      if (StopRequested() != 0) {
        launcher.group->Stop(Seconds(limits_.stop_grace_s));
        Interrupt();
        return;
      }
      if (Clock::now() >= deadline_) {
        launcher.group->Stop(Seconds(limits_.stop_grace_s));
        Fail("row timeout: launcher still running after " + std::to_string(static_cast<int>(limits_.row_timeout_s)) +
             " s");
        return;
      }
    }
    if (plan_.eval && plan_.eval->only) {
      // An eval-only row: the launcher ran the eval alone and no point was due; the sweep judges
      // the eval folders it left.
      if (*code != 0) Fail(WithLogTail("launcher " + ExitText(*code) + " in its eval-only run", launcher.log));
      return;
    }
    for (std::size_t i = 0; i < m_.points.size(); ++i) {
      if (out_.points[i].outcome.status != RowStatus::kSkipped) continue;
      Point(i, RowStatus::kFailed,
            WithLogTail("launcher " + ExitText(*code) + " without writing " + m_.points[i].result_filename + ".json",
                        launcher.log));
    }
    if (*code != 0 && !failed_) {
      out_.row.status = RowStatus::kInvalid;
      out_.row.reason = "launcher " + ExitText(*code) + " after writing its results";
    }
  }

  void StoreWrittenPoints() {
    for (std::size_t i = 0; i < m_.points.size(); ++i) {
      if (out_.points[i].outcome.status == RowStatus::kSkipped && ParsesAsObject(m_.points[i].result_path)) {
        Point(i, RowStatus::kDone, "");
      }
    }
  }

  // Records point `i`; a point with a result is stored at once.
  void Point(std::size_t i, RowStatus status, std::string reason, double seconds = 0) {
    const MultiNodePoint& p = m_.points[i];
    RowOutcome& o = out_.points[i].outcome;
    o.status = status;
    o.reason = std::move(reason);
    o.seconds = seconds;
    if ((status == RowStatus::kDone || status == RowStatus::kInvalid) && store_) {
      matrix::MatrixRow one = row_;
      one.conc = {p.conc};
      RowPlan point = plan_;
      point.eval.reset();  // the row's evals are judged after its points, and stored then (RunSweep)
      point.result_filename = p.result_filename;
      point.result_path = p.result_path;
      point.client_config = p.client_config;
      point.client = p.client;
      std::string why;
      try {
        why = store_(one, point, o);
      } catch (const std::exception& e) {
        why = e.what();
      }
      if (!why.empty()) {
        o.status = RowStatus::kFailed;
        o.reason = "storing the result failed: " + why;
      }
    }
    if (o.status == RowStatus::kFailed && !failed_) {
      failed_ = true;
      out_.row.status = RowStatus::kFailed;
      out_.row.reason = "conc " + std::to_string(p.conc) + ": " + o.reason;
    } else if (o.status == RowStatus::kInvalid && !failed_ && out_.row.reason.empty()) {
      out_.row.status = RowStatus::kInvalid;
      out_.row.reason = "conc " + std::to_string(p.conc) + ": " + o.reason;
    }
  }

  // Point `i` failed in a way that ends the deployment: later points are not run.
  bool PointFails(std::size_t i, const std::string& why) {
    Point(i, RowStatus::kFailed, why);
    for (std::size_t j = i + 1; j < m_.points.size(); ++j) {
      if (out_.points[j].outcome.status == RowStatus::kSkipped) {
        out_.points[j].outcome.status = RowStatus::kFailed;
        out_.points[j].outcome.reason = "not run: the deployment failed at conc " + std::to_string(m_.points[i].conc);
      }
    }
    return false;
  }

  // The row failed before its points could run.
  void Fail(const std::string& why) {
    failed_ = true;
    out_.row.status = RowStatus::kFailed;
    out_.row.reason = why;
    for (auto& p : out_.points) {
      if (p.outcome.status == RowStatus::kSkipped) {
        p.outcome.status = RowStatus::kFailed;
        p.outcome.reason = why;
      }
    }
  }

  void Interrupt() {
    interrupted_ = true;
    out_.row.status = RowStatus::kInterrupted;
    out_.row.reason = "interrupted by signal " + std::to_string(StopRequested());
  }

  // Releases the allocation (every step on every node ends), then makes sure the local srun
  // processes and anything marked as the row's are gone.
  void Teardown() {
    if (alloc_ && !alloc_->Release(30)) {
      const std::string why = "slurm job " + alloc_->job_id() + " did not end within 30 s of scancel";
      if (!failed_) Fail(why);
    }
    for (auto* steps : {&workers_, &router_}) {
      for (Step& s : *steps) s.group->Stop(Seconds(limits_.stop_grace_s));
    }
    KillMarkedProcesses({mark_});
    std::error_code ec;
    fs::remove(job_file_, ec);
    fs::remove(mark_, ec);
  }

  MultiNodeOutcome Finish() {
    if (!failed_ && !interrupted_ && out_.row.status != RowStatus::kInvalid) out_.row.status = RowStatus::kDone;
    for (auto& p : out_.points) {
      if (p.outcome.status == RowStatus::kSkipped && interrupted_) {
        p.outcome.status = RowStatus::kInterrupted;
        p.outcome.reason = out_.row.reason;
      }
    }
    out_.row.seconds = Seconds(Clock::now() - start_).count();
    return std::move(out_);
  }

  const matrix::MatrixRow& row_;
  const RowPlan& plan_;
  const MultiNodePlan& m_;
  RowLimits limits_;
  const StoreResult& store_;
  bool resume_;
  MultiNodeOutcome out_;
  Clock::time_point start_;
  Clock::time_point deadline_;
  std::string mark_;
  std::string job_file_;
  std::string job_name_;  // the allocation's job name, unique to this row of this sweep
  std::optional<SlurmAllocation> alloc_;
  WorkerPlacement placement_;
  std::vector<Step> workers_;
  std::vector<Step> router_;
  bool failed_ = false;
  bool interrupted_ = false;
};

}  // namespace

MultiNodeOutcome RunMultiNodeRow(const matrix::MatrixRow& row, const RowPlan& plan, const RowLimits& limits,
                                 const StoreResult& store, bool resume) {
  return MultiNodeRun(row, plan, limits, store, resume).Run();
}

}  // namespace infermark::runner

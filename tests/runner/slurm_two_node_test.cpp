// The multi-node runner's Slurm allocations on a real two-node cluster: scripts/slurm-test-cluster.sh
// starts two slurmd nodes (n1, n2) on this host in Slurm's multiple-slurmd mode, with a private
// configuration. ctest starts it once for the runner suite (fixture slurm_two_nodes); a test binary
// run by hand starts it itself and stops it at the end. Skipped, saying why, where Slurm cannot run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include "core/subprocess.hpp"
#include "runner/slurm_allocation.hpp"
#include "runner/worker_placement.hpp"
#include "runner_test_util.hpp"
#include "slurm_cluster.hpp"

namespace infermark::runner {
namespace {

/// Pids of `comm` processes that `scontrol listpids` reports for the job on `node`.
std::vector<pid_t> StepPids(const std::string& job, const std::string& node, const std::string& comm) {
  std::vector<pid_t> pids;
  const ProcessResult r = RunCapture({"scontrol", "listpids", job, node});
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    long pid = 0;
    if (!(fields >> pid)) continue;
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    if (std::getline(in, name) && name == comm) pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

TEST_F(SlurmTwoNodes, TwoNodeAllocationRunsOneCommandPerNodeAndCancelLeavesNoProcess) {
  SlurmAllocationRequest request;
  request.nodes = 2;
  request.job_name = "infermark_test";
  request.grant_timeout_s = 30;
  SlurmAllocation allocation(request);
  ASSERT_EQ(allocation.nodes(), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(allocation.head_node(), "n1");
  for (const std::string node : {"n1", "n2"}) {
    const ProcessResult r = allocation.Run(node, {"sh", "-c", "echo $SLURMD_NODENAME $SLURM_JOB_ID"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, node + " " + allocation.job_id() + "\n") << r.err;
  }

  test::ScratchDir dir;
  auto on_n1 = allocation.Start("n1", {"sleep", "300"}, dir / "n1.log");
  auto on_n2 = allocation.Start("n2", {"sleep", "301"}, dir / "n2.log");
  std::vector<pid_t> n1_pids;
  std::vector<pid_t> n2_pids;
  for (int i = 0; i < 100 && (n1_pids.empty() || n2_pids.empty()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    n1_pids = StepPids(allocation.job_id(), "n1", "sleep");
    n2_pids = StepPids(allocation.job_id(), "n2", "sleep");
  }
  ASSERT_EQ(n1_pids.size(), 1U) << "no step process on n1";
  ASSERT_EQ(n2_pids.size(), 1U) << "no step process on n2";
  EXPECT_NE(n1_pids.front(), n2_pids.front());
  EXPECT_TRUE(test::Alive(n1_pids.front()));

  EXPECT_TRUE(allocation.Release());
  EXPECT_TRUE(on_n1->WaitFor(std::chrono::seconds(15)).has_value()) << "srun for n1 still running after cancel";
  EXPECT_TRUE(on_n2->WaitFor(std::chrono::seconds(15)).has_value()) << "srun for n2 still running after cancel";
  for (const pid_t pid : {n1_pids.front(), n2_pids.front()}) {
    for (int i = 0; i < 50 && test::Alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(test::Alive(pid)) << "step process " << pid << " outlived the allocation";
  }
  EXPECT_TRUE(StepPids(allocation.job_id(), "n1", "sleep").empty());
  EXPECT_TRUE(StepPids(allocation.job_id(), "n2", "sleep").empty());
}

TEST_F(SlurmTwoNodes, A1P1DRowRunsEachWorkerOnItsNodeAndTheRouterOnTheHead) {
  Json row = test::ScriptRow("good", 4);
  row["disagg"] = true;
  row.erase("tp");
  row["prefill"] = Json{{"num-worker", 1}, {"tp", 1}, {"ep", 1}, {"dp-attn", false}};
  row["decode"] = Json{{"num-worker", 1}, {"tp", 1}, {"ep", 1}, {"dp-attn", false}};
  const matrix::MatrixRow typed = test::Typed(row);
  SlurmAllocationRequest request;
  request.nodes = PlacementNodes(typed, 1);
  request.grant_timeout_s = 30;
  SlurmAllocation allocation(request);
  const WorkerPlacement placement = PlaceWorkers(typed, 1, allocation.nodes());
  std::vector<std::string> seen;
  for (const PlacedWorker& w : placement.workers) {
    const ProcessResult r = allocation.Run(w.nodes.front(), {"sh", "-c", "echo " + w.role + " $SLURMD_NODENAME"});
    seen.push_back(r.out);
  }
  seen.push_back(allocation.Run(placement.head_node, {"sh", "-c", "echo router $SLURMD_NODENAME"}).out);
  EXPECT_EQ(seen, (std::vector<std::string>{"prefill n1\n", "decode n2\n", "router n1\n"}));

  // A long-running worker gets its own environment on its node.
  test::ScratchDir dir;
  const PlacedWorker& decode = placement.workers.back();
  auto worker =
      allocation.Start(decode.nodes.front(), {"sh", "-c", "echo $WORKER_ROLE $SLURMD_NODENAME; exec sleep 300"},
                       dir / "decode.log", {{"WORKER_ROLE", decode.role}});
  std::string log;
  for (int i = 0; i < 100 && log.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream in(dir / "decode.log");
    std::getline(in, log);
  }
  EXPECT_EQ(log, "decode n2");
  EXPECT_TRUE(allocation.Release());
  EXPECT_TRUE(worker->WaitFor(std::chrono::seconds(15)).has_value());
}

TEST_F(SlurmTwoNodes, AWorkerThatDiesEndsItsStepWithItsExitStatusAndTheOtherNodeRunsOn) {
  SlurmAllocationRequest request;
  request.nodes = 2;
  request.grant_timeout_s = 30;
  SlurmAllocation allocation(request);
  test::ScratchDir dir;
  auto survivor = allocation.Start("n1", {"sleep", "300"}, dir / "n1.log");
  auto dying = allocation.Start("n2", {"sh", "-c", "sleep 0.2; exit 3"}, dir / "n2.log");
  const std::optional<int> status = dying->WaitFor(std::chrono::seconds(15));
  ASSERT_TRUE(status.has_value()) << "the dying worker's step did not end";
  EXPECT_EQ(*status, 3);
  EXPECT_FALSE(survivor->Poll().has_value()) << "the worker on n1 ended with the one on n2";
  EXPECT_TRUE(allocation.Release());
  EXPECT_TRUE(survivor->WaitFor(std::chrono::seconds(15)).has_value());
}

TEST_F(SlurmTwoNodes, MoreNodesThanTheClusterHasIsAClearError) {
  SlurmAllocationRequest request;
  request.nodes = 3;
  request.grant_timeout_s = 1;
  try {
    SlurmAllocation allocation(request);
    FAIL() << "a three-node allocation was granted on two nodes";
  } catch (const std::runtime_error& e) {
    // Root's requests are not held to partition limits: Slurm refuses it as not startable now
    // (immediately, or once salloc's wait ends).
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("slurm allocation of 3 node(s) not granted: salloc: ", 0), 0U) << what;
    EXPECT_NE(what.find("Requested partition configuration not available now"), std::string::npos) << what;
  }
}

TEST_F(SlurmTwoNodes, StepsOnlyRunOnTheAllocationsNodes) {
  SlurmAllocationRequest request;
  request.nodes = 1;
  request.grant_timeout_s = 30;
  SlurmAllocation allocation(request);
  ASSERT_EQ(allocation.nodes().size(), 1U);
  const std::string other = allocation.head_node() == "n1" ? "n2" : "n1";
  EXPECT_THROW(allocation.Run(other, {"true"}), std::runtime_error);
  EXPECT_EQ(allocation.Run(allocation.head_node(), {"true"}).exit_code, 0);
}

TEST_F(SlurmTwoNodes, StoppingAClusterEndsARunningJobsProcessesOnBothNodes) {
  // A cluster of its own (own folder and ports), so the shared one is left alone.
  test::ScratchDir dir;
  const std::string cluster = dir / "cluster";
  std::filesystem::permissions(dir.path, std::filesystem::perms::others_exec | std::filesystem::perms::group_exec,
                               std::filesystem::perm_options::add);  // munged runs as user munge
  // slurmctld on PORT, the nodes' slurmd on PORT+1 and PORT+2: all three free and below the
  // ephemeral range, where another test's connection could hold one of them.
  const std::string port = std::to_string(test::FreePorts(3));
  const auto script = [&](const std::string& action) {
    return RunCapture({"env", "INFERMARK_SLURM_CLUSTER_DIR=" + cluster, "INFERMARK_SLURM_CLUSTER_PORT=" + port, "bash",
                       test::SourcePath("scripts/slurm-test-cluster.sh"), action});
  };
  // Stopped at the end even when an assertion fails first.
  struct StopAtExit {
    std::function<ProcessResult(const std::string&)> run;
    ~StopAtExit() { run("stop"); }
  } stop_at_exit{script};
  const ProcessResult started = script("start");
  ASSERT_EQ(started.exit_code, 0) << started.out << started.err;
  const std::string conf = "SLURM_CONF=" + cluster + "/slurm.conf";
  const ProcessResult submitted =
      RunCapture({"env", conf, "sbatch", "--parsable", "-N2", "-o", "/dev/null", "--wrap", "srun sleep 432"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  std::vector<pid_t> sleeps;
  for (int i = 0; i < 150 && sleeps.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sleeps.clear();
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::ifstream in(entry.path() / "cmdline");
      std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::replace(args.begin(), args.end(), '\0', ' ');
      if (args == "sleep 432 " || args.ends_with("/sleep 432 "))
        sleeps.push_back(static_cast<pid_t>(std::stol(entry.path().filename())));
    }
  }
  ASSERT_EQ(sleeps.size(), 2U) << "the job's step did not start on both nodes";
  const ProcessResult stopped = script("stop");
  EXPECT_EQ(stopped.exit_code, 0) << stopped.out << stopped.err;
  for (const pid_t pid : sleeps) EXPECT_FALSE(test::Alive(pid)) << "job process " << pid << " outlived the cluster";
  EXPECT_FALSE(std::filesystem::exists(cluster));
}

TEST(SlurmGrant, JobIdFromSallocOutput) {
  EXPECT_EQ(GrantedJobId("salloc: Granted job allocation 42\n"), "42");
  EXPECT_EQ(GrantedJobId("salloc: Pending job allocation 7\nsalloc: job 7 queued and waiting for resources\n"
                         "salloc: Granted job allocation 7\n"),
            "7");
  EXPECT_EQ(GrantedJobId("salloc: error: Job submit/allocate failed: Requested node configuration is not available\n"),
            "");
}

}  // namespace
}  // namespace infermark::runner

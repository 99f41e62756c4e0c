#include "runner/slurm_allocation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace infermark::runner {
namespace {

/// Slurm's reason in salloc's output: its lines but those about waiting, joined with "; ".
std::string Reason(const std::string& text) {
  std::istringstream lines(text);
  std::string reason;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.find("Pending job allocation") != std::string::npos ||
        line.find("queued and waiting") != std::string::npos) {
      continue;
    }
    reason += (reason.empty() ? "" : "; ") + line;
  }
  return reason;
}

/// The job's state from `scontrol show job` ("GONE" once the controller forgot it).
std::string AllocationJobState(const SlurmAllocationRequest& r, const std::string& id) {
  try {
    const ProcessResult out = RunCapture({r.scontrol, "show", "job", id});
    if (out.exit_code != 0) return "GONE";
    constexpr std::string_view kKey = "JobState=";
    const auto pos = out.out.find(kKey);
    if (pos == std::string::npos) return "GONE";
    const auto end = out.out.find_first_of(" \n", pos);
    return out.out.substr(pos + kKey.size(), end - pos - kKey.size());
  } catch (const std::exception&) {
    return "GONE";
  }
}

/// The value of `key=` in `scontrol show job` output.
std::string JobField(const std::string& show, const std::string& key) {
  const std::regex re("(^|\\s)" + key + "=(\\S*)");
  std::smatch m;
  return std::regex_search(show, m, re) ? m[2].str() : std::string();
}

}  // namespace

std::string GrantedJobId(const std::string& salloc_output) {
  static const std::regex re("Granted job allocation ([0-9]+)");
  std::smatch m;
  return std::regex_search(salloc_output, m, re) ? m[1].str() : std::string();
}

int PartitionNodes(const SlurmAllocationRequest& request) {
  ProcessResult r;
  try {
    r = RunCapture({request.sinfo, "--noheader", "--format=%P %D"});
  } catch (const std::exception&) {
    return 0;
  }
  if (r.exit_code != 0) return 0;
  std::istringstream lines(r.out);
  int nodes = 0;
  for (std::string name, count; lines >> name >> count;) {
    const bool is_default = !name.empty() && name.back() == '*';
    if (is_default) name.pop_back();
    if (request.partition.empty() ? is_default : name == request.partition) nodes += std::atoi(count.c_str());
  }
  return nodes;
}

std::string SlurmAllocation::NodeAddress(const std::string& node) const {
  try {
    const ProcessResult show = RunCapture({request_.scontrol, "show", "node", node});
    const std::string addr = JobField(show.out, "NodeAddr");
    if (show.exit_code == 0 && !addr.empty()) return addr;
  } catch (const std::exception&) {
  }
  return node;
}

SlurmAllocation::SlurmAllocation(const SlurmAllocationRequest& request) : request_(request) {
  if (request.nodes < 1) throw std::runtime_error("slurm allocation: nodes must be at least 1");
  std::vector<std::string> argv = {request.salloc,
                                   "--no-shell",
                                   "--exclusive",
                                   "--nodes=" + std::to_string(request.nodes),
                                   "--job-name=" + request.job_name,
                                   "--immediate=" + std::to_string(std::max(1L, std::lround(request.grant_timeout_s)))};
  if (!request.partition.empty()) argv.push_back("--partition=" + request.partition);
  if (request.time_limit_min > 0) argv.push_back("--time=" + std::to_string(request.time_limit_min));
  argv.insert(argv.end(), request.extra_args.begin(), request.extra_args.end());
  const ProcessResult r = RunCapture(argv);
  job_id_ = GrantedJobId(r.err + r.out);
  if (r.exit_code != 0 || job_id_.empty()) {
    if (!job_id_.empty()) RunCapture({request_.scancel, job_id_});
    std::string why = Reason(r.err.empty() ? r.out : r.err);
    if (why.empty()) why = "exit status " + std::to_string(r.exit_code);
    throw std::runtime_error("slurm allocation of " + std::to_string(request.nodes) + " node(s) not granted: " + why);
  }
  const ProcessResult show = RunCapture({request_.scontrol, "show", "job", job_id_});
  const std::string node_list = JobField(show.out, "NodeList");
  const ProcessResult names = RunCapture({request_.scontrol, "show", "hostnames", node_list});
  std::istringstream lines(names.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) nodes_.push_back(line);
  }
  if (show.exit_code != 0 || names.exit_code != 0 || static_cast<int>(nodes_.size()) != request.nodes) {
    Release();
    throw std::runtime_error("slurm allocation " + job_id_ + ": node list '" + node_list + "' does not name " +
                             std::to_string(request.nodes) + " node(s)");
  }
}

SlurmAllocation::~SlurmAllocation() {
  Release();
}

std::vector<std::string> SlurmAllocation::StepArgs(const std::string& node,
                                                   const std::vector<std::string>& argv) const {
  if (std::find(nodes_.begin(), nodes_.end(), node) == nodes_.end()) {
    throw std::runtime_error("slurm allocation " + job_id_ + ": node " + node + " is not part of it");
  }
  if (released_) throw std::runtime_error("slurm allocation " + job_id_ + " was released");
  std::vector<std::string> args = {request_.srun,        "--jobid=" + job_id_, "--nodes=1", "--ntasks=1",
                                   "--nodelist=" + node, "--overlap",          "--quiet",   "--kill-on-bad-exit=1"};
  args.insert(args.end(), argv.begin(), argv.end());
  return args;
}

std::unique_ptr<ProcessGroup> SlurmAllocation::Start(const std::string& node, const std::vector<std::string>& argv,
                                                     const std::string& log_path,
                                                     const std::vector<std::pair<std::string, std::string>>& env) {
  SpawnSpec spec;
  spec.argv = StepArgs(node, argv);
  spec.env = env;
  spec.log_path = log_path;
  return std::make_unique<ProcessGroup>(spec);
}

ProcessResult SlurmAllocation::Run(const std::string& node, const std::vector<std::string>& argv) {
  return RunCapture(StepArgs(node, argv));
}

bool SlurmAllocation::Release(double timeout_s) {
  if (released_ || job_id_.empty()) return true;
  released_ = true;
  try {
    RunCapture({request_.scancel, job_id_});
  } catch (const std::exception&) {
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    const std::string state = AllocationJobState(request_, job_id_);
    if (state != "RUNNING" && state != "COMPLETING" && state != "PENDING" && state != "CONFIGURING") return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace infermark::runner

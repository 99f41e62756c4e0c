// One Slurm allocation of whole nodes for a multi-node row: granted with `salloc --no-shell`, its
// nodes listed in allocation order (the first is the head node, for the router and the client),
// commands started as job steps of one task on chosen nodes (`srun --overlap -w NODE`, so steps
// share a node's CPUs), and everything ended with the allocation (`scancel`): every step on every
// node, no process left behind. Slurm's client programs find the cluster as they always do
// (SLURM_CONF in the environment, else the system's configuration).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/subprocess.hpp"
#include "runner/process_group.hpp"

namespace infermark::runner {

/// What to allocate and how to reach Slurm.
struct SlurmAllocationRequest {
  int nodes = 1;                        ///< Whole nodes (salloc --nodes, --exclusive).
  std::string job_name = "infermark";   ///< salloc --job-name.
  std::string partition;                ///< salloc --partition (empty: the default one).
  int time_limit_min = 0;               ///< salloc --time (0: the partition's limit).
  std::vector<std::string> extra_args;  ///< More salloc arguments (site file's sbatch-args).
  double grant_timeout_s = 60;          ///< How long to wait for the grant (salloc --immediate).
  std::string salloc = "salloc";        ///< Program names (PATH lookup), replaceable for tests.
  std::string srun = "srun";            ///< Starts job steps.
  std::string scontrol = "scontrol";    ///< Node list and job state.
  std::string scancel = "scancel";      ///< Ends the allocation.
  std::string sinfo = "sinfo";          ///< Nodes of the partition.
};

/// Nodes Slurm has in `request.partition` (the default partition when empty), whatever their
/// state, from sinfo; 0 when sinfo cannot tell.
int PartitionNodes(const SlurmAllocationRequest& request);

/// A granted allocation. Not copyable; the destructor releases it.
class SlurmAllocation {
 public:
  /// Asks for `request.nodes` nodes and waits for the grant. Throws std::runtime_error with
  /// Slurm's reason (not enough nodes, bad partition, no controller) when it is not granted.
  explicit SlurmAllocation(const SlurmAllocationRequest& request);
  /// Releases the allocation unless already released.
  ~SlurmAllocation();
  SlurmAllocation(const SlurmAllocation&) = delete;
  SlurmAllocation& operator=(const SlurmAllocation&) = delete;

  /// Slurm's job id of the allocation.
  [[nodiscard]] const std::string& job_id() const { return job_id_; }
  /// Node names in allocation order.
  [[nodiscard]] const std::vector<std::string>& nodes() const { return nodes_; }
  /// The first node: the router and the client run there.
  [[nodiscard]] const std::string& head_node() const { return nodes_.front(); }

  /// The address other hosts reach `node` at: Slurm's NodeAddr, else the node's name.
  [[nodiscard]] std::string NodeAddress(const std::string& node) const;

  /// Starts `argv` as a job step of one task on `node`, its output appended to `log_path`, with
  /// `env` set on top of this process's environment (which srun passes on); the returned group is
  /// the local `srun`, which ends when the step does. Throws std::runtime_error when `node` is not
  /// part of the allocation or srun cannot be started.
  std::unique_ptr<ProcessGroup> Start(const std::string& node, const std::vector<std::string>& argv,
                                      const std::string& log_path,
                                      const std::vector<std::pair<std::string, std::string>>& env = {});
  /// Runs `argv` as a job step of one task on `node` and waits for it, returning its output.
  ProcessResult Run(const std::string& node, const std::vector<std::string>& argv);
  /// Ends the allocation: cancels the job (Slurm stops every step on every node) and waits up to
  /// `timeout_s` for it to leave the running and completing states. Returns false when it did
  /// not in time. Safe to call more than once.
  bool Release(double timeout_s = 30);

 private:
  std::vector<std::string> StepArgs(const std::string& node, const std::vector<std::string>& argv) const;

  SlurmAllocationRequest request_;
  std::string job_id_;
  std::vector<std::string> nodes_;
  bool released_ = false;
};

/// The job id in salloc's "Granted job allocation N" line, or empty when there is none.
std::string GrantedJobId(const std::string& salloc_output);

}  // namespace infermark::runner

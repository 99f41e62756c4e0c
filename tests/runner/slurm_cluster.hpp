// The two-node Slurm test cluster as a GoogleTest fixture: scripts/slurm-test-cluster.sh starts two
// slurmd nodes (n1, n2) on this host in Slurm's multiple-slurmd mode, with a private configuration.
// ctest starts it once for the runner suite (fixture slurm_two_nodes); a test binary run by hand
// starts it itself and stops it at the end. Tests skip, saying why, where Slurm cannot run.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "core/subprocess.hpp"
#include "test_paths.hpp"

namespace infermark::runner {

/// The cluster folder the script uses when INFERMARK_SLURM_CLUSTER_DIR is unset.
inline std::string ClusterDir() {
  const char* dir = std::getenv("INFERMARK_SLURM_CLUSTER_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp/infermark-slurm-cluster";
}

/// Runs the cluster script with `action` (start, stop, status).
inline ProcessResult Cluster(const std::string& action) {
  return RunCapture({"bash", test::SourcePath("scripts/slurm-test-cluster.sh"), action});
}

/// Starts the cluster once per suite and points SLURM_CONF at it.
class SlurmTwoNodes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) {
      why_ = "not root: the test cluster's daemons need root (run scripts/slurm-test-cluster.sh start as root)";
      return;
    }
    try {
      // Running already (ctest's slurm_two_nodes fixture): use it as it is. `start` would wait for
      // both nodes to be idle, which they are not while a test running beside this one holds them.
      if (Cluster("status").exit_code != 0) {
        const ProcessResult r = Cluster("start");
        if (r.exit_code != 0) {
          why_ = "scripts/slurm-test-cluster.sh start failed: " + r.out + r.err;
          return;
        }
        started_here_ = true;
      }
    } catch (const std::exception& e) {
      why_ = e.what();
      return;
    }
    const char* previous = std::getenv("SLURM_CONF");
    if (previous != nullptr) previous_conf_ = previous;
    setenv("SLURM_CONF", (ClusterDir() + "/slurm.conf").c_str(), 1);
  }

  static void TearDownTestSuite() {
    if (why_.empty()) {
      if (previous_conf_) {
        setenv("SLURM_CONF", previous_conf_->c_str(), 1);
      } else {
        unsetenv("SLURM_CONF");
      }
    }
    if (started_here_) Cluster("stop");
  }

  void SetUp() override {
    if (!why_.empty()) GTEST_SKIP() << "no two-node Slurm cluster: " << why_;
  }

  static inline std::string why_;
  static inline bool started_here_ = false;
  static inline std::optional<std::string> previous_conf_;
};

}  // namespace infermark::runner

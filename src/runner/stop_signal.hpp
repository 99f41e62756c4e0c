// Ctrl-C and termination for a running sweep. The handler records the signal and sends SIGTERM
// to every process group the runner registered; the sweep sees StopRequested(), stops the row's
// processes for good (grace, then SIGKILL), records the row as interrupted and exits.
#pragma once

#include <sys/types.h>

namespace infermark::runner {

/// Installs handlers for SIGINT, SIGTERM and SIGHUP (once per process).
void InstallStopHandlers();

/// The signal that asked the run to stop, or 0.
int StopRequested();

/// Adds a process group the handler forwards SIGTERM to. Returns false when the table is full.
bool RegisterGroup(pid_t pgid);

/// Removes a process group from the table.
void UnregisterGroup(pid_t pgid);

}  // namespace infermark::runner

// Scheduling class of the calling thread, for work that may wait while timing-critical threads of
// the same host may not (e.g. the built-in engine tokenizing prompts beside its pass timer and the
// load generator on a 2-core machine).
#pragma once

namespace infermark {

/// Moves the calling thread to the idle scheduling class (Linux SCHED_IDLE, which any user may
/// choose for its own threads): it runs on whatever CPU time no other thread wants, and a thread of
/// the normal class that wakes up takes its CPU at once rather than after a time slice. Returns
/// false when the system refused; the thread then keeps its class, which is only slower.
bool RunAtIdlePriority();

}  // namespace infermark

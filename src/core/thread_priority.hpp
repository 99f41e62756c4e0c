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

/// Lowers the calling thread's nice value by `steps` (Linux: a thread's own nice value, which any
/// user may raise): a thread of the same process at the usual nice value that wakes up then
/// preempts it at once. Returns false when the system refused.
bool YieldToSiblings(int steps);

}  // namespace infermark

// Scheduling class of the calling thread, for work that may wait while timing-critical threads of
// the same host may not (e.g. the built-in engine tokenizing prompts beside its pass timer and the
// load generator on a 2-core machine).
#pragma once

#include <chrono>

namespace infermark {

/// Moves the calling thread to the idle scheduling class (Linux SCHED_IDLE, which any user may
/// choose for its own threads): it runs on whatever CPU time no other thread wants, and a thread of
/// the normal class that wakes up takes its CPU at once rather than after a time slice. Returns
/// false when the system refused; the thread then keeps its class, which is only slower.
bool RunAtIdlePriority();

/// Asks for a time slice of `slice` for the calling thread in the normal class (Linux's EEVDF
/// scheduler, 6.12 and later, honours it; older kernels accept and ignore it). A thread with a
/// shorter slice than the one running takes the CPU when it wakes, instead of waiting for the
/// running thread's slice (up to 3 ms) to end: what a thread that must wake on time needs beside
/// busy threads on the same CPU. Returns false when the system refused.
bool RunWithShortSlice(std::chrono::nanoseconds slice = std::chrono::microseconds(100));

}  // namespace infermark

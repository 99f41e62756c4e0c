// Start-up tuning of the process heap for short-lived commands.
#pragma once

#include <cstddef>

namespace infermark {

/// Makes the allocator grow the heap in one large step backed by transparent huge pages (where the
/// kernel allows them with madvise), and keeps large blocks on that heap instead of separate
/// mappings. On virtual machines a page fault costs tens of microseconds, and a command that
/// touches 20 MB would otherwise take ~5,000 of them; with 2 MB pages it takes about ten. Call once,
/// first thing in main(). Harmless where huge pages are unavailable.
void TuneHeapForShortRuns(std::size_t reserve_bytes = std::size_t{64} << 20);

/// The same for the calling thread's own heap (glibc gives each new thread an arena of its own,
/// a 64 MiB mapping that TuneHeapForShortRuns's top pad makes writable at once): backs it with
/// transparent huge pages, so a worker thread that builds megabytes of a catalog takes a few
/// 2 MB page faults instead of thousands of 4 KB ones. Does nothing before TuneHeapForShortRuns
/// ran, or on the main thread. Threads of the parallel helpers (MapChunks, RunAsync) call it first.
void TuneThreadHeap();

}  // namespace infermark

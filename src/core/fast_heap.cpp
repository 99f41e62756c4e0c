#include "core/fast_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace infermark {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
// glibc's non-main heaps: HEAP_MAX_SIZE (2 x the largest mmap threshold, 64 MiB on 64-bit),
// mapped at an address aligned to their size.
constexpr std::uintptr_t kArenaHeap = std::uintptr_t{64} << 20;

std::atomic<bool> tuned{false};
std::uintptr_t main_heap_start = 0;

}  // namespace

void TuneHeapForShortRuns(std::size_t reserve_bytes) {
  const int reserve = static_cast<int>(reserve_bytes);
  mallopt(M_MMAP_THRESHOLD, reserve);      // large blocks come from the heap too
  mallopt(M_TOP_PAD, reserve);             // grow the heap in one step
  mallopt(M_TRIM_THRESHOLD, reserve * 2);  // and never hand it back mid-run
  // A block larger than the free top of the heap forces one large extension; freed, it stays as
  // the heap's top, ready for the run.
  void* probe = std::malloc(reserve_bytes / 2);
  const auto start = reinterpret_cast<std::uintptr_t>(probe);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (end > aligned + kHugePage) {
    madvise(reinterpret_cast<void*>(aligned), (end - aligned) & ~(kHugePage - 1), MADV_HUGEPAGE);
  }
  std::free(probe);
  main_heap_start = start;
  tuned.store(true, std::memory_order_release);
}

void TuneThreadHeap() {
  if (!tuned.load(std::memory_order_acquire)) return;
  void* probe = std::malloc(1);
  const auto at = reinterpret_cast<std::uintptr_t>(probe);
  std::free(probe);
  // A block on the main heap (the main thread, or an arena shared once threads outnumber them):
  // that heap is tuned already.
  if (at >= main_heap_start && at < reinterpret_cast<std::uintptr_t>(sbrk(0))) return;
  const std::uintptr_t heap = at & ~(kArenaHeap - 1);
  static_assert(kArenaHeap % kHugePage == 0);
  madvise(reinterpret_cast<void*>(heap), kArenaHeap, MADV_HUGEPAGE);
}

}  // namespace infermark

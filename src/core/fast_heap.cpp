#include "core/fast_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace infermark {

void TuneHeapForShortRuns(std::size_t reserve_bytes) {
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
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
}

}  // namespace infermark

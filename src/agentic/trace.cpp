#include "agentic/trace.hpp"

namespace infermark::agentic {

std::size_t TraceCorpus::CallCount() const {
  std::size_t n = 0;
  for (const Trace& t : traces) {
    n += t.calls.size();
    for (const TraceSubagent& s : t.subagents) n += s.calls.size();
  }
  return n;
}

}  // namespace infermark::agentic

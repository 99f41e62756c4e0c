#include "agentic/session_tree.hpp"

#include <algorithm>

namespace infermark::agentic {
namespace {

// The recorded gap before `call` given the call before it (think_time when recorded, else the
// distance from the previous call's end).
double GapBefore(const TraceCall& call, const TraceCall* previous) {
  if (previous == nullptr) return 0;
  if (call.think_time > 0) return call.think_time;
  return std::max(0.0, call.t - (previous->t + previous->api_time));
}

}  // namespace

SessionTree BuildSessionTree(const Trace& trace) {
  SessionTree tree;
  const std::size_t n = trace.calls.size();
  tree.parent_gaps.resize(n, 0);
  tree.spawns.resize(n);
  tree.joins.resize(n);
  tree.subagents.resize(trace.subagents.size());
  for (std::size_t j = 1; j < n; ++j) tree.parent_gaps[j] = GapBefore(trace.calls[j], &trace.calls[j - 1]);

  int last_parent = -1;
  std::vector<std::uint32_t> open;  // subagents waiting for the next parent call to decide a join
  for (const TraceItem& item : trace.items) {
    if (!item.subagent) {
      const TraceCall& call = trace.calls[item.index];
      for (const std::uint32_t s : open) {
        const TraceSubagent& sa = trace.subagents[s];
        const double recorded_end = sa.t + sa.duration_ms / 1000.0;
        if (recorded_end <= call.t) {
          tree.subagents[s].joins = static_cast<int>(item.index);
          tree.subagents[s].join_gap_s = call.t - recorded_end;
          tree.joins[item.index].push_back(s);
        }
      }
      open.clear();
      last_parent = static_cast<int>(item.index);
      continue;
    }
    const TraceSubagent& sa = trace.subagents[item.index];
    SubagentLink& link = tree.subagents[item.index];
    link.anchor = last_parent;
    if (last_parent < 0) {
      link.spawn_gap_s = sa.t;
      tree.initial_spawns.push_back(item.index);
    } else {
      const TraceCall& anchor = trace.calls[static_cast<std::size_t>(last_parent)];
      link.spawn_gap_s = std::max(0.0, sa.t - (anchor.t + anchor.api_time));
      tree.spawns[static_cast<std::size_t>(last_parent)].push_back(item.index);
    }
    link.gaps.resize(sa.calls.size(), 0);
    for (std::size_t i = 0; i < sa.calls.size(); ++i) {
      // Inner calls are timed from the subagent's start; the first one's offset is part of its spawn.
      link.gaps[i] = i == 0 ? 0 : GapBefore(sa.calls[i], &sa.calls[i - 1]);
    }
    if (!sa.calls.empty()) link.spawn_gap_s += sa.calls[0].t;
    open.push_back(item.index);
  }
  return tree;
}

}  // namespace infermark::agentic

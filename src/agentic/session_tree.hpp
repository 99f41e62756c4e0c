// How one trace is replayed as a tree: the parent's calls in order, the subagent groups it spawns
// (each anchored to the parent call before it, started at its recorded offset from that call's
// end) and the joins (a subagent that ended, as recorded, before the parent's next call is a
// prerequisite of that call; one that outlived it runs in the background). Every gap is recorded
// end to start, so a replay keeps the session's think times whatever the server's speed.
#pragma once

#include <cstdint>
#include <vector>

#include "agentic/trace.hpp"

namespace infermark::agentic {

/// A subagent group's place in its session.
struct SubagentLink {
  int anchor = -1;           ///< The parent call it follows (-1: spawned at the session's start).
  double spawn_gap_s = 0;    ///< From the anchor's end (or the session's start) to its first call.
  int joins = -1;            ///< The parent call that waits for it (-1: it runs in the background).
  double join_gap_s = 0;     ///< From its last call's end to that parent call.
  std::vector<double> gaps;  ///< Per inner call: the gap before it (the first: 0, it starts at spawn).
};

/// A trace as a tree to replay.
struct SessionTree {
  std::vector<double> parent_gaps;                 ///< Per parent call: recorded gap from the previous call's end.
  std::vector<std::vector<std::uint32_t>> spawns;  ///< Per parent call: subagents spawned after it ends.
  std::vector<std::uint32_t> initial_spawns;       ///< Subagents spawned before the first parent call.
  std::vector<std::vector<std::uint32_t>> joins;   ///< Per parent call: subagents it waits for.
  std::vector<SubagentLink> subagents;             ///< By Trace::subagents index.
};

/// The replay structure of `trace`.
SessionTree BuildSessionTree(const Trace& trace);

}  // namespace infermark::agentic

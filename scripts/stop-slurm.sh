#!/usr/bin/env bash
# Stops the one-node Slurm cluster's daemons that scripts/start-slurm.sh started, as listed in
# FILE (its INFERMARK_STARTED_FILE): slurmd, then slurmctld, then munged, and waits for each to
# exit. Daemons that ran before (not in FILE) and the two-node test cluster's private daemons
# (started with -f or --socket) are left alone. Exit 0 also when FILE is missing or empty.
set -uo pipefail

file="${1:?usage: stop-slurm.sh FILE}"
[ -s "$file" ] || exit 0

# The system daemon NAME's pids: those started without a private configuration.
system_pids() {
  local pid
  for pid in $(pgrep -x "$1"); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE -- ' (-f|--socket)' || echo "$pid"
  done
}

for daemon in slurmd slurmctld munged; do
  grep -qx "$daemon" "$file" || continue
  pids="$(system_pids "$daemon")"
  [ -n "$pids" ] || continue
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null
  for _ in $(seq 1 100); do
    alive=0
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  [ "$alive" = 1 ] && kill -KILL $pids 2>/dev/null
  echo "stop-slurm: stopped $daemon"
done
: >"$file"
exit 0

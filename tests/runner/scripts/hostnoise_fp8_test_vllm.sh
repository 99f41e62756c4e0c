#!/usr/bin/env bash
# Writes an INVALID result and exits 1. At CONC 1 the reasons are the host's (a saturated client,
# an engine behind its model) on the first run only, and the next run is VALID; at any other CONC
# the reason is the server's (failed requests), every time.
source "$(dirname "$0")/lib.sh"
start_server
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
wait_ready
echo "$RESULT_FILENAME" >>"$RESULT_DIR/runs.log"
sleep 1  # the runner sees the server ready before the launcher ends
runs=$(grep -c "^$RESULT_FILENAME\$" "$RESULT_DIR/runs.log")
if [ "$CONC" = 1 ] && [ "$runs" -gt 1 ]; then
  verdict='"VALID", "verdict_reasons": []'
  code=0
elif [ "$CONC" = 1 ]; then
  verdict='"INVALID", "verdict_reasons": ["client saturated: p99 event-loop lag 1.500 ms, over 1.000 ms", "engine behind its model (p99 2.000 ms): its passes ended late"]'
  code=1
else
  verdict='"INVALID", "verdict_reasons": ["12.00 % of requests failed (12 of 100), over 5.00 %", "client saturated: p99 send lag 1.200 ms"]'
  code=1
fi
printf '{"conc": %s, "isl": %s, "tp": %s, "model_id": "%s", "verdict": %s}\n' "$CONC" "$ISL" "$TP" "$MODEL" "$verdict" >"$RESULT_DIR/$RESULT_FILENAME.json"
exit "$code"

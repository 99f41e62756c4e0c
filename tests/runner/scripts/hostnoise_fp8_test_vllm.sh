#!/usr/bin/env bash
# Writes an INVALID result and exits 1. At CONC 1 the reasons are the host's (headline figures the
# host moved beyond the tolerance) on the first run only, and the next run is VALID; at any other
# CONC the reasons are the server's (failed requests) beside a host error, every time.
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
  verdict='"INVALID", "verdict_reasons": ["host error: median TTFT +3.21 % (+0.152) against its ideal 4.73, over the 1.00 % tolerance: the engine'"'"'s host and the transport +3.10 %, the client'"'"'s sending +0.11 % (engine passes late, p99 2.000 ms)", "host error: output throughput -1.50 % (-20.1) against its ideal 1340, over the 1.00 % tolerance: the engine'"'"'s host and the transport -1.50 %, the client'"'"'s sending +0.00 % (engine passes late, p99 2.000 ms)"]'
  code=1
else
  verdict='"INVALID", "verdict_reasons": ["12.00 % of requests failed (12 of 100), over 5.00 %", "host error: median TTFT +2.00 % (+0.1) against its ideal 5, over the 1.00 % tolerance: the engine'"'"'s host and the transport +2.00 %, the client'"'"'s sending +0.00 % (client send lag p99 1.200 ms)"]'
  code=1
fi
printf '{"conc": %s, "isl": %s, "tp": %s, "model_id": "%s", "verdict": %s}\n' "$CONC" "$ISL" "$TP" "$MODEL" "$verdict" >"$RESULT_DIR/$RESULT_FILENAME.json"
exit "$code"

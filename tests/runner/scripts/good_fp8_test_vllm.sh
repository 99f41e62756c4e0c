#!/usr/bin/env bash
# Serves, "benchmarks" (writes a result file after ROW_SLEEP seconds) and exits 0.
source "$(dirname "$0")/lib.sh"
check() { for v in MODEL TP EP_SIZE DP_ATTENTION CONC ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO RESULT_FILENAME PORT; do [ -n "${!v:-}" ] || { echo "missing $v" >&2; exit 1; }; done; }
check
start_server
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
wait_ready
echo "$RESULT_FILENAME" >>"$RESULT_DIR/runs.log"
sleep "${ROW_SLEEP:-0}"
echo "WARNING: Using KV cache scaling factor 1.0 for fp8_e4m3" >>"$RESULT_DIR/server.log"
printf '{"conc": %s, "isl": %s, "tp": %s, "model_id": "%s"}\n' "$CONC" "$ISL" "$TP" "$MODEL" >"$RESULT_DIR/$RESULT_FILENAME.json.tmp"
mv "$RESULT_DIR/$RESULT_FILENAME.json.tmp" "$RESULT_DIR/$RESULT_FILENAME.json"

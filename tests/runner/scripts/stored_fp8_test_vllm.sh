#!/usr/bin/env bash
# Like hostnoise, with a whole client result (a real H100 run's, re-stamped) that a results store
# takes: at CONC 1 INVALID for the host's reasons (a headline figure the host moved beyond the
# tolerance) on the first run only, then VALID; at any other CONC VALID at once.
source "$(dirname "$0")/lib.sh"
start_server
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
wait_ready
echo "$RESULT_FILENAME" >>"$RESULT_DIR/runs.log"
sleep 1  # the runner sees the server ready before the launcher ends
runs=$(grep -c "^$RESULT_FILENAME\$" "$RESULT_DIR/runs.log")
fixture="$(dirname "$0")/../../fixtures/real-gpu/h100/llama3_1k1k_bf16_transformers_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc4_vm.json"
invalid=0
if [ "$CONC" = 1 ] && [ "$runs" -eq 1 ]; then invalid=1; fi
python3 - "$fixture" "$RESULT_DIR/$RESULT_FILENAME.json" "$invalid" "$CONC" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
result["max_concurrency"] = int(sys.argv[4])
if sys.argv[3] == "1":
    result["verdict"] = "INVALID"
    result["verdict_reasons"] = ["host error: median TTFT +3.21 % (+0.152) against its ideal 4.73, over the "
                                 "1.00 % tolerance: the engine's host and the transport +3.10 %, the client's "
                                 "sending +0.11 % (engine passes late, p99 2.000 ms)"]
json.dump(result, open(sys.argv[2], "w"))
PY
echo "client: done" >&2
[ "$invalid" = 1 ] && exit 1
exit 0

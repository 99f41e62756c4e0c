#!/usr/bin/env bash
# Helpers sourced by infermark's recipe launcher scripts. A launcher receives the InferenceX
# environment contract (MODEL, TP, EP_SIZE, DP_ATTENTION, CONC, ISL, OSL, MAX_MODEL_LEN,
# RANDOM_RANGE_RATIO, RESULT_FILENAME, PORT, ...) and uses infermark as its benchmark client.

export PORT="${PORT:-8888}"
INFERMARK="${INFERMARK:-infermark}"
RESULT_DIR="${RESULT_DIR:-$PWD}"

# Exits 1 naming every listed variable that is unset or empty.
check_env_vars() {
  local missing=()
  for name in "$@"; do
    [ -n "${!name:-}" ] || missing+=("$name")
  done
  if ((${#missing[@]})); then
    echo "launcher: missing environment variables: ${missing[*]}" >&2
    exit 1
  fi
}

# Waits until http://127.0.0.1:$1/health answers, the server process $2 dies, or $3 seconds pass.
wait_for_server_ready() {
  local port="$1" pid="$2" timeout="${3:-3600}" waited=0
  until curl --silent --fail --max-time 5 "http://127.0.0.1:${port}/health" >/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "launcher: server (pid $pid) exited before it became ready" >&2
      return 1
    fi
    if ((waited >= timeout)); then
      echo "launcher: server not ready after ${timeout}s" >&2
      return 1
    fi
    sleep 2
    waited=$((waited + 2))
  done
}

# Runs infermark's load generator with the reference client's flags, as InferenceX recipes do:
# 10 x CONC prompts and 2 x CONC warm-ups, unless the runner scales them down
# (INFERMARK_PROMPTS_PER_CONC, INFERMARK_WARMUPS_PER_CONC; `infermark run --prompts-per-conc`).
run_benchmark_serving() {
  "$INFERMARK" bench serve --model "$MODEL" --backend vllm --base-url "http://127.0.0.1:${PORT}" \
    --dataset-name random --random-input-len "$ISL" --random-output-len "$OSL" \
    --random-range-ratio "$RANDOM_RANGE_RATIO" --num-prompts "$((CONC * ${INFERMARK_PROMPTS_PER_CONC:-10}))" \
    --max-concurrency "$CONC" --request-rate inf --ignore-eos --save-result \
    --num-warmups "$((CONC * ${INFERMARK_WARMUPS_PER_CONC:-2}))" --percentile-metrics 'ttft,tpot,itl,e2el' \
    --result-dir "$RESULT_DIR" --result-filename "${RESULT_FILENAME}.json" "$@"
}

# Runs infermark's agentic client with InferenceX's replay settings (its build_replay_cmd):
# CONC live session trees for DURATION seconds, 10 warm-up requests per lane, start turns in
# [0.25, 0.75], recorded gaps capped at 300 s, seed 42; the aggregate is RESULT_DIR/RESULT_FILENAME.json.
# AGENTIC_TRACES names the corpus (default: the one InferenceX picks from the Hugging Face cache).
run_agentic_replay() {
  local unsafe=()
  if [ "${DURATION:-3600}" -lt 900 ]; then unsafe=(--unsafe-override); fi
  "$INFERMARK" bench agentic --base-url "http://127.0.0.1:${PORT}" --model "$MODEL" \
    --traces "${AGENTIC_TRACES:-semianalysisai/cc-traces-weka-062126}" --concurrency "$CONC" \
    --duration "${DURATION:-3600}" --warmup-requests-per-lane 10 --trajectory-start-min-ratio 0.25 \
    --trajectory-start-max-ratio 0.75 --trace-idle-gap-cap-seconds 300 --failed-request-threshold 0.10 \
    --seed 42 --result-dir "$RESULT_DIR" --result-filename "$RESULT_FILENAME" "${unsafe[@]}" "$@"
}

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
# (INFERMARK_PROMPTS_PER_CONC, INFERMARK_WARMUPS_PER_CONC; `infermark run --prompts-per-conc`), and
# at least INFERMARK_MIN_PROMPTS prompts (`--min-prompts`; unset or 0: no floor).
# An eval-only row (EVAL_ONLY=true) runs no throughput point: this returns at once, as
# InferenceX's run_benchmark_serving does.
run_benchmark_serving() {
  if [ "${EVAL_ONLY:-false}" = true ]; then
    echo "launcher: EVAL_ONLY=true, no throughput point"
    return 0
  fi
  local prompts=$((CONC * ${INFERMARK_PROMPTS_PER_CONC:-10}))
  if [ "$prompts" -lt "${INFERMARK_MIN_PROMPTS:-0}" ]; then prompts=$INFERMARK_MIN_PROMPTS; fi
  "$INFERMARK" bench serve --model "$MODEL" --backend vllm --base-url "http://127.0.0.1:${PORT}" \
    --dataset-name random --random-input-len "$ISL" --random-output-len "$OSL" \
    --random-range-ratio "$RANDOM_RANGE_RATIO" --num-prompts "$prompts" \
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

# InferenceX's setup_eval_context for eval-only rows: the server's context for the eval is
# ISL + OSL + 256 (compute_eval_context_length, without a model config to cap it), exported as
# EVAL_MAX_MODEL_LEN for the launcher to start its server with.
setup_eval_context() {
  EVAL_MAX_MODEL_LEN=$((ISL + OSL + 256))
  export EVAL_MAX_MODEL_LEN
}

# Runs the accuracy eval (GSM8K as lm-evaluation-harness runs it for InferenceX) with
# `infermark eval` against the server on PORT, in place of InferenceX's run_eval + lm-eval:
# concurrency EVAL_CONCURRENT_REQUESTS, else EVAL_CONC, else CONC; several space-separated values
# run in turn against the same live server into EVAL_RESULT_DIR as InferenceX's batched layout
# (results_<stamp>_conc<N>.json, one meta_env.json with eval_concs, completed_eval_concs and
# failed_eval_concs); the context EVAL_MAX_MODEL_LEN sets max_tokens by InferenceX's rule;
# EVAL_LIMIT documents when set; EVAL_TASKS_DIR names the task (default gsm8k). `infermark eval`
# writes lm-eval's results and samples and meta_env.json itself (what append_lm_eval_summary
# adds). The runner judges the folder afterwards (thresholds, the status files), so a low score
# is not a failure here. The return code is `infermark eval`'s (1 INVALID or unreachable, 2 bad
# input, 130 stopped), except that a batch whose failed concurrencies are recorded returns 0, as
# InferenceX's run_eval defers them to the score validation.
run_eval() {
  local port="$PORT" task="${EVAL_TASKS_DIR:-gsm8k}"
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port | --task | --framework)
        if [[ $# -lt 2 || -z "${2:-}" ]]; then
          echo "run_eval: $1 requires a value" >&2
          return 2
        fi
        case "$1" in
          --port) port="$2" ;;
          --task) task="$2" ;;
          --framework)
            if [ "$2" != lm-eval ] && [ "$2" != lm_eval ]; then
              echo "run_eval: only the lm-eval framework is supported, not '$2'" >&2
              return 2
            fi
            ;;
        esac
        shift 2
        ;;
      *)
        echo "run_eval: unknown parameter $1" >&2
        return 2
        ;;
    esac
  done
  local results_dir="${EVAL_RESULT_DIR:-${RESULT_DIR}/evals/${RESULT_FILENAME}}"
  local context="${EVAL_MAX_MODEL_LEN:-${MAX_MODEL_LEN:-16384}}"
  local concs
  read -r -a concs <<<"${EVAL_CONCURRENT_REQUESTS:-${EVAL_CONC:-${CONC:-64}}}"
  local list="${concs[*]}" rc=0
  echo "launcher: eval ${task} at concurrency ${list} against port ${port} -> ${results_dir}"
  CONC="${concs[0]}" "$INFERMARK" eval --tasks "$task" --base-url "http://127.0.0.1:${port}" \
    --model "${MODEL_NAME:-$MODEL}" --api chat --concurrency "${list// /,}" --max-model-len "$context" \
    --output-path "$results_dir" --quiet ${EVAL_LIMIT:+--limit "$EVAL_LIMIT"} || rc=$?
  if [ "${#concs[@]}" -gt 1 ] && [ "$rc" -eq 1 ]; then
    echo "launcher: batched eval failed for some concurrency (failed_eval_concs in ${results_dir}/meta_env.json)" >&2
    rc=0
  fi
  return "$rc"
}

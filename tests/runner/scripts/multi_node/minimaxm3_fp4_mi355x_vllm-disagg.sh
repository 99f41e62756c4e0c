#!/usr/bin/env bash
# Test launcher for multi-node rows (InferenceX's multi-node contract), run by the runner as a step
# on the head node of the row's allocation: the built-in engine per role stands in for vLLM. Each
# prefill worker is a job step on the first PREFILL_NODES nodes, each decode worker one on the next
# DECODE_NODES nodes, the router runs here; every concurrency of CONC_LIST runs on that deployment
# and writes ${RESULT_FILENAME}_conc<N>_gpus_<P+D>_ctx_<P>_gen_<D>.json. TOKENIZER and TIME_SCALE
# (100 by default) come from the caller's environment. An eval-only row runs its eval alone (below).
set -euo pipefail
for v in SLURM_JOB_NODELIST INFERMARK PORT MODEL CONC_LIST ISL OSL RESULT_DIR RESULT_FILENAME PREFILL_NUM_WORKERS \
  PREFILL_TP DECODE_NUM_WORKERS DECODE_TP PREFILL_NODES DECODE_NODES PREFILL_GPUS DECODE_GPUS; do
  [ -n "${!v:-}" ] || { echo "launcher: $v is unset" >&2; exit 1; }
done
here="$(cd "$(dirname "$0")" && pwd)"
if [ "${EVAL_ONLY:-false}" = true ]; then
  # An eval-only row: no points, the eval alone. The built-in engine has no weights, so a server
  # that knows GSM8K's answers stands in for the deployment, here on the head node, and run_eval
  # (the project's benchmark_lib.sh) runs every EVAL_CONC value against it into EVAL_RESULT_DIR.
  # LAUNCHER_SKIP_EVAL=1 leaves no eval; LAUNCHER_EXIT=N exits N after it (both from the caller).
  python3 "$here/../../../eval/gsm8k_answer_server.py" --port "$PORT" \
    --data "$here/../../../../data/evals/gsm8k/test.jsonl" >>"$RESULT_DIR/answer-server.log" 2>&1 &
  answer=$!
  trap 'kill "$answer" 2>/dev/null || true' EXIT
  until curl --silent --fail --max-time 2 "http://127.0.0.1:$PORT/health" >/dev/null; do
    kill -0 "$answer"
    sleep 0.1
  done
  if [ -z "${LAUNCHER_SKIP_EVAL:-}" ]; then
    source "$here/../../../../recipes/benchmarks/benchmark_lib.sh"
    run_eval --framework lm-eval --port "$PORT"
  fi
  exit "${LAUNCHER_EXIT:-0}"
fi
mapfile -t NODES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
SCALE="${TIME_SCALE:-100}"
TOKENIZER="${TOKENIZER:-}"
tok=()
[ -n "$TOKENIZER" ] && tok=(--tokenizer "$TOKENIZER")

# worker ROLE INDEX NODE PORT TP: one engine worker as a job step on NODE.
worker() {
  local args=(--role "$1" --model minimax-m3 --hardware mi355x --precision fp4 --framework vllm --tp "$5"
    --served-model-name "$MODEL" --host 0.0.0.0 --port "$4" --time-scale "$SCALE" "${tok[@]}")
  srun --overlap --nodes=1 --ntasks=1 --nodelist="$3" --quiet "$INFERMARK" engine serve "${args[@]}" \
    >>"$RESULT_DIR/$1-$2.log" 2>&1 &
}
# pool ROLE COUNT NODE TP: COUNT workers of ROLE on NODE from port `next` on; their URLs,
# comma-separated, in `urls`.
pool() {
  urls=""
  for ((i = 0; i < $2; i++)); do
    worker "$1" "$i" "$3" "$next" "$4"
    urls+="${urls:+,}http://127.0.0.1:$next"
    next=$((next + 1))
  done
}
next=$((PORT + 1))
pool prefill "$PREFILL_NUM_WORKERS" "${NODES[0]}" "$PREFILL_TP"
prefill="$urls"
pool decode "$DECODE_NUM_WORKERS" "${NODES[$PREFILL_NODES]}" "$DECODE_TP"
decode="$urls"
"$INFERMARK" engine serve --role router --prefill "$prefill" --decode "$decode" --model minimax-m3 \
  --served-model-name "$MODEL" --host 127.0.0.1 --port "$PORT" >>"$RESULT_DIR/router.log" 2>&1 &
until curl --silent --fail --max-time 2 "http://127.0.0.1:$PORT/health" >/dev/null; do sleep 0.1; done
for conc in $CONC_LIST; do
  "$INFERMARK" bench serve --model "$MODEL" --backend vllm --base-url "http://127.0.0.1:$PORT" \
    --dataset-name random --random-input-len "$ISL" --random-output-len "$OSL" --random-range-ratio 0.8 \
    --num-prompts $((2 * conc)) --max-concurrency "$conc" --request-rate inf --ignore-eos --save-result \
    --num-warmups 0 --result-dir "$RESULT_DIR" "${tok[@]}" \
    --result-filename "${RESULT_FILENAME}_conc${conc}_gpus_$((PREFILL_GPUS + DECODE_GPUS))_ctx_${PREFILL_GPUS}_gen_${DECODE_GPUS}.json" ||
    true
done

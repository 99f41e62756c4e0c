#!/usr/bin/env bash
# Test launcher for multi-node rows (InferenceX's multi-node contract), run by the runner as a step
# on the head node of the row's allocation: the built-in engine per role stands in for vLLM. Each
# prefill worker is a job step on the first PREFILL_NODES nodes, each decode worker one on the next
# DECODE_NODES nodes, the router runs here; every concurrency of CONC_LIST runs on that deployment
# and writes ${RESULT_FILENAME}_conc<N>_gpus_<P+D>_ctx_<P>_gen_<D>.json. TOKENIZER and TIME_SCALE
# (100 by default) come from the caller's environment.
set -euo pipefail
for v in SLURM_JOB_NODELIST INFERMARK PORT MODEL CONC_LIST ISL OSL RESULT_DIR RESULT_FILENAME PREFILL_NUM_WORKERS \
  PREFILL_TP DECODE_NUM_WORKERS DECODE_TP PREFILL_NODES DECODE_NODES PREFILL_GPUS DECODE_GPUS; do
  [ -n "${!v:-}" ] || { echo "launcher: $v is unset" >&2; exit 1; }
done
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

#!/usr/bin/env bash
# Serves GSM8K's answers (every 4th wrong) with tests/eval/gsm8k_answer_server.py, "benchmarks"
# (writes a result file), then runs the eval as the project's launchers do: run_eval from
# recipes/benchmarks/benchmark_lib.sh, which calls `infermark eval`. Records the eval contract it
# received in RESULT_DIR/eval_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib.sh"
source "$here/../../../recipes/benchmarks/benchmark_lib.sh"
check_env_vars MODEL CONC RESULT_FILENAME PORT RUN_EVAL EVAL_RESULT_DIR EVAL_CONC EVAL_MAX_MODEL_LEN
for v in RUN_EVAL EVAL_ONLY EVAL_CONC EVAL_RESULT_DIR EVAL_MAX_MODEL_LEN EVAL_TASKS_DIR EVAL_LIMIT; do
  echo "$v=${!v:-}" >>"$RESULT_DIR/eval_env.txt"
done
python3 "$here/../../eval/gsm8k_answer_server.py" --port "$PORT" --wrong-every 4 \
  --data "$here/../../../data/evals/gsm8k/test.jsonl" >"$RESULT_DIR/server.log" 2>&1 &
SERVER_PID=$!
record_pid "$SERVER_PID"
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
wait_for_server_ready "$PORT" "$SERVER_PID" 60
printf '{"conc": %s, "isl": %s, "tp": %s, "model_id": "%s"}\n' "$CONC" "$ISL" "$TP" "$MODEL" >"$RESULT_DIR/$RESULT_FILENAME.json"
if [ "$RUN_EVAL" = true ]; then
  run_eval --framework lm-eval --port "$PORT" || echo "eval exit $?" >&2
fi

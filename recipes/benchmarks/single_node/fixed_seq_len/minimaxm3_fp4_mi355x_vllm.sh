#!/usr/bin/env bash
# MiniMax-M3 MXFP4 on MI355X with vLLM and the AITER MoE backend (infermark's founding recipe).
# Block size 128 is mandatory for MiniMax-M3's sparse attention; the KV cache stays in the model's
# dtype because the checkpoint ships no calibrated fp8 KV scales.
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE DP_ATTENTION CONC ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO RESULT_FILENAME

SERVER_LOG="${RESULT_DIR}/server.log"

export VLLM_ENGINE_READY_TIMEOUT_S=3600
export VLLM_ROCM_USE_AITER=1
export VLLM_ROCM_USE_AITER_MOE=1
export VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS=1

# An eval-only row starts the server with the eval's context (InferenceX's setup_eval_context).
SERVER_MAX_MODEL_LEN="$MAX_MODEL_LEN"
if [ "${EVAL_ONLY:-false}" = true ]; then
  setup_eval_context
  SERVER_MAX_MODEL_LEN="$EVAL_MAX_MODEL_LEN"
fi

PARALLEL_ARGS=(--tensor-parallel-size "$TP")
if [ "$DP_ATTENTION" = true ]; then
  PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP" --enable-expert-parallel)
elif [ "$EP_SIZE" -gt 1 ]; then
  PARALLEL_ARGS+=(--enable-expert-parallel)
fi

vllm serve "$MODEL" --port "$PORT" "${PARALLEL_ARGS[@]}" --trust-remote-code \
  --block-size 128 --no-enable-prefix-caching --language-model-only \
  --max-model-len "$SERVER_MAX_MODEL_LEN" --attention-backend TRITON_ATTN --moe-backend aiter \
  --tool-call-parser minimax_m3 --enable-auto-tool-choice --reasoning-parser minimax_m3 \
  >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT

wait_for_server_ready "$PORT" "$SERVER_PID"
POINT_STATUS=0
run_benchmark_serving --trust-remote-code || POINT_STATUS=$?
# The accuracy eval after the throughput point (even an INVALID one), against the same server
# (RUN_EVAL rows); the runner judges its folder, so the launcher's exit code stays the point's.
if [ "${RUN_EVAL:-false}" = true ] || [ "${EVAL_ONLY:-false}" = true ]; then
  run_eval --framework lm-eval --port "$PORT" || echo "launcher: the eval ended with exit $?; the runner records it" >&2
fi
exit "$POINT_STATUS"

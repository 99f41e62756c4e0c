#!/usr/bin/env bash
# MiniMax-M3 MXFP4 on MI355X with vLLM on agentic-coding rows: prefix caching on (every turn
# resends the conversation), the native context (agentic rows set no MAX_MODEL_LEN), and with
# KV_OFFLOADING=dram vLLM's native CPU KV offload sized to TOTAL_CPU_DRAM_GB over the TP ranks.
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DURATION KV_OFFLOADING TOTAL_CPU_DRAM_GB RESULT_FILENAME

SERVER_LOG="${RESULT_DIR}/server.log"

export VLLM_ENGINE_READY_TIMEOUT_S=3600
export VLLM_ROCM_USE_AITER=1
export VLLM_ROCM_USE_AITER_MOE=1
export VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS=1

OFFLOAD_ARGS=()
case "$KV_OFFLOADING" in
  none) ;;
  dram)
    check_env_vars KV_OFFLOAD_BACKEND
    if [ "$KV_OFFLOAD_BACKEND" != native ]; then
      echo "this launcher runs KV_OFFLOAD_BACKEND=native only, got '$KV_OFFLOAD_BACKEND'" >&2
      exit 2
    fi
    if [ "$TOTAL_CPU_DRAM_GB" -le 0 ]; then
      echo "KV_OFFLOADING=dram needs a positive TOTAL_CPU_DRAM_GB" >&2
      exit 2
    fi
    OFFLOAD_ARGS=(--kv-offloading-backend native --kv-offloading-size "$TOTAL_CPU_DRAM_GB")
    ;;
  *)
    echo "KV_OFFLOADING must be none or dram, got '$KV_OFFLOADING'" >&2
    exit 2
    ;;
esac

vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" --trust-remote-code \
  --block-size 128 --enable-prefix-caching --language-model-only "${OFFLOAD_ARGS[@]}" \
  --max-num-seqs "$((2 * CONC))" --attention-backend TRITON_ATTN --moe-backend aiter \
  --tool-call-parser minimax_m3 --enable-auto-tool-choice --reasoning-parser minimax_m3 \
  >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT

wait_for_server_ready "$PORT" "$SERVER_PID"
run_agentic_replay

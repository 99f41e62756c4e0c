#!/usr/bin/env bash
# MiniMax-M3 MXFP4 on MI355X, vLLM disaggregated: PREFILL_NUM_WORKERS prefill workers (kv_producer)
# on the first PREFILL_NODES nodes of the Slurm allocation, DECODE_NUM_WORKERS decode workers
# (kv_consumer) on the next DECODE_NODES nodes, the prompt KV handed over by the KV_P2P_TRANSFER
# connector (moriio: vLLM's MoRIIOConnector over RDMA), and vllm-router on the head node (the
# allocation's first node) serving PORT. Every concurrency of CONC_LIST runs on this one deployment,
# in order, each after the workers are idle; each writes
# RESULT_DIR/${RESULT_FILENAME}_conc<N>_gpus_<P+D>_ctx_<P>_gen_<D>.json (P, D: GPUs of each role; the
# name carries them as InferenceX's multi-node servers' file names do, for results processing).
#
# Environment (InferenceX's multi-node contract, benchmark-multinode-tmpl.yml): MODEL, CONC_LIST,
# ISL, OSL, MAX_MODEL_LEN, RANDOM_RANGE_RATIO, RESULT_FILENAME, PREFILL_{NUM_WORKERS,TP,EP,DP_ATTN},
# DECODE_{NUM_WORKERS,TP,EP,DP_ATTN}, KV_P2P_TRANSFER, and the worker blocks' additional settings
# PREFILL_NODES and DECODE_NODES; optional ROUTER_METADATA, PREFILL_PP_SIZE, DECODE_PP_SIZE.
set -euo pipefail
source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL CONC_LIST ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO RESULT_FILENAME \
  PREFILL_NUM_WORKERS PREFILL_TP PREFILL_EP PREFILL_DP_ATTN DECODE_NUM_WORKERS DECODE_TP DECODE_EP \
  DECODE_DP_ATTN PREFILL_NODES DECODE_NODES KV_P2P_TRANSFER

if [ -z "${SLURM_JOB_ID:-}" ]; then
  echo "launcher: needs a Slurm allocation of PREFILL_NODES + DECODE_NODES nodes (SLURM_JOB_ID is unset)" >&2
  exit 1
fi
case "$KV_P2P_TRANSFER" in
  moriio | mori) KV_CONNECTOR=MoRIIOConnector ;;
  nixl) KV_CONNECTOR=NixlConnector ;;
  mooncake) KV_CONNECTOR=MooncakeConnector ;;
  *)
    echo "launcher: KV_P2P_TRANSFER '$KV_P2P_TRANSFER' is not one of moriio, mori, nixl, mooncake" >&2
    exit 1
    ;;
esac

mapfile -t NODES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
if ((${#NODES[@]} < PREFILL_NODES + DECODE_NODES)); then
  echo "launcher: the allocation has ${#NODES[@]} nodes; PREFILL_NODES=$PREFILL_NODES + DECODE_NODES=$DECODE_NODES needed" >&2
  exit 1
fi
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"

export VLLM_ENGINE_READY_TIMEOUT_S=3600
export VLLM_ROCM_USE_AITER=1
export VLLM_ROCM_USE_AITER_MOE=1
export VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS=1
export VLLM_MORIIO_CONNECTOR_READ_MODE=1

STEPS=()
cleanup() {
  for pid in "${STEPS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

# parallel_args TP EP DP_ATTN: vLLM's flags for one worker's parallelism.
parallel_args() {
  if [ "$3" = true ]; then
    echo "--tensor-parallel-size 1 --data-parallel-size $1 --enable-expert-parallel"
  elif [ "$2" -gt 1 ]; then
    echo "--tensor-parallel-size $1 --enable-expert-parallel"
  else
    echo "--tensor-parallel-size $1"
  fi
}

# start_pool ROLE WORKERS TP PP EP DP_ATTN FIRST_NODE NODE_COUNT BASE_PORT: one srun step per worker,
# workers packed onto the role's nodes by GPU (TP x PP GPUs each); prints each worker's URL.
URLS=()
start_pool() {
  local role="$1" workers="$2" tp="$3" pp="$4" ep="$5" dpa="$6" first="$7" count="$8" base_port="$9"
  local gpus=$((tp * pp)) per_node=$((GPUS_PER_NODE / (tp * pp)))
  if ((per_node < 1 || workers > per_node * count)); then
    echo "launcher: $workers $role workers of $gpus GPUs do not fit on $count nodes of $GPUS_PER_NODE GPUs" >&2
    exit 1
  fi
  local kv_role=kv_producer
  [ "$role" = decode ] && kv_role=kv_consumer
  local i
  for ((i = 0; i < workers; i++)); do
    local node="${NODES[first + i / per_node]}" slot=$((i % per_node)) port=$((base_port + i))
    local devices
    devices=$(seq -s, $((slot * gpus)) $((slot * gpus + gpus - 1)))
    # shellcheck disable=SC2046
    srun --overlap --nodes=1 --ntasks=1 --nodelist="$node" --export=ALL,HIP_VISIBLE_DEVICES="$devices" \
      vllm serve "$MODEL" --host 0.0.0.0 --port "$port" $(parallel_args "$tp" "$ep" "$dpa") \
      --pipeline-parallel-size "$pp" --trust-remote-code --block-size 128 --no-enable-prefix-caching \
      --language-model-only --max-model-len "$MAX_MODEL_LEN" --attention-backend TRITON_ATTN --moe-backend aiter \
      --kv-transfer-config "{\"kv_connector\":\"$KV_CONNECTOR\",\"kv_role\":\"$kv_role\"}" \
      >"${RESULT_DIR}/${role}_${i}.log" 2>&1 &
    STEPS+=($!)
    URLS+=("http://${node}:${port}")
    echo "launcher: $role worker $i on $node GPUs $devices port $port"
  done
}

start_pool prefill "$PREFILL_NUM_WORKERS" "$PREFILL_TP" "${PREFILL_PP_SIZE:-1}" "$PREFILL_EP" "$PREFILL_DP_ATTN" 0 \
  "$PREFILL_NODES" 8100
PREFILL_URLS=("${URLS[@]}")
URLS=()
start_pool decode "$DECODE_NUM_WORKERS" "$DECODE_TP" "${DECODE_PP_SIZE:-1}" "$DECODE_EP" "$DECODE_DP_ATTN" \
  "$PREFILL_NODES" "$DECODE_NODES" 8200
DECODE_URLS=("${URLS[@]}")

# Every worker must answer /health before the router starts.
for url in "${PREFILL_URLS[@]}" "${DECODE_URLS[@]}"; do
  waited=0
  until curl --silent --fail --max-time 5 "${url}/health" >/dev/null; do
    for pid in "${STEPS[@]}"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "launcher: a worker exited before ${url} became ready (see ${RESULT_DIR}/*_*.log)" >&2
        exit 1
      fi
    done
    if ((waited >= VLLM_ENGINE_READY_TIMEOUT_S)); then
      echo "launcher: worker ${url} not ready after ${waited}s" >&2
      exit 1
    fi
    sleep 5
    waited=$((waited + 5))
  done
done

ROUTER_ARGS=(--pd-disaggregation --host 0.0.0.0 --port "$PORT" --policy round_robin)
for url in "${PREFILL_URLS[@]}"; do ROUTER_ARGS+=(--prefill "$url"); done
for url in "${DECODE_URLS[@]}"; do ROUTER_ARGS+=(--decode "$url"); done
vllm-router "${ROUTER_ARGS[@]}" >"${RESULT_DIR}/server.log" 2>&1 &
ROUTER_PID=$!
STEPS+=("$ROUTER_PID")
wait_for_server_ready "$PORT" "$ROUTER_PID"

# Waits until no worker has a request running or waiting (vLLM's /metrics), at most 600 s.
wait_for_idle() {
  local waited=0 busy
  while ((waited < 600)); do
    busy=0
    for url in "${PREFILL_URLS[@]}" "${DECODE_URLS[@]}"; do
      busy=$((busy + $(curl --silent --max-time 5 "${url}/metrics" |
        awk '/^vllm:num_requests_(running|waiting)[{ ]/ { n += $NF } END { printf "%d", n }')))
    done
    ((busy == 0)) && return 0
    sleep 2
    waited=$((waited + 2))
  done
  echo "launcher: workers still busy after 600 s; measuring anyway" >&2
}

PREFILL_GPUS=$((PREFILL_NUM_WORKERS * PREFILL_TP * ${PREFILL_PP_SIZE:-1}))
DECODE_GPUS=$((DECODE_NUM_WORKERS * DECODE_TP * ${DECODE_PP_SIZE:-1}))
GPU_SUFFIX="gpus_$((PREFILL_GPUS + DECODE_GPUS))_ctx_${PREFILL_GPUS}_gen_${DECODE_GPUS}"
BASE_RESULT_FILENAME="$RESULT_FILENAME"
for CONC in $CONC_LIST; do
  wait_for_idle
  export CONC RESULT_FILENAME="${BASE_RESULT_FILENAME}_conc${CONC}_${GPU_SUFFIX}"
  run_benchmark_serving --trust-remote-code
done

# The accuracy eval after the points, on the same deployment: each EVAL_CONC value in turn into
# EVAL_RESULT_DIR, batched as InferenceX batches them (run_eval); the runner judges the folder.
export RESULT_FILENAME="$BASE_RESULT_FILENAME"
if [ "${RUN_EVAL:-false}" = true ] || [ "${EVAL_ONLY:-false}" = true ]; then
  wait_for_idle
  run_eval --framework lm-eval --port "$PORT" || echo "launcher: the eval ended with exit $?; the runner records it" >&2
fi

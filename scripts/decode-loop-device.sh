#!/usr/bin/env bash
# The decode loop on a GPU machine: llama-3.3-70b, qwen3-235b-a22b and deepseek-r1 at fp8 weights
# (bf16 KV cache), batches 1..256, within about four minutes. Writes decode_loop.csv,
# decode_loop.json, decode_loop.log and nvidia-smi.csv to $OUT (default: ./decode-loop-out).
# Extra arguments go to bench/gpu/decode_loop.py (e.g. --context 4096). Compare with the model:
#   infermark engine step-time --model MODEL --hardware h200 --precision fp8 --measured OUT/decode_loop.csv
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-decode-loop-out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv >"$out/nvidia-smi.csv" 2>&1 || true
python3 bench/gpu/decode_loop.py --models llama-3.3-70b,qwen3-235b-a22b,deepseek-r1 --dtype fp8 \
  --max-seconds "${MAX_SECONDS:-200}" --out "$out" "$@" 2>&1 | tee "$out/decode_loop.log"

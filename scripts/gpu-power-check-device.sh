#!/usr/bin/env bash
# NVML's energy counter against the energy of sampled board power, integrated as InferenceX does,
# over one loaded window: `infermark gpu monitor` samples at 10 Hz and at 1 Hz (two samplers, one
# window) while the PyTorch decode loop (scripts/decode-loop-device.sh, about 75 s on an H200)
# keeps the GPU busy. BIN (default .devrun) holds the infermark binary; run from the repository
# root. Writes to $OUT (default ./power-check-out): power_check.json (per interval and GPU:
# samples, integrated J, counter J, difference), power_0.1s.csv and power_1s.csv (nvidia-smi's
# format) and the decode loop's files under decode/.
#   scripts/gpu-power-check-device.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(cd "${1:-.devrun}" && pwd)"
out="${OUT:-power-check-out}"
mkdir -p "$out"
"$bin/infermark" gpu monitor --interval 0.1 --interval 1 --csv "$out/power.csv" --json "$out/power_check.json" -- \
  env OUT="$out/decode" bash scripts/decode-loop-device.sh

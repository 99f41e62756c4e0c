#!/usr/bin/env bash
# The GPU probe on a GPU machine, twice, and how far the two runs agree. BIN (default .devrun)
# holds the infermark binary and libinfermark_gpu_probe.so (and any CUDA 13 library the machine
# lacks: libcudart.so.13, libcublas.so.13, libcublasLt.so.13, see `ldd`); run from the
# repository root so that data/engine is found. Writes to $OUT (default ./gpu-probe-out), eight
# files: env.txt (nvidia-smi, ldd), profile_1.yaml, profile_2.yaml, their power samples
# (profile_N.power.csv), probe_N.log and profile_diff.txt. Extra arguments go to `gpu probe`
# (e.g. --quick, --models llama-3.3-70b). Exit code: the probe's, else the diff's (1 when a figure
# differs by more than 3 %).
#   scripts/gpu-probe-device.sh [BIN] [-- PROBE FLAGS…]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-probe-out}"
. scripts/gpu-device-env.sh
{
  nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
    --format=csv
  echo
  ldd "$bin/infermark" "$bin/libinfermark_gpu_probe.so"
} >"$out/env.txt" 2>&1
cat "$out/env.txt"
for run in 1 2; do
  "$bin/infermark" gpu probe --out "$out/profile_$run.yaml" --power-csv "$out/profile_$run.power.csv" "$@" 2>&1 |
    tee "$out/probe_$run.log"
done
"$bin/infermark" gpu profile-diff "$out/profile_1.yaml" "$out/profile_2.yaml" --tolerance 0.03 >"$out/profile_diff.txt" &&
  status=0 || status=$?
# The summary line, then the figures furthest apart.
tail -n 1 "$out/profile_diff.txt"
grep -E '\*$' "$out/profile_diff.txt" | head -n 40 || true
exit "$status"

#!/usr/bin/env bash
# NCCL collectives on a GPU machine: `infermark gpu probe --collectives-only` over 1, 2, 4 and 8 GPUs
# (those the machine has), twice, at the built-in models' message sizes. BIN (default .devrun)
# holds the infermark binary and libinfermark_gpu_probe.so (and any CUDA 13 library the machine
# lacks: scripts/gpu-device-env.sh looks them up); NCCL is NCCL_LIBRARY's, else PyTorch's NCCL wheel
# found through python3. Run from the repository root so that data/engine is found. Writes to $OUT
# (default ./gpu-collectives-out): env.txt (nvidia-smi, the GPU topology, the NCCL found),
# collectives_N.yaml (the profiles), collectives_N.log (their output), profile_diff.txt (how far the
# two runs agree), missing_nccl.log (the message when NCCL_LIBRARY names no file). Extra arguments go to `gpu probe` (e.g. --quick).
#   scripts/gpu-collectives-device.sh [BIN] [-- PROBE FLAGS…]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-collectives-out}"
. scripts/gpu-device-env.sh
# NVLink multicast stays off, here and in every program started from here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
  nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total --format=csv
  echo
  nvidia-smi topo -m || true
  echo
  python3 -c "import nvidia.nccl as n; print('nvidia.nccl at', list(n.__path__))" || echo "python3 has no nvidia.nccl"
  echo "NCCL_LIBRARY=${NCCL_LIBRARY:-}"
} >"$out/env.txt" 2>&1
cat "$out/env.txt"
for run in 1 2; do
  "$bin/infermark" gpu probe --collectives-only --out "$out/collectives_$run.yaml" \
    --power-csv "$out/collectives_$run.power.csv" "$@" 2>&1 | tee "$out/collectives_$run.log"
done
rm -f "$out"/collectives_*.power.csv
"$bin/infermark" gpu profile-diff "$out/collectives_1.yaml" "$out/collectives_2.yaml" >"$out/profile_diff.txt" || true
tail -n 1 "$out/profile_diff.txt"
# Without NCCL: one clear message, no crash.
NCCL_LIBRARY=/nonexistent/libnccl.so.2 "$bin/infermark" gpu probe --collectives-only --out "$out/none.yaml" \
  >"$out/missing_nccl.log" 2>&1 && status=0 || status=$?
echo "exit $status" >>"$out/missing_nccl.log"
cat "$out/missing_nccl.log"

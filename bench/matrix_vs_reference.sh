#!/usr/bin/env bash
# Whole-process time of `matrix full-sweep` over the full InferenceX catalog (amd + nvidia
# masters, 1,820 rows, JSON out), infermark against InferenceX's own generator when a copy of it
# is at $INFERENCEX_DIR (default ../shared/reference/inferencex beside the source tree, which
# holds utils/matrix_logic/; never committed here).
# Prints a markdown table; checks the two outputs are byte-identical first.
# Usage: bench/matrix_vs_reference.sh [INFERMARK_BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
bin="$(realpath "${1:-$root/build-release/src/cli/infermark}")"
ref="${INFERENCEX_DIR:-$root/../shared/reference/inferencex}"
runs="${RUNS:-30}"
cd "$root/tests/fixtures/inferencex"
args=(full-sweep --config-files configs/amd-master.yaml configs/nvidia-master.yaml --runner-config configs/runners.yaml)

ours_cmd="$bin matrix ${args[*]} --format json"
have_ref=0
if [ -f "$ref/utils/matrix_logic/generate_sweep_configs.py" ]; then
  have_ref=1
  ref_cmd="python3 $ref/utils/matrix_logic/generate_sweep_configs.py ${args[*]}"
  if cmp -s <($ours_cmd | sed -e 's/[[:space:]]*$//') <($ref_cmd | sed -e 's/[[:space:]]*$//'); then
    echo "outputs: byte-identical ($($ours_cmd | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') rows)"
  else
    echo "outputs DIFFER" >&2
    exit 1
  fi
fi

# Mean and standard deviation of wall time in ms over $runs runs (after 3 warm-ups).
measure() {
  python3 - "$runs" "$@" <<'PY'
import subprocess, sys, time, statistics
runs = int(sys.argv[1]); cmd = sys.argv[2:]
for _ in range(3): subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
t = []
for _ in range(runs):
    s = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True); t.append((time.perf_counter() - s) * 1e3)
print(f"{statistics.mean(t):.1f} {statistics.pstdev(t):.1f} {min(t):.1f}")
PY
}

read -r o_mean o_sd o_min <<<"$(measure $ours_cmd)"
echo
echo "| tool | mean ms | sd ms | min ms | vs reference |"
echo "|---|---:|---:|---:|---:|"
if ((have_ref)); then
  read -r r_mean r_sd r_min <<<"$(RUNS=$((runs / 3 + 1)) measure $ref_cmd)"
  echo "| InferenceX generate_sweep_configs.py | $r_mean | $r_sd | $r_min | 1.0x |"
  echo "| infermark matrix full-sweep | $o_mean | $o_sd | $o_min | $(python3 -c "print(f'{$r_mean/$o_mean:.0f}x faster')") |"
else
  echo "| infermark matrix full-sweep | $o_mean | $o_sd | $o_min | (reference not found at $ref) |"
fi
echo
echo "host: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

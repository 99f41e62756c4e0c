# The common start of the scripts/gpu-*-device.sh scripts, sourced (`. scripts/gpu-device-env.sh`)
# from the repository root with the script's own arguments, after `set -euo pipefail` and with
# `out` set to the output folder. Takes BIN (default .devrun, the folder of the infermark binary
# and libinfermark_gpu_probe.so) and an optional `--` off the arguments, leaving the rest for
# `gpu probe`; creates $out; stops (exit 1) when the machine has no NVIDIA driver; sets `bin` to
# BIN's absolute path and puts the CUDA libraries on LD_LIBRARY_PATH: beside the binary (and in
# BIN/lib) first, then the toolkit's folders, then wherever the machine keeps a libcublasLt.so.13
# or libcudart.so.13 (a Python package's copy, say) when ldd misses one.
bin="${1:-.devrun}"
if [ $# -gt 0 ]; then shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
mkdir -p "${out:?set out before sourcing}"
if ! command -v nvidia-smi >/dev/null; then
  echo "nvidia-smi not found: no NVIDIA driver on this machine" >&2
  exit 1
fi
bin="$(cd "$bin" && pwd)"
libs="$bin:$bin/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib"
if LD_LIBRARY_PATH="$libs" ldd "$bin/libinfermark_gpu_probe.so" | grep -q "not found"; then
  for lib in libcublasLt.so.13 libcudart.so.13; do
    found="$(find /usr/local /opt /usr/lib -name "$lib" 2>/dev/null | head -n 1 || true)"
    if [ -n "$found" ]; then libs="$libs:$(dirname "$found")"; fi
  done
fi
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

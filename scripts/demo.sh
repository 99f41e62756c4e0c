#!/usr/bin/env bash
# The main job: installs what infermark needs, builds it, validates the project's recipe catalog
# and prints the founding recipe's job matrix (MiniMax-M3 MXFP4 on MI355X with vLLM: 30 jobs).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

JOBS="${JOBS:-2}"
BUILD="${BUILD_DIR:-build-release}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINFERMARK_TESTS=OFF -DINFERMARK_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target infermark
IM="$BUILD/src/cli/infermark"

echo
echo "== infermark validate (the project's catalog: recipes/) =="
"$IM" validate

echo
echo "== infermark matrix test-config --config-keys minimaxm3-fp4-mi355x-vllm =="
"$IM" matrix test-config --config-keys minimaxm3-fp4-mi355x-vllm --format table

echo
echo "Result file names on this host:"
"$IM" matrix test-config --config-keys minimaxm3-fp4-mi355x-vllm --seq-lens 8k1k --conc 64 --format names

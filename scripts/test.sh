#!/usr/bin/env bash
# Builds infermark with warnings as errors and runs every test: unit, golden, black-box and the
# fuzz targets (libFuzzer, FUZZ_SECONDS each, 60 by default). Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

JOBS="${JOBS:-2}"
BUILD="${BUILD_DIR:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINFERMARK_WERROR=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS"
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS"

# Fuzz targets need clang's libFuzzer: a separate build tree.
FUZZ_BUILD="${BUILD}-fuzz"
CC=clang-14 CXX=clang++-14 cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINFERMARK_FUZZ=ON -DINFERMARK_TESTS=OFF -DINFERMARK_BENCH=OFF -DINFERMARK_STATIC_DEPS=OFF >/dev/null
cmake --build "$FUZZ_BUILD" -j "$JOBS" --target fuzz_targets
bash fuzz/run.sh "$FUZZ_BUILD" "${FUZZ_SECONDS:-60}"

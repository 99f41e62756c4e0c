#!/usr/bin/env bash
# Builds infermark with warnings as errors and runs every test: unit, golden, black-box and the
# fuzz targets (libFuzzer, FUZZ_SECONDS each, 60 by default). Installs what it needs first, starts
# the services the tests use and stops them when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

JOBS="${JOBS:-2}"
BUILD="${BUILD_DIR:-build}"

# Services the tests need, started here and stopped when this script ends, however it ends (Ctrl-C
# included): the one-node Slurm cluster with munge (only the daemons that were not running
# already), and whatever ctest's fixtures left behind if ctest itself was interrupted (the private
# PostgreSQL server and the two-node Slurm cluster, whose fixtures stop them after a whole run).
STARTED="$(mktemp /tmp/infermark-test-services.XXXXXX)"
stop_services() {
  bash scripts/pg-test-server.sh stop >/dev/null 2>&1 || true
  bash scripts/slurm-test-cluster.sh stop >/dev/null 2>&1 || true
  bash scripts/stop-slurm.sh "$STARTED" || true
  rm -f "$STARTED"
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Line tables only (-g1): backtraces and sanitizer reports keep file:line, and the build is a
# quarter shorter than with full debug information (2-core VM, from scratch: 895 s against 1,228 s,
# 1.1 against 3.3 GB). A build for a debugger: cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo alone.
DEBUG_INFO=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINFERMARK_WERROR=ON "${DEBUG_INFO[@]}" >/dev/null
cmake --build "$BUILD" -j "$JOBS"
if [ "$(id -u)" -eq 0 ]; then
  INFERMARK_STARTED_FILE="$STARTED" bash scripts/start-slurm.sh ||
    echo "test: Slurm did not start; the Slurm executor's tests will be skipped"
else
  echo "test: not root, so the one-node Slurm cluster is not started (the Slurm executor's tests will be skipped)"
fi
JUNIT="$(cd "$BUILD" && pwd)/ctest-results.xml"
rc=0
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" --output-junit "$JUNIT" || rc=$?

# The parity tests (ctest label `parity`: InferenceX's own Python run unchanged beside infermark, or
# what it recorded) counted off the run above, not run twice. They need the reference copy in
# ../shared/reference/inferencex/; under CI=true a missing copy fails them instead of skipping. The
# fixtures -L brings along (the PostgreSQL server) are not counted.
ctest --test-dir "$BUILD" -N -L parity | sed -n 's/^ *Test *#[0-9]*: \(.*Parity\..*\)/\1/p' >"$BUILD/parity-tests.txt"
python3 - "$JUNIT" "$BUILD/parity-tests.txt" <<'PY'
import sys
import xml.etree.ElementTree as ET

names = {line.strip() for line in open(sys.argv[2]) if line.strip()}
counts = {"passed": 0, "failed": 0, "skipped": 0}
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if case.get("name") not in names:
        continue
    status = case.get("status")
    counts["passed" if status == "run" else "skipped" if status in ("notrun", "disabled") else "failed"] += 1
ran = sum(counts.values())
print(f"parity: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
      f" ({ran} of the {len(names)} tests labelled parity reported)")
PY
if [ "$rc" -ne 0 ]; then exit "$rc"; fi

# Fuzz targets need clang's libFuzzer: a separate build tree.
FUZZ_BUILD="${BUILD}-fuzz"
CC=clang-14 CXX=clang++-14 cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${DEBUG_INFO[@]}" \
  -DINFERMARK_FUZZ=ON -DINFERMARK_TESTS=OFF -DINFERMARK_BENCH=OFF -DINFERMARK_STATIC_DEPS=OFF >/dev/null
cmake --build "$FUZZ_BUILD" -j "$JOBS" --target fuzz_targets
bash fuzz/run.sh "$FUZZ_BUILD" "${FUZZ_SECONDS:-60}"

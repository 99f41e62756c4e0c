#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds on a seed corpus of real configs.
# Usage: fuzz/run.sh BUILD_DIR [SECONDS]
set -euo pipefail
build="$1"
seconds="${2:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT

# Seed corpus: every real config, changelog and recipe file, under distinct names.
i=0
for f in "$here"/../tests/fixtures/inferencex/configs/*.yaml "$here"/../tests/fixtures/inferencex/configs/deprecated/*.yaml \
         "$here"/../tests/fixtures/inferencex/perf-changelog.yaml "$here"/../recipes/configs/*.yaml \
         "$here"/../recipes/perf-changelog.yaml; do
  cp "$f" "$corpus/seed$((i++))-$(basename "$f")"
done
mkdir -p "$corpus/new"
echo "fuzz: fuzz_catalog_loader for ${seconds}s"
"$build/fuzz/fuzz_catalog_loader" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 "$corpus/new" "$corpus" 2>&1 | tail -n 12

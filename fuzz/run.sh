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

# SSE parser: a small seed corpus of event streams as LLM servers send them (the first byte of
# each input seeds where the fuzzer splits it into feeds).
sse_corpus="$(mktemp -d)"
trap 'rm -rf "$corpus" "$sse_corpus"' EXIT
printf '\x07data: {"id":"cmpl-1","choices":[{"text":" the"}]}\n\ndata: [DONE]\n\n' > "$sse_corpus/openai"
printf '\x03data: {"a":1}\r\n\r\n: ping\r\n\r\ndata: [DONE]\r\n\r\n' > "$sse_corpus/crlf"
printf '\x11event: delta\rid: 7\rdata: one\rdata:two\r\rretry: 10\r\r' > "$sse_corpus/cr"
printf '\x00data\n\ndata:\n\nevent: only\n\nid: 1\x00x\ndata: a\n\nfoo: bar\ndata: partial' > "$sse_corpus/edges"
mkdir -p "$sse_corpus/new"
if [[ -x "$build/fuzz/fuzz_sse" ]]; then
  echo "fuzz: fuzz_sse for ${seconds}s"
  "$build/fuzz/fuzz_sse" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 "$sse_corpus/new" "$sse_corpus" 2>&1 | tail -n 12
fi

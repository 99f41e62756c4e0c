#!/usr/bin/env bash
# Tokenizer encode speed: infermark (bench/bench_tokenizer) against the JS oracle (@lenml/tokenizers
# on node, tools/tokenizers/oracle.mjs), both pinned to one core, on the same document: the mixed
# ~4 MB document bench_tokenizer builds from the parity corpus (see bench_tokenizer.cpp).
# MB/s are per CPU second (the machine may be shared); wall-clock MB/s are printed beside them.
# The last column checks that both produce the same ids for the whole document.
# Hugging Face `tokenizers` cannot be installed here (no PyPI); its single-threaded speed on such a
# document, 0.8–1.7 MB/s, is the reference the target (≥ 3× HF) is stated against.
#
#   bench/tokenizer_vs_js.sh [BUILD_DIR]     (default: build-release if it has the benchmark, else build)
#   CORE=1 SECONDS_PER_RUN=10 TOKENIZERS="llama3 gemma3" bench/tokenizer_vs_js.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-}"
if [ -z "$build" ]; then
  build="$root/build"
  [ -x "$root/build-release/bench/bench_tokenizer" ] && build="$root/build-release"
fi
bench="$build/bench/bench_tokenizer"
cli="$build/src/cli/infermark"
[ -x "$bench" ] || { echo "no $bench: build the bench_tokenizer target first" >&2; exit 2; }
[ -x "$cli" ] || { echo "no $cli: build the infermark target first" >&2; exit 2; }
[ -d "$root/tools/tokenizers/node_modules/@lenml" ] || { echo "run scripts/setup.sh first (npm fixtures)" >&2; exit 2; }
core="${CORE:-1}"
seconds="${SECONDS_PER_RUN:-10}"
tokenizers="${TOKENIZERS:-llama3 qwen3 deepseek_v3 gptoss gemma3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bench" --write-document="$work/doc.txt" >/dev/null
echo "document: $(wc -c <"$work/doc.txt") bytes, $(wc -l <"$work/doc.txt") lines (bench_tokenizer --write-document)"
echo "pinned to CPU $core; JS: ${seconds}s per tokenizer after a warm-up pass"

taskset -c "$core" "$bench" --tokenizers="$(echo "$tokenizers" | tr ' ' ',')" --benchmark_min_time="$seconds" \
  --benchmark_format=json >"$work/ours.json" 2>/dev/null
for t in $tokenizers; do
  "$cli" tokenize --tokenizer "$root/tools/tokenizers/node_modules/@lenml/tokenizer-$t/models" <"$work/doc.txt" |
    sha256sum | cut -d' ' -f1 >"$work/ours-$t.sha256"
  taskset -c "$core" node "$root/tools/tokenizers/oracle.mjs" bench --tokenizer "$t" --document "$work/doc.txt" \
    --seconds "$seconds" >"$work/js-$t.json"
done

node - "$work" $tokenizers <<'JS'
const fs = require("fs");
const [work, ...names] = process.argv.slice(2);
const ours = JSON.parse(fs.readFileSync(`${work}/ours.json`, "utf8")).benchmarks;
const pad = (s, n) => String(s).padEnd(n);
const num = (x) => x.toFixed(2).padStart(8);
console.log(`| ${pad("tokenizer", 12)}| infermark MB/s (cpu, wall) | JS oracle MB/s (cpu, wall) | ratio |  vs HF 0.8–1.7 MB/s | same ids |`);
console.log(`|${"-".repeat(13)}|${"-".repeat(28)}|${"-".repeat(28)}|-------|---------------------|----------|`);
for (const name of names) {
  const b = ours.find((x) => x.name === `Encode/${name}`);
  const js = JSON.parse(fs.readFileSync(`${work}/js-${name}.json`, "utf8"));
  const cpu = b.bytes_per_second / 1e6;
  const wall = (js.bytes / 1e6) / (b.real_time / 1e3);  // real_time is in ms per pass
  const ratio = cpu / js.cpu_mb_per_s;
  const same = fs.readFileSync(`${work}/ours-${name}.sha256`, "utf8").trim() === js.ids_sha256;
  const vsHf = `${(cpu / 1.7).toFixed(1)}×–${(cpu / 0.8).toFixed(1)}×`;
  console.log(`| ${pad(name, 12)}| ${num(cpu)} ${num(wall)}          | ${num(js.cpu_mb_per_s)} ${num(js.wall_mb_per_s)}          | ${ratio.toFixed(1).padStart(5)} | ${pad(vsHf, 19)} | ${pad(same ? "yes" : "NO", 8)} |`);
}
JS

#!/usr/bin/env bash
# A real serving engine on a GPU machine: transformers' continuous batching behind tools/cb-server,
# measured by infermark's runner and, on the same server, by InferenceX's own client. Run from the
# repository root with python3 holding torch, transformers and aiohttp. BIN (default .devrun) holds
# the infermark binary (and any library it needs beside it); TOKENIZER is the folder with the
# Llama 3 tokenizer.json and tokenizer_config.json; PEER is InferenceX's utils/bench_serving folder.
# Writes to $OUT (default ./gpu-serve-out).
#   scripts/gpu-serve-device.sh smoke              the 2-layer model: every endpoint once, a short bench
#   scripts/gpu-serve-device.sh peer [CONC…]       one Llama-3.1-8B server; per CONC (default 4 16) the
#                                                  peer client, then infermark bench serve, same settings
#   scripts/gpu-serve-device.sh sweep [FLAGS…]     infermark sweep of the recipe with GPU telemetry
#   scripts/gpu-serve-device.sh repeats            5 repeats at conc 4 and 16 on one server, on a slowed
#                                                  one (--max-running 8) and on fresh servers
# Environment: PROMPTS_PER_CONC (default 2), WARMUPS_PER_CONC (default 1), ISL/OSL (default 1024),
# PEER_ORDER (peer: the clients in turn per CONC, default "peer infermark"), LOAD_LOG_S (the
# server's load/step-time log interval, default 2 s; 0 is off).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-serve-out}"
mode="${1:?smoke, peer or sweep}"
shift
bin="$(cd "${BIN:-.devrun}" && pwd)"
export LD_LIBRARY_PATH="$bin:$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$bin:$PATH" INFERMARK="$bin/infermark"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
tokenizer="$(cd "${TOKENIZER:?the Llama 3 tokenizer folder}" && pwd)"
export CB_TOKENIZER="$tokenizer"
model="meta-llama/Llama-3.1-8B-Instruct"
isl="${ISL:-1024}" osl="${OSL:-1024}"
ppc="${PROMPTS_PER_CONC:-2}" wpc="${WARMUPS_PER_CONC:-1}"
mkdir -p "$out"
port=8899

start_server() { # config folder, log file
  python3 tools/cb-server/serve.py --model-config "$1" --tokenizer "$tokenizer" --served-model-name "$model" \
    --port "$port" --max-model-len 4096 --log-load-interval "${LOAD_LOG_S:-2}" >"$2" 2>&1 &
  server_pid=$!
  local waited=0
  until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "server exited:" >&2
      tail -n 60 "$2" >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
    if ((waited > 600)); then echo "server not ready after 600 s" >&2; exit 1; fi
  done
  echo "server ready after ${waited} s"
}
stop_server() { [ -n "${server_pid:-}" ] || return 0; kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
trap stop_server EXIT

{
  date '+%Y-%m-%d %H:%M:%S %z (%Z)'
  nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,power.limit --format=csv
  python3 -c 'import torch, transformers, aiohttp; print("torch", torch.__version__, "transformers", transformers.__version__, "aiohttp", aiohttp.__version__)'
  if [ -x "$bin/infermark" ]; then "$bin/infermark" --version; fi
} 2>&1 | tee "$out/env_$mode.txt"

case "$mode" in
  smoke)
    start_server tools/cb-server/models/llama-tiny "$out/server_smoke.log"
    base="http://127.0.0.1:$port"
    {
      curl -sS "$base/v1/models"; echo
      curl -sS "$base/v1/completions" -H 'Content-Type: application/json' \
        -d "{\"model\":\"$model\",\"prompt\":\"Hello\",\"max_tokens\":8,\"ignore_eos\":true}"; echo
      curl -sS -N "$base/v1/chat/completions" -H 'Content-Type: application/json' \
        -d "{\"model\":\"$model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_completion_tokens\":4,\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}"
      curl -sS "$base/metrics"
    } 2>&1 | tee "$out/smoke_endpoints.txt"
    [ -x "$bin/infermark" ] || exit 0
    "$bin/infermark" bench serve --model "$model" --tokenizer "$tokenizer" --backend vllm --base-url "$base" \
      --dataset-name random --random-input-len 256 --random-output-len 64 --num-prompts 16 --max-concurrency 8 \
      --ignore-eos --save-result --result-dir "$out" --result-filename smoke_bench.json 2>&1 | tail -n 30
    ;;
  peer)
    concs=("$@") runs=0
    if ((${#concs[@]} == 0)); then concs=(4 16); fi
    start_server tools/cb-server/models/llama-3.1-8b "$out/server_peer.log"
    # One short request first, so that neither client meets the server's first-request costs.
    curl -sS -o /dev/null "http://127.0.0.1:$port/v1/completions" -H 'Content-Type: application/json' \
      -d "{\"model\":\"$model\",\"prompt\":\"warm up\",\"max_tokens\":16,\"ignore_eos\":true}"
    for c in "${concs[@]}"; do
      n=$((c * ppc)) w=$((c * wpc))
      common=(--model "$model" --tokenizer "$tokenizer" --backend vllm --base-url "http://127.0.0.1:$port"
        --dataset-name random --random-input-len "$isl" --random-output-len "$osl" --random-range-ratio 0.8
        --num-prompts "$n" --max-concurrency "$c" --request-rate inf --ignore-eos --save-result
        --num-warmups "$w" --percentile-metrics ttft,tpot,itl,e2el --result-dir "$out")
      for client in ${PEER_ORDER:-peer infermark}; do
        runs=$((runs + 1))
        echo "== $client conc $c (server log line $(wc -l <"$out/server_peer.log"))" | tee -a "$out/peer_order.txt"
        case "$client" in
          peer)
            python3 "${PEER:?InferenceX utils/bench_serving}/benchmark_serving.py" "${common[@]}" \
              --result-filename "peer_c${c}_$runs.json" --disable-tqdm 2>&1 | tail -n 32 ;;
          infermark)
            "$bin/infermark" bench serve "${common[@]}" --result-filename "infermark_c${c}_$runs.json" 2>&1 | tail -n 32 ;;
        esac
      done
    done
    ;;
  repeats)
    # Issue 34's run-to-run spread: 5 repeats at conc 4 and 16 on one server, then a deliberately
    # slowed server (half its batch: --max-running), and 5 fresh servers, each measuring both
    # concurrencies once. REPEATS (default 5); PARTS (default "same slow fresh") picks which;
    # ISL/OSL default 1024 (set lower to fit a lease).
    reps="${REPEATS:-5}"
    bench() { # result file, conc, extra flags…
      local rf="$1" c="$2"
      shift 2
      "$bin/infermark" bench serve --model "$model" --tokenizer "$tokenizer" --backend vllm \
        --base-url "http://127.0.0.1:$port" --dataset-name random --random-input-len "$isl" \
        --random-output-len "$osl" --random-range-ratio 0.8 --num-prompts $((c * ppc)) --max-concurrency "$c" \
        --request-rate inf --ignore-eos --num-warmups $((c * wpc)) --save-result --result-dir "$out" \
        --result-filename "$rf" "$@" 2>&1 | tail -n 8
    }
    warm() {
      curl -sS -o /dev/null "http://127.0.0.1:$port/v1/completions" -H 'Content-Type: application/json' \
        -d "{\"model\":\"$model\",\"prompt\":\"warm up\",\"max_tokens\":16,\"ignore_eos\":true}"
    }
    parts="${PARTS:-same slow fresh}"
    if [[ " $parts " == *" same "* ]]; then
    start_server tools/cb-server/models/llama-3.1-8b "$out/server_same.log"
    warm
    for c in 4 16; do bench "same_c$c.json" "$c" --repeats "$reps"; done
    stop_server
    server_pid=
    fi
    if [[ " $parts " == *" slow "* ]]; then
    python3 tools/cb-server/serve.py --model-config tools/cb-server/models/llama-3.1-8b --tokenizer "$tokenizer" \
      --served-model-name "$model" --port "$port" --max-model-len 4096 --max-running 8 >"$out/server_slow.log" 2>&1 &
    server_pid=$!
    until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 1; done
    warm
    bench "slow_c16.json" 16 --repeats "$reps"
    stop_server
    server_pid=
    fi
    [[ " $parts " == *" fresh "* ]] || exit 0
    for k in $(seq 1 "$reps"); do
      start_server tools/cb-server/models/llama-3.1-8b "$out/server_fresh$k.log"
      warm
      for c in 4 16; do bench "fresh${k}_c$c.json" "$c"; done
      stop_server
      server_pid=
    done
    ;;
  sweep)
    "$bin/infermark" sweep llama3.1-8b-bf16-h100-transformers --config-files recipes/configs/infermark-gpu-device.yaml --site recipes/sites/gpu-device.yaml \
      --result-dir "$out/sweep" --database "$out/sweep/infermark.db" --gpu-telemetry \
      --prompts-per-conc "$ppc" --warmups-per-conc "$wpc" "$@" 2>&1 | tee "$out/sweep.log" || true
    # One archive of everything the sweep wrote (results, runner logs and power CSVs, store, report).
    tar -czf "$out/sweep.tar.gz" -C "$out" sweep
    ;;
  *) echo "unknown mode '$mode'" >&2; exit 2 ;;
esac

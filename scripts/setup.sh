#!/usr/bin/env bash
# Installs everything infermark needs on Debian 12 (idempotent; run as root or with sudo).
# Packages only: no downloads outside Debian's archive and the npm registry.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3 python3-yaml python3-tabulate python3-aiohttp ca-certificates
  clang-14 libfuzzer-14-dev clang-format clang-tidy
  libboost-dev libssl-dev
  libyaml-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev libspdlog-dev
  libonig-dev libutf8proc-dev libsqlite3-dev liblzma-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  hyperfine
  chromium
  slurm-wlm munge
  postgresql libpq-dev
)
# Node.js and npm (tokenizer fixtures, browser tests) may come from outside Debian; take Debian's only when absent.
command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all Debian packages present"
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# npm_install WHAT DIR: the packages DIR/package-lock.json pins, installed with npm ci; skipped when
# DIR/node_modules was installed from this very lock file (a stamp holds its SHA-256).
npm_install() {
  local what="$1" dir="$2" sum stamp
  sum="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  stamp="$dir/node_modules/.infermark-lock.sha256"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
    echo "setup: $what up to date"
  else
    echo "setup: installing $what (npm ci --prefix $dir)"
    npm ci --prefix "$dir" --no-audit --no-fund
    echo "$sum" >"$stamp"
  fi
}

# Tokenizer fixtures: real tokenizer.json files and the JS oracle the tokenizer tests compare with.
npm_install "tokenizer fixtures" tools/tokenizers
# The dashboard page's chart library (embedded into the binary at build time) and the browser
# tests' driver for Debian's Chromium.
npm_install "dashboard packages" tools/dashboard
# The API's and the MCP server's contract tests: an OpenAPI validator, ajv, the official MCP client.
npm_install "API test packages" tools/api-tests

# A one-node Slurm cluster for the Slurm executor's tests (munge key, slurm.conf, daemons), as root.
# The multi-node tests' two-node cluster (scripts/slurm-test-cluster.sh) is started and stopped by
# ctest itself (fixture slurm_two_nodes), so nothing of it outlives the test run.
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/start-slurm.sh || echo "setup: Slurm did not start; the Slurm executor's tests will be skipped"
else
  echo "setup: not root, so Slurm is not started (run: sudo scripts/start-slurm.sh)"
fi

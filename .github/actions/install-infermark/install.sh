#!/usr/bin/env bash
# The install-infermark action's work (action.yml): find or build infermark, put its folder on
# GITHUB_PATH, export INFERMARK, and give the binary's path, version and SHA-256 as step outputs.
# A build lives in the tool cache under the source tree's id and keeps its source beside it (the
# binary finds recipes/ and data/ from its own path), so each source is built once per runner.
set -euo pipefail

fail() {
  echo "::error::install-infermark: $*" >&2
  exit 2
}

publish() {
  local bin="$1"
  [ -x "$bin" ] || fail "'$bin' is not an executable file"
  local version sha
  version="$("$bin" --version 2>&1 | head -n 1)" || fail "'$bin --version' failed: $version"
  sha="$(sha256sum "$bin" | cut -d' ' -f1)"
  echo "$(dirname "$bin")" >> "$GITHUB_PATH"
  echo "INFERMARK=$bin" >> "$GITHUB_ENV"
  {
    echo "infermark=$bin"
    echo "version=$version"
    echo "sha256=$sha"
  } >> "$GITHUB_OUTPUT"
  echo "infermark: $bin ($version, sha256 $sha)"
  exit 0
}

is_infermark_source() {
  [ -f "$1/CMakeLists.txt" ] && grep -q 'project(infermark' "$1/CMakeLists.txt"
}

# 1. A binary the runner already has.
if [ -n "${INPUT_BINARY:-}" ]; then
  publish "$(realpath "$INPUT_BINARY")"
fi

# 2. The source: a folder, this checkout when it is infermark, or a clone.
src=""
if [ -n "${INPUT_SOURCE:-}" ]; then
  is_infermark_source "$INPUT_SOURCE" || fail "source '$INPUT_SOURCE' is not an infermark source tree"
  src="$(realpath "$INPUT_SOURCE")"
elif is_infermark_source "${GITHUB_WORKSPACE:-.}"; then
  src="$(realpath "${GITHUB_WORKSPACE:-.}")"
elif [ -n "${INPUT_REPOSITORY:-}" ]; then
  src="${RUNNER_TEMP:-/tmp}/infermark-source"
  rm -rf "$src"
  git init -q "$src"
  git -C "$src" remote add origin "${GITHUB_SERVER_URL:-https://github.com}/$INPUT_REPOSITORY"
  git -C "$src" fetch -q --depth 1 origin "${INPUT_REF:-HEAD}" || fail "cannot fetch $INPUT_REPOSITORY@${INPUT_REF:-HEAD}"
  git -C "$src" checkout -q FETCH_HEAD
else
  fail "no infermark to install: set the binary input (an installed infermark), source, or repository (docs/ci.md)"
fi

# 3. The tool cache, keyed by the source tree (a tree with local changes is built afresh each time).
tree=""
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1 && [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
  tree="$(git -C "$src" rev-parse 'HEAD^{tree}')"
fi
cache="${INFERMARK_CACHE_DIR:-${RUNNER_TOOL_CACHE:-$HOME/.cache}/infermark}"
if [ -n "$tree" ] && [ -x "$cache/$tree/build/src/cli/infermark" ]; then
  publish "$cache/$tree/build/src/cli/infermark"
fi

dest="$cache/${tree:-dirty-$$}"
rm -rf "$dest"
mkdir -p "$dest"
if [ -n "$tree" ]; then
  git -C "$src" archive --format=tar HEAD | tar -x -C "$dest"
else
  (cd "$src" && tar --exclude=./build --exclude=./.git -cf - .) | tar -x -C "$dest"
fi
if [ "${INPUT_INSTALL_DEPENDENCIES:-false}" = true ]; then
  if [ "$(id -u)" -eq 0 ]; then bash "$dest/scripts/setup.sh"; else sudo -n bash "$dest/scripts/setup.sh"; fi
fi
# The binary alone, as the main job builds it (no tests, benchmarks or CUDA probe).
cmake -S "$dest" -B "$dest/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINFERMARK_TESTS=OFF \
  -DINFERMARK_BENCH=OFF -DINFERMARK_GPU_PROBE=OFF >/dev/null
cmake --build "$dest/build" -j "${INPUT_JOBS:-2}" --target infermark
publish "$dest/build/src/cli/infermark"

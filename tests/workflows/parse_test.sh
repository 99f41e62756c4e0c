#!/usr/bin/env bash
# The shipped workflows and actions parse clean with GitHub's own parser, and the check is not
# a formality: a copy with a broken expression, an unknown `needs`, a wrong reusable-workflow
# input and an unknown key must be reported, each one.
# Usage: parse_test.sh REPO_ROOT. Exit 77 (skip) when node or tools/workflows' packages are
# missing outside CI.
set -euo pipefail
root="$(cd "$1" && pwd)"
checker="$root/tools/workflows/check-workflows.mjs"
if ! command -v node >/dev/null || [ ! -d "$root/tools/workflows/node_modules/@actions/workflow-parser" ]; then
  echo "workflows_parse: node or tools/workflows/node_modules missing (run scripts/setup.sh)"
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi

node "$checker" "$root"

broken="$(mktemp -d)"
trap 'rm -rf "$broken"' EXIT
cp -r "$root/.github" "$broken/"
sweep="$broken/.github/workflows/infermark-sweep.yml"
tmpl="$broken/.github/workflows/infermark-benchmark-tmpl.yml"
sed -i 's/needs: \[setup, single-node, multi-node\]/needs: [setup, single-node, multi-nod]/' "$sweep"
sed -i '0,/      row: ${{ toJSON(matrix) }}/s//      rows: ${{ toJSON(matrix) }}/' "$sweep"
sed -i "s/if: \${{ always() \&\& steps.store.outcome == 'success' }}/if: \${{ always() \&\& steps.store.outcome == 'success' ) }}/" "$sweep"
sed -i 's/    timeout-minutes: 500/    timeout-minute: 500/' "$tmpl"
if out="$(node "$checker" "$broken" 2>&1)"; then
  echo "$out"
  echo "workflows_parse: the broken copy parsed clean: the checker checks nothing"
  exit 1
fi
echo "$out"
status=0
for expected in "depends on unknown job 'multi-nod'" "Invalid input, rows is not defined" \
  "Input row is required" "Unexpected symbol: ')'" "Unexpected value 'timeout-minute'"; do
  if ! grep -qF "$expected" <<< "$out"; then
    echo "workflows_parse: the checker missed: $expected"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "workflows_parse: the shipped files parse clean and each seeded error is reported"
exit "$status"

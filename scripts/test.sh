#!/usr/bin/env bash
# The whole test suite: type-check, lint and format check, unused exports (knip), the dependency
# audit (scripts/audit.ts), and every test on SQLite and PostgreSQL.
# --fast (npm run test:fast), for the edit loop: the tests alone, on SQLite only, without the
# browser test of /docs and the scale tests (FULL_SUITE_ONLY in test/helper.ts).
# Either way the test files run in parallel shards, each a process that runs its files one after
# another (scripts/test-shards.ts); TEST_SHARDS sets how many (twice the cores by default).
# Further arguments are test files to run instead of all of them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fast=false
if [ "${1:-}" = "--fast" ]; then
  fast=true
  shift
fi
files=("$@")
if $fast; then
  export DAYBOOK_TEST_DIALECTS=sqlite DAYBOOK_TEST_TIER=fast
  bash scripts/services.sh redis
  if [ ${#files[@]} -eq 0 ]; then mapfile -t files < <(find test -name '*.test.ts' ! -path test/docs/docs-page.test.ts | sort); fi
else
  bash scripts/services.sh
  bash scripts/browser.sh
  if [ ${#files[@]} -eq 0 ]; then mapfile -t files < <(find test -name '*.test.ts' | sort); fi
  # The checks run beside the tests rather than before them (about ten seconds); their output
  # comes after the tests', and either failing fails the run.
  mkdir -p test-output
  (
    set -e
    echo "== type-check"
    bash scripts/node.sh node_modules/typescript/bin/tsc --noEmit
    echo "== lint and format"
    bash scripts/node.sh node_modules/@biomejs/biome/bin/biome check --diagnostic-level=error src test bench scripts
    echo "== unused files, exports and dependencies (knip)"
    bash scripts/node.sh node_modules/knip/bin/knip.js
    echo "== dependency audit (docs/security.md)"
    bash scripts/node.sh scripts/audit.ts
  ) > test-output/checks.log 2>&1 &
  checks=$!
fi
echo "== tests"
# Node keeps the compiled code of the modules here between runs (entries are checked against the
# source, so never stale).
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/.cache/node-compile}"
shards=()
if [ -n "${TEST_SHARDS:-}" ]; then shards=(--shards "$TEST_SHARDS"); fi
status=0
bash scripts/node.sh scripts/test-shards.ts "${shards[@]}" "${files[@]}" || status=$?
if [ -n "${checks:-}" ]; then
  checked=0
  wait "$checks" || checked=$?
  cat test-output/checks.log
  if [ "$checked" -ne 0 ]; then
    echo "== the checks above failed" >&2
    status=1
  fi
fi
exit "$status"

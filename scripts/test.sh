#!/usr/bin/env bash
# The whole test suite: type-check, lint and format check, unused exports (knip), the dependency
# audit (scripts/audit.ts), then every test on SQLite and PostgreSQL.
# --fast (npm run test:fast), for the edit loop: the tests alone, on SQLite only, without the
# browser test of /docs and the scale tests (FULL_SUITE_ONLY in test/helper.ts), all test files
# in one process; npm test before a commit still runs everything, each file in its own process.
# Further arguments are test files to run instead of all of them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fast=false
if [ "${1:-}" = "--fast" ]; then
  fast=true
  shift
fi
files=("$@")
isolation=process
if $fast; then
  # Loading the modules and compiling the schemas took most of the time of a process per file.
  isolation=none
  export DAYBOOK_TEST_DIALECTS=sqlite DAYBOOK_TEST_TIER=fast
  bash scripts/services.sh redis
  if [ ${#files[@]} -eq 0 ]; then mapfile -t files < <(find test -name '*.test.ts' ! -path test/docs/docs-page.test.ts | sort); fi
else
  bash scripts/services.sh
  bash scripts/browser.sh
  echo "== type-check"
  bash scripts/node.sh node_modules/typescript/bin/tsc --noEmit
  echo "== lint and format"
  bash scripts/node.sh node_modules/@biomejs/biome/bin/biome check --diagnostic-level=error src test bench scripts
  echo "== unused files, exports and dependencies (knip)"
  bash scripts/node.sh node_modules/knip/bin/knip.js
  echo "== dependency audit (docs/security.md)"
  bash scripts/node.sh scripts/audit.ts
  if [ ${#files[@]} -eq 0 ]; then mapfile -t files < <(find test -name '*.test.ts' | sort); fi
fi
echo "== tests"
mkdir -p test-output
# Every test file is a process of its own that loads the same modules: Node keeps their compiled
# code here between processes and runs (entries are checked against the source, so never stale).
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/.cache/node-compile}"
exec bash scripts/node.sh --test --test-isolation="$isolation" --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=300000 "${files[@]}"

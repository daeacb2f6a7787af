#!/usr/bin/env bash
# The whole test suite: type-check, lint, then every test on SQLite and PostgreSQL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/services.sh
bash scripts/browser.sh
echo "== type-check"
bash scripts/node.sh node_modules/typescript/bin/tsc --noEmit
echo "== lint"
bash scripts/node.sh node_modules/@biomejs/biome/bin/biome lint --diagnostic-level=error src test bench scripts
echo "== tests"
mkdir -p test-output
files=("$@")
if [ ${#files[@]} -eq 0 ]; then mapfile -t files < <(find test -name '*.test.ts' | sort); fi
exec bash scripts/node.sh --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=300000 "${files[@]}"

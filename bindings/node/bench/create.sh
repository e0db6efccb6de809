#!/usr/bin/env bash
# create_document in process: the crate's own times for the bench plans
# (examples/create_plans.rs), then the package's handler on Bun on the same
# request bodies (bench/create.mjs), with the ratio.
#
#   bench/create.sh [ROUNDS]      # from bindings/node, after npm ci and npm run build
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo run --quiet --release -p chopin-mcp-node --example create_plans -- "$dir" "${1:-15}"
node_modules/.bin/bun bench/create.mjs "$dir" "${1:-15}"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

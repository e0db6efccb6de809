#!/usr/bin/env bash
# create_document in process: the crate's own times for the bench plans
# (examples/create_plans.rs) and the package's handler on Bun on the same
# request bodies (bench/create.mjs), one round of each in turn; then each
# plan's medians and their ratio.
#
#   bench/create.sh [ROUNDS]      # from bindings/node, after npm ci and npm run build
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-9}
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, bun $(node_modules/.bin/bun --version), $rounds rounds"
cargo build --quiet --release -p chopin-mcp-node --example create_plans
for _ in $(seq "$rounds"); do
    cargo run --quiet --release -p chopin-mcp-node --example create_plans -- "$dir" 1
    node_modules/.bin/bun bench/create.mjs "$dir" 1
done
node - "$dir" <<'JS'
const { readFileSync } = require("node:fs");
const dir = process.argv[2];
const read = (file) => {
  const runs = new Map();
  for (const line of readFileSync(`${dir}/${file}`, "utf8").trim().split("\n")) {
    const [, name, ns] = line.split("\t");
    runs.set(name, [...(runs.get(name) ?? []), Number(ns)]);
  }
  return runs;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const crate = read("crate.tsv");
const pkg = read("package.tsv");
console.log(`create_document in process, median ns per exchange (${crate.values().next().value.length} rounds):`);
console.log(`  ${"plan".padEnd(30)} ${"crate".padStart(10)} ${"package".padStart(10)}  ratio`);
for (const [name, runs] of crate) {
  const a = median(runs);
  const b = median(pkg.get(name));
  console.log(`  ${name.padEnd(30)} ${a.toFixed(0).padStart(10)} ${b.toFixed(0).padStart(10)}  ${(b / a).toFixed(2)}x`);
}
JS
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

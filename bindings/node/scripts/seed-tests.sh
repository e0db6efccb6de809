#!/usr/bin/env bash
# The seed's own test file (../shared/spec/seed-mcp.restored.test.ts, beside
# the repository), run unmodified with `bun test` against this package: it is
# copied into a scratch folder next to a two-line mcp.ts that re-exports the
# package, and all 16 of its cases must pass.
#
# This is the one test that reads ../shared; the file is never copied into
# the repository. Without ../shared it says so and skips.
set -euo pipefail
package="$(cd "$(dirname "$0")/.." && pwd)"
seed="$package/../../../shared/spec/seed-mcp.restored.test.ts"
if [ ! -f "$seed" ]; then
    echo "seed tests: SKIPPED: $seed is absent (no ../shared beside this clone)"
    exit 0
fi
bun="$package/node_modules/.bin/bun"
[ -x "$bun" ] || { echo "seed tests: $bun is missing: run npm ci in $package" >&2; exit 1; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp "$seed" "$scratch/"
printf '// The seed tests import the package under test from here.\nexport * from "%s";\n' \
    "$package/index.mjs" >"$scratch/mcp.ts"

status=0
(cd "$scratch" && "$bun" test ./seed-mcp.restored.test.ts) >"$scratch/out.txt" 2>&1 || status=$?
cat "$scratch/out.txt"
if [ "$status" -eq 0 ] && grep -Eq '^ *16 pass$' "$scratch/out.txt" && grep -Eq '^ *0 fail$' "$scratch/out.txt"; then
    echo "seed tests: 16 of 16 pass"
else
    echo "seed tests: FAILED (16 of 16 must pass; bun test exited $status)" >&2
    exit 1
fi

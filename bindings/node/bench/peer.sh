#!/usr/bin/env bash
# In process, the issue's own measure: ../shared/peers/ts-handler's bench
# (bench.ts: prebuilt Requests for tools/call read_document, each response's
# text read, median of its runs) on the plain TypeScript handler and on this
# package (MCP_TS pointing at a two-line module re-exporting it), a process
# each, in turn, ROUNDS times.
#
#   bench/peer.sh [ROUNDS] [PEERS_DIR]    # from bindings/node, after npm ci and npm run build
#
# PEERS_DIR defaults to ../shared/peers beside the repository; it is copied
# to a temporary folder (never written). EXTRA="name=/path/to/index.mjs ..."
# adds other builds of the package to the rotation (a before and an after in
# one sitting). Prints each run's median ns per request, then per handler
# the median over the rounds and its ratio to the plain handler's, and the
# fastest of all its runs (ROUNDS × 7) and that ratio: on a machine others
# load, the fastest run is the one their load disturbed least.
set -euo pipefail
package="$(cd "$(dirname "$0")/.." && pwd)"
rounds=${1:-5}
peers=${2:-$package/../../../shared/peers}
[ -f "$peers/ts-handler/bench.ts" ] || { echo "no $peers/ts-handler: pass the peers' folder" >&2; exit 1; }
bun="$package/node_modules/.bin/bun"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$peers/ts-handler" "$work/ts-handler"
chmod -R u+w "$work"
# shellcheck source=bench/rotation.sh
. "$package/bench/rotation.sh"
rotation_modules "$work/ts-handler" "$package"

declare -A runs each
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, bun $("$bun" --version), bench.ts 20000 7, $rounds rounds"
for round in $(seq "$rounds"); do
    for name in $names; do
        line=$(MCP_TS="$(module_of "$work/ts-handler" "$name")" "$bun" "$work/ts-handler/bench.ts" 20000 7 2>/dev/null)
        ns=$(sed -n 's/.*median \([0-9]*\) ns\/req.*/\1/p' <<<"$line")
        [ -n "$ns" ] || { echo "the bench on $name printed no median" >&2; exit 1; }
        runs[$name]="${runs[$name]:-} $ns"
        # Every run of the process (bench.ts prints them): the fastest of
        # all is the figure other processes' load disturbs least.
        each[$name]="${each[$name]:-} $(sed -n 's/.*runs \[\([0-9 ]*\)\].*/\1/p' <<<"$line")"
        echo "round $round $name: $ns ns/req"
    done
done
plain=$(median "${runs[plain]}")
for name in $names; do
    ns=$(median "${runs[$name]}")
    echo "median: $name $ns ns/req, $name/plain $(awk -v a="$ns" -v b="$plain" 'BEGIN {printf "%.2f", a / b}')"
done
fastest=$(printf '%s\n' ${each[plain]} | sort -n | head -1)
for name in $names; do
    ns=$(printf '%s\n' ${each[$name]} | sort -n | head -1)
    echo "fastest run: $name $ns ns/req, $name/plain $(awk -v a="$ns" -v b="$fastest" 'BEGIN {printf "%.2f", a / b}')"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

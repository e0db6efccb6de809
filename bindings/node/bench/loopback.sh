#!/usr/bin/env bash
# Over loopback: Bun.serve with this package's handler against Bun.serve with
# the plain TypeScript handler of ../shared/peers/ts-handler, on the same host
# code (the peer's serve.ts and fixture.ts; MCP_TS points it at a two-line
# module re-exporting this package), wrk -t1 -c16 with the peer's
# read_document.lua, alternating, one server at a time.
#
#   bench/loopback.sh [ROUNDS] [SECONDS] [PEERS_DIR]    # from bindings/node, after npm ci and npm run build
#
# PEERS_DIR defaults to ../shared/peers beside the repository; it is copied
# to a temporary folder (never written). Prints each run's requests per
# second and, per server, the median, and the package's over the plain one.
# EXTRA="name=/path/to/index.mjs ..." adds servers on other builds of the
# package (another checkout's index.mjs beside its built addon) to the same
# rotation: a before and an after in one sitting.
set -euo pipefail
package="$(cd "$(dirname "$0")/.." && pwd)"
rounds=${1:-5}
seconds=${2:-5}
peers=${3:-$package/../../../shared/peers}
command -v wrk >/dev/null || { echo "wrk is missing (Debian: apt-get install -y wrk)" >&2; exit 1; }
[ -f "$peers/ts-handler/serve.ts" ] || { echo "no $peers/ts-handler: pass the peers' folder" >&2; exit 1; }
bun="$package/node_modules/.bin/bun"

work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
cp -r "$peers/ts-handler" "$work/ts-handler"
cp "$peers/read_document.lua" "$work/"
chmod -R u+w "$work"
# shellcheck source=bench/rotation.sh
. "$package/bench/rotation.sh"
rotation_modules "$work/ts-handler" "$package"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts the peer's serve.ts on module $1; sets $server and $port.
serve() {
    port=$(free_port)
    MCP_TS="$1" "$bun" "$work/ts-handler/serve.ts" "$port" 2>/dev/null &
    server=$!
    for _ in $(seq 100); do
        if curl -s -o /dev/null -X POST "http://127.0.0.1:$port/mcp"; then return; fi
        sleep 0.05
    done
    echo "the server on $1 did not start" >&2
    exit 1
}

stop() {
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=""
}

declare -A runs
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, bun $("$bun" --version), wrk -t1 -c16 -d${seconds}s, $rounds rounds"
for round in $(seq "$rounds"); do
    for name in $names; do
        serve "$(module_of "$work/ts-handler" "$name")"
        # Check the answer, warm the JIT, then measure.
        curl -s -X POST "http://127.0.0.1:$port/mcp" -H 'Authorization: Bearer allowed' -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' \
            -d "$(sed -n "s/^wrk.body = '\(.*\)'\$/\1/p" "$work/read_document.lua")" | grep -q '"revision":4' \
            || { echo "$name does not answer read_document" >&2; exit 1; }
        timeout 20 wrk -t1 -c16 -d1s -s "$work/read_document.lua" "http://127.0.0.1:$port/mcp" >/dev/null
        rps=$(timeout $((seconds + 15)) wrk -t1 -c16 -d"${seconds}s" -s "$work/read_document.lua" "http://127.0.0.1:$port/mcp" \
            | awk '/Requests\/sec/ {print $2}')
        stop
        runs[$name]="${runs[$name]:-} $rps"
        echo "round $round $name: $rps req/s"
    done
done
plain=$(median "${runs[plain]}")
ours=$(median "${runs[package]}")
echo "median: plain $plain req/s, package $ours req/s, package/plain $(awk -v a="$ours" -v b="$plain" 'BEGIN {printf "%.2f", a / b}')"
for name in $names; do
    case $name in plain | package) continue ;; esac
    theirs=$(median "${runs[$name]}")
    echo "median: $name $theirs req/s, $name/plain $(awk -v a="$theirs" -v b="$plain" 'BEGIN {printf "%.2f", a / b}')"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

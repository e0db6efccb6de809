#!/usr/bin/env bash
# What request logs and metrics cost: one chopin-mcp-server binary started
# twice on SQLite files seeded with the read document, (off) RUST_LOG=off and
# no metrics listener, (on) the default info log to a file and
# --metrics-listen 127.0.0.1:0; then ROUNDS (3) alternating runs of
# `wrk -t1 -c16 -d5s` with benches/load/read_document.lua against each,
# printing wrk's Requests/sec line and the server's CPU us per request.
#
#   benches/log_cost.sh [path/to/chopin-mcp-server]   # default: the release build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-${CARGO_TARGET_DIR:-$root/target}/release/chopin-mcp-server}
ROUNDS=${ROUNDS:-3}
work=$(mktemp -d /tmp/chopin-log-cost.XXXXXX)
imp=$work/import.json
printf '[{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4","repository":"githubnext/chopin","title":"Release readiness","source":"# Release readiness\\n","revision":4}]\n' >"$imp"
args() { echo --listen "127.0.0.1:$1" --db "$work/$2.db" --token allowed=octocat --grant 'octocat=*' --import "$imp"; }
# shellcheck disable=SC2046
RUST_LOG=off "$bin" $(args 19501 off) >/dev/null 2>"$work/off.stderr" &
off=$!
# shellcheck disable=SC2046
"$bin" $(args 19502 on) --metrics-listen 127.0.0.1:0 >/dev/null 2>"$work/on.log" &
on=$!
trap 'kill $off $on 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
sleep 1
lua=$root/benches/load/read_document.lua
for p in 19501 19502; do timeout 20 wrk -t1 -c16 -d1s -s "$lua" "http://127.0.0.1:$p/mcp" >/dev/null; done
echo "load: $(uptime | sed 's/.*load average/load average/')"
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
for r in $(seq 1 "$ROUNDS"); do
    for v in off on; do
        if [[ $v == off ]]; then pid=$off port=19501; else pid=$on port=19502; fi
        b=$(cpu "$pid")
        out=$(timeout 25 wrk -t1 -c16 -d5s -s "$lua" "http://127.0.0.1:$port/mcp")
        t=$(($(cpu "$pid") - b))
        n=$(echo "$out" | awk '/ requests in /{print $1}')
        echo "round $r $v: $(echo "$out" | grep Requests/sec)   cpu(us)/req $(awk -v t="$t" -v h="$hz" -v n="$n" 'BEGIN{printf "%.2f", t/h*1e6/n}')"
    done
done
echo "load: $(uptime | sed 's/.*load average/load average/')"
echo "log lines written (on): $(wc -l <"$work/on.log")"

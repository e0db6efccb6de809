#!/usr/bin/env bash
# Loopback load comparison: the reference servers against their HTTP stack's
# floor and the rmcp peer, in alternation, with wrk.
#
#   benches/load.sh                      # 3 rounds x (read c16, read c64, list c16, tools/list c16, jwt c16), 5 s each
#   ROUNDS=5 DURATION=10 benches/load.sh
#
# Builds (release): hyper-floor and the rmcp peer, copied at run time from
# $PEERS (default ../shared/peers beside the repository) into /tmp, never into
# the repository; chopin-mcp-server and chopin-mcp-blocking from this
# workspace. Seeds one SQLite file per server from an import file holding the
# read document and 99 more in the same repository (list_documents answers 100
# summaries), so every read goes to the store. Then, for each round, scenario
# and server in turn, runs `wrk -t1 -cN -dDURATION --latency` on 127.0.0.1 and
# prints req/s, p50 and p99 per run, then the medians over the rounds and each
# server's ratio to the floor's median in the same scenario.
#
# Environment:
#   ROUNDS (3), DURATION seconds per run (5), SERVERS ("floor server blocking rmcp"),
#   SCENARIOS ("read:16 read:64 list:16 tools:16"), PEERS (../shared/peers),
#   EXTRA ("name=/path/to/binary ..."): more servers started like chopin-mcp-server
#   (for A/B runs of two builds), BASE_PORT (19400), NO_BUILD=1 (use what is built).
#
# The floor answers every POST with the fixed read_document reply, so its row is
# the floor of the read scenario only; the rmcp peer holds one document, so its
# list_documents answers one summary. Loopback only; bounded: every wrk run is
# killed after DURATION + 15 s.
#
# The jwt scenario is the read scenario with an OAuth JWT access token instead
# of the static token, against chopin-mcp-server only: with it in SCENARIOS the
# test authorization server (server/tests/oauth/as.mjs, oidc-provider; needs
# `npm ci` there) is started on loopback, chopin-mcp-server signs users in at it
# (static tokens keep working beside), and a token for alice is minted. Its
# cpu(us) against the read row of the same server is the cost of a JWT
# request (after the first, a verified-token cache hit).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
SERVERS=${SERVERS:-"floor server blocking rmcp"}
SCENARIOS=${SCENARIOS:-"read:16 read:64 list:16 tools:16 jwt:16"}
PEERS=${PEERS:-$root/../shared/peers}
EXTRA=${EXTRA:-}
BASE_PORT=${BASE_PORT:-19400}
target=${CARGO_TARGET_DIR:-$root/target}
peer_build=/tmp/chopin-load-peers
work=$(mktemp -d /tmp/chopin-load.XXXXXX)
pids=()

cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

command -v wrk >/dev/null || { echo "wrk is missing (Debian: apt-get install -y wrk)" >&2; exit 1; }

# --- build -------------------------------------------------------------------
needs() { [[ " $SERVERS " == *" $1 "* ]]; }
if [[ -z ${NO_BUILD:-} ]]; then
    for peer in hyper-floor rmcp-server; do
        case $peer in hyper-floor) needs floor || continue ;; rmcp-server) needs rmcp || continue ;; esac
        [[ -d $PEERS/$peer ]] || { echo "no $PEERS/$peer (set PEERS)" >&2; exit 1; }
        mkdir -p "$peer_build"
        rm -rf "$peer_build/$peer.src" && cp -rp "$PEERS/$peer" "$peer_build/$peer.src"
        echo "building $peer in $peer_build" >&2
        CARGO_TARGET_DIR=$peer_build/$peer.target \
            cargo build --release --quiet --manifest-path "$peer_build/$peer.src/Cargo.toml" >&2
    done
    echo "building chopin-mcp-server (release)" >&2
    (cd "$root" && cargo build --release --quiet -p chopin-mcp-server --bins) >&2
fi
floor_bin=$peer_build/hyper-floor.target/release/hyper-floor
rmcp_bin=$peer_build/rmcp-server.target/release/rmcp-peer
server_bin=$target/release/chopin-mcp-server
blocking_bin=$target/release/chopin-mcp-blocking

# --- seed --------------------------------------------------------------------
# The read document is the one the peers serve (same id, title, source and
# revision: the same reply bytes as the floor's); 99 more make the list 100.
import=$work/import.json
{
    printf '[{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4","repository":"githubnext/chopin",'
    printf '"title":"Release readiness","source":"# Release readiness\\n","revision":4}'
    for i in $(seq 1 99); do
        printf ',{"id":"00000000-0000-4000-8000-%012d","repository":"githubnext/chopin",' "$i"
        printf '"title":"Plan %03d","source":"# Plan %03d\\n\\nA summary-sized plan.\\n","revision":0}' "$i" "$i"
    done
    printf ']\n'
} >"$import"

# --- start -------------------------------------------------------------------
declare -A port pid
names=()
launch() { # name command...: start a server on the next port ($PORT in the command)
    local name=$1; shift
    port[$name]=$((BASE_PORT + ${#names[@]}))
    names+=("$name")
    "${@//\$PORT/${port[$name]}}" >"$work/$name.log" 2>&1 &
    pids+=($!)
    pid[$name]=$!
}
chopin() { # name binary [more flags]
    local name=$1 binary=$2; shift 2
    launch "$name" "$binary" --listen '127.0.0.1:$PORT' --db "$work/$name.db" --token allowed=octocat \
        --grant 'octocat=*' --import "$import" "$@"
}
# --- the jwt scenario's authorization server ------------------------------------
oauth_flags=()
if [[ " $SCENARIOS " == *" jwt:"* ]]; then
    [[ -d $root/server/tests/oauth/node_modules ]] ||
        { echo "the jwt scenario needs npm ci in server/tests/oauth (or drop it from SCENARIOS)" >&2; exit 1; }
    (cd "$root/server/tests/oauth" && exec node as.mjs "$((BASE_PORT + 50))") >"$work/as.log" 2>&1 &
    pids+=($!)
    issuer=
    for _ in $(seq 1 100); do
        issuer=$(sed -n 's/^issuer //p' "$work/as.log")
        [[ -n $issuer ]] && break
        sleep 0.1
    done
    [[ -n $issuer ]] || { echo "the authorization server did not start:" >&2; cat "$work/as.log" >&2; exit 1; }
    oauth_flags=(--oauth-issuer "$issuer" --resource 'http://127.0.0.1:$PORT/mcp' --grant 'alice=*')
fi
for name in $SERVERS; do
    case $name in
    floor) launch floor "$floor_bin" '$PORT' ;;
    rmcp) launch rmcp "$rmcp_bin" '$PORT' ;;
    server) chopin server "$server_bin" "${oauth_flags[@]}" ;;
    blocking) chopin blocking "$blocking_bin" ;;
    *) echo "unknown server $name" >&2; exit 1 ;;
    esac
done
for pair in $EXTRA; do
    chopin "${pair%%=*}" "${pair#*=}"
done

read_body='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}'
for name in "${names[@]}"; do
    ok=
    for _ in $(seq 1 100); do
        if reply=$(curl -s --max-time 2 -X POST "http://127.0.0.1:${port[$name]}/mcp" \
            -H 'Authorization: Bearer allowed' -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-03-26' \
            -d "$read_body") && [[ $reply == *'Release readiness'* ]]; then ok=1; break; fi
        sleep 0.1
    done
    [[ -n $ok ]] || { echo "$name did not answer read_document:" >&2; cat "$work/$name.log" >&2; exit 1; }
done

# The jwt scenario's script: read_document with a JWT for alice (an hour).
if [[ ${#oauth_flags[@]} -gt 0 ]]; then
    now=$(date +%s)
    claims="{\"iss\":\"$issuer\",\"aud\":\"http://127.0.0.1:${port[server]}/mcp\",\"sub\":\"alice\","
    claims+="\"scope\":\"chopin:read\",\"client_id\":\"load\",\"iat\":$now,\"exp\":$((now + 3600))}"
    jwt=$(curl -s --max-time 5 -X POST "$issuer/__test/mint" -d "{\"claims\":$claims}" | sed 's/.*"token":"\([^"]*\)".*/\1/')
    sed "s/Bearer allowed/Bearer $jwt/" "$root/benches/load/read_document.lua" >"$work/read_jwt.lua"
    reply=$(curl -s --max-time 5 -X POST "http://127.0.0.1:${port[server]}/mcp" -H "Authorization: Bearer $jwt" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d "$read_body")
    [[ $reply == *'Release readiness'* ]] || { echo "the JWT was not accepted: $reply" >&2; exit 1; }
fi

# --- measure -----------------------------------------------------------------
script() {
    case $1 in read) echo "$root/benches/load/read_document.lua" ;;
    jwt) echo "$work/read_jwt.lua" ;;
    list) echo "$root/benches/load/list_documents.lua" ;; tools) echo "$root/benches/load/tools_list.lua" ;; esac
}
results=$work/results
: >"$results"
# Warm every server up once (page cache, SQLite statement caches, allocator).
for name in "${names[@]}"; do
    timeout 20 wrk -t1 -c16 -d1s -s "$(script read)" "http://127.0.0.1:${port[$name]}/mcp" >/dev/null
done
echo "load: $(uptime | sed 's/.*load average/load average/'), ${ROUNDS} rounds x ${DURATION}s, wrk -t1 --latency"
# CPU time the server process used per request (user + system, from
# /proc/PID/stat) is far less sensitive to other load than req/s.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
printf '%-5s %-6s %-4s %-10s %12s %10s %10s %10s %s\n' round scen conn server 'req/s' 'p50(us)' 'p99(us)' 'cpu(us)' errors
for round in $(seq 1 "$ROUNDS"); do
    for scenario in $SCENARIOS; do
        what=${scenario%%:*}; conns=${scenario#*:}
        for name in "${names[@]}"; do
            # JWTs are chopin-mcp-server's (the one signing users in).
            [[ $what == jwt && $name != server ]] && continue
            before=$(cpu_ticks "${pid[$name]}")
            out=$(timeout $((DURATION + 15)) wrk -t1 -c"$conns" -d"${DURATION}s" --latency -s "$(script "$what")" \
                "http://127.0.0.1:${port[$name]}/mcp" 2>&1) || true
            ticks=$(( $(cpu_ticks "${pid[$name]}") - before ))
            echo "$out" | awk -v ticks="$ticks" -v hz="$hz" -v round="$round" -v what="$what" -v conns="$conns" -v name="$name" '
                function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
                /Requests\/sec:/ { rps = $2 }
                / requests in / { requests = $1 }
                /^ +50%/ { p50 = us($2) }
                /^ +99%/ { p99 = us($2) }
                /Non-2xx/ { errors += $NF }
                /Socket errors/ { errors += 1 }
                END { cpu = requests > 0 ? ticks / hz * 1000000 / requests : 0
                      printf "%-5s %-6s %-4s %-10s %12.2f %10.1f %10.1f %10.2f %d\n", round, what, conns, name, rps, p50, p99, cpu, errors + 0 }' \
                | tee -a "$results"
        done
    done
done

# --- summarize ---------------------------------------------------------------
echo
echo "medians over $ROUNDS rounds; ratio = req/s / floor's median req/s in the same scenario"
printf '%-6s %-4s %-10s %12s %10s %10s %8s %10s %10s\n' scen conn server 'req/s' 'p50(us)' 'p99(us)' ratio 'p99/floor' 'cpu(us)'
for scenario in $SCENARIOS; do
    what=${scenario%%:*}; conns=${scenario#*:}
    median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    col() { awk -v w="$what" -v c="$conns" -v n="$1" -v k="$2" '$2 == w && $3 == c && $4 == n { print $k }' "$results" | median; }
    floor_rps=$(col floor 5 2>/dev/null || true); floor_p99=$(col floor 7 2>/dev/null || true)
    for name in "${names[@]}"; do
        [[ $what == jwt && $name != server ]] && continue
        rps=$(col "$name" 5); p50=$(col "$name" 6); p99=$(col "$name" 7); cpu=$(col "$name" 8)
        awk -v u="$cpu" -v s="$what" -v c="$conns" -v n="$name" -v r="$rps" -v a="$p50" -v b="$p99" -v fr="$floor_rps" -v fp="$floor_p99" \
            'BEGIN { ratio = (fr > 0) ? sprintf("%.2f", r / fr) : "-"; pr = (fp > 0) ? sprintf("%.2f", b / fp) : "-";
                     printf "%-6s %-4s %-10s %12.2f %10.1f %10.1f %8s %10s %10.2f\n", s, c, n, r, a, b, ratio, pr, u }'
    done
done

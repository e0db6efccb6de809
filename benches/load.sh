#!/usr/bin/env bash
# Loopback load comparison: the reference servers against their HTTP stack's
# floor and the rmcp peer, in alternation, with wrk.
#
#   benches/load.sh                      # 3 rounds x (read c16, read c64, list c16, tools/list c16), 5 s each
#   ROUNDS=5 DURATION=10 benches/load.sh
#
# Builds (release): hyper-floor and the rmcp peer, copied at run time from
# $PEERS (default ../shared/peers beside the repository) into /tmp, never into
# the repository; chopin-mcp-server and chopin-mcp-blocking from this
# workspace. Seeds one SQLite file per server from an import file holding the
# read document and 99 more in the same repository (list_documents answers 100
# summaries), so every read goes to the store. Then, for each round, scenario
# and server in turn, runs `wrk -t1 -cN -dDURATION --latency` on 127.0.0.1 and
# prints per run: req/s, p50, p99, the server's CPU time per request (user +
# system of the whole process, every thread, from /proc/PID/stat before and
# after, over the requests wrk completed), wrk's own CPU time per request (a
# floor whose wrk(us) is close to 1e6 / its req/s had wrk on a CPU of its own
# and is wrk-bound), and each server's req/s and CPU per request against the
# floor's in the same round. Then per scenario and server: the medians, and
# the median and worst round of each ratio, and req/s against the rmcp peer's.
#
# Environment:
#   ROUNDS (3), DURATION seconds per run (5), SERVERS ("floor listfloor server blocking rmcp"),
#   SCENARIOS ("read:16 read:64 list:16 tools:16"; jwt:16 also), PEERS (../shared/peers),
#   EXTRA ("name=/path/to/binary ..."): more servers started like chopin-mcp-server
#   (for A/B runs of two builds; ARGS_<name>="--flag ..." adds flags to server <name>,
#   e.g. EXTRA="nopin=target/release/chopin-mcp-server" ARGS_nopin=--no-pin),
#   BASE_PORT (19400), NO_BUILD=1 (use what is built).
#
# The floor answers every POST with the fixed read_document reply, so its row is
# the floor of the read scenario only. listfloor is the same floor built (from a
# copy in /tmp) to answer with the list scenario's reply, as chopin-mcp-server
# gives it for the seeded repository (100 summaries, 13,944 bytes): it runs in
# the list scenario only, and each chopin server's list rows carry xlist and cpu/lf
# against it (what is left once sending the list's bytes is paid for), summarized
# after the medians. Like floor, it must come before the servers in SERVERS. The rmcp
# peer holds one document, so its list_documents answers one summary. Loopback only; bounded: every wrk run is
# killed after DURATION + 15 s.
#
# The jwt scenario (not in the default SCENARIOS: add jwt:16) is the read
# scenario with an OAuth JWT access token instead of the static token, against
# chopin-mcp-server only: the test authorization server
# (server/tests/oauth/as.mjs, oidc-provider; needs `npm ci` there) is started
# on loopback, chopin-mcp-server signs users in at it (static tokens keep
# working beside), and a token for alice is minted. Its cpu(us) against the
# read row of the same server is the cost of a JWT request (after the first, a
# verified-token cache hit).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
SERVERS=${SERVERS:-"floor listfloor server blocking rmcp"}
SCENARIOS=${SCENARIOS:-"read:16 read:64 list:16 tools:16"}
PEERS=${PEERS:-$root/../shared/peers}
EXTRA=${EXTRA:-}
BASE_PORT=${BASE_PORT:-19400}
target=${CARGO_TARGET_DIR:-$root/target}
peer_build=/tmp/chopin-load-peers
work=$(mktemp -d /tmp/chopin-load.XXXXXX)
pids=()
# shellcheck source=benches/common.sh
source "$root/benches/common.sh"

command -v wrk >/dev/null || { echo "wrk is missing (Debian: apt-get install -y wrk)" >&2; exit 1; }

# --- seed --------------------------------------------------------------------
import=$work/import.json
write_import "$import"

# --- build -------------------------------------------------------------------
needs() { [[ " $SERVERS " == *" $1 "* ]]; }
if [[ -z ${NO_BUILD:-} ]]; then
    if needs floor; then build_peer hyper-floor; fi
    if needs rmcp; then build_peer rmcp-server; fi
    echo "building chopin-mcp-server (release)" >&2
    (cd "$root" && cargo build --release --quiet -p chopin-mcp-server --bins) >&2
    if needs listfloor; then
        build_listfloor "$target/release/chopin-mcp-server" "$import" $((BASE_PORT + 49))
    fi
fi
floor_bin=$peer_build/hyper-floor.target/release/hyper-floor
listfloor_bin=$peer_build/hyper-floor.target/release/hyper-floor-list
rmcp_bin=$peer_build/rmcp-server.target/release/rmcp-peer
server_bin=$target/release/chopin-mcp-server
blocking_bin=$target/release/chopin-mcp-blocking

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
chopin() { # name binary [more flags]: ARGS_<name> (if set) adds flags, e.g. ARGS_nopin=--no-pin
    local name=$1 binary=$2 flags="ARGS_$1"; shift 2
    # shellcheck disable=SC2086
    launch "$name" "$binary" --listen '127.0.0.1:$PORT' --db "$work/$name.db" --token allowed=octocat \
        --grant 'octocat=*' --import "$import" "$@" ${!flags:-}
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
    listfloor) launch listfloor "$listfloor_bin" '$PORT' ;;
    rmcp) launch rmcp "$rmcp_bin" '$PORT' ;;
    server) chopin server "$server_bin" "${oauth_flags[@]}" ;;
    blocking) chopin blocking "$blocking_bin" ;;
    *) echo "unknown server $name" >&2; exit 1 ;;
    esac
done
for pair in $EXTRA; do
    chopin "${pair%%=*}" "${pair#*=}"
done

for name in "${names[@]}"; do
    wait_for_read "$name" "${port[$name]}" "$work/$name.log"
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
    case $1 in jwt) echo "$work/read_jwt.lua" ;; *) wrk_script "$1" ;; esac
}
results=$work/results
: >"$results"
# Warm every server up once (page cache, SQLite statement caches, allocator).
for name in "${names[@]}"; do
    timeout 20 wrk -t1 -c16 -d1s -s "$(script read)" "http://127.0.0.1:${port[$name]}/mcp" >/dev/null
done
hz=$(getconf CLK_TCK)
cat <<EOF
load: $(uptime | sed 's/.*load average/load average/'), ${ROUNDS} rounds x ${DURATION}s, wrk -t1 --latency, $(nproc) CPUs
cpu(us)  CPU time (user + system, all threads, /proc/PID/stat) the server process used during
         the run, divided by the requests wrk completed. Lower is better; it moves far less
         than req/s when other work shares the cores.
wrk(us)  the same for wrk. When the floor's wrk(us) is near 1e6 / its req/s, wrk had a CPU to
         itself and ran out of it: the floor's req/s is then wrk's limit, not the floor's.
xfloor   req/s / the floor's req/s, same round and scenario (higher is better).
cpu/fl   cpu(us) / the floor's cpu(us), same round and scenario (lower is better).
xlist    (list scenario, chopin servers) req/s / listfloor's, same round: the list against
cpu/lf   the floor sending the list's bytes; and cpu(us) / listfloor's.
EOF
# One wrk run: its output, then "WRKTICKS n", the CPU ticks wrk used (this
# subshell's waited-for children's user + system time, stat fields 16 + 17).
run_wrk() { # conns script port
    (
        me=$BASHPID
        timeout $((DURATION + 15)) wrk -t1 -c"$1" -d"${DURATION}s" --latency -s "$2" \
            "http://127.0.0.1:$3/mcp" 2>&1 || true
        echo "WRKTICKS $(awk '{ print $16 + $17 }' "/proc/$me/stat")"
    )
}
format='%-5s %-6s %-4s %-10s %11s %8s %8s %8s %8s %7s %7s %6s %7s %7s\n'
# shellcheck disable=SC2059
printf "$format" round scen conn server 'req/s' 'p50(us)' 'p99(us)' 'cpu(us)' 'wrk(us)' xfloor cpu/fl errors xlist cpu/lf
for round in $(seq 1 "$ROUNDS"); do
    for scenario in $SCENARIOS; do
        what=${scenario%%:*}; conns=${scenario#*:}
        floor_rps=; floor_cpu=; list_rps=; list_cpu=
        for name in "${names[@]}"; do
            # JWTs are chopin-mcp-server's (the one signing users in).
            [[ $what == jwt && $name != server ]] && continue
            # The list's floor answers the list scenario only.
            [[ $name == listfloor && $what != list ]] && continue
            before=$(cpu_ticks "${pid[$name]}")
            out=$(run_wrk "$conns" "$(script "$what")" "${port[$name]}")
            ticks=$(( $(cpu_ticks "${pid[$name]}") - before ))
            # The list against its own floor: chopin servers only (rmcp's list
            # answers one summary).
            lrps=; lcpu=
            [[ $name != @(floor|listfloor|rmcp) ]] && lrps=$list_rps lcpu=$list_cpu
            line=$(echo "$out" | awk -v ticks="$ticks" -v hz="$hz" -v round="$round" -v what="$what" \
                -v conns="$conns" -v name="$name" -v frps="$floor_rps" -v fcpu="$floor_cpu" \
                -v lrps="$lrps" -v lcpu="$lcpu" '
                function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
                /Requests\/sec:/ { rps = $2 }
                / requests in / { requests = $1 }
                /^ +50%/ { p50 = us($2) }
                /^ +99%/ { p99 = us($2) }
                /Non-2xx/ { errors += $NF }
                /Socket errors/ { errors += 1 }
                /^WRKTICKS/ { wticks = $2 }
                END { cpu = requests > 0 ? ticks / hz * 1000000 / requests : 0
                      wcpu = requests > 0 ? wticks / hz * 1000000 / requests : 0
                      xf = (frps > 0) ? sprintf("%.2f", rps / frps) : "-"
                      cf = (fcpu > 0) ? sprintf("%.2f", cpu / fcpu) : "-"
                      xl = (lrps > 0) ? sprintf("%.2f", rps / lrps) : "-"
                      cl = (lcpu > 0) ? sprintf("%.2f", cpu / lcpu) : "-"
                      printf "%-5s %-6s %-4s %-10s %11.2f %8.1f %8.1f %8.2f %8.2f %7s %7s %6d %7s %7s\n",
                          round, what, conns, name, rps, p50, p99, cpu, wcpu, xf, cf, errors + 0, xl, cl }')
            echo "$line" | tee -a "$results"
            if [[ $name == floor ]]; then
                floor_rps=$(echo "$line" | awk '{ print $5 }')
                floor_cpu=$(echo "$line" | awk '{ print $8 }')
            fi
            if [[ $name == listfloor ]]; then
                list_rps=$(echo "$line" | awk '{ print $5 }')
                list_cpu=$(echo "$line" | awk '{ print $8 }')
            fi
        done
    done
done

# --- summarize ---------------------------------------------------------------
# $results columns: 1 round, 2 scenario, 3 conns, 4 server, 5 req/s, 6 p50,
# 7 p99, 8 cpu(us), 9 wrk(us), 10 xfloor, 11 cpu/fl, 12 errors, 13 xlist,
# 14 cpu/lf.
echo
echo "medians over $ROUNDS rounds (each column's on its own); worst: the worst round's ratio"
summary='%-6s %-4s %-10s %11s %8s %8s %8s %8s %7s %7s %7s %7s %7s\n'
# shellcheck disable=SC2059
printf "$summary" scen conn server 'req/s' 'p50(us)' 'p99(us)' 'cpu(us)' 'wrk(us)' xfloor worst cpu/fl worst xrmcp
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
lowest() { sort -g | head -1 | grep . || echo -; }
highest() { sort -g | tail -1 | grep . || echo -; }
for scenario in $SCENARIOS; do
    what=${scenario%%:*}; conns=${scenario#*:}
    col() { awk -v w="$what" -v c="$conns" -v n="$1" -v k="$2" '$2 == w && $3 == c && $4 == n && $k != "-" { print $k }' "$results"; }
    rmcp_rps=$(col rmcp 5 | median)
    for name in "${names[@]}"; do
        [[ $what == jwt && $name != server ]] && continue
        [[ $name == listfloor && $what != list ]] && continue
        awk -v f="$summary" -v s="$what" -v c="$conns" -v n="$name" -v rr="$rmcp_rps" \
            -v r="$(col "$name" 5 | median)" -v a="$(col "$name" 6 | median)" -v b="$(col "$name" 7 | median)" \
            -v u="$(col "$name" 8 | median)" -v w="$(col "$name" 9 | median)" \
            -v xf="$(col "$name" 10 | median)" -v xfw="$(col "$name" 10 | lowest)" \
            -v cf="$(col "$name" 11 | median)" -v cfw="$(col "$name" 11 | highest)" '
            function two(v) { return (v == "-") ? v : sprintf("%.2f", v) }
            BEGIN { xr = (rr != "-" && rr > 0) ? sprintf("%.2f", r / rr) : "-"
                    printf f, s, c, n, sprintf("%.2f", r), sprintf("%.1f", a), sprintf("%.1f", b),
                        two(u), two(w), two(xf), two(xfw), two(cf), two(cfw), xr }'
    done
done
echo "xfloor and cpu/fl: the median and the worst of the per-round ratios above (worst: lowest"
echo "xfloor, highest cpu/fl); xrmcp: req/s median / the rmcp peer's req/s median (its list"
echo "answers one summary, not 100)."
if [[ " ${names[*]} " == *" listfloor "* ]]; then
    echo
    echo "the list against its own floor (listfloor, the floor sending the list's answer): the median"
    echo "and the worst of the per-round xlist and cpu/lf above"
    for scenario in $SCENARIOS; do
        what=${scenario%%:*}; conns=${scenario#*:}
        [[ $what == list ]] || continue
        for name in "${names[@]}"; do
            [[ $name == @(floor|listfloor|rmcp) ]] && continue
            # Nothing when listfloor ran after this server (SERVERS lists it first).
            xlist=$(col "$name" 13 | median)
            [[ $xlist == - ]] && continue
            printf '%-6s %-4s %-10s xlist %.2f (worst %.2f)  cpu/lf %.2f (worst %.2f)\n' "$what" "$conns" "$name" \
                "$xlist" "$(col "$name" 13 | lowest)" "$(col "$name" 14 | median)" "$(col "$name" 14 | highest)"
        done
    done
fi

#!/usr/bin/env bash
# Scaling over cores, on loopback: each server pinned to W CPUs (taskset, and
# --workers W for chopin-mcp-server) for W = 1, 2, 4, ... up to half the
# machine's CPUs, wrk pinned to the other half (one thread per CPU there,
# 32·W connections); per W, server and scenario, a fresh server, a 1 s
# warm-up, then a 4 s run with `wrk --latency`.
#
#   benches/scale.sh                                   # builds what it runs (release)
#   NO_BUILD=1 BIN_DIR=/path/to/binaries benches/scale.sh
#   SCALE_MAX_W=1 benches/scale.sh                     # a smoke test on a small machine
#
# Servers (SERVERS, in this order; the floor first):
#   floor     hyper-floor, the HTTP stack doing no work (../shared/peers): in the
#             read scenario it answers the read's bytes; in the list scenario
#             hyper-floor-list answers the list's (100 summaries, as
#             chopin-mcp-server answers them), so "x floor" is against the
#             floor sending the same bytes
#   file      chopin-mcp-server on a SQLite file
#   memory    chopin-mcp-server --memory
#   postgres  chopin-mcp-server on PostgreSQL: a throwaway cluster this script
#             starts on a loopback port and removes, pinned to the server's
#             CPUs; skipped (saying so) without PostgreSQL's binaries
#   blocking  chopin-mcp-blocking on a SQLite file (a thread per connection)
#   rmcp      the rmcp peer (read only: it holds one document)
# Each store is seeded with the read document and 99 more in its repository
# (list_documents answers 100 summaries), as benches/load.sh seeds it.
#
# Per row: req/s; x floor (req/s / the floor's, same W and scenario); eff
# (req/s / (W x the same server's req/s at W=1)); cpu(us), the CPU time (user
# + system, every thread, from /proc) of the server's process (for postgres,
# and of the cluster's processes) over the requests wrk completed, and cpu/fl
# against the floor's; p50 and p99 (wrk --latency); errors (non-2xx responses
# and socket errors). The rows, then one table per scenario, at the end.
#
# Environment:
#   SERVERS ("floor file memory postgres blocking rmcp"), SCENARIOS ("read list"),
#   WARMUP (1) and DURATION (4) seconds, SCALE_MAX_W (half the CPUs; at most that),
#   NO_BUILD=1 (use what is built) with BIN_DIR (a folder holding chopin-mcp-server,
#   chopin-mcp-blocking, hyper-floor, hyper-floor-list and rmcp-peer), WRK (wrk),
#   PEERS (../shared/peers), PG_BIN (PostgreSQL's bin folder; default the newest
#   /usr/lib/postgresql/*/bin), BASE_PORT (19600), SCALE_OUT (a folder to keep the
#   table, the rows and every run's wrk output in).
# Loopback only; bounded: the estimate is printed first, every wrk run is killed
# after its duration + 15 s. Refuses a machine with fewer than 4 CPUs unless
# SCALE_MAX_W is set (a smoke test: its numbers say nothing about scaling).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
SERVERS=${SERVERS:-"floor file memory postgres blocking rmcp"}
SCENARIOS=${SCENARIOS:-"read list"}
WARMUP=${WARMUP:-1}
DURATION=${DURATION:-4}
PEERS=${PEERS:-$root/../shared/peers}
BASE_PORT=${BASE_PORT:-19600}
WRK=${WRK:-wrk}
target=${CARGO_TARGET_DIR:-$root/target}
peer_build=/tmp/chopin-load-peers
work=$(mktemp -d /tmp/chopin-scale.XXXXXX)
pids=()
# shellcheck source=benches/common.sh
source "$root/benches/common.sh"

command -v "$WRK" >/dev/null || { echo "wrk is missing (Debian: apt-get install -y wrk; or set WRK)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset is missing (util-linux)" >&2; exit 1; }

# --- CPUs ----------------------------------------------------------------------
# The CPUs this script may use, in order: the first half for the servers,
# the second for wrk.
cpus=()
for range in $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' ' '); do
    if [[ $range == *-* ]]; then
        for ((c = ${range%-*}; c <= ${range#*-}; c++)); do cpus+=("$c"); done
    else
        cpus+=("$range")
    fi
done
half=$((${#cpus[@]} / 2))
if ((${#cpus[@]} < 4)) && [[ -z ${SCALE_MAX_W:-} ]]; then
    echo "benches/scale.sh needs 4 CPUs or more: this machine lets it use ${#cpus[@]}." >&2
    echo "Servers on half the CPUs and wrk on the other half say nothing about scaling here." >&2
    echo "(SCALE_MAX_W=1 runs it anyway, as a smoke test of the script.)" >&2
    exit 2
fi
max_w=${SCALE_MAX_W:-$half}
if ! [[ $max_w =~ ^[1-9][0-9]*$ ]] || ((max_w > half)); then
    echo "SCALE_MAX_W=$max_w: it must be 1 to $half (half of ${#cpus[@]} CPUs)" >&2
    exit 2
fi
ws=()
for ((w = 1; w <= max_w; w *= 2)); do ws+=("$w"); done
((ws[-1] == max_w)) || ws+=("$max_w")
wrk_cpus=$(IFS=,; echo "${cpus[*]:half:half}")
wrk_threads=$half

# --- binaries -------------------------------------------------------------------
import=$work/import.json
write_import "$import"
needs() { [[ " $SERVERS " == *" $1 "* ]]; }
if [[ -z ${NO_BUILD:-} ]]; then
    if needs floor; then build_peer hyper-floor; fi
    if needs rmcp; then build_peer rmcp-server; fi
    echo "building chopin-mcp-server and chopin-mcp-blocking (release)" >&2
    (cd "$root" && cargo build --release --quiet -p chopin-mcp-server --bins) >&2
    if needs floor && [[ " $SCENARIOS " == *" list "* ]]; then
        build_listfloor "$target/release/chopin-mcp-server" "$import" $((BASE_PORT + 99))
    fi
fi
if [[ -n ${BIN_DIR:-} ]]; then
    server_bin=$BIN_DIR/chopin-mcp-server blocking_bin=$BIN_DIR/chopin-mcp-blocking
    floor_bin=$BIN_DIR/hyper-floor listfloor_bin=$BIN_DIR/hyper-floor-list rmcp_bin=$BIN_DIR/rmcp-peer
else
    server_bin=$target/release/chopin-mcp-server blocking_bin=$target/release/chopin-mcp-blocking
    floor_bin=$peer_build/hyper-floor.target/release/hyper-floor
    listfloor_bin=$peer_build/hyper-floor.target/release/hyper-floor-list
    rmcp_bin=$peer_build/rmcp-server.target/release/rmcp-peer
fi

# --- PostgreSQL ------------------------------------------------------------------
postmaster=
pg_port=$((BASE_PORT + 98))
# What runs a command as the user PostgreSQL runs as (it refuses root):
# nothing when not root.
as_pg=()
start_postgres() {
    local bin=${PG_BIN:-}
    [[ -n $bin ]] || bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [[ -z $bin || ! -x $bin/initdb || ! -x $bin/postgres ]]; then
        echo "postgres: skipped (no PostgreSQL binaries found: set PG_BIN to the folder holding initdb and postgres)"
        return 1
    fi
    local data=$work/pg
    mkdir -p "$data"
    if ((EUID == 0)); then
        local user=postgres
        id "$user" >/dev/null 2>&1 || user=nobody
        # The user may pass through the work folder (mktemp's is root's
        # alone) to the data folder, its own.
        chmod 711 "$work"
        chown "$user" "$data" && chmod 700 "$data"
        as_pg=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups --)
    fi
    # Timezone GMT: PostgreSQL knows it without the system's zoneinfo files
    # (which a machine carrying PostgreSQL's binaries may lack).
    if ! env TZ=GMT "${as_pg[@]}" "$bin/initdb" -D "$data" -A trust -U postgres -E UTF8 --locale=C >"$work/initdb.log" 2>&1; then
        echo "postgres: skipped (initdb failed: $(tail -1 "$work/initdb.log"))"
        return 1
    fi
    # Pinned from the start to the servers' half; max_connections above both
    # pools of the widest server. One process from here on (env, setpriv and
    # taskset exec what they run), so $! is the postmaster.
    env TZ=GMT "${as_pg[@]}" taskset -c "$(IFS=,; echo "${cpus[*]:0:half}")" "$bin/postgres" -D "$data" -p "$pg_port" \
        -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=100 \
        >"$work/postgres.log" 2>&1 &
    postmaster=$!
    pids+=("$postmaster")
    for _ in $(seq 1 100); do
        grep -q 'ready to accept connections' "$work/postgres.log" && return 0
        kill -0 "$postmaster" 2>/dev/null || break
        sleep 0.1
    done
    echo "postgres: skipped (the cluster did not start: $(tail -1 "$work/postgres.log"))"
    postmaster=
    return 1
}
# The cluster's processes: the postmaster and its children.
pg_pids() {
    local stat pid ppid
    echo "$postmaster"
    for stat in /proc/[0-9]*/stat; do
        read -r pid _ _ ppid _ <"$stat" 2>/dev/null || continue
        [[ $ppid == "$postmaster" ]] && echo "$pid"
    done
    return 0
}

# --- plan ------------------------------------------------------------------------
scenario_servers() { # scenario: the servers that run in it
    local name
    for name in $SERVERS; do
        [[ $name == rmcp && $1 != read ]] && continue
        echo "$name"
    done
}
runs=0
for _ in "${ws[@]}"; do
    for scenario in $SCENARIOS; do
        runs=$((runs + $(scenario_servers "$scenario" | wc -l)))
    done
done
commit=${SCALE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
siblings=$(cat /sys/devices/system/cpu/cpu"${cpus[0]}"/topology/thread_siblings_list 2>/dev/null || echo '?')
cat <<EOF
scale: ${#cpus[@]} CPUs (${model:-unknown}; CPU ${cpus[0]}'s hyperthread siblings: $siblings), $(uname -r)
commit $commit; load average: $(cut -d' ' -f1-3 /proc/loadavg)
servers on CPUs ${cpus[*]:0:half} (the first W of them), wrk on CPUs $wrk_cpus (-t$wrk_threads, -c 32·W)
W: ${ws[*]}; scenarios: $SCENARIOS; servers: $SERVERS
estimate: $runs runs x (${WARMUP} s warm-up + ${DURATION} s) + starts = about $((runs * (WARMUP + DURATION + 1))) s
EOF
if [[ -n ${SCALE_MAX_W:-} && ${#cpus[@]} -lt 4 ]]; then
    echo "SMOKE TEST: fewer than 4 CPUs; these numbers say nothing about scaling"
fi
if needs postgres && ! start_postgres; then
    SERVERS=${SERVERS//postgres/}
fi

# --- measure ----------------------------------------------------------------------
launches=0
launch() { # name W scenario: starts the server for one run; sets $port and $spid
    local name=$1 w=$2 scenario=$3 server_cpus
    server_cpus=$(IFS=,; echo "${cpus[*]:0:w}")
    port=$((BASE_PORT + launches % 90))
    launches=$((launches + 1))
    local log=$work/$name-$w-$scenario.log pin=(taskset -c "$server_cpus")
    local chopin=(--listen "127.0.0.1:$port" --token allowed=octocat --grant 'octocat=*' --import "$import")
    local cmd
    case $name in
    floor)
        cmd=("${pin[@]}" "$floor_bin" "$port")
        [[ $scenario == list ]] && cmd=("${pin[@]}" "$listfloor_bin" "$port") ;;
    file) cmd=("${pin[@]}" "$server_bin" "${chopin[@]}" --db "$work/file-$w-$scenario.db" --workers "$w") ;;
    memory) cmd=("${pin[@]}" "$server_bin" "${chopin[@]}" --memory --workers "$w") ;;
    postgres)
        # The cluster follows the server onto its CPUs (new backends inherit
        # the postmaster's).
        for p in $(pg_pids); do taskset -a -p -c "$server_cpus" "$p" >/dev/null; done
        cmd=("${pin[@]}" "$server_bin" "${chopin[@]}" --db "postgres://postgres@127.0.0.1:$pg_port/postgres"
            --workers "$w") ;;
    blocking) cmd=("${pin[@]}" "$blocking_bin" "${chopin[@]}" --db "$work/blocking-$w-$scenario.db") ;;
    rmcp) cmd=(env RMCP_PEER_THREADS="$w" "${pin[@]}" "$rmcp_bin" "$port") ;;
    *) echo "unknown server $name" >&2; return 1 ;;
    esac
    # One process from here on: env and taskset exec what they run.
    "${cmd[@]}" >"$log" 2>&1 &
    spid=$!
    pids+=("$spid")
    wait_for_read "$name" "$port" "$log"
}
stop() { kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }

results=$work/results
: >"$results"
hz=$(getconf CLK_TCK)
format='%-3s %-5s %-9s %11s %7s %5s %8s %7s %8s %9s %6s\n'
echo
# shellcheck disable=SC2059
printf "$format" W scen server 'req/s' 'x floor' eff 'cpu(us)' cpu/fl 'p50(us)' 'p99(us)' errors
for w in "${ws[@]}"; do
    conns=$((32 * w))
    for scenario in $SCENARIOS; do
        floor_rps= floor_cpu=
        for name in $(scenario_servers "$scenario"); do
            launch "$name" "$w" "$scenario"
            url=http://127.0.0.1:$port/mcp
            taskset -c "$wrk_cpus" timeout $((WARMUP + 15)) "$WRK" -t"$wrk_threads" -c"$conns" -d"${WARMUP}s" \
                -s "$(wrk_script "$scenario")" "$url" >/dev/null 2>&1 || true
            measured=("$spid")
            [[ $name == postgres ]] && read -ra more <<<"$(pg_pids)" && measured+=("${more[@]}")
            before=$(cpu_ticks "${measured[@]}")
            out=$(taskset -c "$wrk_cpus" timeout $((DURATION + 15)) "$WRK" -t"$wrk_threads" -c"$conns" \
                -d"${DURATION}s" --latency -s "$(wrk_script "$scenario")" "$url" 2>&1 || true)
            ticks=$(($(cpu_ticks "${measured[@]}") - before))
            stop
            if [[ -n ${SCALE_OUT:-} ]]; then
                mkdir -p "$SCALE_OUT/wrk"
                printf '%s\n' "$out" >"$SCALE_OUT/wrk/$scenario-$name-w$w.txt"
            fi
            one=$(awk -v w=1 -v s="$scenario" -v n="$name" '$1 == w && $2 == s && $3 == n { print $4 }' "$results")
            line=$(echo "$out" | awk -v ticks="$ticks" -v hz="$hz" -v w="$w" -v s="$scenario" -v n="$name" \
                -v frps="$floor_rps" -v fcpu="$floor_cpu" -v one="$one" '
                function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
                /Requests\/sec:/ { rps = $2 }
                / requests in / { requests = $1 }
                /^ +50%/ { p50 = us($2) }
                /^ +99%/ { p99 = us($2) }
                /Non-2xx/ { errors += $NF }
                /Socket errors/ { errors += 1 }
                END { if (w == 1) one = rps
                      cpu = requests > 0 ? ticks / hz * 1000000 / requests : 0
                      xf = (frps > 0) ? sprintf("%.2f", rps / frps) : "-"
                      cf = (fcpu > 0) ? sprintf("%.2f", cpu / fcpu) : "-"
                      eff = (one > 0) ? sprintf("%.2f", rps / (w * one)) : "-"
                      printf "%s %s %s %.0f %s %s %.2f %s %.0f %.0f %d\n",
                          w, s, n, rps, xf, eff, cpu, cf, p50, p99, errors + 0 }')
            echo "$line" >>"$results"
            # shellcheck disable=SC2086,SC2059
            printf "$format" $line
            if [[ $name == floor ]]; then
                read -r _ _ _ floor_rps _ _ floor_cpu _ <<<"$line"
            fi
        done
    done
done

# --- the tables ---------------------------------------------------------------------
# $results columns: 1 W, 2 scenario, 3 server, 4 req/s, 5 x floor, 6 eff,
# 7 cpu(us), 8 cpu/fl, 9 p50, 10 p99, 11 errors.
{
    echo
    echo "commit $commit, ${#cpus[@]} CPUs (${model:-unknown}): servers on W CPUs, wrk -t$wrk_threads -c 32·W on $wrk_cpus, ${DURATION} s runs"
    for scenario in $SCENARIOS; do
        echo
        echo "$scenario:"
        echo
        echo "| server | W | req/s | x floor | eff vs W=1 | CPU/req x floor | p50 | p99 | errors |"
        echo "|---|---|---|---|---|---|---|---|---|"
        for name in $(scenario_servers "$scenario"); do
            awk -v s="$scenario" -v n="$name" '$2 == s && $3 == n {
                printf "| %s | %s | %s | %s | %s | %s | %s µs | %s µs | %s |\n", n, $1, $4, $5, $6, $8, $9, $10, $11 }' "$results"
        done
    done
} | tee "$work/table.md"
if [[ -n ${SCALE_OUT:-} ]]; then
    mkdir -p "$SCALE_OUT"
    cp "$work/table.md" "$SCALE_OUT/table.md"
    cp "$results" "$SCALE_OUT/rows.txt"
fi

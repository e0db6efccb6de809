# Shared by benches/load.sh and benches/scale.sh: sourced, not run. The
# caller sets `root` (the repository), `work` (its temporary directory),
# `pids` (what it starts, stopped at exit), `PEERS` (../shared/peers) and
# `peer_build` (where the peers are built, outside the repository).

# At exit: the processes started stopped, the temporary directory removed.
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The request both benches measure (the peers serve the same document).
read_body='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}'

# write_import FILE: the seed. The read document is the one the peers serve
# (same id, title, source and revision: the same reply bytes as the floor's);
# 99 more in its repository make the list 100.
write_import() {
    {
        printf '[{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4","repository":"githubnext/chopin",'
        printf '"title":"Release readiness","source":"# Release readiness\\n","revision":4}'
        for i in $(seq 1 99); do
            printf ',{"id":"00000000-0000-4000-8000-%012d","repository":"githubnext/chopin",' "$i"
            printf '"title":"Plan %03d","source":"# Plan %03d\\n\\nA summary-sized plan.\\n","revision":0}' "$i" "$i"
        done
        printf ']\n'
    } >"$1"
}

# wrk_script read|list|tools: the wrk script of a scenario.
wrk_script() {
    case $1 in
    read) echo "$root/benches/load/read_document.lua" ;;
    list) echo "$root/benches/load/list_documents.lua" ;;
    tools) echo "$root/benches/load/tools_list.lua" ;;
    *) echo "no scenario $1" >&2; return 1 ;;
    esac
}

# build_peer hyper-floor|rmcp-server: a release build from a fresh copy of
# $PEERS/NAME in $peer_build (never in the repository).
build_peer() {
    local peer=$1
    [[ -d $PEERS/$peer ]] || { echo "no $PEERS/$peer (set PEERS)" >&2; return 1; }
    mkdir -p "$peer_build"
    rm -rf "$peer_build/$peer.src" && cp -rp "$PEERS/$peer" "$peer_build/$peer.src"
    echo "building $peer in $peer_build" >&2
    CARGO_TARGET_DIR=$peer_build/$peer.target \
        cargo build --release --quiet --manifest-path "$peer_build/$peer.src/Cargo.toml" >&2
}

# build_listfloor SERVER_BIN IMPORT PORT: the list scenario's own floor,
# hyper-floor answering every POST with the bytes SERVER_BIN answers the list
# scenario with (IMPORT's 100 summaries), asked of it on PORT, in place of the
# read's reply. Built beside hyper-floor (its dependencies are built already).
build_listfloor() {
    local server_bin=$1 import=$2 port=$3 list_body list_answer= once src
    list_body=$(sed -n "s/^wrk.body = '\(.*\)'\$/\1/p" "$(wrk_script list)")
    "$server_bin" --listen "127.0.0.1:$port" --memory --token allowed=octocat \
        --grant 'octocat=*' --import "$import" >"$work/listfloor-source.log" 2>&1 &
    once=$!
    for _ in $(seq 1 100); do
        list_answer=$(post_mcp "$port" "$list_body") && [[ -n $list_answer ]] && break
        sleep 0.1
    done
    kill "$once"; wait "$once" 2>/dev/null || true
    [[ $list_answer == *'"Plan 099"'* ]] || { echo "no list answer to build listfloor from: $list_answer" >&2; return 1; }
    src=$peer_build/hyper-floor-list.src
    rm -rf "$src" && cp -rp "$PEERS/hyper-floor" "$src"
    printf '%s' "$list_answer" >"$src/src/list-answer.json"
    sed -i 's/^name = "hyper-floor"$/name = "hyper-floor-list"/' "$src/Cargo.toml"
    sed -i 's/^const BODY: &str = .*$/const BODY: \&str = include_str!("list-answer.json");/' "$src/src/main.rs"
    grep -q '^name = "hyper-floor-list"$' "$src/Cargo.toml" && grep -q 'include_str!("list-answer.json")' "$src/src/main.rs" ||
        { echo "hyper-floor's Cargo.toml or BODY line changed: listfloor cannot be made from it" >&2; return 1; }
    echo "building hyper-floor-list in $peer_build" >&2
    CARGO_TARGET_DIR=$peer_build/hyper-floor.target \
        cargo build --release --quiet --manifest-path "$src/Cargo.toml" >&2
}

# post_mcp PORT BODY: POSTs BODY to 127.0.0.1:PORT/mcp as the benches' client
# (token `allowed`), printing the reply's body; with curl, else python3 (a
# machine that has only the prebuilt binaries may lack curl).
post_mcp() {
    if command -v curl >/dev/null; then
        curl -s --max-time 2 -X POST "http://127.0.0.1:$1/mcp" \
            -H 'Authorization: Bearer allowed' -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-03-26' -d "$2"
    else
        python3 - "$1" "$2" <<'PY'
import sys, urllib.request
request = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/mcp", data=sys.argv[2].encode(), headers={
    "Authorization": "Bearer allowed", "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-03-26"})
try:
    print(urllib.request.urlopen(request, timeout=2).read().decode())
except Exception:
    sys.exit(1)
PY
    fi
}

# wait_for_read NAME PORT LOG: until the server on PORT answers read_document
# (10 s at most), else fail showing its LOG.
wait_for_read() {
    local name=$1 port=$2 log=$3 reply
    for _ in $(seq 1 100); do
        if reply=$(post_mcp "$port" "$read_body") && [[ $reply == *'Release readiness'* ]]; then return 0; fi
        sleep 0.1
    done
    echo "$name did not answer read_document:" >&2
    cat "$log" >&2
    return 1
}

# cpu_ticks PID...: the CPU time (user + system, every thread, in clock
# ticks) the processes have used so far.
cpu_ticks() {
    local pid total=0 ticks
    for pid in "$@"; do
        ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || ticks=0
        total=$((total + ticks))
    done
    echo "$total"
}

#!/usr/bin/env bash
# Memory per idle held `GET /mcp` event stream, and what holding them does to
# read latency, for chopin-mcp-server (release build of this workspace).
#
#   benches/held_streams.sh                 # N = 5000, then 20000
#   COUNTS="5000" ROUNDS=3 benches/held_streams.sh
#   NO_BUILD=1 SERVER=/path/to/chopin-mcp-server benches/held_streams.sh
#
# For each N: starts the server on a fresh SQLite file (seeded with the read
# document), warms it up with wrk, reads its RSS (VmRSS, /proc/PID/status),
# then measures read_document latency `wrk -t1 -c16 -dDURATION --latency` with
# no stream held ("before"). A client in another process (python3, below)
# then opens N keep-alive connections, sends each `GET /mcp` (Accept:
# text/event-stream, a valid token), reads each 200 head and first
# keep-alive comment, and holds them all without reading further. After
# IDLE seconds (10) the server's RSS is read again: (RSS now - RSS before) / N
# is the memory per held stream. Then the same wrk runs with the streams
# held ("held"), the client closes them, and once more without ("after").
# ROUNDS (3) runs of each; p99 medians are compared: held / (median of
# before and after), and so is the server's CPU time per read (utime +
# stime from /proc/PID/stat over the requests wrk completed), which moves
# far less than a 5 s p99 when other work shares the cores. The fall in
# the machine's MemAvailable over the held rounds shows the kernel pages
# that the comments left unread keep from reuse (benches/history/host-floor.md).
#
# READ_STREAMS=1: the client goes on reading (and dropping) what the held
# streams send, as an event-stream client does, instead of leaving every
# keep-alive comment after the first unread. An unread comment stays queued
# on the client's socket in the kernel buffer the server's send filled,
# which keeps the server's page fragment from being reused: its sends take
# fresh pages (benches/history/host-floor.md, "Held event streams").
#
# Raises `ulimit -n` for itself and the processes it starts (the server needs
# N + a few descriptors, the client N); widens net.ipv4.ip_local_port_range
# only when it has fewer than N + 2000 ports, and puts it back at exit.
# Loopback only.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
COUNTS=${COUNTS:-"5000 20000"}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
IDLE=${IDLE:-10}
PORT=${PORT:-19480}
target=${CARGO_TARGET_DIR:-$root/target}
SERVER=${SERVER:-$target/release/chopin-mcp-server}
work=$(mktemp -d /tmp/chopin-held.XXXXXX)
server_pid=
client_pid=
old_range=

cleanup() {
    [[ -n $client_pid ]] && kill "$client_pid" 2>/dev/null || true
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    if [[ -n $old_range ]]; then
        echo "$old_range" >/proc/sys/net/ipv4/ip_local_port_range || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

command -v wrk >/dev/null || { echo "wrk is missing (Debian: apt-get install -y wrk)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is missing" >&2; exit 1; }

if [[ -z ${NO_BUILD:-} ]]; then
    echo "building chopin-mcp-server (release)" >&2
    (cd "$root" && cargo build --release --quiet -p chopin-mcp-server --bin chopin-mcp-server) >&2
fi

most=0
for n in $COUNTS; do ((n > most)) && most=$n; done
want=$((most + 1024))
if (($(ulimit -n) < want)); then
    ulimit -Hn "$want" 2>/dev/null || true
    if ! ulimit -n "$want" 2>/dev/null; then
        # Raising the hard limit needs CAP_SYS_RESOURCE: without it, the
        # counts are capped to what the hard limit allows (said below).
        ulimit -n "$(ulimit -Hn)"
    fi
fi
fit=$(($(ulimit -n) - 64))
read -r low high </proc/sys/net/ipv4/ip_local_port_range
if ((high - low < most + 2000)); then
    old_range="$low $high"
    echo "1024 65535" >/proc/sys/net/ipv4/ip_local_port_range ||
        { echo "cannot widen net.ipv4.ip_local_port_range for $most connections" >&2; exit 1; }
    echo "net.ipv4.ip_local_port_range widened from $old_range to 1024 65535 (restored at exit)"
fi

cat >"$work/hold.py" <<'EOF'
# hold.py PORT N [read]: opens N connections, each a GET /mcp event stream,
# reads each head and first keep-alive comment, prints "held N", then holds
# them until stdin closes, reading nothing more (or, with "read", reading
# and dropping what comes).
import selectors, socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
request = (b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nauthorization: Bearer allowed\r\n"
           b"accept: text/event-stream\r\nmcp-protocol-version: 2025-03-26\r\n\r\n" % port)
sel = selectors.DefaultSelector()
socks, seen, pending = [], {}, 0
for i in range(n):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    socks.append(s)
    seen[s.fileno()] = b""
    sel.register(s, selectors.EVENT_WRITE)
    pending += 1
    # Keep the connect backlog short: let some finish before opening more.
    while pending > 500 or (i == n - 1 and pending > 0):
        for key, events in sel.select(timeout=10):
            s = key.fileobj
            if events & selectors.EVENT_WRITE:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    sys.exit("connect failed: %d" % err)
                s.send(request)
                sel.modify(s, selectors.EVENT_READ)
            else:
                data = s.recv(4096)
                if not data:
                    sys.exit("server closed a stream: %r" % seen[s.fileno()])
                seen[s.fileno()] += data
                if b": keep-alive\n\n" in seen[s.fileno()]:
                    if not seen[s.fileno()].startswith(b"HTTP/1.1 200"):
                        sys.exit("not a stream: %r" % seen[s.fileno()][:200])
                    sel.unregister(s)
                    pending -= 1
print("held", len(socks), flush=True)
if sys.argv[3:] == ["read"]:
    import threading
    def drain():
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select(timeout=1):
                try:
                    if not key.fileobj.recv(65536):
                        sel.unregister(key.fileobj)
                except BlockingIOError:
                    pass
    threading.Thread(target=drain, daemon=True).start()
sys.stdin.read()
EOF

import=$work/import.json
printf '[{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4","repository":"githubnext/chopin","title":"Release readiness","source":"# Release readiness\\n","revision":4}]\n' >"$import"
lua=$root/benches/load/read_document.lua
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
available() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; } # kB, the whole machine
ticks() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; } # utime + stime
hz=$(getconf CLK_TCK)
p99() { # one wrk run: its p99 in us, req/s, and the server's CPU per request in us
    local before after
    before=$(ticks)
    timeout $((DURATION + 15)) wrk -t1 -c16 -d"${DURATION}s" --latency -s "$lua" "http://127.0.0.1:$PORT/mcp" >"$work/wrk.out"
    after=$(ticks)
    awk -v t=$((after - before)) -v hz="$hz" \
        'function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
         /^ +99%/ { p = us($2) } /Requests\/sec:/ { r = $2 } / requests in / { n = $1 }
         END { printf "%.1f %.0f %.2f\n", p, r, n ? t * 1000000 / hz / n : 0 }' "$work/wrk.out"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "load: $(uptime | sed 's/.*load average/load average/'), $(nproc) CPUs, server $SERVER${READ_STREAMS:+, the client reads its streams}"
for n in $COUNTS; do
    if ((n > fit)); then
        echo "N=$n needs ulimit -n $((n + 64)), the hard limit is $(ulimit -Hn) and cannot be raised here: N=$fit instead"
        n=$fit
    fi
    rm -f "$work"/db*
    "$SERVER" --listen "127.0.0.1:$PORT" --db "$work/db" --token allowed=octocat --grant 'octocat=*' \
        --import "$import" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do grep -q 'listening on' "$work/server.log" && break; sleep 0.1; done
    timeout 20 wrk -t1 -c16 -d2s -s "$lua" "http://127.0.0.1:$PORT/mcp" >/dev/null
    : >"$work/p99"
    for r in $(seq 1 "$ROUNDS"); do echo "before $(p99)" | tee -a "$work/p99" | sed "s/^/N=$n round $r: p99(us) req\/s cpu(us): /"; done
    rss_before=$(rss "$server_pid")
    mkfifo "$work/hold.in"
    python3 "$work/hold.py" "$PORT" "$n" ${READ_STREAMS:+read} <"$work/hold.in" >"$work/hold.out" 2>&1 &
    client_pid=$!
    exec 9>"$work/hold.in"
    for _ in $(seq 1 1200); do
        grep -q '^held' "$work/hold.out" && break
        kill -0 "$client_pid" 2>/dev/null || { echo "the client failed:" >&2; cat "$work/hold.out" >&2; exit 1; }
        sleep 0.1
    done
    grep -q '^held' "$work/hold.out" || { echo "the client did not hold $n streams in 120 s" >&2; exit 1; }
    sleep "$IDLE"
    rss_held=$(rss "$server_pid")
    avail_before=$(available)
    for r in $(seq 1 "$ROUNDS"); do echo "held $(p99)" | tee -a "$work/p99" | sed "s/^/N=$n round $r: p99(us) req\/s cpu(us): /"; done
    avail_held=$(available)
    exec 9>&-
    wait "$client_pid" || true
    client_pid=
    rm -f "$work/hold.in"
    sleep 1
    for r in $(seq 1 "$ROUNDS"); do echo "after $(p99)" | tee -a "$work/p99" | sed "s/^/N=$n round $r: p99(us) req\/s cpu(us): /"; done
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
    without=$(awk '$1 != "held" { print $2 }' "$work/p99" | median)
    held=$(awk '$1 == "held" { print $2 }' "$work/p99" | median)
    cpu_without=$(awk '$1 != "held" { print $4 }' "$work/p99" | median)
    cpu_held=$(awk '$1 == "held" { print $4 }' "$work/p99" | median)
    awk -v n="$n" -v b="$rss_before" -v h="$rss_held" -v w="$without" -v p="$held" \
        -v cw="$cpu_without" -v ch="$cpu_held" -v a="$avail_before" -v ah="$avail_held" 'BEGIN {
        printf "N=%d: RSS %d kB before, %d kB with the streams held %ds: %.2f kB per stream\n", n, b, h, '"$IDLE"', (h - b) / n
        printf "N=%d: read p99 median %.1f us without streams (before and after), %.1f us held: %.2fx\n", n, w, p, p / w
        printf "N=%d: server CPU per read median %.2f us without streams, %.2f us held: %.2fx\n", n, cw, ch, ch / cw
        printf "N=%d: MemAvailable fell by %d MB over the held rounds (the machine'"'"'s: kernel pages the unread comments keep)\n", n, (a - ah) / 1024 }'
done

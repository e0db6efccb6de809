#!/usr/bin/env bash
# Instructions per exchange through `Endpoint::handle`, counted by callgrind
# (a count that a noisy or shared machine does not move), against the
# committed baseline: fails when any kind grows more than 10 % over it.
#
#   benches/instructions.sh            # count, compare, print a table
#   benches/instructions.sh --write    # count and write the baseline
#
# Counts `examples/cycles.rs` (release profile, the system allocator) at two
# lengths and takes the difference per exchange, so process start-up and the
# first exchange cancel out. The baseline (benches/instructions.baseline)
# is the count on the project's machines (x86-64, Debian's valgrind); a
# change meant to cost more updates it in the same commit, saying why.
# Needs valgrind (`apt-get install valgrind`).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
baseline=$root/benches/instructions.baseline
target=${CARGO_TARGET_DIR:-$root/target}
kinds="read list tools initialize refused"
short=200
long=1200
limit_percent=110

command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
(cd "$root" && cargo build --quiet --release --example cycles)
cycles=$target/release/examples/cycles

# count KIND N: the instructions of a run of N exchanges (plus the first).
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$cycles" "$1" "$2" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

declare -A measured
for kind in $kinds; do
    a=$(count "$kind" "$short")
    b=$(count "$kind" "$long")
    measured[$kind]=$(( (b - a) / (long - short) ))
done

if [ "${1:-}" = --write ]; then
    {
        echo "# Instructions per exchange (benches/instructions.sh --write): kind count"
        for kind in $kinds; do echo "$kind ${measured[$kind]}"; done
    } >"$baseline"
    cat "$baseline"
    exit 0
fi

failed=0
printf '%-11s %10s %10s %7s\n' kind baseline now ratio
for kind in $kinds; do
    base=$(awk -v k="$kind" '$1 == k { print $2 }' "$baseline")
    if [ -z "$base" ]; then
        echo "instructions.sh: no baseline for $kind in $baseline" >&2
        failed=1
        continue
    fi
    now=${measured[$kind]}
    ratio=$(awk -v n="$now" -v b="$base" 'BEGIN { printf "%.3f", n / b }')
    printf '%-11s %10s %10s %7s\n' "$kind" "$base" "$now" "$ratio"
    if [ $(( now * 100 )) -gt $(( base * limit_percent )) ]; then
        echo "instructions.sh: $kind costs $now instructions an exchange, over $limit_percent % of the baseline's $base" >&2
        failed=1
    fi
done
exit "$failed"

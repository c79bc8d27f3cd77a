#!/usr/bin/env bash
# Compile-time benchmarks of this checkout and another (a worktree of an earlier commit), side
# by side in one run: each checkout's scripts/bench-compile.sh and bench-compile-families.sh make
# their crates (and build their dependencies) first, then every crate of both is rebuilt in
# turn, round after round, after touching its lib.rs, and the median of each is printed (wall
# and user+system CPU seconds), so both see the same machine at the same time.
#
# usage: scripts/bench-compile-against.sh OTHER_CHECKOUT [ROUNDS, default 9]
#   e.g. git worktree add /tmp/base <commit> && scripts/bench-compile-against.sh /tmp/base
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
other=$(cd "$1" && pwd)
rounds=${2:-9}
crates=()
for checkout in "$other" "$root"; do
    (cd "$checkout" && scripts/bench-compile.sh >/dev/null && scripts/bench-compile-families.sh >/dev/null)
    crates+=("$checkout/target/bench-compile/with_kernel" "$checkout/target/bench-compile/without_kernel")
    for name in empty decl decl_ptx used; do
        crates+=("$checkout/target/bench-compile-families/$name")
    done
done
declare -A wall cpu
for _ in $(seq "$rounds"); do
    for crate in "${crates[@]}"; do
        touch "$crate/src/lib.rs"
        times=$( { /usr/bin/time -f "%e %U %S" bash -c "cd '$crate' && CARGO_TARGET_DIR='$crate/../target' cargo build -q 2>/dev/null"; } 2>&1 | tail -1)
        wall[$crate]+="$(echo "$times" | awk '{print $1}') "
        cpu[$crate]+="$(echo "$times" | awk '{printf "%.2f", $2 + $3}') "
    done
done
median() { tr ' ' '\n' | grep . | sort -n | sed -n "$(( (rounds + 1) / 2 ))p"; }
printf '%-80s %8s %8s\n' "crate (median of $rounds rebuilds)" "wall s" "cpu s"
for crate in "${crates[@]}"; do
    printf '%-80s %8s %8s\n' "$crate" "$(echo "${wall[$crate]}" | median)" "$(echo "${cpu[$crate]}" | median)"
done

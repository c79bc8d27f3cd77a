#!/usr/bin/env bash
# Compile cost of #[kernel] in instructions rather than seconds: the crates of
# scripts/bench-compile.sh (200 declarations, and the same blocks without #[kernel]) and, with
# BENCH_FAMILIES=1, those of scripts/bench-compile-families.sh (48 generic family declarations,
# without and with their PTX check, and an empty crate), each
# rebuilt once after touching its lib.rs with rustc under valgrind's cachegrind, which counts
# the instructions the rebuild executed (the proc macro runs inside rustc, so its share is
# counted too). Unlike wall-clock time on a shared 2-core machine, the count repeats to a few
# parts in a thousand, so a change of a few percent in a declaration's cost shows.
#
# usage: scripts/bench-compile-instructions.sh [OTHER_CHECKOUT]
#   With OTHER_CHECKOUT (e.g. a worktree of an earlier commit), both are measured.
# Needs valgrind. The crates build in target/bench-compile/target-instructions, apart from the
# wall-clock benchmarks' target (the wrapper is part of the build's fingerprint).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v valgrind >/dev/null; then
    echo "bench-compile-instructions: valgrind is not installed" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# rustc, under cachegrind only for the measured crate while BENCH_MEASURE names it.
cat >"$work/wrapper.sh" <<'WRAP'
#!/usr/bin/env bash
if [ -n "${BENCH_MEASURE:-}" ] && [[ " $* " == *" --crate-name $BENCH_MEASURE "* ]]; then
    exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        --log-file="$BENCH_LOG" "$@"
fi
exec "$@"
WRAP
chmod +x "$work/wrapper.sh"

measure() { # checkout, crate name[, benchmark folder]: prints the instructions of one rebuild
    local bench="${3:-bench-compile}"
    local crate="$1/target/$bench/$2"
    export CARGO_TARGET_DIR="$1/target/$bench/target-instructions"
    export RUSTC_WRAPPER="$work/wrapper.sh" BENCH_LOG="$work/log"
    (cd "$crate" && cargo build -q 2>/dev/null && touch src/lib.rs && cargo build -q 2>/dev/null)
    touch "$crate/src/lib.rs"
    rm -f "$work/log"
    (cd "$crate" && BENCH_MEASURE=$2 cargo build -q 2>/dev/null)
    sed -n 's/.*I *refs: *//p' "$work/log" | tr -d ','
}

checkouts=("$root")
if [ $# -ge 1 ]; then
    checkouts=("$(cd "$1" && pwd)" "$root")
fi
for checkout in "${checkouts[@]}"; do
    (cd "$checkout" && scripts/bench-compile.sh >/dev/null) # makes the crates
    with=$(measure "$checkout" with_kernel)
    without=$(measure "$checkout" without_kernel)
    printf '%s: with #[kernel] %d M, without %d M, added by 200 declarations %d M instructions\n' \
        "$checkout" $((with / 1000000)) $((without / 1000000)) $(((with - without) / 1000000))
    if [ "${BENCH_FAMILIES:-0}" = 1 ]; then
        (cd "$checkout" && BENCH_MAKE_ONLY=1 scripts/bench-compile-families.sh >/dev/null)
        empty=$(measure "$checkout" empty bench-compile-families)
        for name in decl decl_ptx; do
            total=$(measure "$checkout" "$name" bench-compile-families)
            printf '%s: families %s %d M, added to the empty crate %d M instructions\n' \
                "$checkout" "$name" $((total / 1000000)) $(((total - empty) / 1000000))
        done
    fi
done

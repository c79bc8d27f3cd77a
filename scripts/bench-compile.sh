#!/usr/bin/env bash
# Compile-time cost of #[kernel]: builds (debug) a crate declaring 200 kernels, and the same crate
# with the #[kernel] attributes removed (plain extern blocks, which expand to nothing of ours),
# and prints the median of 5 rebuilds of each and their difference.
#
# usage: scripts/bench-compile.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-lib.sh
source "$root/scripts/bench-lib.sh"
work="$root/target/bench-compile"
types=(u32 f32 "*const f32" "*mut f32" i64 f64 u8 "cuda_kernel::Float4" "cuda_kernel::Int2" "cuda_kernel::half::f16" bool "*const cuda_kernel::Float4")

make_crate() { # name, attribute
    local dir="$work/$1" attr=$2
    mkdir -p "$dir/src"
    crate_manifest "$1" "$root" >"$dir/Cargo.toml"
    {
        echo "#![allow(dead_code, improper_ctypes, clippy::all)]"
        for block in $(seq 0 19); do
            echo "$attr"
            echo "unsafe extern \"C\" {"
            for k in $(seq 0 9); do
                local i=$((block * 10 + k)) params="" count=$(( (block * 10 + k) % 9 + 2 ))
                for p in $(seq 0 $((count - 1))); do
                    params+="p$p: ${types[$(( (i * 7 + p * 5) % ${#types[@]} ))]}, "
                done
                echo "    pub fn kernel_$i(${params%, });"
            done
            echo "}"
        done
    } >"$dir/src/lib.rs"
}

make_crate with_kernel "#[cuda_kernel::kernel]"
make_crate without_kernel ""
export CARGO_TARGET_DIR="$work/target"
for name in with_kernel without_kernel; do
    (cd "$work/$name" && cargo build -q 2>/dev/null) # dependencies, once
done


with=$(median_build "$work/with_kernel")
without=$(median_build "$work/without_kernel")
printf 'debug build of a crate declaring 200 kernels (median of 5 rebuilds): %.2f s\n' "$with"
printf 'the same crate without #[kernel]:                                  %.2f s\n' "$without"
printf 'added by #[kernel]:                                                 %.2f s\n' "$(echo "$with - $without" | bc -l)"

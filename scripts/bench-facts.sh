#!/usr/bin/env bash
# What the build step's nvcc runs cost on a new file: `-ptx` (the PTX), `-E` (the text the
# declaration generator reads) and `-ptx -G` (the device code's debug information, which holds
# the compiler's facts, compiled only for a file whose kernels the reader of the text cannot
# all type). Medians of 3 runs each, in milliseconds.
# usage: scripts/bench-facts.sh ARCH FILE.cu [nvcc flags...]
set -euo pipefail
arch=$1 src=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ms() {
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s%N)
    echo $(((e - s) / 1000000))
}
median() { sort -n | sed -n 2p; }
p=$(for _ in 1 2 3; do ms nvcc -ptx -arch="$arch" "$@" "$src" -o "$out/f.ptx"; done | median)
e=$(for _ in 1 2 3; do ms nvcc -E -arch="$arch" "$@" "$src" -o "$out/f.ii"; done | median)
g=$(for _ in 1 2 3; do ms nvcc -ptx -G -arch="$arch" "$@" "$src" -o "$out/g.ptx"; done | median)
echo "$(basename "$src"): -ptx ${p} ms, -E ${e} ms, -ptx -G ${g} ms; all three / -ptx $(echo "scale=2; ($p + $e + $g) / $p" | bc)"

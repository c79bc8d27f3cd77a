#!/usr/bin/env bash
# Regenerates kernels/ptx/*.ptx from kernels/cuda/*.cu with nvcc (run it on a machine with the
# CUDA toolkit). Each PTX file starts with a line recording the SHA-256 of the source it came from;
# kernels/build.rs compares that line with the source and fails the build when they differ.
#
# usage: scripts/regen-ptx.sh [OUT_DIR]   (default: kernels/ptx)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/kernels/ptx}
mkdir -p "$out"
# compute_75 is the oldest virtual architecture nvcc 13 targets; the driver JIT-compiles this PTX
# for the GPU it loads on. Files whose kernels need a newer one name it in a `// ptx-arch:` line.
for cu in "$root"/kernels/cuda/*.cu; do
    name=$(basename "$cu" .cu)
    arch=$(sed -n 's|^// ptx-arch: *\(compute_[0-9a-z]*\).*|\1|p' "$cu" | head -n1)
    arch=${arch:-compute_75}
    hash=$(cat "$cu" $(ls "$root"/kernels/cuda/*.cuh 2>/dev/null | LC_ALL=C sort) | sha256sum | cut -d' ' -f1)
    tmp=$(mktemp)
    nvcc -ptx -arch="$arch" -O3 -I "$root/kernels/cuda" -o "$tmp" "$cu"
    { echo "// cuda-kernel-source-sha256: $hash"; cat "$tmp"; } >"$out/$name.ptx"
    rm -f "$tmp"
    echo "$name.cu -> $out/$name.ptx ($arch)"
done

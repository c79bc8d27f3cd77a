#!/usr/bin/env bash
# Builds the crates in tests/downstream/: each depends on cuda-kernel plainly and on cudarc with
# its own CUDA version feature (cuda-12080, cuda-13000), as a crate adopting cuda-kernel does.
# They share a target folder of their own, so it works wherever the workspace's is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}/downstream
for crate in "$root"/tests/downstream/*/; do
    echo "== $(basename "$crate")"
    cargo build --quiet --manifest-path "$crate/Cargo.toml" --target-dir "$target"
done

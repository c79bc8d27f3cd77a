#!/usr/bin/env bash
# Builds the crates in tests/downstream/: each depends on cuda-kernel plainly and on cudarc with
# its own CUDA version feature (cuda-12080, cuda-13000) or linkage (dynamic-linking,
# static-linking), as a crate adopting cuda-kernel does. A crate with a `check-only` file links
# CUDA's libraries, which a machine without the toolkit lacks: it is checked, not built.
# `two-crates` is a workspace of a kernels crate and the crate that launches its kernels, checked
# against the first one's PTX at compile time (links metadata, cuda_kernel_build::dependency_ptx).
# `cudaforge` compiles its .cu with cudaforge, nvcc checking it against the header
# cuda_kernel_build::Build::nvcc_args force-includes.
# They share a target folder of their own, so it works wherever the workspace's is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}/downstream
for crate in "$root"/tests/downstream/*/; do
    # `candle` is scripts run on demand (tests/downstream/candle/README.md), not a crate.
    [ -e "$crate/Cargo.toml" ] || continue
    echo "== $(basename "$crate")"
    if [ -e "$crate/check-only" ]; then
        # rustc looks up the static archives cudarc's static-linking names even for `cargo
        # check`, which never links: empty stand-ins let it check the crate on a machine
        # without CUDA's static libraries (nothing is linked against them).
        stubs="$target/static-stubs"
        mkdir -p "$stubs"
        for lib in stdc++ cudart_static nvrtc_static nvptxcompiler_static nvrtc-builtins_static culibos; do
            [ -e "$stubs/lib$lib.a" ] || ar rc "$stubs/lib$lib.a"
        done
        RUSTFLAGS="-L native=$stubs" \
            cargo check --quiet --manifest-path "$crate/Cargo.toml" --target-dir "$target"
    else
        cargo build --quiet --manifest-path "$crate/Cargo.toml" --target-dir "$target"
    fi
done

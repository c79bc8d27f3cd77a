#!/usr/bin/env bash
# Compile-time cost of generated declarations on a real backend's kernels: a crate whose build
# script generates the declarations of every kernel of a folder of .cu files
# (`Build::generate_declarations`, nvcc needed) and includes them, against the same crate with
# the build script but without the includes. Prints the number of declarations generated, the
# kernels of their PTX and the median of 5 debug rebuilds of each after touching lib.rs. (The
# build step asks to rerun when the crate's src/lib.rs changes, so today each rebuild also
# recompiles every .cu: docs/BENCHMARKS.md.)
#
# usage: scripts/bench-compile-generated.sh CU_DIR [FILE.cu ...]
#   e.g. candle's kernels: scripts/bench-compile-generated.sh candle-kernels/src \
#          affine.cu binary.cu cast.cu conv.cu fill.cu indexing.cu reduce.cu sort.cu ternary.cu unary.cu
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-lib.sh
source "$root/scripts/bench-lib.sh"
src=$(cd "$1" && pwd)
shift
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    mapfile -t files < <(cd "$src" && ls ./*.cu | sed 's|^\./||')
fi
work="$root/target/bench-compile-generated"

make_crate() { # name, with includes (0/1)
    local dir="$work/$1" with=$2
    mkdir -p "$dir/src"
    {
        crate_manifest "$1" "$root" | sed '/^\[workspace\]/d'
        echo
        echo "[build-dependencies]"
        echo "cuda-kernel-build = { path = \"$root/cuda-kernel-build\" }"
        echo
        echo "[workspace]"
    } >"$dir/Cargo.toml"
    {
        echo "fn main() {"
        echo "    println!(\"cargo::rerun-if-changed=build.rs\");"
        echo "    cuda_kernel_build::Build::new()"
        echo "        .files(["
        for f in "${files[@]}"; do echo "            \"$src/$f\","; done
        echo "        ])"
        echo "        .include(\"$src\")"
        echo "        .generate_declarations(true)"
        echo "        .compile();"
        echo "}"
    } >"$dir/build.rs"
    {
        echo "#![allow(dead_code, clippy::all)]"
        echo "pub fn f() {}"
        if [ "$with" = 1 ]; then
            for f in "${files[@]}"; do
                local stem=${f%.cu}
                echo "pub mod m_$stem {"
                echo "    include!(concat!(env!(\"OUT_DIR\"), \"/cuda-kernel/$stem.rs\"));"
                echo "}"
            done
        fi
    } >"$dir/src/lib.rs"
}

make_crate generated 1
make_crate build_only 0
export CARGO_TARGET_DIR="$work/target"
for name in generated build_only; do
    (cd "$work/$name" && cargo build -q) # dependencies and the build script, once
done
out=$(find "$CARGO_TARGET_DIR/debug/build" -path '*generated-*/out/cuda-kernel' -type d | head -1)
launchers=$(cat "$out"/*.rs | grep -cE '^\s*(pub )?(safe )?fn ')
entries=$(cat "$out"/../*.ptx 2>/dev/null | grep -c '^.visible .entry' || true)
with=$(median_build "$work/generated")
without=$(median_build "$work/build_only")
printf 'kernel declarations generated (fn items):            %d\n' "$launchers"
printf 'kernels in their PTX (.entry):                       %d\n' "$entries"
printf 'debug rebuild with the generated declarations:       %.2f s\n' "$with"
printf 'the same crate without them:                         %.2f s\n' "$without"
printf 'added by the generated declarations:                 %.2f s\n' "$(echo "$with - $without" | bc -l)"

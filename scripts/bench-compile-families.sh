#!/usr/bin/env bash
# Compile-time cost of generic dtype families, shaped like a real backend's: 48 family
# declarations (`op{i}_{T}`, candle's strided signature `size_t numel, size_t ndims,
# const size_t* info, const T* inp, T* out`) in 4 blocks, instantiated for 10 dtypes. Builds
# (debug) four crates and prints the median of 5 rebuilds of each, to see where the time goes:
#   empty      the dependencies and an empty lib (the fixed cost of a rebuild)
#   decl       the 48 declarations, no PTX check
#   decl_ptx   the same, each block checked against a PTX of its 480 members
#   used       decl_ptx plus a generic function that loads and launches all 48 kernels,
#              monomorphized for the 10 dtypes (480 launch sites)
# usage: scripts/bench-compile-families.sh
#   BENCH_MAKE_ONLY=1 writes the crates and builds their dependencies without timing them
#   (for scripts/bench-compile-instructions.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-lib.sh
source "$root/scripts/bench-lib.sh"
work="$root/target/bench-compile-families"
dtypes=(f32 f64 cuda_kernel::half::f16 cuda_kernel::half::bf16 u8 u16 u32 i32 i64 u64)
names=(f32 f64 f16 bf16 u8 u16 u32 i32 i64 u64)
families=48

make_ptx() {
    echo ".version 8.0"; echo ".target sm_90"; echo ".address_size 64"
    for i in $(seq 0 $((families - 1))); do
        for t in "${names[@]}"; do
            local e="op${i}_$t"
            printf '.visible .entry %s(\n' "$e"
            for p in 0 1 2 3; do printf '\t.param .u64 %s_param_%d,\n' "$e" "$p"; done
            printf '\t.param .u64 %s_param_4\n)\n{\n\tret;\n}\n' "$e"
        done
    done
}

make_crate() { # name, block attribute, with uses (0/1), with declarations (0/1)
    local dir="$work/$1" attr=$2 uses=$3 decls=$4
    mkdir -p "$dir/src"
    crate_manifest "$1" "$root" >"$dir/Cargo.toml"
    make_ptx >"$dir/families.ptx"
    {
        echo "#![allow(dead_code, clippy::all)]"
        echo "pub fn f() {}"
        if [ "$decls" = 1 ]; then
            echo "use cuda_kernel::ffi::size_t;"
            for block in 0 1 2 3; do
                echo "$attr"
                echo "unsafe extern \"C\" {"
                for k in $(seq 0 11); do
                    local i=$((block * 12 + k))
                    echo "    #[kernel(name = \"op${i}_{T}\")]"
                    echo "    pub fn op$i<T>(numel: size_t, ndims: size_t, info: *const size_t, inp: *const T, out: *mut T);"
                done
                echo "}"
            done
        fi
        if [ "$uses" = 1 ]; then
            echo "use cuda_kernel::cudarc::driver::{CudaModule, CudaSlice, CudaStream, DeviceRepr};"
            echo "use cuda_kernel::{Config, Error, KernelParam};"
            echo "use std::sync::Arc;"
            echo "pub fn run<T: KernelParam + DeviceRepr>(m: &Arc<CudaModule>, s: &CudaStream, info: &CudaSlice<size_t>, inp: &CudaSlice<T>, out: &mut CudaSlice<T>) -> Result<(), Error> {"
            echo "    let n = inp.len() as size_t;"
            echo "    let c = Config::for_elements(n as u32, 256);"
            for i in $(seq 0 $((families - 1))); do
                local ty="Op$i"
                echo "    unsafe { <$ty<T> as cuda_kernel::Kernel>::load(m)?.launch(s, c, n, 1, info, inp, out)? };"
            done
            echo "    Ok(())"
            echo "}"
            echo "type Run<T> = fn(&Arc<CudaModule>, &CudaStream, &CudaSlice<size_t>, &CudaSlice<T>, &mut CudaSlice<T>) -> Result<(), Error>;"
            echo "pub fn instances() -> usize {"
            echo "    let mut n = 0;"
            for t in "${dtypes[@]}"; do
                echo "    let r: Run<$t> = run::<$t>; n += r as usize & 1;"
            done
            echo "    n"
            echo "}"
        fi
    } >"$dir/src/lib.rs"
}

make_crate empty "" 0 0
make_crate decl "#[cuda_kernel::kernel]" 0 1
make_crate decl_ptx "#[cuda_kernel::kernel(ptx = \"families.ptx\")]" 0 1
make_crate used "#[cuda_kernel::kernel(ptx = \"families.ptx\")]" 1 1
export CARGO_TARGET_DIR="$work/target"
for name in empty decl decl_ptx used; do
    (cd "$work/$name" && cargo build -q) # dependencies, once
done
if [ "${BENCH_MAKE_ONLY:-0}" = 1 ]; then
    exit 0
fi


for name in empty decl decl_ptx used; do
    printf '%-9s debug rebuild, median of 5: %.2f s\n' "$name" "$(median_build "$work/$name")"
done

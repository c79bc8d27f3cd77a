#!/usr/bin/env bash
# candle-core 0.11.1's own test suite with the `cuda` feature, built on a machine without a GPU
# for the GPU machine: the first part of issue 47 (candle on cuda-kernel), the original tree.
# The port's tree will be built the same way, so that both suites run in one device call.
#
#   tests/downstream/candle/build-tests.sh [original|port] [WORK]   (default: original,
#   target/candle-work)
#
# `port` lays the files of tests/downstream/candle/port/ over the tree and depends on this
# checkout's crates by path (today: candle-kernels' PTX through cuda_kernel_build).
#
# 1. candle-core and candle-kernels 0.11.1 as cargo downloads them from crates.io, copied to
#    WORK/original, candle-core pointed at that candle-kernels by path.
# 2. candle turns on cudarc's `dynamic-linking` (libcuda, cublas, cublasLt, curand, nvrtc), so
#    its tests link those libraries: NVIDIA's PyPI wheels give cublas and curand, the nvcc
#    folder (scripts/install-nvcc.sh) cudart and nvrtc, and the stub driver of examples/c stands
#    for `libcuda.so` (an empty library would be dropped from the binaries' needs); the
#    driver's other symbols are resolved when the binaries run on the GPU machine.
# 3. `cargo test --features cuda --no-run` (CUDA_COMPUTE_CAP=90: candle-kernels' build asks
#    nvidia-smi otherwise), every test binary stripped and packed with the tests' data into
#    .device/candle/$which.tar.xz (about 18 MB).
# On the GPU machine: tar xJf .device/candle/original.tar.xz -C .device/candle, then each
# .device/candle/bin/* with LD_LIBRARY_PATH=/usr/local/cuda/lib64, from .device/candle.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
which=${1:-original}
work=${2:-$root/target/candle-work}
case "$which" in original | port) ;; *) echo "usage: $0 [original|port] [WORK]" >&2; exit 2 ;; esac
command -v nvcc >/dev/null || { echo "needs nvcc on PATH (scripts/install-nvcc.sh)" >&2; exit 1; }
nvcc_lib=$(cd "$(dirname "$(command -v nvcc)")/../lib" && pwd)
mkdir -p "$work"

# 1. The sources, from the registry.
fetch="$work/fetch"
mkdir -p "$fetch/src"
printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\ncandle-core = { version = "=0.11.1", features = ["cuda"] }\n[workspace]\n' >"$fetch/Cargo.toml"
echo "fn main() {}" >"$fetch/src/main.rs"
cargo fetch --quiet --manifest-path "$fetch/Cargo.toml"
src_of() {
    cargo metadata --format-version 1 --manifest-path "$fetch/Cargo.toml" |
        python3 -c "import json, os, sys; d = json.load(sys.stdin); print(next(os.path.dirname(p['manifest_path']) for p in d['packages'] if p['name'] == sys.argv[1] and p['version'] == '0.11.1'))" "$1"
}
tree="$work/$which"
rm -rf "$tree"
mkdir -p "$tree"
cp -r "$(src_of candle-core)" "$tree/candle-core"
cp -r "$(src_of candle-kernels)" "$tree/candle-kernels"
python3 - "$tree/candle-core/Cargo.toml" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
text = text.replace('[dependencies.candle-kernels]\nversion = "0.11.1"\n',
                    '[dependencies.candle-kernels]\nversion = "0.11.1"\npath = "../candle-kernels"\n', 1)
open(path, "w").write(text + "\n[workspace]\n")
PY
if [ "$which" = port ]; then
    cp -r "$root/tests/downstream/candle/port/." "$tree/"
    printf '\n[build-dependencies.cuda-kernel-build]\npath = "%s/cuda-kernel-build"\n' "$root" \
        >>"$tree/candle-kernels/Cargo.toml"
fi

# 2. The libraries the test binaries link.
libs="$work/libs"
mkdir -p "$libs"
if [ ! -e "$libs/wheels/nvidia/cu13/lib/libcublas.so.13" ]; then
    python3 -m pip install --quiet --target "$libs/wheels" "nvidia-cublas==13.0.*" "nvidia-curand==10.4.0.*" >&2
fi
ln -sf "$libs/wheels/nvidia/cu13/lib/libcublas.so.13" "$libs/libcublas.so"
ln -sf "$libs/wheels/nvidia/cu13/lib/libcublasLt.so.13" "$libs/libcublasLt.so"
ln -sf "$libs/wheels/nvidia/cu13/lib/libcurand.so.10" "$libs/libcurand.so"
ln -sf "$nvcc_lib/libnvrtc.so.13" "$libs/libnvrtc.so"
ln -sf "$nvcc_lib/libcudart.so.13" "$libs/libcudart.so"
# The stub driver of examples/c (a library defining the driver's entry points the launch path
# calls): the binaries keep their need of `libcuda.so`, which the GPU machine's driver fills.
gcc -O2 -shared -fPIC -o "$libs/libcuda.so" "$root/examples/c/stub_driver.c" -ldl

# 3. The test binaries, packed.
bins="$work/$which-bins"
rm -rf "$bins"
mkdir -p "$bins/bin"
(cd "$tree/candle-core" &&
    CUDA_COMPUTE_CAP=90 \
    RUSTFLAGS="-L native=$libs -C link-arg=-Wl,--unresolved-symbols=ignore-in-object-files" \
    CARGO_TARGET_DIR="$root/target/candle" \
    cargo test --features cuda --no-run --message-format=json 2>/dev/null) |
    python3 -c "
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get('reason') == 'compiler-artifact' and m.get('executable') and m['target']['kind'] == ['test']:
        print(m['target']['name'], m['executable'])
" | while read -r name exe; do
    case "$name" in cutile_tests | metal_concurrent_tests) continue ;; esac
    strip -o "$bins/bin/$name" "$exe"
done
cp -r "$tree/candle-core/tests" "$bins/tests"
mkdir -p "$root/.device/candle"
tar cf - -C "$bins" bin tests | xz -T1 --lzma2=preset=6,dict=256MiB >"$root/.device/candle/$which.tar.xz"
ls -la "$root/.device/candle/$which.tar.xz"

#!/usr/bin/env bash
# candle-core 0.11.1's own test suite with the `cuda` feature, built on a machine without a GPU
# for the GPU machine, from the registry's sources as they are (`original`) or with cuda-kernel
# (`port`: issue 47, candle on cuda-kernel), so that both suites run in one device call.
#
#   tests/downstream/candle/build-tests.sh [original|port|check] [WORK]   (default: original,
#   target/candle-work; `check` only checks the port tree, as CI does)
#
# 1. candle-core and candle-kernels 0.11.1 as cargo downloads them from crates.io, copied to
#    WORK/$which, candle-core pointed at that candle-kernels by path. `port` applies
#    port/candle.patch (every launch of candle-core typed; candle-kernels' PTX and declarations
#    through cuda_kernel_build), lays port/candle-kernels/ptx (the committed PTX and
#    declarations) over the tree, and adds this checkout's cuda-kernel to both manifests by
#    path (`cuda` turns it on in candle-core).
# 2. candle turns on cudarc's `dynamic-linking` (libcuda, cublas, cublasLt, curand, nvrtc), so
#    its tests link those libraries: NVIDIA's PyPI wheels give cublas and curand, the nvcc
#    folder (scripts/install-nvcc.sh) cudart and nvrtc, and the stub driver of examples/c stands
#    for `libcuda.so` (an empty library would be dropped from the binaries' needs); the
#    driver's other symbols are resolved when the binaries run on the GPU machine.
# 3. `cargo test --features cuda --no-run` (CUDA_COMPUTE_CAP=90: candle-kernels' build asks
#    nvidia-smi otherwise), and the launch-bound benchmark of bench/ as an example in release,
#    every binary stripped and packed with the tests' data into .device/candle/$which.tar.xz
#    (about 18 MB).
# On the GPU machine: tar xJf .device/candle/$which.tar.xz -C DIR, then each DIR/bin/* with
# LD_LIBRARY_PATH=/usr/local/cuda/lib64, from DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
which=${1:-original}
work=${2:-$root/target/candle-work}
check=
case "$which" in
original | port) ;;
check) which=port check=1 ;;
*) echo "usage: $0 [original|port|check] [WORK]" >&2; exit 2 ;;
esac
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
cp -rp "$(src_of candle-core)" "$tree/candle-core"
cp -rp "$(src_of candle-kernels)" "$tree/candle-kernels"
python3 - "$tree/candle-core/Cargo.toml" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
text = text.replace('[dependencies.candle-kernels]\nversion = "0.11.1"\n',
                    '[dependencies.candle-kernels]\nversion = "0.11.1"\npath = "../candle-kernels"\n', 1)
# The launch-bound benchmark (bench/launch_bound.rs), an example of both trees.
text += '\n[[example]]\nname = "launch_bound"\npath = "examples/launch_bound.rs"\nrequired-features = ["cuda"]\n'
open(path, "w").write(text + "\n[workspace]\n")
PY
cp "$root/tests/downstream/candle/bench/launch_bound.rs" "$tree/candle-core/examples/"
if [ "$which" = port ]; then
    patch -s -p1 -d "$tree" <"$root/tests/downstream/candle/port/candle.patch"
    cp -r "$root/tests/downstream/candle/port/candle-kernels/." "$tree/candle-kernels/"
    python3 - "$tree" "$root" <<'PY'
import sys
tree, root = sys.argv[1], sys.argv[2]
path = f"{tree}/candle-core/Cargo.toml"
text = open(path).read()
feature = 'cuda = [\n    "cudarc",\n    "dep:candle-kernels",\n]'
assert feature in text, "candle-core's cuda feature is not as 0.11.1 has it"
text = text.replace(feature, feature[:-2] + '\n    "dep:cuda-kernel",\n]')
text = text.replace("\n[workspace]\n", f'\n[dependencies.cuda-kernel]\npath = "{root}/cuda-kernel"\noptional = true\n\n[workspace]\n')
open(path, "w").write(text)
path = f"{tree}/candle-kernels/Cargo.toml"
text = open(path).read()
text += f'\n[dependencies.cuda-kernel]\npath = "{root}/cuda-kernel"\n'
text += f'\n[build-dependencies.cuda-kernel-build]\npath = "{root}/cuda-kernel-build"\n'
open(path, "w").write(text)
PY
fi

# `check` (CI's): the port tree compiles, lib, tests and examples, and candle-kernels' committed
# PTX and declarations are current (CI=true makes a difference an error).
if [ -n "$check" ]; then
    # 80: the committed PTX's architecture, which cudaforge's build of the static library
    # would otherwise ask nvidia-smi for.
    cd "$tree/candle-core"
    CUDA_COMPUTE_CAP=80 exec cargo check --features cuda --tests --examples
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
(cd "$tree/candle-core" &&
    CUDA_COMPUTE_CAP=90 \
    RUSTFLAGS="-L native=$libs -C link-arg=-Wl,--unresolved-symbols=ignore-in-object-files" \
    CARGO_TARGET_DIR="$root/target/candle" \
    cargo build --release --features cuda --example launch_bound --quiet)
strip -o "$bins/bin/launch_bound" "$root/target/candle/release/examples/launch_bound"
cp -r "$tree/candle-core/tests" "$bins/tests"
mkdir -p "$root/.device/candle"
tar cf - -C "$bins" bin tests | xz -T1 --lzma2=preset=6,dict=256MiB >"$root/.device/candle/$which.tar.xz"
ls -la "$root/.device/candle/$which.tar.xz"

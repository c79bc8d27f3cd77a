#!/usr/bin/env bash
# candle-core 0.11.1's own test suite with the `cuda` feature, built on a machine without a GPU
# for the GPU machine, from the registry's sources as they are (`original`) or with cuda-kernel
# (`port`: issue 47, candle on cuda-kernel), so that both suites run in one device call.
#
#   tests/downstream/candle/build-tests.sh [original|port|check] [WORK]   (default: original,
#   target/candle-work; `check` only checks the port tree and the public API, as CI does)
#
# 1. candle-core and candle-kernels 0.11.1 as cargo downloads them from crates.io, copied to
#    WORK/$which, candle-core pointed at that candle-kernels by path. `port` applies
#    port/patches/*.patch in order (01: candle-kernels' PTX, declarations and MoE/MMQ library
#    through cuda_kernel_build, cudaforge gone; 02: every launch of candle-core typed), lays
#    port/candle-kernels/ptx (the committed PTX and declarations) over the tree, and in the
#    manifests adds this checkout's cuda-kernel by path (`cuda` turns it on in candle-core) and
#    drops cudaforge.
# 2. candle turns on cudarc's `dynamic-linking` (libcuda, cublas, cublasLt, curand, nvrtc), so
#    its tests link those libraries: NVIDIA's PyPI wheels give cublas and curand, the nvcc
#    folder (scripts/install-nvcc.sh) cudart and nvrtc, and the stub driver of examples/c stands
#    for `libcuda.so` (an empty library would be dropped from the binaries' needs); the
#    driver's other symbols are resolved when the binaries run on the GPU machine.
# 3. `cargo test --features cuda --no-run`, debug (bin/) and release (bin-release/)
#    (CUDA_COMPUTE_CAP=90: candle-kernels' build asks nvidia-smi otherwise), the launch-bound
#    benchmark of bench/ as an example in release, and bench/llama_e2e.rs (a candle-transformers
#    Llama over crates.io's candle-nn and candle-transformers 0.11.1, the tree's candle-core
#    patched in) in release, every binary stripped and packed with the tests' data into
#    .device/candle/$which-{bench,debug1,debug2,release}.tar.xz.
# 4. api-check/ (a crate on candle-core's public CUDA API as 0.11.1 has it) checked against the
#    tree: a bound added to a public trait or a variant to a public enum fails it.
# On the GPU machine: run-on-gpu.sh, with the archives of a call in .device/candle.
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
    for part in "$root"/tests/downstream/candle/port/patches/*.patch; do
        patch -s -p1 -d "$tree" <"$part"
    done
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
forge = '[build-dependencies.cudaforge]\nversion = "0.1.2"\n'
assert forge in text, "candle-kernels' build-dependency on cudaforge is not as 0.11.1 has it"
text = text.replace(forge, "")
text += f'\n[dependencies.cuda-kernel]\npath = "{root}/cuda-kernel"\n'
text += f'\n[build-dependencies.cuda-kernel-build]\npath = "{root}/cuda-kernel-build"\n'
open(path, "w").write(text)
PY
fi

# A crate on candle-core's public API, checked against the tree (step 4), in the target folder
# and environment the tree was built with (`$@`: `env` assignments), so that candle-kernels'
# build is the one already made.
api_check() {
    local api="$work/$which-api"
    rm -rf "$api" && mkdir -p "$api"
    cp -r "$root/tests/downstream/candle/api-check/src" "$api/"
    printf '[package]\nname = "candle-api-check"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[dependencies]\ncandle-core = { path = "%s", features = ["cuda"] }\n[workspace]\n' \
        "$tree/candle-core" >"$api/Cargo.toml"
    (cd "$api" && env "$@" cargo check --quiet)
    echo "candle-core's public API as 0.11.1 has it: api-check compiles against the $which tree"
}

# `check` (CI's): the port tree compiles, lib, tests and examples, with the architecture the
# build step chooses on a machine without a GPU (8.0, the committed files'), so that
# candle-kernels' committed PTX and declarations are compared and must be current (CI=true
# makes a difference an error); then the public API.
if [ -n "$check" ]; then
    target="${CARGO_TARGET_DIR:-$tree/candle-core/target}"
    (cd "$tree/candle-core" &&
        env -u CUDA_COMPUTE_CAP CARGO_TARGET_DIR="$target" cargo check --features cuda --tests --examples)
    api_check -u CUDA_COMPUTE_CAP CARGO_TARGET_DIR="$target"
    exit 0
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

# 3. The test binaries, packed. Every build of the tree in one target folder and environment
# (90: candle-kernels' build would ask nvidia-smi otherwise).
build_env=(CUDA_COMPUTE_CAP=90
    RUSTFLAGS="-L native=$libs -C link-arg=-Wl,--unresolved-symbols=ignore-in-object-files"
    CARGO_TARGET_DIR="$root/target/candle")
bins="$work/$which-bins"
rm -rf "$bins"
mkdir -p "$bins/bin" "$bins/bin-release"
# candle-core's test binaries of a profile (`$1`: `--release` or nothing) into `$2`: its tests/
# and its library's unit tests (`candle_core`, the quantized launches' CUDA tests among them).
tests_into() {
    (cd "$tree/candle-core" &&
        env "${build_env[@]}" cargo test $1 --features cuda --no-run --message-format=json 2>/dev/null) |
        python3 -c "
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    kind, test = m.get('target', {}).get('kind'), m.get('profile', {}).get('test')
    if m.get('reason') == 'compiler-artifact' and m.get('executable') and (kind == ['test'] or (test and 'lib' in kind)):
        print(m['target']['name'], m['executable'])
" | while read -r name exe; do
        case "$name" in cutile_tests | metal_concurrent_tests) continue ;; esac
        strip -o "$2/$name" "$exe"
    done
}
tests_into "" "$bins/bin"
tests_into --release "$bins/bin-release"
(cd "$tree/candle-core" &&
    env "${build_env[@]}" cargo build --release --features cuda --example launch_bound --quiet)
strip -o "$bins/bin/launch_bound" "$root/target/candle/release/examples/launch_bound"
# The model, over crates.io's candle-nn and candle-transformers with the tree's candle-core.
model="$work/$which-model"
rm -rf "$model" && mkdir -p "$model/src"
cp "$root/tests/downstream/candle/bench/llama_e2e.rs" "$model/src/main.rs"
printf '[package]\nname = "llama-e2e"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[dependencies]\ncandle-core = { version = "=0.11.1", features = ["cuda"] }\ncandle-nn = { version = "=0.11.1", features = ["cuda"] }\ncandle-transformers = { version = "=0.11.1", features = ["cuda"] }\n[patch.crates-io]\ncandle-core = { path = "%s" }\ncandle-kernels = { path = "%s" }\n[workspace]\n' \
    "$tree/candle-core" "$tree/candle-kernels" >"$model/Cargo.toml"
(cd "$model" && env "${build_env[@]}" cargo build --release --quiet)
strip -o "$bins/bin/llama_e2e" "$root/target/candle/release/llama-e2e"
api_check "${build_env[@]}"
cp -r "$tree/candle-core/tests" "$bins/tests"
# Archives of 10 to 30 MB, since a device call carries at most 64 MiB with the checkout:
# `$which-bench` (the benchmark and the Llama, release), `$which-debug1` and `-debug2` (the debug
# suites, halved), `$which-release` (the release suites). Calls as they ran (docs/gpu-results.md):
# both trees' bench; original's debug and release; port's debug1 and debug2; port's release.
mkdir -p "$root/.device/candle"
rm -f "$root/.device/candle/$which"*.tar.xz
pack() {
    local name=$1
    shift
    tar cf - -C "$bins" "$@" | xz -T2 --lzma2=preset=6,dict=256MiB >"$root/.device/candle/$which-$name.tar.xz"
}
mapfile -t suites < <(cd "$bins" && ls bin | grep -v -e '^launch_bound$' -e '^llama_e2e$' | sed 's|^|bin/|')
half=$(((${#suites[@]} + 1) / 2))
pack bench bin/launch_bound bin/llama_e2e
pack debug1 tests "${suites[@]:0:half}"
pack debug2 tests "${suites[@]:half}"
pack release tests bin-release
ls -la "$root/.device/candle/$which"-*.tar.xz

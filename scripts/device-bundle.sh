#!/usr/bin/env bash
# Builds everything the GPU machine runs (it has no Rust toolchain) into .device/: the release
# test binaries that hold GPU tests, the examples, and the scripts. Then, with the device tool:
#   run  command: bash .device/scripts/device-run.sh   carry: [".device"]
# Results come back under $OUT (see device-run.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rm -rf .device
mkdir -p .device/tests .device/examples .device/scripts
cargo build --release --examples
for example in examples/*.rs; do
    name=$(basename "$example" .rs)
    cp "target/release/examples/$name" .device/examples/
done
# The launch overhead without the launch log and verify mode compiled in, and with NVTX ranges
# (separate target dirs, so the default build above is left as it is).
cargo build --release --quiet --example launch_overhead --no-default-features --target-dir target/no-diagnostics
cp target/no-diagnostics/release/examples/launch_overhead .device/examples/launch_overhead-no-diagnostics
cargo build --release --quiet --example launch_overhead --features nvtx --target-dir target/nvtx
cp target/nvtx/release/examples/launch_overhead .device/examples/launch_overhead-nvtx
cargo build --release --quiet --example vector_add --features nvtx --target-dir target/nvtx
cp target/nvtx/release/examples/vector_add .device/examples/vector_add-nvtx
# NVTX 3's shared library (CUDA 13 toolkits ship no libnvToolsExt), from the nvidia-nvtx wheel,
# where pip can fetch it: what the nvtx feature loads for Nsight Systems to see ranges.
mkdir -p .device/lib
if [ ! -f target/nvtx/libnvtx3interop.so.1 ]; then
    pip download --quiet --no-deps nvidia-nvtx-cu12==12.9.79 -d target/nvtx/wheel >/dev/null 2>&1 &&
        python3 -c 'import glob, zipfile; z = zipfile.ZipFile(glob.glob("target/nvtx/wheel/*.whl")[0]); open("target/nvtx/libnvtx3interop.so.1", "wb").write(z.read("nvidia/nvtx/lib/libnvtx3interop.so.1"))' ||
        echo "no libnvtx3interop (pip could not fetch nvidia-nvtx-cu12): the nvtx check will find no library"
fi
cp target/nvtx/libnvtx3interop.so.1 .device/lib/ 2>/dev/null || true
# Test binaries of the root package's tests/ that hold GPU tests.
cargo test --release --no-run --message-format=json --test gpu --test loading --test generics --test paths --test conformance --test launch --test nvrtc --test plans --test multi_gpu --test context --test diagnostics --test fault --test contracts --test completion --test tma --test untyped --test attributes 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' |
    while read -r exe; do
        cp "$exe" ".device/tests/$(basename "$exe" | sed 's/-[0-9a-f]*$//')"
    done
# The strided-tensor backend's GPU tests and its dispatch benchmark (examples/tensor).
cargo test --release --no-run --message-format=json -p tensor-backend --test gpu 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' |
    while read -r exe; do cp "$exe" .device/tests/tensor-gpu; done
cargo build --release --quiet -p tensor-backend --example dispatch
cp target/release/examples/dispatch .device/examples/
cargo build --release --quiet --manifest-path tests/downstream/quickstart/Cargo.toml --target-dir target/downstream
cp target/downstream/release/quickstart .device/examples/
cargo build --release --quiet --manifest-path tests/downstream/two-crates/Cargo.toml --target-dir target/downstream
cp target/downstream/release/app .device/examples/two-crates-app
cargo build --release --quiet --manifest-path tests/downstream/cudaforge/Cargo.toml --target-dir target/downstream
cp target/downstream/release/on-cudaforge .device/examples/
cargo build --release --quiet --manifest-path tests/downstream/generated/Cargo.toml --target-dir target/downstream
cp target/downstream/release/generated .device/examples/
cp scripts/device-run.sh scripts/device-probe.sh .device/scripts/
ls -la .device/tests .device/examples
du -sh .device

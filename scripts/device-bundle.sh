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
# Test binaries of the root package's tests/ that hold GPU tests.
cargo test --release --no-run --message-format=json --test gpu --test loading --test generics --test paths --test conformance --test launch --test nvrtc --test plans --test multi_gpu --test context 2>/dev/null |
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
cp scripts/device-run.sh scripts/device-probe.sh .device/scripts/
ls -la .device/tests .device/examples
du -sh .device

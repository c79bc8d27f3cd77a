#!/usr/bin/env bash
# The host's cost of cuda-kernel's launch path, on a machine without a GPU: builds
# examples/c/stub_driver.c as a libcuda.so whose launch only counts, runs the launch_path example
# against it (typed launch vs raw cuLaunchKernel, paired rounds, ns a launch), and, where valgrind
# is installed, counts the instructions of one launch each way with callgrind (the run of N and
# of 2N launches subtracted, so setup and loading drop out).
#
# usage: scripts/launch-path.sh
#   LAUNCH_PATH_EXAMPLE=path  a launch_path binary built already (the GPU machine, which has no
#                             cargo: scripts/device-run.sh); built here with cargo otherwise
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
example=${LAUNCH_PATH_EXAMPLE:-}
if [ -z "$example" ]; then
    (cd "$root" && cargo build -q --release --example launch_path)
    example="$target/release/examples/launch_path"
    stub="$target/stub-driver"
else
    stub="$(dirname "$example")/stub-driver"
fi
mkdir -p "$stub"
gcc -O2 -Wall -shared -fPIC -o "$stub/libcuda.so.1" "$root/examples/c/stub_driver.c" -ldl
# cudarc opens libcuda.so first, cuda-kernel's probe libcuda.so.1: both must be the stub.
ln -sf libcuda.so.1 "$stub/libcuda.so"
export LD_LIBRARY_PATH="$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$example"
if ! command -v valgrind >/dev/null; then
    echo "(no valgrind: instruction counts skipped)"
    exit 0
fi
instructions() { # variant, launches
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$example" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
n=2000
echo "instructions a launch (callgrind, $n and $((2 * n)) launches subtracted):"
for variant in raw packed typed; do
    one=$(instructions "$variant" "$n")
    two=$(instructions "$variant" "$((2 * n))")
    echo "  $variant: $(((two - one) / n))"
done

#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over the bundle scripts/device-bundle.sh
# built. Writes logs to $OUT (or ./device-out).
set -uo pipefail
out=${OUT:-device-out}
mkdir -p "$out"
status=0
bash .device/scripts/device-probe.sh 2>&1 | tee "$out/probe.txt"
# A cubin for the test that loads compiled images (no PTX text at load time).
nvcc -cubin -arch=sm_90 -o .device/vector_add.cubin kernels/cuda/vector_add.cu || status=1
export CUDA_KERNEL_TEST_CUBIN=$PWD/.device/vector_add.cubin
for test in .device/bin/*; do
    name=$(basename "$test")
    case "$name" in vector_add) continue ;; esac
    echo "== $name --ignored"
    "$test" --ignored --test-threads=1 --nocapture 2>&1 | tee "$out/test-$name.txt" || status=1
done
echo "== example vector_add"
{ .device/bin/vector_add && .device/bin/vector_add 1000003 && .device/bin/vector_add 1; } 2>&1 | tee "$out/example-vector_add.txt" || status=1
exit $status

#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over the bundle scripts/device-bundle.sh
# built: the GPU tests, then the examples. Writes logs to $OUT (or ./device-out).
# usage: device-run.sh [tests|examples|all]   (default all)
set -uo pipefail
out=${OUT:-device-out}
what=${1:-all}
mkdir -p "$out"
status=0
# NVRTC for the run-time compilation tests: the toolkit's library folder.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bash .device/scripts/device-probe.sh 2>&1 | tee "$out/probe.txt"
if [ "$what" != examples ]; then
    # A cubin for the test that loads compiled images (no PTX text at load time).
    nvcc -cubin -arch=sm_90 -o .device/vector_add.cubin kernels/cuda/vector_add.cu || status=1
    export CUDA_KERNEL_TEST_CUBIN=$PWD/.device/vector_add.cubin
    for test in .device/tests/*; do
        name=$(basename "$test")
        echo "== $name --ignored"
        "$test" --ignored --test-threads=1 --nocapture 2>&1 | tee "$out/test-$name.txt" || status=1
    done
fi
if [ "$what" != tests ]; then
    {
        echo "== quickstart (README)"
        .device/examples/quickstart && echo "quickstart: ok"
        echo "== vector_add"
        .device/examples/vector_add && .device/examples/vector_add 1000003 && .device/examples/vector_add 1
        echo "== bandwidth"
        .device/examples/bandwidth
        echo "== launch_overhead"
        .device/examples/launch_overhead
        echo "== runtime_memory (a typed launch on cudaMalloc memory)"
        .device/examples/runtime_memory
        echo "== dispatch (the tensor backend against launch_builder and raw)"
        .device/examples/dispatch
        echo "== multi_gpu (one process, every GPU)"
        .device/examples/multi_gpu
        echo "== multi_gpu --processes (one process per GPU)"
        .device/examples/multi_gpu --processes
        echo "== launch_floor (C, the driver's floor, same run)"
        nvcc -O2 -o .device/launch_floor examples/c/launch_floor.c -lcuda &&
            .device/launch_floor kernels/ptx/vector_add.ptx kernels/ptx/plans.ptx
    } 2>&1 | tee "$out/examples.txt" || status=1
fi
exit $status

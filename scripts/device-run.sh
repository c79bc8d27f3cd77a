#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over the bundle scripts/device-bundle.sh
# built: the GPU tests, then the examples. Writes logs to $OUT (or ./device-out).
# usage: device-run.sh [tests|examples|sanitize|contracts|nvtx|overhead|attributes|all]   (default all:
#   tests and examples)
#   sanitize: every GPU test binary under compute-sanitizer (memcheck; racecheck too for the
#   suites whose kernels use shared memory); the `fault` binary is expected to fault, and its
#   memcheck report must name the same kernel as the verify mode's error.
set -uo pipefail
out=${OUT:-device-out}
what=${1:-all}
mkdir -p "$out"
status=0
# NVRTC for the run-time compilation tests: the toolkit's library folder.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bash .device/scripts/device-probe.sh 2>&1 | tee "$out/probe.txt"
if [ "$what" = nvtx ]; then
    # The nvtx feature seen by a profiler: Nsight Compute profiles only kernels launched inside
    # an NVTX range named `vector_add` (--nvtx-include), so a profiled kernel shows the range;
    # the build without the feature is the control, where no kernel may be profiled.
    export PATH=/usr/local/cuda/bin:$PATH
    ncu=$(command -v ncu || ls /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
    if [ -z "$ncu" ]; then echo "no ncu on this machine"; exit 1; fi
    for build in vector_add-nvtx vector_add; do
        echo "== $build under ncu --nvtx --nvtx-include vector_add/"
        LD_LIBRARY_PATH=$PWD/.device/lib:$LD_LIBRARY_PATH "$ncu" --nvtx --nvtx-include "vector_add/" \
            -c 1 --metrics gpu__time_duration.sum ".device/examples/$build" 1000 2>&1 |
            grep -E "vector_add\(|No kernels were profiled|gpu__time_duration|NVTX|==PROF==|==ERROR==" | head -8
    done
    exit 0
fi
# The launch path's host cost: examples/launch_path.rs against the real driver, then against
# examples/c/stub_driver.c (a libcuda.so whose launch only counts) through scripts/launch-path.sh,
# which builds the stub with the host's gcc.
launch_path() {
    echo "== launch_path (typed vs raw cuLaunchKernel, paired rounds)"
    .device/examples/launch_path
    echo "== launch_path against the stub driver (the path's own cost on this CPU)"
    LAUNCH_PATH_EXAMPLE=$PWD/.device/examples/launch_path bash scripts/launch-path.sh
}
if [ "$what" = overhead ]; then
    # Issue 22's goal, measured several ways in one run: the launch path, launch_overhead in its
    # three builds, the tensor backend's dispatch.
    {
        launch_path
        .device/examples/launch_path | tail -3
        for build in launch_overhead launch_overhead-no-diagnostics launch_overhead-nvtx; do
            echo "== $build"
            ".device/examples/$build"
        done
        echo "== dispatch"
        .device/examples/dispatch
    } 2>&1 | tee "$out/overhead.txt" || status=1
    exit $status
fi
# The device-updatable node test's kernels call the device runtime: a linked cubin, built here.
device_update_cubin() {
    PATH=/usr/local/cuda/bin:$PATH nvcc -arch=sm_90 -rdc=true -cubin -o .device/device_update_rel.cubin \
        kernels/cuda-rdc/device_update.cu &&
        PATH=/usr/local/cuda/bin:$PATH nvlink -arch=sm_90 .device/device_update_rel.cubin \
            -L/usr/local/cuda/lib64 -lcudadevrt -o .device/device_update.cubin || status=1
    export CUDA_KERNEL_TEST_DEVICE_UPDATE_CUBIN=$PWD/.device/device_update.cubin
}
if [ "$what" = attributes ]; then
    device_update_cubin
    # Launch attributes: their GPU tests, the persisting L2 window against none, and the launch
    # overhead without attributes (issue 49's bar: at most 1.02x a raw cuLaunchKernel).
    {
        echo "== attributes --ignored"
        .device/tests/attributes --ignored --test-threads=1 --nocapture
        echo "== l2_window"
        .device/examples/l2_window
        echo "== launch_overhead"
        .device/examples/launch_overhead
        launch_path
    } 2>&1 | tee "$out/attributes.txt" || status=1
    exit $status
fi
if [ "$what" = contracts ]; then
    # Contracts: the GPU tests, the same under memcheck (a launch a contract admits must stay
    # inside its memory), and the launch overhead with and without a contract.
    export PATH=/usr/local/cuda/bin:$PATH
    .device/tests/contracts --ignored --test-threads=1 2>&1 | tee "$out/test-contracts.txt" || status=1
    compute-sanitizer --tool memcheck .device/tests/contracts --ignored --test-threads=1 \
        >"$out/sanitize-contracts-memcheck.txt" 2>&1 || status=1
    grep -E "ERROR SUMMARY|test result" "$out/sanitize-contracts-memcheck.txt"
    compute-sanitizer --tool racecheck .device/tests/contracts --ignored --test-threads=1 \
        >"$out/sanitize-contracts-racecheck.txt" 2>&1 || status=1
    grep -E "RACECHECK SUMMARY|test result" "$out/sanitize-contracts-racecheck.txt"
    if [ -x .device/examples/contract_overhead ]; then
        .device/examples/contract_overhead 2>&1 | tee "$out/contract-overhead.txt"
        # The example's launches under memcheck too (one round).
        compute-sanitizer --tool memcheck .device/examples/contract_overhead 1 \
            >"$out/sanitize-contract_overhead-memcheck.txt" 2>&1 || status=1
        grep -E "ERROR SUMMARY" "$out/sanitize-contract_overhead-memcheck.txt"
    fi
    exit $status
fi
if [ "$what" = sanitize ]; then
    export PATH=/usr/local/cuda/bin:$PATH
    nvcc -cubin -arch=sm_90 -o .device/vector_add.cubin kernels/cuda/vector_add.cu || status=1
    export CUDA_KERNEL_TEST_CUBIN=$PWD/.device/vector_add.cubin
    device_update_cubin
    # Tests that provoke driver errors on purpose (bad PTX, a missing kernel or global, a
    # kernel that faults): memcheck reports those calls, as it would in any program. They run
    # apart ("provoked"); every other test must leave an ERROR SUMMARY of 0.
    provoked="a_refused_ptx_carries_the_jits_reason template_reduction_instances_sum_by_type
        device_globals_are_written_read_and_seen_by_kernels driver_errors_name_the_call_and_the_code
        wrong_declarations_are_refused_at_load library_declarations_are_checked_once_and_limits_per_device
        faults_surface_at_the_next_synchronization_and_poison_the_context fault_child
        a_member_the_ptx_lacks_is_an_error_listing_the_members_there_are
        a_kernel_that_faults_is_named_with_its_line_by_the_verify_mode
        template_values_of_unsigned_size_t_long_and_char_launch
        a_template_instance_the_ptx_lacks_is_refused_at_load
        a_device_function_the_ptx_has_no_instance_for_is_refused_at_load
        a_faulting_kernel_is_named_through_await
        a_plan_records_nvlink_centric_and_preferred_cluster_launches"
    skips=""
    for t in $provoked; do skips="$skips --skip $t"; done
    for test in .device/tests/*; do
        name=$(basename "$test")
        echo "== $name under memcheck, the tests that provoke errors on purpose skipped"
        # shellcheck disable=SC2086
        compute-sanitizer --tool memcheck "$test" --ignored --test-threads=1 $skips \
            >"$out/sanitize-$name-clean.txt" 2>&1
        grep -E "ERROR SUMMARY|test result" "$out/sanitize-$name-clean.txt"
    done
    [ "${SANITIZE_CLEAN_ONLY:-}" = 1 ] && exit $status
    for test in .device/tests/*; do
        name=$(basename "$test")
        tools="memcheck"
        case "$name" in gpu|tensor-gpu|plans|launch) tools="memcheck racecheck" ;; esac
        for tool in $tools; do
            echo "== $name under $tool"
            compute-sanitizer --tool "$tool" "$test" --ignored --test-threads=1 --nocapture \
                >"$out/sanitize-$name-$tool.txt" 2>&1
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$out/sanitize-$name-$tool.txt"
            # What each reported error was, and in which test (tests that provoke errors on
            # purpose show them here).
            grep -oE "^test [a-z_0-9]+ |Program hit [A-Z_]+ .*API call to [A-Za-z_0-9]+|Invalid __global__ [a-z]+ of size [0-9]+ bytes" \
                "$out/sanitize-$name-$tool.txt" | awk '/^test /{t=$2; next} {print "   " t ": " $0}' | sort | uniq -c
        done
    done
    echo "== the faulting kernel, as memcheck names it"
    grep -E "Invalid __global__ write|^=========     at " "$out/sanitize-fault-memcheck.txt" | head -4
    grep -E "launched at" "$out/sanitize-fault-memcheck.txt" | head -2
    exit $status
fi
if [ "$what" != examples ]; then
    # A cubin for the test that loads compiled images (no PTX text at load time).
    nvcc -cubin -arch=sm_90 -o .device/vector_add.cubin kernels/cuda/vector_add.cu || status=1
    export CUDA_KERNEL_TEST_CUBIN=$PWD/.device/vector_add.cubin
    device_update_cubin
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
        echo "== two-crates (kernels built by one crate, launched and checked by another)"
        .device/examples/two-crates-app
        echo "== on-cudaforge (kernels built by cudaforge, checked by cuda-kernel)"
        .device/examples/on-cudaforge
        echo "== generated (declarations generated from candle's fill.cu and llm.c's kernels)"
        .device/examples/generated --gpu
        echo "== vector_add"
        .device/examples/vector_add && .device/examples/vector_add 1000003 && .device/examples/vector_add 1
        echo "== bandwidth"
        .device/examples/bandwidth
        echo "== tma_copy (a TMA tiled copy against cuMemcpyDtoD; launches with a descriptor)"
        .device/examples/tma_copy
        echo "== launch_overhead"
        .device/examples/launch_overhead
        launch_path
        echo "== launch_overhead, without the diagnostics feature (launch log, verify mode)"
        .device/examples/launch_overhead-no-diagnostics
        echo "== launch_overhead, with the nvtx feature and no profiler attached"
        .device/examples/launch_overhead-nvtx
        echo "== contract_overhead (a 3-condition contract against the same launch without)"
        .device/examples/contract_overhead
        echo "== runtime_memory (a typed launch on cudaMalloc memory)"
        .device/examples/runtime_memory
        echo "== dispatch (the tensor backend against launch_builder and raw)"
        .device/examples/dispatch
        echo "== async_service (completions as futures against spawn_blocking and a thread pool)"
        .device/examples/async_service
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

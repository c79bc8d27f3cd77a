#!/usr/bin/env bash
# On the GPU machine, from the repository root: both trees' candle-core test suites, the
# launch-bound benchmark and the Llama end to end (bench/llama_e2e.rs), and memcheck, from
# whichever of the archives build-tests.sh packs into .device/candle/ the call carries (at most
# 64 MiB a call: the two trees' -bench archives together, each tree's suites apart). Writes $OUT/candle-summary.txt (each binary's result line and any
# failure, the benchmarks' lines, memcheck's verdicts) and $OUT/candle-logs.tar.xz (every log).
set -uo pipefail
out=${OUT:-/tmp/candle-out}
mkdir -p "$out/logs"
summary="$out/candle-summary.txt"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
cd .device/candle
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    for tree in original port; do
        # Whichever of the tree's archives this call carries (bench, debug1, debug2: bin/;
        # release: bin-release/).
        rm -rf "$tree" && mkdir "$tree"
        for archive in "$tree"-*.tar.xz; do
            [ -e "$archive" ] && tar xJf "$archive" -C "$tree"
        done
        for bin in "$tree"/bin/* "$tree"/bin-release/*; do
            [ -e "$bin" ] || continue
            name=$(basename "$bin")
            profile=$(basename "$(dirname "$bin")")
            case "$name" in launch_bound | llama_e2e) continue ;; esac
            log="$out/logs/$tree-$profile-$name.log"
            (cd "$tree" && "./$profile/$name" --test-threads=4) >"$log" 2>&1
            echo "$tree $profile $name rc=$? $(grep -E '^test result' "$log" | tail -1)"
            grep -E '^test .* FAILED$|panicked' "$log" | head -20
        done
    done
    # The benchmarks, where both trees' -bench archives came.
    if [ -e original/bin/launch_bound ] && [ -e port/bin/launch_bound ]; then
        echo "launch-bound benchmark, alternating trees:"
        for round in 1 2 3; do
            for tree in original port; do
                "$tree/bin/launch_bound" "$tree" 2000 2>&1 | tail -1
            done
        done
        echo "Llama end to end (bench/llama_e2e.rs), alternating trees:"
        for round in 1 2 3; do
            for tree in original port; do
                "$tree/bin/llama_e2e" "$tree" 2>&1 | tail -3
            done
        done
        echo "compute-sanitizer memcheck:"
        for tree in original port; do
            compute-sanitizer --tool memcheck "$tree/bin/launch_bound" "$tree" 20 >"$out/logs/$tree-memcheck.log" 2>&1
            echo "$tree launch_bound rc=$? $(grep -E 'ERROR SUMMARY' "$out/logs/$tree-memcheck.log")"
            # The whole tensor suite under memcheck runs past 150 s (the tool JITs 11 MB of PTX):
            # only with CANDLE_MEMCHECK_TESTS=1.
            [ -n "${CANDLE_MEMCHECK_TESTS:-}" ] || continue
            (cd "$tree" && timeout 150 compute-sanitizer --tool memcheck ./bin/tensor_tests --test-threads=1) \
                >"$out/logs/$tree-memcheck-tensor.log" 2>&1
            echo "$tree tensor_tests rc=$? $(grep -E 'ERROR SUMMARY|^test result' "$out/logs/$tree-memcheck-tensor.log" | tr '\n' ' ')"
        done
    fi
} >"$summary" 2>&1
tar cJf "$out/candle-logs.tar.xz" -C "$out" logs && rm -rf "$out/logs"
cat "$summary"

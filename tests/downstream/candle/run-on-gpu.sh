#!/usr/bin/env bash
# On the GPU machine, from the repository root: both trees' candle-core test suites and the
# launch-bound benchmark, packed by build-tests.sh into .device/candle/{original,port}.tar.xz,
# in one call. Writes $OUT/candle-summary.txt (each binary's result line and any failure, the
# benchmark's lines, memcheck's verdicts) and $OUT/candle-logs.tar.xz (every log).
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
        rm -rf "$tree" && mkdir "$tree" && tar xJf "$tree.tar.xz" -C "$tree"
        for bin in "$tree"/bin/*; do
            name=$(basename "$bin")
            [ "$name" = launch_bound ] && continue
            (cd "$tree" && "./bin/$name" --test-threads=4) >"$out/logs/$tree-$name.log" 2>&1
            echo "$tree $name rc=$? $(grep -E '^test result' "$out/logs/$tree-$name.log" | tail -1)"
            grep -E '^test .* FAILED$|panicked' "$out/logs/$tree-$name.log" | head -20
        done
    done
    echo "launch-bound benchmark, alternating trees:"
    for round in 1 2 3; do
        for tree in original port; do
            "$tree/bin/launch_bound" "$tree" 2000 2>&1 | tail -1
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
} >"$summary" 2>&1
tar cJf "$out/candle-logs.tar.xz" -C "$out" logs && rm -rf "$out/logs"
cat "$summary"

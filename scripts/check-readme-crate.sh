#!/usr/bin/env bash
# Follows README.md's "Use it in your crate" as a new user does: a checkout of this repository
# as `cuda-kernel`, a new crate beside it whose Cargo.toml, cuda/scale.cu, build.rs and
# src/main.rs are the README's blocks, word for word; then
#   1. a first build without nvcc: fails, with the README's three lines first;
#   2. a first build with nvcc: writes ptx/scale.ptx and says so, once (the next builds do
#      not replay it);
#   3. a build without nvcc: uses the committed PTX, with no warning;
#   4. the program without a GPU: prints the README's one line.
# Step 2 needs nvcc (CI installs it); without it, steps 2 and 3 are reported as skipped.
# The crate's target folder is the downstream crates' (scripts/check-downstream.sh), so the
# dependencies are built once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}/downstream
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root" "$work/cuda-kernel"
crate="$work/my-crate"
mkdir -p "$crate/src" "$crate/cuda"
python3 - "$root/README.md" "$crate" <<'PY'
import sys
readme, crate = open(sys.argv[1]).read(), sys.argv[2]
section = readme[readme.index("## Use it in your crate"):]
def block(caption):
    rest = section[section.index(caption):]
    body = rest[rest.index("```"):]
    body = body[body.index("\n") + 1:]
    return body[:body.index("```")]
toml = section[section.index("```toml"):]
toml = toml[toml.index("\n") + 1:]
toml = toml[:toml.index("```")]
open(f"{crate}/Cargo.toml", "w").write(
    '[package]\nname = "my-crate"\nversion = "0.1.0"\nedition = "2024"\n\n' + toml)
for caption, path in [("`cuda/scale.cu`:", "cuda/scale.cu"), ("`build.rs`:", "build.rs"),
                      ("`src/main.rs`:", "src/main.rs")]:
    open(f"{crate}/{path}", "w").write(block(caption))
PY
# The quickstart crate's lock (written by scripts/check-downstream.sh): the same dependencies,
# so no registry lookup is needed.
lock="$root/tests/downstream/quickstart/Cargo.lock"
if [ -e "$lock" ]; then cp "$lock" "$crate/Cargo.lock"; fi
# A user's shell: not CI (which checks committed PTX instead of writing it).
unset CI CUDA_KERNEL_CHECK_PTX CUDA_KERNEL_WRITE_PTX
nvcc_path=$(command -v nvcc || true)
no_nvcc_path=$(tr ':' '\n' <<<"$PATH" | while read -r d; do
    [ -n "$d" ] && [ ! -x "$d/nvcc" ] && printf '%s:' "$d"; done)
without_nvcc() { (unset NVCC CUDA_HOME CUDA_PATH; PATH="$no_nvcc_path" "$@"); }
build() { cargo build --manifest-path "$crate/Cargo.toml" --target-dir "$target" 2>&1; }

echo "== 1. first build without nvcc"
if out=$(without_nvcc build); then echo "built without nvcc and without PTX"; exit 1; fi
first=$(grep -m1 '^error' <<<"$out")
grep -q "cannot compile .*scale.cu: nvcc was not found" <<<"$first" || { echo "$out"; exit 1; }
grep -q "a crate's first build needs nvcc" <<<"$out" || { echo "$out"; exit 1; }
grep -q "that build writes .*ptx/scale.ptx: commit it" <<<"$out" || { echo "$out"; exit 1; }
echo "$first"

if [ -n "$nvcc_path" ]; then
    echo "== 2. first build with nvcc ($nvcc_path)"
    out=$(build) || { echo "$out"; exit 1; }
    grep -q "warning: my-crate@0.1.0: wrote .*ptx/scale.ptx" <<<"$out" || { echo "$out"; exit 1; }
    grep "wrote" <<<"$out"
    [ -s "$crate/ptx/scale.ptx" ] || { echo "ptx/scale.ptx not written"; exit 1; }
    echo "== 2b. the next builds with nvcc: said once, not replayed"
    for i in 1 2; do
        out=$(build) || { echo "$out"; exit 1; }
        if grep -q "warning" <<<"$out"; then echo "warned again: $out"; exit 1; fi
    done
    echo "== 3. build without nvcc, from the committed PTX"
    touch "$crate/src/main.rs" "$crate/cuda/scale.cu"
    out=$(without_nvcc build) || { echo "$out"; exit 1; }
    if grep -q "warning" <<<"$out"; then echo "warned: $out"; exit 1; fi
    echo "== 4. the program without a GPU"
    if run=$("$target/debug/my-crate" 2>&1); then
        echo "(a CUDA driver is here: the program ran: $run)"
    else
        grep -q "^Error: no CUDA driver on this machine" <<<"$run" \
            || grep -q "CUDA_ERROR_NO_DEVICE" <<<"$run" || { echo "$run"; exit 1; }
        echo "$run"
    fi
else
    echo "== 2-4 skipped: no nvcc on PATH"
fi

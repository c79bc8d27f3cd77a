#!/usr/bin/env bash
# Installs NVIDIA's CUDA 13.0 compiler (nvcc, cicc, ptxas, headers) and NVRTC from PyPI wheels into
# a folder, on any x86-64 Linux machine, no GPU and no root needed. 13.0.x matches the GPU
# machine's driver (R580 = CUDA 13.0): PTX from a newer nvcc would not load there.
#
#   install-nvcc.sh [DIR]      (default: ~/.cache/cuda-kernel/cuda-13.0)   prints the bin folder to put on PATH
#
# .ci/run calls it; the folder is a cache: a second run finds nvcc there and downloads nothing.
#
# Then: export PATH="$DIR/nvidia/cu13/bin:$PATH"; nvcc -ptx -arch=compute_75 x.cu
# NVRTC's library is $DIR/nvidia/cu13/lib/libnvrtc.so.13 (add that folder to LD_LIBRARY_PATH).
set -euo pipefail
dir=${1:-$HOME/.cache/cuda-kernel/cuda-13.0}
bin="$dir/nvidia/cu13/bin"
if [ -x "$bin/nvcc" ] && "$bin/nvcc" --version >/dev/null 2>&1; then echo "$bin"; exit 0; fi
mkdir -p "$dir"
tmp=$(mktemp -d)
python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
    --python-version 3.12 -d "$tmp" \
    nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
    nvidia-cuda-runtime==13.0.88 nvidia-cuda-cccl==13.0.85 nvidia-cuda-nvrtc==13.0.88 >&2
for w in "$tmp"/*.whl; do python3 -m zipfile -e "$w" "$dir" >&2; done
chmod +x "$bin"/* "$dir"/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
rm -rf "$tmp"
"$bin/nvcc" --version >&2
echo "$bin"
